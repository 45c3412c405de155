/**
 * What the feed has seen, as plain integer fields incremented on the hot path (no Map, no
 * allocation). Status lines and tests read them; `snapshot()` copies them for logs.
 */

export class FeedCounters {
  framesReceived = 0;
  deltasApplied = 0;
  snapshotsApplied = 0;
  /** Deltas the book store refused (gap, out of sync, unknown market, ...). */
  deltasRefused = 0;
  /** Frames that were not JSON or had a bad field: logged and dropped. */
  malformedFrames = 0;
  /** Well-formed frames of a type the feed does not decode. */
  unknownTypes = 0;
  /** Data on a sid that a terminal error killed. */
  droppedDeadSid = 0;
  /** Data for markets the feed does not know. */
  unknownMarkets = 0;
  /** Exceptions thrown by listeners (caught, logged). */
  listenerErrors = 0;
  outOfSync = 0;
  seqGaps = 0;
  staleBooks = 0;
  resyncsRequested = 0;
  resyncsCompleted = 0;
  resubscribes = 0;
  /** Open connections lost (server close, network, dead path, or stop). */
  disconnects = 0;
  exchangeErrors = 0;

  snapshot(): Record<string, number> {
    return { ...(this as unknown as Record<string, number>) };
  }
}

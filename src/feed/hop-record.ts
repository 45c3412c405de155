/**
 * Per-hop timestamps of the frame being handled, for the tick-to-trade bench: when the frame
 * reached the feed, when it was decoded, when the book change was applied. One record, rewritten
 * for every frame (no allocation); a listener reads it synchronously inside onBookUpdate. Times
 * are telemetry's nowNs (performance.now() in ns): monotonic, comparable within the process only.
 */

export class HopRecord {
  /** Frame handed to the feed by the socket layer. */
  receivedNs = 0;
  /** Frame decoded into its record. */
  decodedNs = 0;
  /** Book change applied (0 for frames that touch no book). */
  appliedNs = 0;
  /** MessageKind of the frame. */
  kind = 0;
}

/**
 * Per-hop timestamps of the frame being handled, for the tick-to-trade bench: when the frame
 * reached the feed, when it was decoded, when the book change was applied. One record, rewritten
 * for every frame; a listener reads it synchronously inside onBookUpdate. Times are telemetry's
 * nowNs (performance.now() in ns): monotonic, comparable within the process only.
 *
 * `enabled` (default true) switches the stamps off: three clock reads per frame cost ~0.35 us on
 * Node 20, where performance.now() is not a fast call and returns a freshly boxed number each
 * time (the only allocation left on the delta -> book path there: bench/feed counts the
 * scavenges with and without); on Node 22/24 the reads are cheaper and allocate nothing.
 */

export class HopRecord {
  /** Take the timestamps; false leaves them 0. */
  enabled = true;
  /** Frame handed to the feed by the socket layer. */
  receivedNs = 0;
  /** Frame decoded into its record. */
  decodedNs = 0;
  /** Book change applied (0 for frames that touch no book). */
  appliedNs = 0;
  /** MessageKind of the frame. */
  kind = 0;
}

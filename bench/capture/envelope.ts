/**
 * The capture bench's frame checks, without JSON.parse: a frame's envelope (`sid`, `seq`, read
 * before `"msg"`) and its exchange time (`ts_ms`), scanned as bytes; a per-sid sequence tracker that
 * counts gaps; and a 1 ms lag histogram. The baseline client and the check of the capture's own
 * recording use the same code, so both count gaps and lag alike. Measures nothing by itself.
 *
 *   {"type":"orderbook_delta","sid":3,"seq":17,"msg":{... ,"ts_ms":1764330000123}}
 *             envelope: sid, seq before "msg"        exchange time: the last "ts_ms"
 */

const SID = Buffer.from('"sid":');
const SEQ = Buffer.from('"seq":');
const MSG = Buffer.from('"msg":');
const TS_MS = Buffer.from('"ts_ms":');
/** The envelope sits in a frame's first bytes: type, sid, seq come before msg. */
const ENVELOPE_BYTES = 96;
/** Lag histogram: 1 ms buckets up to 60 s (as the capture's quality report). */
const LAG_BUCKETS = 60_001;

/** The decimal integer at `at` (digits only); -1 when there is none. */
function integerAt(bytes: Uint8Array, at: number, end: number): number {
  let value = 0;
  let digits = 0;
  for (let i = at; i < end; i++) {
    const digit = bytes[i]! - 0x30;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
    digits++;
  }
  return digits === 0 ? -1 : value;
}

/** Filled by `scanEnvelope`: -1 where the frame has none. */
export interface Envelope {
  sid: number;
  seq: number;
  tsMs: number;
}

/**
 * Reads sid and seq (envelope only) and ts_ms of one frame into `out`. `frame` holds that frame
 * alone (a subarray of a larger buffer): a search that misses stops at its end.
 */
export function scanEnvelope(frame: Buffer, out: Envelope): void {
  out.sid = -1;
  out.seq = -1;
  out.tsMs = -1;
  const head = Math.min(frame.length, ENVELOPE_BYTES);
  const msgAt = frame.indexOf(MSG);
  const envelopeEnd = msgAt < 0 || msgAt > head ? head : msgAt;
  const sidAt = frame.indexOf(SID);
  const seqAt = frame.indexOf(SEQ);
  if (sidAt >= 0 && seqAt >= 0 && sidAt < envelopeEnd && seqAt < envelopeEnd) {
    out.sid = integerAt(frame, sidAt + SID.length, envelopeEnd);
    out.seq = integerAt(frame, seqAt + SEQ.length, envelopeEnd);
  }
  const tsAt = frame.lastIndexOf(TS_MS);
  if (tsAt >= 0) out.tsMs = integerAt(frame, tsAt + TS_MS.length, frame.length);
}

/** Sequence gaps per sid: a sequenced frame whose seq is not the last + 1 of its sid. */
export class SequenceGaps {
  readonly #last = new Map<number, number>();
  gaps = 0;
  sequenced = 0;

  offer(sid: number, seq: number): void {
    if (sid < 0 || seq < 0) return;
    this.sequenced++;
    const last = this.#last.get(sid);
    if (last !== undefined && seq !== last + 1) this.gaps++;
    this.#last.set(sid, seq);
  }
}

/** Receive time minus the exchange's ts_ms, 1 ms buckets (negative: clock skew, counted as 0). */
export class LagHistogram {
  readonly #buckets = new Uint32Array(LAG_BUCKETS);
  count = 0;

  record(lagMs: number): void {
    const bucket = lagMs < 0 ? 0 : lagMs >= LAG_BUCKETS ? LAG_BUCKETS - 1 : Math.round(lagMs);
    this.#buckets[bucket]++;
    this.count++;
  }

  /** The lag at quantile q (0..1), ms; -1 when empty. */
  quantile(q: number): number {
    if (this.count === 0) return -1;
    const rank = Math.ceil(q * this.count);
    let seen = 0;
    for (let ms = 0; ms < LAG_BUCKETS; ms++) {
      seen += this.#buckets[ms]!;
      if (seen >= rank) return ms;
    }
    return LAG_BUCKETS - 1;
  }
}

/**
 * The bench client's per-message work, the same for the simulator's WebSocket and the raw TCP
 * floor: count orderbook_delta messages, check `seq` per sid (a gap is any seq that is not the
 * last + 1), count error 25 (subscription buffer overflow), take the lag between a delta's `ts_ms`
 * and the wall clock at receipt (1 ms resolution), count deltas by the time the generator stamped
 * on them (its achieved rate, independent of how fast this client reads), optionally keep the
 * first texts (the floor replays the same bytes), and hand every delta to `onDelta` (the reaction
 * policy). Scans envelope text by index, never JSON.parse: at 100k messages/s the client must not
 * be the bottleneck it measures. It never writes to a socket.
 */

import { createHistogram, recordNs, type Histogram } from '../harness.ts';

const DELTA_PREFIX = '{"type":"orderbook_delta"';
const ERROR_PREFIX = '{"type":"error"';
const SID_KEY = '"sid":';
const SEQ_KEY = '"seq":';
const TS_MS_KEY = '"ts_ms":';
const OVERFLOW_CODE = '"code":25,';

/** Largest sid tracked (the bench opens one subscription). */
const SID_MAX = 255;

/** Reads the decimal digits at `from`; -1 when there are none. */
function digitsAt(text: string, from: number): number {
  let value = 0;
  let index = from;
  for (; index < text.length; index++) {
    const digit = text.charCodeAt(index) - 0x30;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  return index === from ? -1 : value;
}

export interface DeltaReaderOptions {
  /** Check seq per sid and take ts_ms lag (false for the floor's replayed bytes). */
  live: boolean;
  /** Keep up to this many texts (all message types) for the floor; 0 = none. */
  recordMax: number;
  /** Called for each orderbook_delta, with the text (the reaction reads the ticker from it). */
  onDelta: (text: string) => void;
}

export class DeltaReader {
  readonly #live: boolean;
  readonly #recordMax: number;
  readonly #onDelta: (text: string) => void;
  readonly #lastSeq = new Float64Array(SID_MAX + 1);
  readonly recorded: string[] = [];
  /** Messages of any type / deltas received since the last resetWindow. */
  messages = 0;
  deltas = 0;
  /** Since start (not reset by resetWindow): a break must never hide in a warm-up. */
  seqGaps = 0;
  overflowErrors = 0;
  otherErrors = 0;
  /** Deltas whose ts_ms lies in [generatedFromMs, generatedToMs). */
  generated = 0;
  generatedFromMs = Number.POSITIVE_INFINITY;
  generatedToMs = Number.POSITIVE_INFINITY;
  /** Newest ts_ms seen (-1 before the first delta). */
  newestTsMs = -1;
  lag: Histogram = createHistogram();

  constructor(options: DeltaReaderOptions) {
    this.#live = options.live;
    this.#recordMax = options.recordMax;
    this.#onDelta = options.onDelta;
  }

  /** Starts a measurement window: counters and the lag histogram restart. */
  resetWindow(): void {
    this.messages = 0;
    this.deltas = 0;
    this.generated = 0;
    this.lag.reset();
  }

  onText(text: string): void {
    this.messages++;
    if (this.recorded.length < this.#recordMax) this.recorded.push(text);
    const isDelta = text.startsWith(DELTA_PREFIX);
    if (!isDelta && text.startsWith(ERROR_PREFIX)) {
      if (text.includes(OVERFLOW_CODE)) this.overflowErrors++;
      else this.otherErrors++;
    }
    if (this.#live) this.#checkSeq(text);
    if (!isDelta) return;
    this.deltas++;
    if (this.#live) {
      const at = text.lastIndexOf(TS_MS_KEY);
      const tsMs = at < 0 ? -1 : digitsAt(text, at + TS_MS_KEY.length);
      if (tsMs >= 0) {
        recordNs(this.lag, (Date.now() - tsMs) * 1e6);
        if (tsMs > this.newestTsMs) this.newestTsMs = tsMs;
        if (tsMs >= this.generatedFromMs && tsMs < this.generatedToMs) this.generated++;
      }
    }
    this.#onDelta(text);
  }

  /** The envelope is `{"type":..,"sid":N,"seq":M,"msg":..}`: its first sid/seq keys are the envelope's. */
  #checkSeq(text: string): void {
    const seqAt = text.indexOf(SEQ_KEY);
    if (seqAt < 0 || seqAt > 64) return; // unsequenced type (subscribed, ticker...)
    const sidAt = text.indexOf(SID_KEY);
    if (sidAt < 0 || sidAt > seqAt) return;
    const sid = digitsAt(text, sidAt + SID_KEY.length);
    const seq = digitsAt(text, seqAt + SEQ_KEY.length);
    if (sid < 0 || sid > SID_MAX || seq < 0) return;
    if (seq !== this.#lastSeq[sid] + 1) this.seqGaps++;
    this.#lastSeq[sid] = seq;
  }
}

/** The first string field `name` in JSON text, unescaped tickers only ('' when absent). */
export function stringField(text: string, name: string): string {
  const key = `"${name}":"`;
  const at = text.indexOf(key);
  if (at < 0) return '';
  const start = at + key.length;
  const end = text.indexOf('"', start);
  return end < 0 ? '' : text.slice(start, end);
}

/** The market ticker of an orderbook_delta text ('' when absent). */
export function tickerOf(text: string): string {
  return stringField(text, 'market_ticker');
}

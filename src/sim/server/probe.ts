/**
 * The wire-to-wire probe: how long a client takes from an orderbook_delta leaving the simulator to
 * its order arriving back, measured entirely on the simulator's monotonic clock (telemetry nowNs),
 * so no clock has to be aligned across processes. Switched on by `startSim({ probe: true })` or
 * `--probe`; when off the servers hold `null` and do no per-message work beyond one null check.
 *
 *   delta side   the hub calls noteDelta(ticker) once per engine delta that has subscribers, and
 *                markFlushed() once per flush batch, just before the batch's first frame is handed
 *                to uWS: every market noted since the last flush gets that time as its send time.
 *                (Stamping the batch start makes a sample include the simulator's own write time
 *                for the batch: conservative by at most one batch write, never optimistic.)
 *   order side   the REST server reads the clock when an order-entry request arrives (uWS request
 *                callback, before routing) and, once the body is decoded, calls noteOrder(body,
 *                receivedNs) for POST /portfolio/events/orders and POST/DELETE .../batched; the FIX
 *                acceptor stamps each chunk an order-entry socket reads (noteFixBytes) and its
 *                connections call noteFixOrder(message) when a NewOrderSingle reaches them, with
 *                that stamp as the arrival (FIX cancels are not sampled).
 *   sample       receivedNs - send time of the most recent delta on the order's market (`ticker`,
 *                or `market_ticker` for batch-cancel items); one sample per distinct market per
 *                request. A delta sent after the request arrived (headers and body split across
 *                reads) is skipped in favour of the one before it.
 *
 * Samples go into an HDR histogram (telemetry LatencyRecorder over hdr-histogram-js, ns, 3
 * significant digits, up to 60 s). Requests rejected before their body is decoded (401, 403, 413,
 * undecodable JSON) give no sample; later outcomes (429, engine rejects) do: the order did arrive.
 * It never looks at routes' answers, never allocates per delta once a market has been seen, and
 * never touches the engine.
 */

import { Tag, type FixMessage } from '../../fix/index.ts';
import { LatencyRecorder, nowNs } from '../../telemetry/index.ts';

/** What GET /_sim/probe answers and `sim.probe.summary()` returns; all times in ns. */
export interface ProbeSummary {
  /** Wire-to-wire samples recorded since start or the last reset. */
  count: number;
  p50Ns: number;
  p99Ns: number;
  p999Ns: number;
  maxNs: number;
  minNs: number;
  meanNs: number;
  /** Orders on a market with no delta sent yet (no sample). */
  ordersWithoutDelta: number;
  /** Order items naming no market (batch-cancel items without market_ticker; no sample). */
  ordersWithoutTicker: number;
  /** Flush batches that carried at least one orderbook_delta. */
  deltaBatches: number;
}

/** The probe as the simulator's handle exposes it (`sim.probe`, null when off). */
export interface SimProbe {
  summary(): ProbeSummary;
  /** Clears the histogram and counters; the last send time per market is kept (it is wire state). */
  reset(): void;
}

/** The order-entry routes whose requests are probed (method, template relative to /trade-api/v2). */
export const PROBED_ROUTES: ReadonlyArray<{ readonly method: string; readonly path: string }> = [
  { method: 'POST', path: '/portfolio/events/orders' },
  { method: 'POST', path: '/portfolio/events/orders/batched' },
  { method: 'DELETE', path: '/portfolio/events/orders/batched' },
];

/** Simulator-only HTTP paths (outside /trade-api). */
export const PROBE_PATH = '/_sim/probe';
export const PROBE_RESET_PATH = '/_sim/probe/reset';

/** Initial per-market slots; doubled when a new market needs one (allocation only then). */
const INITIAL_SLOTS = 1024;

export class WireProbe implements SimProbe {
  readonly #recorder = new LatencyRecorder('sim-wire-to-wire');
  readonly #slotOf = new Map<string, number>();
  /** Per slot: send time of the most recent delta batch, and of the one before it (0 = none). */
  #sentNs = new Float64Array(INITIAL_SLOTS);
  #previousSentNs = new Float64Array(INITIAL_SLOTS);
  /** Per slot: the request that last sampled it (one sample per market per request). */
  #sampledBy = new Int32Array(INITIAL_SLOTS);
  /** Per slot: 1 while listed in #pending. */
  #isPending = new Uint8Array(INITIAL_SLOTS);
  /** Slots noted since the last flush (each once). */
  #pending = new Int32Array(INITIAL_SLOTS);
  #pendingCount = 0;
  #request = 0;
  #ordersWithoutDelta = 0;
  #ordersWithoutTicker = 0;
  #deltaBatches = 0;
  /** When the FIX order-entry chunk being processed was read (noteFixBytes), 0 before the first. */
  #fixBytesNs = 0;

  /** An orderbook_delta for `ticker` was queued for at least one subscriber. */
  noteDelta(ticker: string): void {
    let slot = this.#slotOf.get(ticker);
    if (slot === undefined) slot = this.#addSlot(ticker);
    if (this.#isPending[slot] === 1) return;
    this.#isPending[slot] = 1;
    this.#pending[this.#pendingCount++] = slot;
  }

  /** A flush batch is about to be handed to uWS: stamps every market noted since the last one. */
  markFlushed(): void {
    const count = this.#pendingCount;
    if (count === 0) return;
    const now = nowNs();
    const pending = this.#pending;
    for (let i = 0; i < count; i++) {
      const slot = pending[i];
      this.#previousSentNs[slot] = this.#sentNs[slot];
      this.#sentNs[slot] = now;
      this.#isPending[slot] = 0;
    }
    this.#pendingCount = 0;
    this.#deltaBatches++;
  }

  /** The clock reading the REST server stores when a request arrives. */
  now(): number {
    return nowNs();
  }

  /** An order-entry request that arrived at `receivedNs` decoded to `body` (create or batch). */
  noteOrder(body: unknown, receivedNs: number): void {
    if (typeof body !== 'object' || body === null) return;
    const request = ++this.#request;
    const orders = (body as { orders?: unknown }).orders;
    if (!Array.isArray(orders)) {
      this.#sampleTicker((body as { ticker?: unknown }).ticker, request, receivedNs);
      return;
    }
    for (let i = 0; i < orders.length; i++) {
      const item = orders[i] as { ticker?: unknown; market_ticker?: unknown } | null;
      if (typeof item !== 'object' || item === null) continue;
      this.#sampleTicker(item.ticker ?? item.market_ticker, request, receivedNs);
    }
  }

  /**
   * A FIX order-entry socket delivered a chunk (server/fix/fix-acceptor.ts, before the session reads
   * it): the arrival time of any NewOrderSingle that chunk completes, as the REST server stamps a
   * request when uWS hands it over. Read synchronously by noteFixOrder while the chunk is processed.
   */
  noteFixBytes(): void {
    this.#fixBytesNs = nowNs();
  }

  /**
   * A FIX NewOrderSingle reached the order-entry connection (server/fix/order-entry-connection.ts
   * calls this first thing): arrival is the read of the chunk that completed it (noteFixBytes; the
   * clock now if none was stamped), the market its Symbol(55).
   */
  noteFixOrder(message: FixMessage): void {
    const receivedNs = this.#fixBytesNs > 0 ? this.#fixBytesNs : nowNs();
    this.#sampleTicker(message.getString(Tag.Symbol), ++this.#request, receivedNs);
  }

  summary(): ProbeSummary {
    const latency = this.#recorder.summary();
    return {
      count: latency.count,
      p50Ns: latency.p50,
      p99Ns: latency.p99,
      p999Ns: latency.p999,
      maxNs: latency.max,
      minNs: latency.min,
      meanNs: Math.round(latency.mean),
      ordersWithoutDelta: this.#ordersWithoutDelta,
      ordersWithoutTicker: this.#ordersWithoutTicker,
      deltaBatches: this.#deltaBatches,
    };
  }

  reset(): void {
    this.#recorder.reset();
    this.#ordersWithoutDelta = 0;
    this.#ordersWithoutTicker = 0;
    this.#deltaBatches = 0;
  }

  #sampleTicker(ticker: unknown, request: number, receivedNs: number): void {
    if (typeof ticker !== 'string' || ticker === '') {
      this.#ordersWithoutTicker++;
      return;
    }
    const slot = this.#slotOf.get(ticker);
    if (slot === undefined) {
      this.#ordersWithoutDelta++;
      return;
    }
    if (this.#sampledBy[slot] === request) return;
    this.#sampledBy[slot] = request;
    let sentNs = this.#sentNs[slot];
    if (sentNs > receivedNs) sentNs = this.#previousSentNs[slot];
    if (sentNs === 0 || sentNs > receivedNs) {
      this.#ordersWithoutDelta++;
      return;
    }
    this.#recorder.record(receivedNs - sentNs);
  }

  #addSlot(ticker: string): number {
    const slot = this.#slotOf.size;
    if (slot === this.#sentNs.length) this.#grow();
    this.#slotOf.set(ticker, slot);
    return slot;
  }

  #grow(): void {
    const size = this.#sentNs.length * 2;
    const sentNs = new Float64Array(size);
    sentNs.set(this.#sentNs);
    this.#sentNs = sentNs;
    const previousSentNs = new Float64Array(size);
    previousSentNs.set(this.#previousSentNs);
    this.#previousSentNs = previousSentNs;
    const sampledBy = new Int32Array(size);
    sampledBy.set(this.#sampledBy);
    this.#sampledBy = sampledBy;
    const isPending = new Uint8Array(size);
    isPending.set(this.#isPending);
    this.#isPending = isPending;
    const pending = new Int32Array(size);
    pending.set(this.#pending);
    this.#pending = pending;
  }
}

/**
 * Per-hop latency of the hot path, frame in to order out, for the first order each book frame
 * causes:
 *
 *   received ─decode─> decoded ─book─> applied ─strategy─> intent ─risk─> verdict ─oms─> exec called ─exec─> exec returned
 *   (feed HopRecord)                              (order port)    (gate.check)    (OrderEntry wrapper)
 *
 * The feed stamps received/decoded/applied in its HopRecord; wiring calls beginFrame/endFrame
 * around the strategy dispatch of a book update, the order port stamps the intent, the gate wrapper
 * the verdict and the OrderEntry wrapper the call into exec and its return (REST: the request is
 * encoded, signed and handed to the socket; see src/exec/rest/rest-order-entry.ts for when undici
 * writes the bytes). One record per hop (hdr-histogram, ns), no allocation per frame.
 * This file owns the stamps and histograms; it never decides anything.
 */

import { LatencyRecorder, nowNs } from '../telemetry/index.ts';
import type { LatencySummary } from '../telemetry/index.ts';

/** The feed's per-frame timestamps (src/feed HopRecord satisfies it). */
export interface FrameStamps {
  readonly receivedNs: number;
  readonly decodedNs: number;
  readonly appliedNs: number;
}

export const HOP_NAMES = ['decode', 'book', 'strategy', 'risk', 'oms', 'exec', 'total'] as const;
export type HopName = (typeof HOP_NAMES)[number];

export class TickToTradeProbe {
  readonly decode = new LatencyRecorder('frame received -> decoded');
  readonly book = new LatencyRecorder('decoded -> book applied');
  readonly strategy = new LatencyRecorder('book applied -> strategy intent');
  readonly risk = new LatencyRecorder('strategy intent -> risk verdict');
  readonly oms = new LatencyRecorder('risk verdict -> exec called (OMS bookkeeping)');
  readonly exec = new LatencyRecorder('exec called -> exec returned (request handed to the socket)');
  readonly total = new LatencyRecorder('frame received -> exec returned (tick-to-trade)');
  /** Book frames dispatched to strategies, and those that led to an order on the wire. */
  frames = 0;
  framesWithOrder = 0;
  /** Received and exec-returned stamps of the last timed frame (benches time the socket write from them). */
  lastReceivedNs = 0;
  lastReturnedNs = 0;
  /** True between onExecCall and onExecReturn of the timed order (a socket write seen then is synchronous). */
  inExecCall = false;

  #frame: FrameStamps | null = null;
  #intentNs = 0;
  #verdictNs = 0;
  #callNs = 0;
  #done = false;

  /** Wiring: a book update is about to be dispatched to strategies. */
  beginFrame(frame: FrameStamps): void {
    this.#frame = frame;
    this.#intentNs = 0;
    this.#verdictNs = 0;
    this.#callNs = 0;
    this.#done = false;
    this.frames++;
  }

  endFrame(): void {
    this.#frame = null;
  }

  /** Order port: a strategy asked for an order. Only the first intent of a frame is timed. */
  onIntent(): void {
    if (this.#frame !== null && this.#intentNs === 0) this.#intentNs = nowNs();
  }

  /** Gate wrapper: the verdict of the timed intent. */
  onVerdict(): void {
    if (this.#intentNs !== 0 && this.#verdictNs === 0) this.#verdictNs = nowNs();
  }

  /** OrderEntry wrapper: the OMS calls exec for the timed intent. */
  onExecCall(): void {
    if (this.#verdictNs !== 0 && this.#callNs === 0) {
      this.#callNs = nowNs();
      this.inExecCall = true;
    }
  }

  /** Received stamp of the frame being dispatched, 0 outside a frame. */
  get frameReceivedNs(): number {
    return this.#frame === null ? 0 : this.#frame.receivedNs;
  }

  /** OrderEntry wrapper: exec returned; records every hop once per frame. */
  onExecReturn(): void {
    const frame = this.#frame;
    if (frame === null || this.#callNs === 0 || this.#done) return;
    this.#done = true;
    this.inExecCall = false;
    const returnedNs = nowNs();
    this.framesWithOrder++;
    this.lastReceivedNs = frame.receivedNs;
    this.lastReturnedNs = returnedNs;
    if (frame.receivedNs > 0 && frame.decodedNs >= frame.receivedNs) this.decode.record(frame.decodedNs - frame.receivedNs);
    if (frame.appliedNs >= frame.decodedNs && frame.decodedNs > 0) this.book.record(frame.appliedNs - frame.decodedNs);
    if (frame.appliedNs > 0) this.strategy.record(this.#intentNs - frame.appliedNs);
    this.risk.record(this.#verdictNs - this.#intentNs);
    this.oms.record(this.#callNs - this.#verdictNs);
    this.exec.record(returnedNs - this.#callNs);
    if (frame.receivedNs > 0) this.total.record(returnedNs - frame.receivedNs);
  }

  recorder(name: HopName): LatencyRecorder {
    return this[name];
  }

  summaries(): Record<HopName, LatencySummary> {
    const out = {} as Record<HopName, LatencySummary>;
    for (const name of HOP_NAMES) out[name] = this[name].summary();
    return out;
  }

  reset(): void {
    for (const name of HOP_NAMES) this[name].reset();
    this.frames = 0;
    this.framesWithOrder = 0;
  }
}

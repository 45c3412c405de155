/**
 * Per-hop latency of the hot path, frame in to order out, for the first order each book frame
 * causes:
 *
 *   received ─decode─> decoded ─book─> applied ─strategy─> intent ─risk─> verdict ─oms─> exec called ─exec─> exec returned
 *   (feed HopRecord)                              (router)        (gate.check)    (router, around the route)
 *
 * The feed stamps received/decoded/applied in its HopRecord; wiring calls beginFrame/endFrame
 * around the strategy dispatch of a book update, the router stamps the intent, the gate the verdict
 * and the router the call into the route and its return (REST: the request is encoded, signed and
 * written to the socket inside the call: src/exec/rest/rest-order-entry.ts).
 * The exec hop is split where the route hands the request to the kernel (the runtime wires the
 * routes' write-start and write channels to onWriteStart / onWriteReturn): `encode` (exec called ->
 * first byte handed to socket.write), `write` (the socket.write call) and `firstByte` (frame
 * received -> first byte handed to socket.write: what is ours, from the frame's bytes to the
 * request's, without the system call). They are recorded only when the timed order's call writes
 * (not when its request waits for a signature or a connection and goes out later).
 * One record per hop (hdr-histogram, ns), no allocation per frame.
 *
 * The probe's own cost is kept off the frame: a timed frame's stamps (all from telemetry's nowNs,
 * one clock) are copied into a preallocated ring, and the histograms are filled from the ring only
 * when someone reads them (the hop getters, recorder(), summaries()), on the next event-loop turn
 * once DRAIN_AFTER frames are waiting (one setImmediate, after the turn's frames are handled), or,
 * failing both, inside a frame when the ring is full. Recording into seven hdr-histogram-js histograms inside the
 * frame cost about 1 us of a 6 us in-process path (bench/hot-path, V8 CPU profile). `enabled`
 * false stops every stamp but the frame count (setEnabled; the runtime keeps it on).
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

export const HOP_NAMES = ['decode', 'book', 'strategy', 'risk', 'oms', 'exec', 'total', 'encode', 'write', 'firstByte'] as const;
export type HopName = (typeof HOP_NAMES)[number];

/** Timed frames buffered before the histograms must be filled (then filled inside the frame). */
const RING_FRAMES = 8192;
// Ring layout per timed frame: received, decoded, applied, intent, verdict, call, returned, write
// start, write returned (the last two 0 when the call did not write).
const STAMPS = 9;
/** Buffered frames that schedule a drain on the next turn (~0.1 ms of histogram work). */
const DRAIN_AFTER = 128;

export class TickToTradeProbe {
  readonly #decode = new LatencyRecorder('frame received -> decoded');
  readonly #book = new LatencyRecorder('decoded -> book applied');
  readonly #strategy = new LatencyRecorder('book applied -> strategy intent');
  readonly #risk = new LatencyRecorder('strategy intent -> risk verdict');
  readonly #oms = new LatencyRecorder('risk verdict -> exec called (OMS bookkeeping)');
  readonly #exec = new LatencyRecorder('exec called -> exec returned (request handed to the socket)');
  readonly #total = new LatencyRecorder('frame received -> exec returned (tick-to-trade)');
  readonly #encode = new LatencyRecorder('exec called -> first byte handed to socket.write (encode, signature take, assembly)');
  readonly #write = new LatencyRecorder('the socket.write call (first byte handed -> write returned)');
  readonly #firstByte = new LatencyRecorder('frame received -> first byte handed to socket.write');
  /** Book frames dispatched to strategies, and those that led to an order on the wire. */
  frames = 0;
  framesWithOrder = 0;

  readonly #ring = new Float64Array(RING_FRAMES * STAMPS);
  #pending = 0;
  #drainScheduled = false;
  readonly #drainSoon = (): void => {
    this.#drainScheduled = false;
    this.drain();
  };
  #enabled: boolean;
  #stamps: { enabled: boolean } | null = null;
  #frame: FrameStamps | null = null;
  #intentNs = 0;
  #verdictNs = 0;
  #callNs = 0;
  #writeStartNs = 0;
  #writeReturnNs = 0;
  #done = false;

  constructor(options: { enabled?: boolean } = {}) {
    this.#enabled = options.enabled ?? true;
  }

  // The hop recorders: reading one fills every histogram from the ring first.
  get decode(): LatencyRecorder {
    this.drain();
    return this.#decode;
  }
  get book(): LatencyRecorder {
    this.drain();
    return this.#book;
  }
  get strategy(): LatencyRecorder {
    this.drain();
    return this.#strategy;
  }
  get risk(): LatencyRecorder {
    this.drain();
    return this.#risk;
  }
  get oms(): LatencyRecorder {
    this.drain();
    return this.#oms;
  }
  get exec(): LatencyRecorder {
    this.drain();
    return this.#exec;
  }
  get total(): LatencyRecorder {
    this.drain();
    return this.#total;
  }
  get encode(): LatencyRecorder {
    this.drain();
    return this.#encode;
  }
  get write(): LatencyRecorder {
    this.drain();
    return this.#write;
  }
  get firstByte(): LatencyRecorder {
    this.drain();
    return this.#firstByte;
  }

  get enabled(): boolean {
    return this.#enabled;
  }

  /** Off: frames are still counted, nothing else is stamped or recorded (the feed's stamps included). */
  setEnabled(enabled: boolean): void {
    this.#enabled = enabled;
    if (!enabled) this.#frame = null;
    if (this.#stamps !== null) this.#stamps.enabled = enabled;
  }

  /**
   * Wiring: the feed's per-frame stamps follow this probe, so a run without the probe takes no
   * clock reads per frame (on Node 20 each read boxes a number: the delta path's only allocation).
   */
  controlStamps(stamps: { enabled: boolean }): void {
    this.#stamps = stamps;
    stamps.enabled = this.#enabled;
  }

  /** Wiring: a book update is about to be dispatched to strategies. */
  beginFrame(frame: FrameStamps): void {
    this.frames++;
    if (!this.#enabled) return;
    this.#frame = frame;
    this.#intentNs = 0;
    this.#verdictNs = 0;
    this.#callNs = 0;
    this.#writeStartNs = 0;
    this.#writeReturnNs = 0;
    this.#done = false;
  }

  endFrame(): void {
    this.#frame = null;
  }

  /** Router: a strategy asked for an order. Only the first intent of a frame is timed. */
  onIntent(): void {
    if (this.#frame !== null && this.#intentNs === 0) this.#intentNs = nowNs();
  }

  /** Gate: the verdict of the timed intent. */
  onVerdict(): void {
    if (this.#intentNs !== 0 && this.#verdictNs === 0) this.#verdictNs = nowNs();
  }

  /** Router: the OMS has accepted the timed intent and the route is called. */
  onExecCall(): void {
    if (this.#verdictNs !== 0 && this.#callNs === 0) this.#callNs = nowNs();
  }

  /** A route is about to hand a request's first byte to socket.write: stamped for the timed call's first write. */
  onWriteStart(): void {
    if (this.#frame !== null && this.#callNs !== 0 && !this.#done && this.#writeStartNs === 0) this.#writeStartNs = nowNs();
  }

  /** That socket.write returned. */
  onWriteReturn(): void {
    if (this.#writeStartNs !== 0 && !this.#done && this.#writeReturnNs === 0) this.#writeReturnNs = nowNs();
  }

  /** Router: the route returned; buffers the frame's stamps once per frame. */
  onExecReturn(): void {
    const frame = this.#frame;
    if (frame === null || this.#callNs === 0 || this.#done) return;
    this.#done = true;
    const returnedNs = nowNs();
    this.framesWithOrder++;
    if (this.#pending === RING_FRAMES) this.drain();
    const ring = this.#ring;
    const at = this.#pending++ * STAMPS;
    ring[at] = frame.receivedNs;
    ring[at + 1] = frame.decodedNs;
    ring[at + 2] = frame.appliedNs;
    ring[at + 3] = this.#intentNs;
    ring[at + 4] = this.#verdictNs;
    ring[at + 5] = this.#callNs;
    ring[at + 6] = returnedNs;
    ring[at + 7] = this.#writeStartNs;
    ring[at + 8] = this.#writeReturnNs;
    if (this.#pending >= DRAIN_AFTER && !this.#drainScheduled) {
      this.#drainScheduled = true;
      setImmediate(this.#drainSoon).unref();
    }
  }

  /** Fills the histograms from the buffered frames (every reader calls it; callable any time). */
  drain(): void {
    const n = this.#pending;
    if (n === 0) return;
    this.#pending = 0;
    const ring = this.#ring;
    for (let i = 0; i < n; i++) {
      const at = i * STAMPS;
      const receivedNs = ring[at];
      const decodedNs = ring[at + 1];
      const appliedNs = ring[at + 2];
      const intentNs = ring[at + 3];
      const verdictNs = ring[at + 4];
      const callNs = ring[at + 5];
      const returnedNs = ring[at + 6];
      if (receivedNs > 0 && decodedNs >= receivedNs) this.#decode.record(decodedNs - receivedNs);
      if (appliedNs >= decodedNs && decodedNs > 0) this.#book.record(appliedNs - decodedNs);
      if (appliedNs > 0) this.#strategy.record(intentNs - appliedNs);
      this.#risk.record(verdictNs - intentNs);
      this.#oms.record(callNs - verdictNs);
      this.#exec.record(returnedNs - callNs);
      if (receivedNs > 0) this.#total.record(returnedNs - receivedNs);
      const writeStartNs = ring[at + 7];
      if (writeStartNs === 0) continue;
      this.#encode.record(writeStartNs - callNs);
      if (receivedNs > 0) this.#firstByte.record(writeStartNs - receivedNs);
      const writeReturnNs = ring[at + 8];
      if (writeReturnNs !== 0) this.#write.record(writeReturnNs - writeStartNs);
    }
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
    this.#pending = 0;
    for (const name of HOP_NAMES) this[name].reset();
    this.frames = 0;
    this.framesWithOrder = 0;
  }
}

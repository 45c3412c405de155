/**
 * Signing off the hot path. The exchange signs `timestamp + METHOD + path` and not the body, so a
 * request to a constant path (create, batch create, batch cancel) can carry a signature made
 * before the order exists. The presigner keeps, per such endpoint, a small ring of fresh
 * (timestamp, signature) pairs made by a worker thread (presign-worker.mjs), hands out one per
 * request, never the same pair twice, and never one older than `maxAgeMs` (the exchange accepts
 * about 10 s of past skew, spec/rest.md §1; we stay at <= 5 s so clock drift has room).
 *
 * Ring per endpoint (entries in timestamp order; take() consumes the oldest still-valid one,
 * so fewer signatures age out unused):
 *
 *      head                       head+count
 *       v                              v
 *   [ old | old | fresh | fresh | ... | empty ... ]   size = 2 * capacity
 *
 * Refill: on every take (once per event-loop turn, via setImmediate, after the caller's write; or,
 * with refillOnTake false, whenever the owner calls refill()) and on a coarse housekeeping tick, an endpoint whose entries younger than `maxAgeMs - refreshLeadMs`
 * plus the ones being signed fall below `capacity` asks the worker for the difference. Old
 * entries stay usable until `maxAgeMs`, so aging alone never empties a ring.
 *
 * The rings' signatures never cross threads as strings: the worker writes each one's head bytes
 * (signedFieldsBytes: timestamp, field name, signature) into a staging slot of a SharedArrayBuffer
 * the presigner handed it, and its answer names the slots. The presigner copies them into the
 * ring's own slots in the same buffer (copyWithin) and take() hands out a view made once per slot:
 * no string, message payload or Uint8Array per signature on the trading thread (they were most of
 * the live runtime's garbage per order: README, bench/tick-to-trade/heap-profile.ts). A taken view
 * is read by the caller's send at once; its slot is written again only after the ring came round to it.
 *
 * signBatch() asks the same worker for one-off signatures of several different paths in one
 * message (order-path-signatures.ts: the per-order cancel/amend/decrease paths after a create ack);
 * they come back the same way, through staging slots of their own, handed to the caller as views
 * to copy.
 *
 * Owns: the worker, the rings, the counters. Never: sends requests, signs on the calling thread
 * (an empty ring returns false and the caller signs inline and counts it), or logs key material.
 */

import type { KeyObject } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { Clock } from '../../core/index.ts';
import { SIGNATURE_FIELD, signedFieldsBytesMax } from '../../net/index.ts';

/** Hard limit for maxAgeMs: beyond it a past-skewed clock risks header_timestamp_expired. */
export const PRESIGN_MAX_AGE_LIMIT_MS = 5_000;

export interface PresignEndpoint {
  method: string; // upper-case HTTP verb
  path: string; // full request path, /trade-api/v2 included, no query
  capacity: number; // signatures kept ready: the burst size served without inline signing
}

export interface PresignerOptions {
  privateKey: KeyObject;
  endpoints: readonly PresignEndpoint[];
  maxAgeMs: number; // never hand out a signature older than this (<= PRESIGN_MAX_AGE_LIMIT_MS)
  refreshLeadMs: number; // start replacing a signature this long before it reaches maxAgeMs
  tickMs: number; // housekeeping period: drop expired entries, top up rings
  startTimeoutMs: number; // start() waits this long at most for full rings, then starts with what they hold
  clock: Clock;
  // true: every take() schedules a refill (setImmediate). false: the owner calls refill() when it
  // suits it (RestOrderEntry: when no request is in flight, so the worker's RSA work does not
  // compete for a core with the round trip), plus the housekeeping tick. Default true.
  refillOnTake?: boolean;
  // Nice value (0-19) the worker thread gives itself, so its RSA work yields the core to the
  // trading event loop; null leaves it at the process's. Default 19.
  workerNice?: number | null;
}

/** The stable codes of presigner failures. */
export type PresignerErrorCode = 'PRESIGN_CONFIG_INVALID' | 'PRESIGN_WORKER_FAILED';

export class PresignerError extends Error {
  readonly code: PresignerErrorCode;
  constructor(code: PresignerErrorCode, message: string) {
    super(message);
    this.name = 'PresignerError';
    this.code = code;
  }
}

/** The out-record take() fills: reuse one per caller. */
export interface PresignedSignature {
  timestampText: string; // KALSHI-ACCESS-TIMESTAMP value
  /** KALSHI-ACCESS-SIGNATURE value; '' when `signedBytes` carries it (take(): signatureText() reads it out). */
  signature: string;
  /**
   * signedFieldsBytes(timestampText, signature) (take() sets it: a view of the presigner's shared
   * buffer, valid until the caller's turn ends; null or absent: the request writes the two strings).
   */
  signedBytes?: Uint8Array | null;
}

/** The signature's text of a PresignedSignature, from its head bytes when take() filled it (tests, tools; allocates). */
export function signatureText(signed: PresignedSignature): string {
  const bytes = signed.signedBytes ?? null;
  if (signed.signature !== '' || bytes === null) return signed.signature;
  const at = signed.timestampText.length + SIGNATURE_FIELD.length; // signedFieldsBytes' layout
  return Buffer.from(bytes.buffer, bytes.byteOffset + at, bytes.length - at).toString('latin1');
}

/**
 * The view of bytes[at, at + length) kept in views[index]: the one made before when its length is
 * the same (a slot's signatures all have one length for a key), else a new one kept there. The
 * rings, a batch's answer and order-path-signatures.ts hand out signatures as these.
 */
export function slotView(views: (Uint8Array | null)[], index: number, bytes: Uint8Array, at: number, length: number): Uint8Array {
  const view = views[index] ?? null;
  if (view !== null && view.byteOffset === bytes.byteOffset + at && view.length === length) return view;
  return (views[index] = bytes.subarray(at, at + length));
}

export interface PresignerStats {
  requested: number; // signatures asked of the worker
  received: number; // signatures the worker returned
  taken: number; // handed out by take()
  expired: number; // dropped unused because they reached maxAgeMs (or the ring overflowed)
  empty: number; // take() calls that found nothing valid (the caller signed inline)
  workerErrors: number;
}

interface WorkerReply {
  endpoint: number; // -1: a one-off signAsync() request; -2: a signBatch() request; -3: the worker's priority report
  id: number;
  timestampMs: number;
  signatures?: string[]; // -1 only
  slots?: number[]; // endpoint >= 0 and -2: the staging slots written (their lengths in the shared lengths; -1: not written)
  nice?: number | null; // -3 only
  error?: string | null; // -3 only
}

interface OneOff {
  resolve: (signature: PresignedSignature) => void;
  reject: (error: Error) => void;
}

/**
 * Receives a signBatch() reply: signed[i] is signedFieldsBytes(timestampText, signature of
 * (timestampMs, methods[i], paths[i])), a view of the shared buffer valid during the call only (copy
 * it to keep it); null when the worker failed.
 */
export type BatchSigned = (timestampMs: number, timestampText: string, signed: readonly Uint8Array[] | null) => void;

/** Most signatures one signBatch() asks for: its staging slots, kept apart from the rings'. */
export const BATCH_SIGNATURES_MAX = 256;

class Ring {
  readonly method: string;
  readonly path: string;
  readonly capacity: number;
  readonly size: number;
  readonly timestampsMs: Float64Array;
  /** One string per worker answer, shared by its entries. */
  readonly timestampTexts: string[];
  /** Byte offset of this ring's slots in the shared buffer (`size` slots of the presigner's stride). */
  readonly offset: number;
  /** Each slot's head bytes as a view of the shared buffer: made when the slot is first filled (or its length changes). */
  readonly views: (Uint8Array | null)[];
  head = 0;
  count = 0;
  inflight = 0; // signatures requested and not yet received

  constructor(endpoint: PresignEndpoint, offset: number) {
    this.method = endpoint.method;
    this.path = endpoint.path;
    this.capacity = endpoint.capacity;
    this.size = endpoint.capacity * 2;
    this.offset = offset;
    this.timestampsMs = new Float64Array(this.size);
    this.timestampTexts = new Array<string>(this.size).fill('');
    this.views = new Array<Uint8Array | null>(this.size).fill(null);
  }

  /** Removes the head entry; its slot is written again only when the ring comes round to it. */
  dropHead(): void {
    this.timestampTexts[this.head] = '';
    this.head = this.head + 1 === this.size ? 0 : this.head + 1;
    this.count--;
  }
}

/** Bytes a slot holds: a signature's head bytes for the key's size, rounded up to 8. */
function slotStride(privateKey: KeyObject): number {
  const modulusBits = privateKey.asymmetricKeyDetails?.modulusLength ?? 8192;
  const signatureChars = 4 * Math.ceil(Math.ceil(modulusBits / 8) / 3); // base64 of the RSA signature
  return Math.ceil(signedFieldsBytesMax(signatureChars) / 8) * 8;
}

export class Presigner {
  /** The worker thread's nice value once it reported it (null: not reported, not asked, or refused: see workerNiceError). */
  workerNice: number | null = null;
  workerNiceError: string | null = null;
  /** Signatures the rings lacked when start() returned: 0 when they were full (see start()). */
  startShortfall = 0;
  readonly stats: PresignerStats = { requested: 0, received: 0, taken: 0, expired: 0, empty: 0, workerErrors: 0 };
  readonly #rings: Ring[];
  readonly #worker: Worker;
  readonly #clock: Clock;
  readonly #maxAgeMs: number;
  readonly #refreshLeadMs: number;
  readonly #tickTimer: NodeJS.Timeout;
  readonly #refillBound: () => void;
  #refillScheduled = false;
  readonly #refillOnTake: boolean;
  #alive = true;
  #closed = false;
  #onChange: (() => void) | null = null; // start() waits on it
  readonly #oneOff = new Map<number, OneOff>(); // signAsync() requests by id
  readonly #batches = new Map<number, BatchSigned>(); // signBatch() requests by id
  #oneOffSeq = 0;
  /** Bytes per slot, staging and ring alike. */
  readonly #stride: number;
  /** The shared buffer: staging slots (the worker writes them) then every ring's slots (only this thread writes them). */
  readonly #bytes: Uint8Array;
  /** Each staging slot's byte count, written by the worker (-1: the signature did not fit). */
  readonly #stagingLengths: Int32Array;
  /** The rings' staging slots free for a request, as a stack. */
  readonly #stagingFree: Int32Array;
  #stagingFreeCount: number;
  /** signBatch()'s staging slots: BATCH_SIGNATURES_MAX from here, one batch at a time. */
  readonly #batchFirstSlot: number;
  #batchSlotsBusy = false;
  /** signBatch()'s staging slots as views (slotView): what its caller is handed. */
  readonly #batchSlotViews = new Array<Uint8Array | null>(BATCH_SIGNATURES_MAX).fill(null);
  /** The views of the batch being answered (reused). */
  readonly #batchViews: Uint8Array[] = [];

  private constructor(options: PresignerOptions) {
    this.#clock = options.clock;
    this.#maxAgeMs = options.maxAgeMs;
    this.#refreshLeadMs = options.refreshLeadMs;
    this.#refillOnTake = options.refillOnTake ?? true;
    this.#stride = slotStride(options.privateKey);
    // As many staging slots for the rings as ring slots (a ring never has more than its capacity
    // requested), and BATCH_SIGNATURES_MAX more for signBatch() after them.
    const ringSlots = options.endpoints.reduce((sum, endpoint) => sum + endpoint.capacity * 2, 0);
    const stagingSlots = ringSlots + BATCH_SIGNATURES_MAX;
    const shared = new SharedArrayBuffer((stagingSlots + ringSlots) * this.#stride);
    this.#bytes = new Uint8Array(shared);
    const lengths = new SharedArrayBuffer(stagingSlots * 4);
    this.#stagingLengths = new Int32Array(lengths);
    this.#stagingFree = new Int32Array(ringSlots);
    for (let i = 0; i < ringSlots; i++) this.#stagingFree[i] = ringSlots - 1 - i;
    this.#stagingFreeCount = ringSlots;
    this.#batchFirstSlot = ringSlots;
    let offset = stagingSlots * this.#stride;
    this.#rings = options.endpoints.map((endpoint) => {
      const ring = new Ring(endpoint, offset);
      offset += ring.size * this.#stride;
      return ring;
    });
    this.#refillBound = () => {
      this.#refillScheduled = false;
      this.refill();
    };
    // The KeyObject is cloned into the worker by structured clone; no PEM text crosses threads.
    this.#worker = new Worker(new URL('./presign-worker.mjs', import.meta.url), {
      workerData: {
        key: options.privateKey,
        nice: options.workerNice === undefined ? 19 : options.workerNice,
        staging: { bytes: shared, lengths, stride: this.#stride, field: SIGNATURE_FIELD },
      },
      name: 'presigner',
    });
    this.#worker.on('message', (reply: WorkerReply) => this.#onReply(reply));
    this.#worker.on('error', () => this.#onWorkerDown());
    this.#worker.on('exit', () => this.#onWorkerDown());
    this.#tickTimer = setInterval(this.#refillBound, options.tickMs);
    this.#tickTimer.unref();
  }

  /**
   * Spawns the worker and resolves once every ring holds `capacity` signatures, or after
   * `startTimeoutMs` with what they hold (`startShortfall` says how many were missing). A worker
   * at nice 19 on a busy machine can take longer than that, and a start that failed for it would
   * stop the whole runtime over an optimisation: an order finding its ring empty signs inline, as
   * it does in any burst past `capacity`, until the worker catches up. A worker that fails rejects.
   */
  static async start(options: PresignerOptions): Promise<Presigner> {
    validate(options);
    const presigner = new Presigner(options);
    try {
      await presigner.#waitFull(options.startTimeoutMs);
    } catch (error) {
      await presigner.close();
      throw error;
    }
    return presigner;
  }

  /** Index of the ring for (method, path), or -1 if that endpoint is not presigned. Not for the hot path. */
  endpointIndex(method: string, path: string): number {
    return this.#rings.findIndex((ring) => ring.method === method && ring.path === path);
  }

  /** Bytes a signature's head bytes take at most (order-path-signatures.ts sizes its copies by it). */
  get slotBytes(): number {
    return this.#stride;
  }

  /** Signatures ready (valid or not yet dropped) in a ring. */
  size(endpoint: number): number {
    return this.#rings[endpoint]!.count;
  }

  get alive(): boolean {
    return this.#alive && !this.#closed;
  }

  /**
   * Hot path: moves the oldest valid signature of `endpoint` into `out` and forgets it. Returns
   * false when none is valid; the caller then signs inline. No allocation.
   */
  /**
   * The signature take() would hand out next, left in the ring (the keep-warm's rehearsal of a
   * create reads its bytes, so the real take finds them in cache); false when the ring is empty.
   * Takes nothing, schedules nothing, drops nothing (an expired head is take()'s to drop).
   */
  peek(endpoint: number, out: PresignedSignature): boolean {
    const ring = this.#rings[endpoint]!;
    if (ring.count === 0) return false;
    const head = ring.head;
    out.timestampText = ring.timestampTexts[head]!;
    out.signature = '';
    out.signedBytes = ring.views[head]!;
    return true;
  }

  take(endpoint: number, out: PresignedSignature): boolean {
    const ring = this.#rings[endpoint]!;
    const oldestMs = this.#clock.nowMs() - this.#maxAgeMs;
    while (ring.count > 0) {
      const head = ring.head;
      if (ring.timestampsMs[head]! >= oldestMs) {
        out.timestampText = ring.timestampTexts[head]!;
        out.signature = '';
        out.signedBytes = ring.views[head]!;
        ring.dropHead();
        this.stats.taken++;
        this.#scheduleRefill();
        return true;
      }
      ring.dropHead();
      this.stats.expired++;
    }
    this.stats.empty++;
    this.#scheduleRefill();
    return false;
  }

  /** Drops expired entries and asks the worker to top up every ring. Runs on the tick and after takes. */
  refill(): void {
    if (!this.alive) return;
    const nowMs = this.#clock.nowMs();
    const oldestMs = nowMs - this.#maxAgeMs;
    const freshFromMs = oldestMs + this.#refreshLeadMs;
    for (let endpoint = 0; endpoint < this.#rings.length; endpoint++) {
      const ring = this.#rings[endpoint]!;
      while (ring.count > 0 && ring.timestampsMs[ring.head]! < oldestMs) {
        ring.dropHead();
        this.stats.expired++;
      }
      let fresh = 0;
      for (let i = 0; i < ring.count; i++) {
        const index = (ring.head + i) % ring.size;
        if (ring.timestampsMs[index]! >= freshFromMs) fresh++;
      }
      const deficit = ring.capacity - fresh - ring.inflight;
      if (deficit <= 0) continue;
      // Below half its capacity a ring is being drained by a burst: what brings it back to half
      // goes before the per-order prefetch in the worker (urgent), the rest after it. At 5,000
      // markets the prefetch for recently acked orders kept the worker busy, the rings ran dry and
      // creates, batches and cancels signed on the event loop (~1 ms each).
      const toHalf = Math.ceil(ring.capacity / 2) - ring.count - ring.inflight;
      const urgent = Math.min(deficit, Math.max(0, toHalf));
      if (urgent > 0) this.#request(endpoint, ring, nowMs, urgent, true);
      if (deficit > urgent) this.#request(endpoint, ring, nowMs, deficit - urgent, false);
    }
  }

  /** Asks the worker for `n` signatures of `ring`, each into a staging slot taken here. */
  #request(endpoint: number, ring: Ring, nowMs: number, n: number, urgent: boolean): void {
    const count = Math.min(n, this.#stagingFreeCount);
    if (count === 0) return;
    const slots = new Array<number>(count);
    for (let i = 0; i < count; i++) slots[i] = this.#stagingFree[--this.#stagingFreeCount]!;
    ring.inflight += count;
    this.stats.requested += count;
    this.#worker.postMessage({ endpoint, id: 0, method: ring.method, path: ring.path, timestampMs: nowMs, n: count, urgent, slots });
  }

  /**
   * One signature for any request, made by the worker so the event loop never pays the RSA cost:
   * for reads and admin calls whose path is not constant. Timestamp = the clock when called.
   * Rejects with PRESIGN_WORKER_FAILED when the worker is gone (the caller may sign inline).
   */
  signAsync(method: string, path: string): Promise<PresignedSignature> {
    if (!this.alive) return Promise.reject(new PresignerError('PRESIGN_WORKER_FAILED', 'presigner: worker not running'));
    const query = path.indexOf('?');
    const signedPath = query === -1 ? path : path.slice(0, query);
    const id = ++this.#oneOffSeq;
    return new Promise<PresignedSignature>((resolve, reject) => {
      this.#oneOff.set(id, { resolve, reject });
      this.#worker.postMessage({ endpoint: -1, id, method: method.toUpperCase(), path: signedPath, timestampMs: this.#clock.nowMs(), n: 1 });
    });
  }

  /**
   * Signatures for several (method, path) pairs with one timestamp (the clock now), made by the
   * worker in one message: for per-order paths (order-path-signatures.ts). `done` runs once, with
   * null signatures if the worker stops first. Off the hot path: one message and arrays per call.
   */
  signBatch(methods: readonly string[], paths: readonly string[], done: BatchSigned): void {
    // One batch at a time through its staging slots, at most BATCH_SIGNATURES_MAX: a caller
    // asking for more, or while one is out, is answered null at once (it signs inline or asks later).
    if (!this.alive || this.#batchSlotsBusy || paths.length > BATCH_SIGNATURES_MAX) {
      done(0, '', null);
      return;
    }
    const id = ++this.#oneOffSeq;
    this.#batches.set(id, done);
    this.#batchSlotsBusy = true;
    this.stats.requested += paths.length;
    const slots = new Array<number>(paths.length);
    for (let i = 0; i < paths.length; i++) slots[i] = this.#batchFirstSlot + i;
    this.#worker.postMessage({ endpoint: -2, id, methods, paths, timestampMs: this.#clock.nowMs(), n: paths.length, slots });
  }

  /** Stops the tick and terminates the worker; take() returns false afterwards. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#tickTimer);
    this.#failOneOffs('presigner: closed');
    for (const ring of this.#rings) {
      while (ring.count > 0) ring.dropHead();
    }
    await this.#worker.terminate();
  }

  #scheduleRefill(): void {
    if (!this.#refillOnTake || this.#refillScheduled || !this.alive) return;
    this.#refillScheduled = true;
    setImmediate(this.#refillBound);
  }

  #onReply(reply: WorkerReply): void {
    if (this.#closed) return;
    if (reply.endpoint === -3) {
      this.workerNice = reply.nice ?? null;
      this.workerNiceError = reply.error ?? null;
      return;
    }
    if (reply.endpoint === -2) {
      const done = this.#batches.get(reply.id);
      this.#batches.delete(reply.id);
      this.#batchSlotsBusy = false;
      const views = this.#batchViews;
      const slots = reply.slots ?? [];
      views.length = 0;
      let whole = true;
      for (let i = 0; i < slots.length; i++) {
        const view = this.#stagingView(slots[i]!);
        if (view === null) whole = false;
        else views.push(view);
      }
      if (!whole) this.stats.workerErrors++;
      this.stats.received += views.length;
      done?.(reply.timestampMs, String(reply.timestampMs), whole ? views : null);
      views.length = 0; // no view held past the call
      return;
    }
    if (reply.endpoint === -1) {
      const pending = this.#oneOff.get(reply.id);
      this.#oneOff.delete(reply.id);
      pending?.resolve({ timestampText: String(reply.timestampMs), signature: reply.signatures?.[0] ?? '' });
      return;
    }
    const ring = this.#rings[reply.endpoint]!;
    const timestampText = String(reply.timestampMs);
    const slots = reply.slots ?? [];
    const stride = this.#stride;
    const bytes = this.#bytes;
    ring.inflight -= slots.length;
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      const length = this.#stagingLengths[slot]!;
      this.#stagingFree[this.#stagingFreeCount++] = slot;
      if (length <= 0) {
        this.stats.workerErrors++; // did not fit its slot: never happens for the key the stride was sized for
        continue;
      }
      this.stats.received++;
      if (ring.count === ring.size) {
        ring.dropHead(); // full: the oldest is the least useful
        this.stats.expired++;
      }
      const tail = (ring.head + ring.count) % ring.size;
      const at = ring.offset + tail * stride;
      bytes.copyWithin(at, slot * stride, slot * stride + length);
      slotView(ring.views, tail, bytes, at, length);
      ring.timestampsMs[tail] = reply.timestampMs;
      ring.timestampTexts[tail] = timestampText;
      ring.count++;
    }
    this.#onChange?.();
  }

  /** A batch staging slot's bytes as a view; null when the worker could not write it. */
  #stagingView(slot: number): Uint8Array | null {
    const length = this.#stagingLengths[slot]!;
    return length <= 0 ? null : slotView(this.#batchSlotViews, slot - this.#batchFirstSlot, this.#bytes, slot * this.#stride, length);
  }

  #onWorkerDown(): void {
    if (this.#closed || !this.#alive) return;
    this.#alive = false;
    this.stats.workerErrors++;
    this.#failOneOffs('presigner: worker thread stopped');
    this.#onChange?.();
  }

  #failOneOffs(message: string): void {
    for (const pending of this.#oneOff.values()) pending.reject(new PresignerError('PRESIGN_WORKER_FAILED', message));
    this.#oneOff.clear();
    const batches = [...this.#batches.values()];
    this.#batches.clear();
    this.#batchSlotsBusy = false;
    for (const done of batches) done(0, '', null);
  }

  #waitFull(timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#onChange = null;
        for (const ring of this.#rings) this.startShortfall += Math.max(0, ring.capacity - ring.count);
        resolve();
      }, timeoutMs);
      this.#onChange = () => {
        if (!this.#alive) {
          clearTimeout(timer);
          this.#onChange = null;
          reject(new PresignerError('PRESIGN_WORKER_FAILED', 'presigner: worker thread failed to start'));
          return;
        }
        if (this.#rings.every((ring) => ring.count >= ring.capacity)) {
          clearTimeout(timer);
          this.#onChange = null;
          resolve();
        }
      };
      this.refill();
    });
  }
}

function validate(options: PresignerOptions): void {
  const problems: string[] = [];
  if (!(Number.isInteger(options.maxAgeMs) && options.maxAgeMs > 0 && options.maxAgeMs <= PRESIGN_MAX_AGE_LIMIT_MS)) {
    problems.push(`maxAgeMs must be an integer in 1..${PRESIGN_MAX_AGE_LIMIT_MS}`);
  }
  if (!(Number.isInteger(options.refreshLeadMs) && options.refreshLeadMs >= 0 && options.refreshLeadMs < options.maxAgeMs)) {
    problems.push('refreshLeadMs must be an integer in 0..maxAgeMs-1');
  }
  if (!(Number.isInteger(options.tickMs) && options.tickMs > 0)) problems.push('tickMs must be a positive integer');
  if (!(Number.isInteger(options.startTimeoutMs) && options.startTimeoutMs > 0)) problems.push('startTimeoutMs must be a positive integer');
  if (options.endpoints.length === 0) problems.push('endpoints must not be empty');
  const nice = options.workerNice;
  if (nice !== undefined && nice !== null && !(Number.isInteger(nice) && nice >= 0 && nice <= 19)) problems.push('workerNice must be an integer in 0..19 or null');
  for (const endpoint of options.endpoints) {
    if (!(Number.isInteger(endpoint.capacity) && endpoint.capacity > 0 && endpoint.capacity <= 1024)) {
      problems.push(`endpoint ${endpoint.method} ${endpoint.path}: capacity must be an integer in 1..1024`);
    }
    if (endpoint.method !== endpoint.method.toUpperCase()) problems.push(`endpoint ${endpoint.method}: method must be upper-case`);
    if (!endpoint.path.startsWith('/') || endpoint.path.includes('?')) {
      problems.push(`endpoint ${endpoint.path}: path must start with '/' and carry no query`);
    }
  }
  if (options.privateKey.type !== 'private') problems.push('privateKey must be a private KeyObject');
  if (problems.length > 0) throw new PresignerError('PRESIGN_CONFIG_INVALID', `presigner: ${problems.join('; ')}`);
}

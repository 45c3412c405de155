/**
 * Per-order presigned signatures. Cancel (single route), amend and decrease sign a path that holds
 * the order id (`/portfolio/events/orders/{id}`, `.../amend`, `.../decrease`), so the presigner's
 * constant-path rings cannot serve them. Once a create is acknowledged and the order rests, this
 * store asks the presigner's worker (one batch message) for a signature of each of those paths, so a
 * later cancel/amend/decrease on the hot path takes a fresh one instead of paying ~1 ms of RSA on
 * the event loop. A signature is used once, never when older than `maxAgeMs` (<= 5 s: the
 * exchange's past-skew window is larger, spec/rest.md §1), replaced after each use, and refreshed
 * while it ages, as long as the order was touched within `idleLifetimeMs`. `depth` signatures are
 * kept per path (each with its own timestamp), so a second amend soon after the first still finds
 * one while the replacement of the first is being made (with one, a quick second amend signed
 * inline: ~0.7 ms, the p99 of bench/tick-to-trade's amend phase); a path is kept that deep once it
 * was used, one deep before (a replacing maker cancels each order once and never amends it: six
 * or eight signatures made per order, one used, had the worker miss the cancels' by ~60% on the
 * Margin route, whose cancel is per order). The amend path keeps its own
 * `amendDepth`: a requoting maker amends one order in bursts, and the worker (nice 19) answers a
 * batch in ~2 ms at p50 but ~40 ms at p99 and up to ~250 ms at start-up on a busy 2-core host, so
 * two were used up before their replacements came (1-2% of amends signed inline). A flush that
 * comes while a batch is in flight runs when that batch is answered, not at the next idle turn.
 *
 * Record per tracked order (pooled; at most `capacity`, the oldest tracked is evicted first):
 *
 *   orderId | path[kind] | timestampMs[slot] timestampText[slot] head bytes[slot] | filled, pending masks
 *           kind: 0 cancel (DELETE), 1 amend (POST), 2 decrease (POST); only the enabled kinds
 *           slot: kind * MAX_DEPTH + 0..depth(kind)-1; filled, pending: one bit per slot
 *
 * A signature is kept as the request head's bytes (net's signedFieldsBytes), copied out of the
 * presigner's shared buffer into the record's own bytes (made once per record, reused with it);
 * take() hands out a view of them made once per slot. No string or buffer per signature.
 *
 * Owns: the records and what to ask the worker. Never: signs on the calling thread (a miss returns
 * false; the caller signs inline and counts it), sends requests, or knows whether an order is live
 * beyond what its owner tells it (track / forget).
 */

import { FifoMap } from '../../core/index.ts';
import type { Clock } from '../../core/index.ts';
import { BATCH_SIGNATURES_MAX, slotView } from './presigner.ts';
import type { Presigner, PresignedSignature } from './presigner.ts';

export const OrderPathKind = { CANCEL: 0, AMEND: 1, DECREASE: 2 } as const;
export type OrderPathKind = (typeof OrderPathKind)[keyof typeof OrderPathKind];
const KIND_COUNT = 3;
/**
 * Most signatures one batch asks the worker for. A batch is answered whole (~1 ms of RSA each at
 * nice 19), so a new order's cancel asked for while a batch is in flight waits for all of it: 192
 * refreshes (64 orders x 3 paths) kept such a cancel waiting ~200 ms. A full batch's answer sends
 * the next, so smaller batches cost no throughput.
 */
export const ORDER_BATCH_MAX = Math.min(16, BATCH_SIGNATURES_MAX);
/** Most signatures kept per path (the option `depth` is 1..MAX_DEPTH). */
export const MAX_DEPTH = 4;
const SLOT_COUNT = KIND_COUNT * MAX_DEPTH;
const METHODS: readonly string[] = ['DELETE', 'POST', 'POST'];
const SUFFIXES: readonly string[] = ['', '/amend', '/decrease'];

export interface OrderPathSignaturesOptions {
  presigner: Presigner;
  clock: Clock; // the signing clock (wall time, as the timestamps)
  ordersPath: string; // `${prefix}/portfolio/events/orders`
  kinds: readonly OrderPathKind[]; // which per-order paths to keep signed
  capacity: number; // orders tracked at once
  maxAgeMs: number; // never hand out an older signature
  refreshLeadMs: number; // re-sign this long before maxAgeMs
  idleLifetimeMs: number; // stop refreshing an order not tracked or used for this long
  depth?: number; // signatures kept per path, 1..MAX_DEPTH (default 1)
  amendDepth?: number; // the amend path's, 1..MAX_DEPTH (default depth): a requoting maker amends one order in bursts
}

export interface OrderPathSignaturesStats {
  tracked: number; // track() calls
  signed: number; // signatures received
  taken: number; // handed out
  missed: number; // take() with no fresh signature (the caller signs: inline or in the worker), untracked included
  untracked: number; // of those, take() for an order not tracked (never acked resting here, evicted, or forgotten)
  evicted: number; // dropped at capacity or after idleLifetimeMs
}

class OrderRecord {
  orderId = '';
  generation = 0; // bumped when the record is reused, so a late worker reply cannot fill the wrong order
  touchedMs = 0;
  pending = 0; // bit per slot: a signature is being made
  filled = 0; // bit per slot: holds a signature not yet taken
  used = 0; // bit per kind: taken (or missed) at least once, so kept `depth(kind)` deep; else one
  readonly paths: string[] = ['', '', ''];
  readonly timestampsMs = new Float64Array(SLOT_COUNT);
  readonly timestampTexts: string[] = new Array<string>(SLOT_COUNT).fill('');
  /** The slots' head bytes, slot x `stride` (made at the record's first signature). */
  bytes: Uint8Array | null = null;
  /** Each slot's bytes as a view (made once, or when the length changes). */
  readonly views: (Uint8Array | null)[] = new Array<Uint8Array | null>(SLOT_COUNT).fill(null);

  /** Copies a signature's head bytes into `slot`. */
  keep(slot: number, signed: Uint8Array, stride: number): void {
    const bytes = (this.bytes ??= new Uint8Array(SLOT_COUNT * stride));
    const at = slot * stride;
    bytes.set(signed, at);
    slotView(this.views, slot, bytes, at, signed.length);
    this.filled |= 1 << slot;
  }

  empty(slot: number): void {
    this.filled &= ~(1 << slot);
    this.timestampTexts[slot] = '';
  }

  has(slot: number): boolean {
    return (this.filled & (1 << slot)) !== 0;
  }

  clear(): void {
    this.orderId = '';
    this.generation++;
    this.touchedMs = 0;
    this.pending = 0;
    this.filled = 0;
    this.used = 0;
    for (let kind = 0; kind < KIND_COUNT; kind++) this.paths[kind] = '';
    for (let slot = 0; slot < SLOT_COUNT; slot++) {
      this.timestampsMs[slot] = 0;
      this.timestampTexts[slot] = '';
    }
  }
}

/** A slot's signature as the request head's bytes, into `out`. */
function readSlot(record: OrderRecord, slot: number, out: PresignedSignature): void {
  out.timestampText = record.timestampTexts[slot]!;
  out.signature = '';
  out.signedBytes = record.views[slot]!;
}

export class OrderPathSignatures {
  readonly stats: OrderPathSignaturesStats = { tracked: 0, signed: 0, taken: 0, missed: 0, untracked: 0, evicted: 0 };
  readonly #options: OrderPathSignaturesOptions;
  readonly #kinds: readonly OrderPathKind[];
  /** The enabled kinds, cancel first: the order a new order's first signatures are asked in (a cancel takes risk off). */
  readonly #kindsByUrgency: readonly OrderPathKind[];
  /** Bit per enabled kind. */
  #enabled = 0;

  readonly #records: FifoMap<string, OrderRecord>; // insertion order = eviction order
  /** A signBatch not yet answered: flush() sends no other until it is. */
  #batchInFlight = false;
  /** A flush came while the batch was in flight: flush again when it is answered, not at the next idle turn or tick. */
  #flushWhenSigned = false;
  /** The batch in flight was cut at ORDER_BATCH_MAX: flush again when it is answered. */
  #batchFull = false;
  /** The order id track() kept last (lastTracked reads it while the order is still kept). */
  #lastTracked = '';
  /** The batch in flight: what was asked (methods, paths) and for which record, slot and generation. */
  readonly #batchMethods: string[] = [];
  readonly #batchPaths: string[] = [];
  readonly #batchTargets: OrderRecord[] = [];
  readonly #batchSlots: number[] = [];
  readonly #batchGenerations: number[] = [];
  readonly #free: OrderRecord[] = [];

  /** Signatures kept per path, by kind. */
  readonly #depths = new Uint8Array(KIND_COUNT);

  constructor(options: OrderPathSignaturesOptions) {
    const depth = options.depth ?? 1;
    if (!(Number.isInteger(depth) && depth >= 1 && depth <= MAX_DEPTH)) throw new RangeError(`OrderPathSignatures: depth must be an integer in 1..${MAX_DEPTH}, got ${depth}`);
    this.#options = options;
    this.#records = new FifoMap(options.capacity);
    this.#kinds = [...options.kinds];
    for (const kind of options.kinds) this.#enabled |= 1 << kind;
    this.#kindsByUrgency = [OrderPathKind.CANCEL, OrderPathKind.AMEND, OrderPathKind.DECREASE].filter((kind) => options.kinds.includes(kind));
    const amendDepth = options.amendDepth ?? depth;
    if (!(Number.isInteger(amendDepth) && amendDepth >= 1 && amendDepth <= MAX_DEPTH)) throw new RangeError(`OrderPathSignatures: amendDepth must be an integer in 1..${MAX_DEPTH}, got ${amendDepth}`);
    this.#depths.fill(depth);
    this.#depths[OrderPathKind.AMEND] = amendDepth;
  }

  get size(): number {
    return this.#records.size;
  }

  /** The signed path of `kind` for a tracked order (no allocation), or null when not tracked. */
  path(orderId: string, kind: OrderPathKind): string | null {
    const record = this.#records.get(orderId);
    return record === undefined || record.paths[kind] === '' ? null : record.paths[kind]!;
  }

  /** After a create ack that left the order resting: its paths get signed at the next flush(). */
  track(orderId: string): void {
    if (this.#records.has(orderId)) return;
    const record = this.#free.pop() ?? new OrderRecord();
    record.orderId = orderId;
    record.touchedMs = this.#options.clock.nowMs();
    const encoded = `${this.#options.ordersPath}/${encodeURIComponent(orderId)}`;
    for (const kind of this.#kinds) record.paths[kind] = encoded + SUFFIXES[kind]!;
    this.#records.set(orderId, record, this.#recycle);
    this.#lastTracked = orderId;
    this.stats.tracked++;
  }

  /** The order is gone (cancelled, fully filled, decreased to zero): stop keeping its signatures. */
  forget(orderId: string): void {
    this.#drop(orderId);
  }

  /** Whether take() would find a fresh signature of (orderId, kind) now; changes nothing. */
  ready(orderId: string, kind: OrderPathKind): boolean {
    const record = this.#records.get(orderId);
    if (record === undefined || record.paths[kind] === '') return false;
    const oldestMs = this.#options.clock.nowMs() - this.#options.maxAgeMs;
    const first = kind * MAX_DEPTH;
    for (let slot = first; slot < first + this.#depths[kind]!; slot++) {
      if (record.has(slot) && record.timestampsMs[slot]! >= oldestMs) return true;
    }
    return false;
  }

  /** The order tracked last while it still is, '' otherwise: the one a keep-warm rehearsal of an amend reads (RestOrderEntry.rehearseAmend). */
  get lastTracked(): string {
    const orderId = this.#lastTracked;
    return orderId !== '' && this.#records.has(orderId) ? orderId : '';
  }

  /**
   * The signature take() would move into `out` now, written there but kept: nothing is taken,
   * touched, dropped or counted. False when take() would find none.
   */
  peek(orderId: string, kind: OrderPathKind, out: PresignedSignature): boolean {
    const record = this.#records.get(orderId);
    if (record === undefined || record.paths[kind] === '') return false;
    const chosen = this.#oldestFresh(record, kind, this.#options.clock.nowMs(), false);
    if (chosen < 0) return false;
    readSlot(record, chosen, out);
    return true;
  }

  /**
   * Hot path: moves a fresh signature of (orderId, kind) into `out` and forgets it (single use).
   * False when the order is not tracked, the kind not enabled, or the signature missing or too
   * old; the caller signs inline. Either way the order counts as touched and a replacement is made
   * at the next flush().
   */
  take(orderId: string, kind: OrderPathKind, out: PresignedSignature): boolean {
    const record = this.#records.get(orderId);
    if (record === undefined) {
      if ((this.#enabled & (1 << kind)) !== 0) {
        this.stats.missed++;
        this.stats.untracked++;
      }
      return false;
    }
    if (record.paths[kind] === '') return false;
    const nowMs = this.#options.clock.nowMs();
    record.touchedMs = nowMs;
    record.used |= 1 << kind;
    const chosen = this.#oldestFresh(record, kind, nowMs, true);
    if (chosen < 0) {
      this.stats.missed++;
      return false;
    }
    readSlot(record, chosen, out);
    record.empty(chosen);
    this.stats.taken++;
    return true;
  }

  /**
   * The slot of `kind` take() hands out: the oldest fresh one (fewer age out unused), -1 when
   * none; with `dropOld`, too old ones are emptied on the way.
   */
  #oldestFresh(record: OrderRecord, kind: OrderPathKind, nowMs: number, dropOld: boolean): number {
    const oldestMs = nowMs - this.#options.maxAgeMs;
    let chosen = -1;
    const first = kind * MAX_DEPTH;
    for (let slot = first; slot < first + this.#depths[kind]!; slot++) {
      if (!record.has(slot)) continue;
      if (record.timestampsMs[slot]! < oldestMs) {
        if (dropOld) record.empty(slot);
        continue;
      }
      if (chosen < 0 || record.timestampsMs[slot]! < record.timestampsMs[chosen]!) chosen = slot;
    }
    return chosen;
  }

  /**
   * Asks the worker, in one message, for every missing or aging signature of the tracked orders;
   * drops orders untouched for idleLifetimeMs. Called when the trading thread is idle and on the
   * housekeeping tick, never on the hot path.
   */
  flush(): void {
    const presigner = this.#options.presigner;
    // One batch at a time: a flush each tick while the worker is still on the last one only
    // lengthens its queue (at 5,000 markets the orders it signed for were evicted before use).
    if (!presigner.alive || this.#records.size === 0) return;
    if (this.#batchInFlight) {
      this.#flushWhenSigned = true;
      return;
    }
    const nowMs = this.#options.clock.nowMs();
    const staleBeforeMs = nowMs - (this.#options.maxAgeMs - this.#options.refreshLeadMs);
    const idleBeforeMs = nowMs - this.#options.idleLifetimeMs;
    // The batch's arrays are the instance's, emptied and refilled: only one batch is ever in
    // flight, and postMessage copies methods and paths before signBatch returns.
    const methods = this.#batchMethods;
    const paths = this.#batchPaths;
    const targets = this.#batchTargets;
    const targetSlots = this.#batchSlots;
    const generations = this.#batchGenerations;
    methods.length = 0;
    paths.length = 0;
    targets.length = 0;
    targetSlots.length = 0;
    generations.length = 0;
    // First the paths that hold no fresh signature and have none being made (a new order's, or
    // one just used up), cancels before amends before decreases: what the next call would miss.
    // Then the deeper slots and the refreshes of aging ones.
    // The missing cancels go in a batch of their own: the worker answers a batch whole, so a
    // cancel asked for beside its order's amend and decrease waited for all three (~3 ms of RSA at
    // nice 19, and 10-20 ms with the simulator on the worker's core).
    const freshFromMs = nowMs - this.#options.maxAgeMs;
    for (const kind of this.#kindsByUrgency) {
      for (const record of this.#records.values()) {
        if (methods.length === ORDER_BATCH_MAX) break;
        if (record.touchedMs < idleBeforeMs || this.#holdsOrMakes(record, kind, freshFromMs)) continue;
        this.#ask(record, kind * MAX_DEPTH);
      }
      if (kind === OrderPathKind.CANCEL && methods.length > 0) return this.#sendBatch(true);
    }
    let expired: string[] | null = null;
    for (const record of this.#records.values()) {
      if (record.touchedMs < idleBeforeMs) {
        (expired ??= []).push(record.orderId);
        continue;
      }
      for (const kind of this.#kinds) {
        // One signature per path until the path is used: most orders are cancelled once and never
        // amended, and each signature is ~1 ms of the worker that the next order's wait behind.
        const depth = (record.used & (1 << kind)) !== 0 ? this.#depths[kind]! : 1;
        for (let slot = kind * MAX_DEPTH; slot < kind * MAX_DEPTH + depth; slot++) {
          const bit = 1 << slot;
          if ((record.pending & bit) !== 0) continue;
          if (record.has(slot) && record.timestampsMs[slot]! >= staleBeforeMs) continue;
          if (methods.length === ORDER_BATCH_MAX) break; // the rest when this batch is answered
          this.#ask(record, slot);
        }
      }
    }
    if (expired !== null) {
      for (const orderId of expired) this.#drop(orderId);
      this.stats.evicted += expired.length;
    }
    this.#sendBatch(methods.length === ORDER_BATCH_MAX);
  }

  /** Sends the batch built (if any); `more`: more may be wanted, so its answer flushes again. */
  #sendBatch(more: boolean): void {
    if (this.#batchMethods.length === 0) return;
    this.#batchInFlight = true;
    this.#batchFull = more;
    this.#options.presigner.signBatch(this.#batchMethods, this.#batchPaths, this.#onBatchSigned);
  }

  /** Whether `record` holds a fresh signature of `kind`'s path, or has one being made. */
  #holdsOrMakes(record: OrderRecord, kind: OrderPathKind, freshFromMs: number): boolean {
    const first = kind * MAX_DEPTH;
    for (let slot = first; slot < first + MAX_DEPTH; slot++) {
      if ((record.pending & (1 << slot)) !== 0) return true;
      if (record.has(slot) && record.timestampsMs[slot]! >= freshFromMs) return true;
    }
    return false;
  }

  /** Adds `slot` of `record` to the batch being built and marks it pending. */
  #ask(record: OrderRecord, slot: number): void {
    record.pending |= 1 << slot;
    const kind = (slot / MAX_DEPTH) | 0;
    this.#batchMethods.push(METHODS[kind]!);
    this.#batchPaths.push(record.paths[kind]!);
    this.#batchTargets.push(record);
    this.#batchSlots.push(slot);
    this.#batchGenerations.push(record.generation);
  }

  /** The worker's answer to the batch in flight (bound once: no closure per batch). */
  readonly #onBatchSigned = (timestampMs: number, timestampText: string, signed: readonly Uint8Array[] | null): void => {
    this.#batchInFlight = false;
    const targets = this.#batchTargets;
    const targetSlots = this.#batchSlots;
    const generations = this.#batchGenerations;
    const stride = this.#options.presigner.slotBytes;
    for (let i = 0; i < targets.length; i++) {
      const record = targets[i]!;
      if (record.generation !== generations[i]) continue; // forgotten (and maybe reused) meanwhile
      const slot = targetSlots[i]!;
      record.pending &= ~(1 << slot);
      if (signed === null) continue;
      record.keep(slot, signed[i]!, stride);
      record.timestampsMs[slot] = timestampMs;
      record.timestampTexts[slot] = timestampText;
      this.stats.signed++;
    }
    targets.length = 0; // no record held past its batch
    if (this.#flushWhenSigned || this.#batchFull) {
      this.#flushWhenSigned = false;
      this.flush();
    }
  };

  /** An evicted record back to the free list. */
  readonly #recycle = (_orderId: string, record: OrderRecord): void => {
    record.clear();
    this.#free.push(record);
    this.stats.evicted++;
  };

  #drop(orderId: string): void {
    const record = this.#records.get(orderId);
    if (record === undefined) return;
    this.#records.delete(orderId);
    record.clear();
    this.#free.push(record);
  }
}

/**
 * Intents the router holds while the write bucket is empty, so a strategy that wants more than the
 * budget is served in turn instead of being denied RATE_LIMITED on every book update.
 *
 * Rules (issue "3 of 6"), each kept here and nowhere else:
 * - per order, the latest wanted state wins: at most one held entry per client order id; a newer
 *   amend (or a change to a held create) rewrites the entry in place and keeps its turn;
 * - a cancel drops the held create or amend of its order (the router then sends or defers the
 *   cancel itself: cancels spend the write reserve creates and amends never touch, so they go first);
 * - creates and amends rotate fairly: one FIFO lane per strategy (so markets take turns within a
 *   strategy, one entry per order), and the lanes are served by weighted round robin, `priority`
 *   entries per visit.
 *
 * This file owns the held entries and their order only; the router decides when the budget lets
 * one go and sends it through the gate as if it had just arrived. Nothing here runs on the fast
 * path: an intent that fits the budget never reaches it.
 */

import { ORDER_STATE_HELD, PRICE_INVALID, asCount } from '../core/index.ts';
import type { BookSide, Count, OrderIntent, Price, TimeInForce } from '../core/index.ts';

export const HeldKind = { CREATE: 0, AMEND: 1 } as const;
export type HeldKind = (typeof HeldKind)[keyof typeof HeldKind];

/**
 * One held create or amend. A held create is also what the strategy sees of its order until it is
 * sent (OrderView, state HELD), so `ctx.order(id)` finds it and an amend or cancel reaches it.
 */
export class HeldIntent {
  kind: HeldKind = HeldKind.CREATE;
  /** False once sent or dropped: the lane skips it (removal from the middle of a FIFO is lazy). */
  queued = false;
  strategyId = 0;
  clientOrderId = '';
  /** CREATE: the counter the id was reserved with (the OMS records it with the order). */
  counter = 0;
  orderId = '';
  ticker = '';
  market = -1;
  side: BookSide = 'bid';
  price: Price = PRICE_INVALID;
  /** CREATE: the order count; AMEND: the new resting count. 1/100 contract. */
  count: Count = asCount(0);
  postOnly = false;
  reduceOnly = false;
  timeInForce: TimeInForce = 'good_till_canceled';
  subaccount = 0;
  orderGroup = -1;
  route = 0;
  heldAtMs = 0;
  /** OrderView: a held create has filled nothing, and its view is no OMS record (never reused). */
  readonly filledCount = 0;
  readonly generation = 0;
  /** OrderView: a held create is found by its id's text (it has no OMS handle until sent). */
  readonly handle = 0;

  get remainingCount(): number {
    return this.count;
  }

  get state(): number {
    return ORDER_STATE_HELD;
  }
}

/** One strategy's FIFO of held creates and amends. */
class Lane {
  readonly entries: HeldIntent[] = [];
  head = 0;
  /** Entries still queued (the array also holds skipped ones until compacted). */
  queued = 0;
  priority = 1;
  constructor(readonly strategyId: number) {}

  push(entry: HeldIntent): void {
    this.entries.push(entry);
    this.queued++;
  }

  /** The first queued entry, skipping (and dropping) ones already taken out. */
  peek(): HeldIntent | null {
    const entries = this.entries;
    while (this.head < entries.length && !entries[this.head]!.queued) this.head++;
    if (this.head >= entries.length) {
      entries.length = 0;
      this.head = 0;
      return null;
    }
    // Compact once the skipped prefix is half the array: amortised O(1) per entry.
    if (this.head > 64 && this.head * 2 > entries.length) {
      entries.splice(0, this.head);
      this.head = 0;
    }
    return entries[this.head]!;
  }
}

export class HeldIntents {
  /** Queued entries by client order id (one per order: latest wins). */
  readonly #byClientId = new Map<string, HeldIntent>();
  /** Lanes by strategy id (dense); the rotation visits the ones with queued entries. */
  readonly #lanes: (Lane | undefined)[] = [];
  #cursor = 0;
  /** Entries the lane under the cursor may still release before the rotation moves on. */
  #credit = 0;
  #size = 0;
  readonly #capacity: number;

  /** @param capacity most entries held at once; beyond it the router denies RATE_LIMITED as before. */
  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#size;
  }

  get full(): boolean {
    return this.#size >= this.#capacity;
  }

  /** Held entries of one strategy. */
  sizeOf(strategyId: number): number {
    const lane = this.#lanes[strategyId];
    return lane === undefined ? 0 : lane.queued;
  }

  /** Entries a visit to this strategy's lane may release in a row (its priority, at least 1). */
  setPriority(strategyId: number, priority: number): void {
    this.#lane(strategyId).priority = Math.max(1, Math.floor(priority));
  }

  /** The queued entry of an order, or undefined. */
  get(clientOrderId: string): HeldIntent | undefined {
    return this.#byClientId.get(clientOrderId);
  }

  /** Holds a create under a reserved client order id. */
  holdCreate(intent: Readonly<OrderIntent>, ticker: string, clientOrderId: string, counter: number, nowMs: number): HeldIntent {
    const entry = this.#take();
    entry.kind = HeldKind.CREATE;
    entry.clientOrderId = clientOrderId;
    entry.counter = counter;
    entry.orderId = '';
    entry.ticker = ticker;
    this.#copy(entry, intent, nowMs);
    this.#enqueue(entry);
    return entry;
  }

  /** Holds an amend of a live order (a held entry of that order must not exist: the router rewrites it instead). */
  holdAmend(intent: Readonly<OrderIntent>, ticker: string, orderId: string, nowMs: number): HeldIntent {
    const entry = this.#take();
    entry.kind = HeldKind.AMEND;
    entry.clientOrderId = intent.clientOrderId;
    entry.counter = 0;
    entry.orderId = orderId;
    entry.ticker = ticker;
    this.#copy(entry, intent, nowMs);
    this.#enqueue(entry);
    return entry;
  }

  /** Takes an entry out of the queue (sent or dropped); its lane skips it lazily. */
  remove(entry: HeldIntent): void {
    if (!entry.queued) return;
    entry.queued = false;
    this.#byClientId.delete(entry.clientOrderId);
    this.#lanes[entry.strategyId]!.queued--;
    this.#size--;
  }

  /**
   * The next entry due by the rotation, without taking it. Call `release(entry)` once it went out
   * (or was dropped) so the rotation advances.
   */
  peek(): HeldIntent | null {
    if (this.#size === 0) return null;
    const lanes = this.#lanes;
    for (let visited = 0; visited <= lanes.length; visited++) {
      const lane = lanes[this.#cursor];
      if (lane !== undefined && this.#credit > 0) {
        const entry = lane.peek();
        if (entry !== null) return entry;
      }
      this.#cursor = this.#cursor + 1 >= lanes.length ? 0 : this.#cursor + 1;
      const next = lanes[this.#cursor];
      this.#credit = next === undefined ? 0 : next.priority;
    }
    return null;
  }

  /** The entry `peek()` returned left the queue: removes it and spends one credit of its lane. */
  release(entry: HeldIntent): void {
    this.remove(entry);
    if (this.#credit > 0) this.#credit--;
  }

  /** Every queued entry, oldest lane first (stop, kill switch, a strategy's cancel-all). */
  drain(strategyId: number, out: HeldIntent[]): number {
    let n = 0;
    for (const entry of this.#byClientId.values()) {
      if (strategyId >= 0 && entry.strategyId !== strategyId) continue;
      out[n++] = entry;
    }
    return n;
  }

  #lane(strategyId: number): Lane {
    let lane = this.#lanes[strategyId];
    if (lane === undefined) {
      lane = new Lane(strategyId);
      this.#lanes[strategyId] = lane;
    }
    return lane;
  }

  #enqueue(entry: HeldIntent): void {
    entry.queued = true;
    this.#byClientId.set(entry.clientOrderId, entry);
    this.#lane(entry.strategyId).push(entry);
    this.#size++;
  }

  /** A fresh entry: a removed one may still sit in its lane's array until compaction, so none is reused. */
  #take(): HeldIntent {
    return new HeldIntent();
  }

  #copy(entry: HeldIntent, intent: Readonly<OrderIntent>, nowMs: number): void {
    entry.strategyId = intent.strategyId;
    entry.market = intent.market;
    entry.side = intent.side;
    entry.price = intent.price;
    entry.count = intent.count;
    entry.postOnly = intent.postOnly;
    entry.reduceOnly = intent.reduceOnly;
    entry.timeInForce = intent.timeInForce;
    entry.subaccount = intent.subaccount;
    entry.orderGroup = intent.orderGroup;
    entry.route = intent.route;
    entry.heldAtMs = nowMs;
  }
}

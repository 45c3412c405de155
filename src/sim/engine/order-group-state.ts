/**
 * An order group: a rolling window of matched contracts (15 s on the exchange) with an optional
 * contracts limit. When the matched contracts inside the window exceed the limit the engine
 * cancels every order of the group and blocks new ones until reset. This record owns the window
 * arithmetic and the set of the group's resting orders; cancelling is order-groups.ts's job.
 *
 * Window: a ring of (time, count) entries; entries older than now - window fall out.
 *   head -> [t0,c0][t1,c1] ... [tn,cn] <- tail      sum = c0 + ... + cn
 */

import type { Count } from '../../core/index.ts';
import type { ExchangeIndex, OrderGroup } from './types.ts';
import type { EngineOrder } from './engine-order.ts';

const RING_INITIAL = 8;

export class OrderGroupState implements OrderGroup {
  orderGroupId: string;
  userId: string;
  subaccount: number;
  exchangeIndex: ExchangeIndex;
  contractsLimit: Count | null;
  triggered: boolean;
  createdMs: number;
  readonly orders: Set<EngineOrder>;
  #times: Float64Array;
  #counts: Float64Array;
  #head: number;
  #size: number;
  #sum: number;

  constructor(orderGroupId: string, userId: string, subaccount: number, exchangeIndex: ExchangeIndex, contractsLimit: Count | null, nowMs: number) {
    this.orderGroupId = orderGroupId;
    this.userId = userId;
    this.subaccount = subaccount;
    this.exchangeIndex = exchangeIndex;
    this.contractsLimit = contractsLimit;
    this.triggered = false;
    this.createdMs = nowMs;
    this.orders = new Set();
    this.#times = new Float64Array(RING_INITIAL);
    this.#counts = new Float64Array(RING_INITIAL);
    this.#head = 0;
    this.#size = 0;
    this.#sum = 0;
  }

  get matchedInWindow(): Count {
    return this.#sum as Count;
  }

  /** Drops entries at or before nowMs - windowMs. */
  expire(nowMs: number, windowMs: number): void {
    const cutoff = nowMs - windowMs;
    const capacity = this.#times.length;
    while (this.#size > 0 && this.#times[this.#head] <= cutoff) {
      this.#sum -= this.#counts[this.#head];
      this.#head = (this.#head + 1) % capacity;
      this.#size--;
    }
  }

  /** Records `count` matched at nowMs; returns true when the window now exceeds the limit. */
  addMatched(count: Count, nowMs: number, windowMs: number): boolean {
    this.expire(nowMs, windowMs);
    const capacity = this.#times.length;
    const last = (this.#head + this.#size - 1) % capacity;
    if (this.#size > 0 && this.#times[last] === nowMs) {
      this.#counts[last] += count; // same millisecond: one entry
    } else {
      if (this.#size === capacity) this.#grow();
      const tail = (this.#head + this.#size) % this.#times.length;
      this.#times[tail] = nowMs;
      this.#counts[tail] = count;
      this.#size++;
    }
    this.#sum += count;
    return this.limitReached();
  }

  /**
   * The exchange's order-groups page: "If the rolling total exceeds the limit, the group is
   * triggered", and a limit updated "to a value below the current rolling volume" triggers it.
   * So the test is strictly greater: matching exactly the limit does not trigger.
   */
  limitReached(): boolean {
    return this.contractsLimit !== null && this.#sum > this.contractsLimit;
  }

  /** Matched counter back to 0 (reset). */
  clearWindow(): void {
    this.#head = 0;
    this.#size = 0;
    this.#sum = 0;
  }

  #grow(): void {
    const capacity = this.#times.length;
    const times = new Float64Array(capacity * 2);
    const counts = new Float64Array(capacity * 2);
    for (let i = 0; i < this.#size; i++) {
      times[i] = this.#times[(this.#head + i) % capacity];
      counts[i] = this.#counts[(this.#head + i) % capacity];
    }
    this.#times = times;
    this.#counts = counts;
    this.#head = 0;
  }
}

/**
 * Order groups as the gate sees them (rest.md §7): a rolling 15-second matched-contract limit per
 * group, a "triggered" flag that blocks new orders until reset, and the per-user cap on groups.
 * Each group keeps 16 one-second buckets of matched contracts; the window sum counts every bucket
 * of the last 16 seconds, so it over-counts by up to one second of fills: conservative, never lax.
 * Handles are small integers (array index) so a check costs one load; ids map to handles off the
 * hot path. This file owns the groups' state; the OMS feeds it fills and order_group_updates.
 */

import { assert } from '../core/index.ts';

const BUCKETS = 16; // 15 s window + the current partial second
const WINDOW_SECONDS = 15;

export class OrderGroup {
  readonly handle: number;
  readonly id: string;
  readonly subaccount: number;
  /** Contracts limit in 1/100 contract; 0 = no limit known. */
  contractsLimit: number;
  triggered = false;
  deleted = false;
  readonly #bucketSecond = new Float64Array(BUCKETS).fill(-1);
  readonly #bucketCount = new Float64Array(BUCKETS);

  constructor(handle: number, id: string, subaccount: number, contractsLimit: number) {
    this.handle = handle;
    this.id = id;
    this.subaccount = subaccount;
    this.contractsLimit = contractsLimit;
  }

  /** Records `count` matched at `tsMs` (venue time when known). */
  addMatched(count: number, tsMs: number): void {
    const second = Math.floor(tsMs / 1000);
    const index = second % BUCKETS;
    if (this.#bucketSecond[index] !== second) {
      this.#bucketSecond[index] = second;
      this.#bucketCount[index] = 0;
    }
    this.#bucketCount[index] += count;
  }

  /** Contracts matched in the rolling window ending at nowMs (seconds nowSecond-15 .. nowSecond). */
  matchedInWindow(nowMs: number): number {
    const nowSecond = Math.floor(nowMs / 1000);
    let sum = 0;
    for (let i = 0; i < BUCKETS; i++) {
      const second = this.#bucketSecond[i];
      if (second >= nowSecond - WINDOW_SECONDS && second <= nowSecond) sum += this.#bucketCount[i];
    }
    return sum;
  }

  /** The venue reset the group: matched counter back to 0 and new orders allowed again. */
  reset(): void {
    this.triggered = false;
    this.#bucketSecond.fill(-1);
    this.#bucketCount.fill(0);
  }
}

export class OrderGroups {
  readonly #byHandle: OrderGroup[] = [];
  readonly #handleById = new Map<string, number>();
  #live = 0;

  /** Registers a group the venue created (or recovered); returns its handle. Re-adding an id updates its limit. */
  add(id: string, subaccount: number, contractsLimit: number): number {
    const known = this.#handleById.get(id);
    if (known !== undefined) {
      const group = this.#byHandle[known];
      group.contractsLimit = contractsLimit;
      if (group.deleted) {
        group.deleted = false;
        this.#live++;
      }
      return known;
    }
    const handle = this.#byHandle.length;
    this.#byHandle.push(new OrderGroup(handle, id, subaccount, contractsLimit));
    this.#handleById.set(id, handle);
    this.#live++;
    return handle;
  }

  delete(handle: number): void {
    const group = this.at(handle);
    if (group === undefined || group.deleted) return;
    group.deleted = true;
    this.#live--;
    assert(this.#live >= 0, 'OrderGroups.delete: live count below zero');
  }

  at(handle: number): OrderGroup | undefined {
    return handle >= 0 && handle < this.#byHandle.length ? this.#byHandle[handle] : undefined;
  }

  handleOf(id: string): number {
    const handle = this.#handleById.get(id);
    return handle === undefined ? -1 : handle;
  }

  /** Groups not deleted: what counts against the per-user cap. */
  get live(): number {
    return this.#live;
  }
}

/**
 * Orders by client order id: the OMS looks one up for every answer and indexes one per create.
 * A Map keyed by the id string leaves garbage on every order (its table is rebuilt as entries come
 * and go, seen in the hot-path bench's heap profile), so this session's own ids
 * (`<head><counter>`, client-order-ids.ts) sit in a ring indexed by their counter instead: the
 * counter is read from the id's trailing digits and the cell's order confirmed by its id (the
 * same string object on the answer path, so one pointer compare); no hash, no entry to allocate.
 * Any other id (an order recovered from an earlier session's journal, one adopted by
 * reconciliation, a foreign tool's) and an own id whose cell is taken by a still-tracked order (a
 * long-resting one whose counter is a ring's length behind) go to a Map. The ring doubles when
 * half full, so it holds about twice the tracked own orders at most. It holds Orders keyed by
 * their own clientOrderId, which the OMS never changes while an order is indexed.
 */

import { counterOfId } from './client-order-ids.ts';
import type { Order } from './order.ts';

const RING_START = 4096;
const DASH = 45;

export class ClientIdIndex {
  /** "<prefix>-<epoch>-": an id that starts with it and ends in a canonical counter is this session's. */
  readonly #head: string;
  #orders: (Order | undefined)[];
  #mask: number;
  #ringCount = 0;
  readonly #others = new Map<string, Order>();

  constructor(head: string, ringStart = RING_START) {
    if (!Number.isInteger(Math.log2(ringStart)) || ringStart < 2) throw new Error(`ring size must be a power of two, got ${ringStart}`);
    if (head.charCodeAt(head.length - 1) !== DASH) throw new Error(`an id head ends in '-', got ${JSON.stringify(head)}`);
    this.#head = head;
    this.#orders = new Array<Order | undefined>(ringStart).fill(undefined);
    this.#mask = ringStart - 1;
  }

  get size(): number {
    return this.#ringCount + this.#others.size;
  }

  /** Ids held in the Map rather than the ring (tests and stats). */
  get overflowCount(): number {
    return this.#others.size;
  }

  // A cell is `counter & mask`: exact for counters up to 2^53 (ToInt32 keeps the low 32 bits).
  get(id: string): Order | undefined {
    const counter = counterOfId(id);
    if (counter >= 0) {
      const order = this.#orders[counter & this.#mask];
      if (order !== undefined && order.clientOrderId === id) return order;
    }
    return this.#others.size === 0 ? undefined : this.#others.get(id);
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Indexes `order` under `id`; in the ring only when `id` is this session's and is the order's own clientOrderId. */
  set(id: string, order: Order): void {
    const counter = id === order.clientOrderId && id.startsWith(this.#head) && id.length > this.#head.length ? counterOfId(id) : -1;
    if (counter < 0) {
      this.#others.set(id, order);
      return;
    }
    const cell = counter & this.#mask;
    const held = this.#orders[cell];
    if (held !== undefined && held.clientOrderId === id) {
      this.#orders[cell] = order;
      return;
    }
    if (held !== undefined) {
      this.#others.set(id, order);
      return;
    }
    if (this.#others.size > 0) this.#others.delete(id); // an earlier overflow entry of this id would be found first
    this.#orders[cell] = order;
    this.#ringCount++;
    if (this.#ringCount * 2 > this.#orders.length) this.#grow();
  }

  delete(id: string): boolean {
    const counter = counterOfId(id);
    if (counter >= 0) {
      const cell = counter & this.#mask;
      const order = this.#orders[cell];
      if (order !== undefined && order.clientOrderId === id) {
        this.#orders[cell] = undefined;
        this.#ringCount--;
        return true;
      }
    }
    return this.#others.size === 0 ? false : this.#others.delete(id);
  }

  /** Every indexed order (off the hot path: allocates). */
  values(): Order[] {
    const out: Order[] = [];
    for (const order of this.#orders) if (order !== undefined) out.push(order);
    for (const order of this.#others.values()) out.push(order);
    return out;
  }

  /** Twice the cells; an entry that now collides moves to the Map (rare: the ring is half empty). */
  #grow(): void {
    const orders = this.#orders;
    const size = orders.length * 2;
    this.#orders = new Array<Order | undefined>(size).fill(undefined);
    this.#mask = size - 1;
    this.#ringCount = 0;
    for (const order of orders) {
      if (order === undefined) continue;
      const cell = counterOfId(order.clientOrderId) & (size - 1);
      if (this.#orders[cell] === undefined) {
        this.#orders[cell] = order;
        this.#ringCount++;
      } else {
        this.#others.set(order.clientOrderId, order);
      }
    }
  }
}

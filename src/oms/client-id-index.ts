/**
 * Orders by client order id: the OMS looks one up for every answer and indexes one per create.
 * A Map keyed by the id string leaves garbage on every order (its table is rebuilt as entries come
 * and go: about 60 bytes per order in the hot-path bench's heap profile), so this session's own
 * ids (`<head><counter>`, client-order-ids.ts) sit in a ring indexed by their counter instead:
 * the counter is read from the id's digits, no hash and no entry to allocate. Any other id (an
 * order recovered from an earlier session's journal, one adopted by reconciliation, a foreign
 * tool's) and an own id whose ring cell is taken by a still-tracked order (a long-resting one
 * whose counter is a ring's length behind) go to a Map. The ring doubles when half full, so it
 * holds about twice the tracked own orders at most.
 */

import type { Order } from './order.ts';

const RING_START = 4096;
const COUNTER_DIGITS_MAX = 16;

export class ClientIdIndex {
  /** "<prefix>-<epoch>-": an id that starts with it and ends in a canonical counter is this session's. */
  readonly #head: string;
  #orders: (Order | undefined)[];
  /** The counter of the order in each ring cell (valid where #orders holds one). */
  #counters: Float64Array;
  #mask: number;
  #ringCount = 0;
  readonly #others = new Map<string, Order>();

  constructor(head: string, ringStart = RING_START) {
    if (!Number.isInteger(Math.log2(ringStart)) || ringStart < 2) throw new Error(`ring size must be a power of two, got ${ringStart}`);
    this.#head = head;
    this.#orders = new Array<Order | undefined>(ringStart).fill(undefined);
    this.#counters = new Float64Array(ringStart);
    this.#mask = ringStart - 1;
  }

  get size(): number {
    return this.#ringCount + this.#others.size;
  }

  /** Ids held in the Map rather than the ring (tests and stats). */
  get overflowCount(): number {
    return this.#others.size;
  }

  get(id: string): Order | undefined {
    const counter = this.#ownCounter(id);
    if (counter >= 0) {
      const cell = counter & this.#mask;
      const order = this.#orders[cell];
      if (order !== undefined && this.#counters[cell] === counter) return order;
    }
    return this.#others.size === 0 ? undefined : this.#others.get(id);
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  set(id: string, order: Order): void {
    const counter = this.#ownCounter(id);
    if (counter < 0) {
      this.#others.set(id, order);
      return;
    }
    const cell = counter & this.#mask;
    const held = this.#orders[cell];
    if (held !== undefined && this.#counters[cell] === counter) {
      this.#orders[cell] = order;
      return;
    }
    if (held !== undefined) {
      this.#others.set(id, order);
      return;
    }
    this.#others.delete(id); // an earlier overflow entry of the same id would shadow nothing but leak
    this.#orders[cell] = order;
    this.#counters[cell] = counter;
    this.#ringCount++;
    if (this.#ringCount * 2 > this.#orders.length) this.#grow();
  }

  delete(id: string): boolean {
    const counter = this.#ownCounter(id);
    if (counter >= 0) {
      const cell = counter & this.#mask;
      if (this.#orders[cell] !== undefined && this.#counters[cell] === counter) {
        this.#orders[cell] = undefined;
        this.#ringCount--;
        return true;
      }
    }
    return this.#others.delete(id);
  }

  /** Every indexed order (off the hot path: allocates). */
  values(): Order[] {
    const out: Order[] = [];
    for (const order of this.#orders) if (order !== undefined) out.push(order);
    for (const order of this.#others.values()) out.push(order);
    return out;
  }

  /**
   * The counter of one of this session's ids; -1 for any other id. Canonical digits only (no
   * leading zero), so each counter has exactly one id and the ring needs no string compare.
   */
  #ownCounter(id: string): number {
    const head = this.#head;
    const start = head.length;
    const end = id.length;
    if (end <= start || end - start > COUNTER_DIGITS_MAX || !id.startsWith(head)) return -1;
    if (id.charCodeAt(start) === 48 && end - start > 1) return -1;
    let counter = 0;
    for (let k = start; k < end; k++) {
      const digit = id.charCodeAt(k) - 48;
      if (digit < 0 || digit > 9) return -1;
      counter = counter * 10 + digit;
    }
    return counter <= Number.MAX_SAFE_INTEGER ? counter : -1; // `counter & mask` is exact to 2^53: ToInt32 keeps the low 32 bits
  }

  /** Twice the cells; an entry that now collides moves to the Map (rare: the ring is half empty). */
  #grow(): void {
    const orders = this.#orders;
    const counters = this.#counters;
    const size = orders.length * 2;
    this.#orders = new Array<Order | undefined>(size).fill(undefined);
    this.#counters = new Float64Array(size);
    this.#mask = size - 1;
    this.#ringCount = 0;
    for (let cell = 0; cell < orders.length; cell++) {
      const order = orders[cell];
      if (order === undefined) continue;
      const counter = counters[cell]!;
      const next = counter & (size - 1);
      if (this.#orders[next] === undefined) {
        this.#orders[next] = order;
        this.#counters[next] = counter;
        this.#ringCount++;
      } else {
        this.#others.set(`${this.#head}${counter}`, order); // the id's one canonical spelling
      }
    }
  }
}

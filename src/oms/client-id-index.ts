/**
 * Orders by client order id: the OMS finds one for every answer and indexes one per create. This
 * session's own orders (an Order whose `ids` is set: its id is `<head><counter>`, its string not
 * made) sit in a ring indexed by their counter: found by the counter (a route's answer to the
 * request it sent, a strategy's handle) or by the id's text (its trailing digits after this
 * session's head), with no hash, no string and no entry allocated per order. An own order whose
 * cell is taken by a still-tracked one (a long-resting order a ring's length behind) goes to a Map
 * by counter; any id given as text (an order recovered from an earlier session's journal, one
 * adopted by reconciliation, a foreign tool's) to a Map by text. The ring doubles when half full,
 * so it holds about twice the tracked own orders at most. An order's id never changes while it is
 * indexed.
 */

import { counterOfId } from './client-order-ids.ts';
import type { Order } from './order.ts';

const RING_START = 4096;
const DASH = 45;

export class ClientIdIndex {
  /** "<prefix>-<epoch>-": an id that is it followed by a canonical counter is this session's. */
  readonly #head: string;
  #orders: (Order | undefined)[];
  #mask: number;
  #ringCount = 0;
  /** Own orders whose ring cell was taken, by counter. */
  readonly #ownOthers = new Map<number, Order>();
  /** Orders whose id is text of elsewhere, by that text. */
  readonly #others = new Map<string, Order>();

  constructor(head: string, ringStart = RING_START) {
    if (!Number.isInteger(Math.log2(ringStart)) || ringStart < 2) throw new Error(`ring size must be a power of two, got ${ringStart}`);
    if (head.charCodeAt(head.length - 1) !== DASH) throw new Error(`an id head ends in '-', got ${JSON.stringify(head)}`);
    this.#head = head;
    this.#orders = new Array<Order | undefined>(ringStart).fill(undefined);
    this.#mask = ringStart - 1;
  }

  get size(): number {
    return this.#ringCount + this.#ownOthers.size + this.#others.size;
  }

  /** Orders held in the Maps rather than the ring (tests and stats). */
  get overflowCount(): number {
    return this.#ownOthers.size + this.#others.size;
  }

  /** This session's order with `counter`; undefined when none is indexed. */
  // A cell is `counter & mask`: exact for counters up to 2^53 (ToInt32 keeps the low 32 bits).
  own(counter: number): Order | undefined {
    const order = this.#orders[counter & this.#mask];
    if (order !== undefined && order.counter === counter) return order;
    return this.#ownOthers.size === 0 ? undefined : this.#ownOthers.get(counter);
  }

  get(id: string): Order | undefined {
    const counter = this.#ownCounter(id);
    if (counter >= 0) {
      const order = this.own(counter);
      if (order !== undefined) return order;
    }
    return this.#others.size === 0 ? undefined : this.#others.get(id);
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Indexes `order` by its own id: the ring (or the counter Map) for this session's, the text Map for any other. */
  add(order: Order): void {
    if (order.ids === null) {
      this.#others.set(order.clientOrderId, order);
      return;
    }
    const counter = order.counter;
    const cell = counter & this.#mask;
    const held = this.#orders[cell];
    if (held !== undefined && held.counter === counter) {
      this.#orders[cell] = order; // the same id again: the newer record
      return;
    }
    if (held !== undefined) {
      this.#ownOthers.set(counter, order);
      return;
    }
    if (this.#ownOthers.size > 0) this.#ownOthers.delete(counter); // an earlier overflow entry of this id would be found first
    this.#orders[cell] = order;
    this.#ringCount++;
    if (this.#ringCount * 2 > this.#orders.length) this.#grow();
  }

  /** Indexes `order` under the text `id` (an order of this session is indexed by its counter: add()). */
  set(id: string, order: Order): void {
    if (order.ids !== null) this.add(order);
    else this.#others.set(id, order);
  }

  /** Forgets `order` if it is the one indexed under its id; whether it was. */
  remove(order: Order): boolean {
    if (order.ids !== null) {
      const cell = order.counter & this.#mask;
      if (this.#orders[cell] === order) {
        this.#orders[cell] = undefined;
        this.#ringCount--;
        return true;
      }
      if (this.#ownOthers.size > 0 && this.#ownOthers.get(order.counter) === order) return this.#ownOthers.delete(order.counter);
      return false;
    }
    if (this.#others.size > 0 && this.#others.get(order.clientOrderId) === order) return this.#others.delete(order.clientOrderId);
    return false;
  }

  delete(id: string): boolean {
    const order = this.get(id);
    return order !== undefined && this.remove(order);
  }

  /** Every indexed order (off the hot path: allocates). */
  values(): Order[] {
    const out: Order[] = [];
    for (const order of this.#orders) if (order !== undefined) out.push(order);
    for (const order of this.#ownOthers.values()) out.push(order);
    for (const order of this.#others.values()) out.push(order);
    return out;
  }

  /** The counter of `id` when it is this session's head followed by a canonical counter (client-order-ids.ts's reading); -1 otherwise. */
  #ownCounter(id: string): number {
    const head = this.#head;
    // No '-' after the head: the counter counterOfId reads is the one right after it.
    return id.length > head.length && id.startsWith(head) && id.indexOf('-', head.length) === -1 ? counterOfId(id) : -1;
  }

  /** Twice the cells; an entry that now collides moves to the counter Map (rare: the ring is half empty). */
  #grow(): void {
    const orders = this.#orders;
    const size = orders.length * 2;
    this.#orders = new Array<Order | undefined>(size).fill(undefined);
    this.#mask = size - 1;
    this.#ringCount = 0;
    for (const order of orders) {
      if (order === undefined) continue;
      const cell = order.counter & (size - 1);
      if (this.#orders[cell] === undefined) {
        this.#orders[cell] = order;
        this.#ringCount++;
      } else {
        this.#ownOthers.set(order.counter, order);
      }
    }
  }
}

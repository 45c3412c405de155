/**
 * The OMS's order records, one per dense slot, reused: an order the OMS has forgotten (terminal,
 * past its retention, referenced by nothing of the OMS: oms.ts decides when) gives its record
 * back, and the next order takes it, reinitialised. Creating an order then allocates no record,
 * and the record's number fields keep their storage, so the order path leaves no garbage behind
 * (bench/hot-path counts it). `generation` rises at each release, so a holder that kept a record
 * can tell whether it still holds its order. The slot is the gate's booking index too
 * (risk/order-bookings.ts). Owns the records and the free slots; never decides when to release.
 */

import { assert } from '../core/index.ts';
import { Order } from './order.ts';
import { VenueIdStore } from './venue-order-ids.ts';

export class OrderPool {
  /** Every record made, by slot. */
  readonly #records: Order[] = [];
  /** Slots whose records are free, the last released on top (its record is the warmest). */
  readonly #free: number[] = [];
  readonly stats = { created: 0, reused: 0, released: 0 };
  /** The venue ids of every record, by slot (the OMS's VenueIdIndex reads them there). */
  readonly venueIds = new VenueIdStore();

  /** A record for a new order: a free one (its generation moved on), else a new one with the next slot. The caller reinit()s it. */
  take(): Order {
    const slot = this.#free.pop();
    if (slot === undefined) {
      const order = new Order(this.#records.length, this.venueIds);
      this.#records.push(order);
      this.stats.created++;
      return order;
    }
    const order = this.#records[slot]!;
    order.generation = -order.generation;
    this.stats.reused++;
    return order;
  }

  /** Gives `order`'s record back: nothing of the OMS may reference it any more. Releasing a record twice is a bug (InvariantError). */
  release(order: Order): void {
    assert(this.#records[order.slot] === order, 'OrderPool.release: not a record of this pool');
    assert(order.generation >= 0, 'OrderPool.release: record already free');
    order.generation = -(order.generation + 1); // negative while free: a second release is caught
    this.#free.push(order.slot);
    this.stats.released++;
  }

  /** Records made so far (the slots' count). */
  get size(): number {
    return this.#records.length;
  }

  /** Records free now. */
  get freeCount(): number {
    return this.#free.length;
  }
}

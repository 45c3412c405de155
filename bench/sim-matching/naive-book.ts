/**
 * The naive baseline matcher: per market two arrays of resting orders kept sorted by price then
 * arrival (insert with splice, match from the front, cancel with indexOf + splice), price-time
 * priority and partial fills, no money, no events. It is what a first implementation looks like,
 * so the engine's per-level FIFO queues have something honest to beat. Bench-only code.
 */

export interface NaiveOrder {
  id: number;
  side: number; // 0 bid, 1 ask
  price: number; // YES price units
  remaining: number;
  live: boolean;
}

export class NaiveBook {
  // bids: descending price, then time; asks: ascending price, then time. Index 0 is the best.
  readonly bids: NaiveOrder[] = [];
  readonly asks: NaiveOrder[] = [];
  #nextId = 1;

  bestBid(): number {
    return this.bids.length === 0 ? 0 : this.bids[0].price;
  }

  bestAsk(): number {
    return this.asks.length === 0 ? 0 : this.asks[0].price;
  }

  /** Matches then (GTC) rests the remainder; returns the order (live when resting). */
  submit(side: number, price: number, count: number, immediateOrCancel: boolean): NaiveOrder {
    const order: NaiveOrder = { id: this.#nextId++, side, price, remaining: count, live: false };
    const opposite = side === 0 ? this.asks : this.bids;
    while (order.remaining > 0 && opposite.length > 0) {
      const best = opposite[0];
      if (side === 0 ? best.price > price : best.price < price) break;
      const quantity = Math.min(order.remaining, best.remaining);
      order.remaining -= quantity;
      best.remaining -= quantity;
      if (best.remaining === 0) {
        best.live = false;
        opposite.shift();
      }
    }
    if (order.remaining > 0 && !immediateOrCancel) {
      const same = side === 0 ? this.bids : this.asks;
      let at = same.length;
      for (let i = 0; i < same.length; i++) {
        if (side === 0 ? same[i].price < price : same[i].price > price) {
          at = i;
          break;
        }
      }
      same.splice(at, 0, order);
      order.live = true;
    }
    return order;
  }

  cancel(order: NaiveOrder): boolean {
    if (!order.live) return false;
    const same = order.side === 0 ? this.bids : this.asks;
    const at = same.indexOf(order);
    if (at === -1) return false;
    same.splice(at, 1);
    order.live = false;
    return true;
  }
}

/**
 * One margin market's order book: price levels kept sorted (bids descending, asks ascending), each
 * a FIFO of resting orders, so matching is price then time priority. Counts are whole contracts in
 * core units (multiples of 100). The book only stores and walks orders; fills, fees and positions
 * are the engine's.
 */

export type BookSide = 'bid' | 'ask';

/** What the book needs of an order; the engine's record carries more. */
export interface RestingOrder {
  readonly orderId: string;
  readonly side: BookSide;
  /** 1/10,000 dollar. */
  price: number;
  /** 1/100 contract. */
  remaining: number;
}

export interface Level<T extends RestingOrder> {
  readonly price: number;
  readonly orders: T[];
}

export class MarginBook<T extends RestingOrder> {
  /** Best first: bids high to low, asks low to high. */
  readonly bids: Level<T>[] = [];
  readonly asks: Level<T>[] = [];

  levels(side: BookSide): Level<T>[] {
    return side === 'bid' ? this.bids : this.asks;
  }

  best(side: BookSide): number | null {
    const levels = this.levels(side);
    return levels.length === 0 ? null : levels[0].price;
  }

  add(order: T): void {
    const levels = this.levels(order.side);
    const better = order.side === 'bid' ? (a: number, b: number) => a > b : (a: number, b: number) => a < b;
    let i = 0;
    while (i < levels.length && better(levels[i].price, order.price)) i++;
    if (i < levels.length && levels[i].price === order.price) levels[i].orders.push(order);
    else levels.splice(i, 0, { price: order.price, orders: [order] });
  }

  remove(order: T): boolean {
    const levels = this.levels(order.side);
    for (let i = 0; i < levels.length; i++) {
      if (levels[i].price !== order.price) continue;
      const index = levels[i].orders.indexOf(order);
      if (index < 0) return false;
      levels[i].orders.splice(index, 1);
      if (levels[i].orders.length === 0) levels.splice(i, 1);
      return true;
    }
    return false;
  }

  /** Contracts resting on `side` at prices a taker at `limit` would reach. */
  crossingCount(side: BookSide, limit: number): number {
    let total = 0;
    for (const level of this.levels(side)) {
      if (side === 'ask' ? level.price > limit : level.price < limit) break;
      for (const order of level.orders) total += order.remaining;
    }
    return total;
  }

  /** [price, count] per level, best first, at most `depth` levels (0 = all). */
  depth(side: BookSide, depth: number): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    for (const level of this.levels(side)) {
      if (depth > 0 && out.length === depth) break;
      let total = 0;
      for (const order of level.orders) total += order.remaining;
      out.push([level.price, total]);
    }
    return out;
  }
}

/**
 * The hot-path suites' baseline lane: the same frames through the obvious code (the bytes made a
 * string, JSON.parse, a Map book, an object literal order, JSON.stringify, the same request
 * assembly and byte copy as the runtime's sink). Used back to back (bench/hot-path) and paced at
 * the live cadence (bench/paced). Measures only itself.
 */

import { consume, createHistogram, nowNs, recordNs } from '../harness.ts';
import type { Lane } from './lanes.ts';

/** The same frames through the obvious code: parse everything, allocate freely. */
export class NaiveLane implements Lane {
  readonly histogram = createHistogram();
  orders = 0;
  ordersSoFar(): number {
    return this.orders;
  }
  readonly #books = new Map<string, { yes: Map<string, number>; no: Map<string, number> }>();
  readonly #buffer = Buffer.allocUnsafe(16 * 1024);

  between(): void {}

  step(bytes: Buffer, timed: boolean): void {
    if (!timed) {
      this.#run(bytes);
      return;
    }
    const start = nowNs();
    this.#run(bytes);
    recordNs(this.histogram, nowNs() - start);
  }

  #run(bytes: Buffer): void {
    const frame = JSON.parse(bytes.toString('utf8')) as { type: string; msg: { market_ticker: string; price_dollars: string; delta_fp: string; side: string } };
    if (frame.type !== 'orderbook_delta') return;
    const msg = frame.msg;
    let book = this.#books.get(msg.market_ticker);
    if (book === undefined) {
      book = { yes: new Map(), no: new Map() };
      this.#books.set(msg.market_ticker, book);
    }
    const side = msg.side === 'yes' ? book.yes : book.no;
    const size = (side.get(msg.price_dollars) ?? 0) + Number(msg.delta_fp);
    if (size <= 0) side.delete(msg.price_dollars);
    else side.set(msg.price_dollars, size);
    let best = -1;
    for (const price of book.yes.keys()) best = Math.max(best, Number(price));
    if (best < 0) return;
    const order = {
      ticker: msg.market_ticker,
      client_order_id: `naive-${++this.orders}`,
      side: 'bid',
      count: '1.00',
      price: Math.max(0.01, best - 0.1).toFixed(4),
      time_in_force: 'good_till_canceled',
      post_only: true,
      reduce_only: false,
      self_trade_prevention_type: 'taker_at_cross',
      subaccount: 0,
    };
    const body = JSON.stringify(order);
    const request = `POST /trade-api/v2/portfolio/events/orders HTTP/1.1\r\nHost: 127.0.0.1:9000\r\nKALSHI-ACCESS-KEY: bench-key-0000\r\nContent-Type: application/json\r\nKALSHI-ACCESS-TIMESTAMP: ${Date.now()}\r\nKALSHI-ACCESS-SIGNATURE: ${'A'.repeat(344)}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    consume(this.#buffer.write(request, 0, 'utf8'));
  }
}

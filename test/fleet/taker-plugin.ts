/**
 * A test plugin, not a strategy: it buys as fast as its gate lets it. Every timer tick, with no
 * order of its own open or held, it sends an immediate-or-cancel bid at the best ask (a take
 * against the simulator's seeded liquidity), so its position only grows until its gate's share of
 * the position limit denies the next bid (MARKET_POSITION_LIMIT).
 */

import { OrderFlags, PRICE_INVALID, definePlugin, requireCount } from '../../src/strategy/index.ts';
import type { Count, OrderView, Strategy, StrategyBook, StrategyContext } from '../../src/strategy/index.ts';

class Taker implements Strategy {
  readonly #ticker: string;
  readonly #count: Count;
  readonly #open: OrderView[] = [];

  constructor(ticker: string, count: Count) {
    this.#ticker = ticker;
    this.#count = count;
  }

  // The book is read on the timer: a book with no update after the snapshot calls onBook at most once.
  onBook(_book: StrategyBook): void {}

  onTimer(_nowMs: number, ctx: StrategyContext): void {
    const bestAsk = ctx.book(this.#ticker)?.bestAsk() ?? PRICE_INVALID;
    if (bestAsk === PRICE_INVALID || ctx.budget().held > 0) return;
    if (ctx.openOrders(this.#ticker, this.#open) > 0) return;
    ctx.place(this.#ticker, 'bid', bestAsk, this.#count, OrderFlags.IOC);
  }
}

export default definePlugin<{ ticker: string; count: string }>({
  name: 'taker',
  timerIntervalMs: 10,
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['ticker'],
    properties: {
      ticker: { type: 'string' },
      count: { type: 'string', default: '2.00' },
    },
  },
  create: (params) => new Taker(params.ticker, requireCount(params.count, 'count')),
});

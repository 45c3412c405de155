/**
 * Holds positions on both exchanges at once, for demos and tests: on each market it trades (a
 * Predictions market or a Margin perpetual, the runtime tells them apart), it buys `size` once at
 * the best ask (immediate-or-cancel), then keeps one bid resting `restTicksBelow` ticks under the
 * best bid. The same ctx calls trade both exchanges: the router sends a perpetual's orders on the
 * Margin route and the gate applies its margin checks. Owns the trigger only.
 */

import { Deny, OrderFlags, definePlugin, requireCount } from '../src/strategy/index.ts';
import type { Count, OrderView, Strategy, StrategyBook, StrategyContext } from '../src/strategy/index.ts';

export interface CrossExchangeParams {
  /** Contracts per order (whole contracts on Margin). */
  size: string;
  /** Ticks under the best bid for the resting bid; 0: no resting bid. */
  restTicksBelow: number;
}

export const paramsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    size: { type: 'string', pattern: '^[0-9]{1,9}(\\.[0-9]{1,2})?$', default: '1.00', description: 'contracts per order' },
    restTicksBelow: { type: 'integer', minimum: 0, maximum: 1000, default: 5, description: 'ticks under the best bid for the resting bid; 0 none' },
  },
} as const;

export class CrossExchange implements Strategy {
  readonly #size: Count;
  readonly #restTicks: number;
  /** Markets where the opening buy went out (one each). */
  readonly #bought = new Set<string>();
  readonly #open: OrderView[] = [];
  /** Deny code of the last attempt, for tests and status. */
  lastDeny: Deny = Deny.NONE;

  constructor(params: Readonly<CrossExchangeParams>) {
    this.#size = requireCount(params.size, 'size');
    this.#restTicks = params.restTicksBelow;
  }

  /** Markets already booked at start act at once (a quiet market may send no update for a while). */
  onStart(ctx: StrategyContext): void {
    for (const ticker of ctx.markets) {
      const book = ctx.book(ticker);
      if (book !== undefined) this.onBook(book, ctx);
    }
  }

  /** The opening order may still be in flight when its fill moves the book: look again once it ends. */
  onOrderUpdate(order: OrderView, ctx: StrategyContext): void {
    const book = ctx.book(order.ticker);
    if (book !== undefined) this.onBook(book, ctx);
  }

  onBook(book: StrategyBook, ctx: StrategyContext): void {
    if (!book.synced) return;
    const ticker = book.ticker;
    if (!this.#bought.has(ticker)) {
      const ask = book.bestAskLevel;
      if (ask < 0) return;
      this.lastDeny = ctx.place(ticker, 'bid', book.grid.priceAt(ask), this.#size, OrderFlags.IOC);
      if (this.lastDeny === Deny.NONE) this.#bought.add(ticker);
      return;
    }
    const bid = book.bestBidLevel;
    if (this.#restTicks === 0 || bid - this.#restTicks < 0 || ctx.openOrders(ticker, this.#open) > 0) return;
    this.lastDeny = ctx.place(ticker, 'bid', book.grid.priceAt(bid - this.#restTicks), this.#size, OrderFlags.POST_ONLY);
  }
}

export default definePlugin<CrossExchangeParams>({
  name: 'cross-exchange',
  paramsSchema,
  create: (params) => new CrossExchange(params),
});

/**
 * The smallest useful plugin, and the one the README shows: while flat, it joins the best YES bid
 * with one post-only order of `size` contracts. An example for plugin authors, not a strategy to
 * run for money. Every order goes through ctx (risk gate, then OMS).
 */

import { Deny, OrderFlags, PRICE_INVALID, definePlugin, requireCount } from '../src/strategy/index.ts';
import type { Count, Strategy, StrategyBook, StrategyContext } from '../src/strategy/index.ts';

export class JoinBestBid implements Strategy {
  readonly #size: Count;
  /** Deny code of the last attempt (NONE when placed). */
  lastDeny: Deny = Deny.NONE;

  constructor(size: Count) {
    this.#size = size;
  }

  onBook(book: StrategyBook, ctx: StrategyContext): void {
    const bid = book.bestBid(); // Price, 1/10,000 dollar
    if (bid === PRICE_INVALID || ctx.position(book.ticker) !== 0 || ctx.lastClientOrderId !== '') return;
    this.lastDeny = ctx.place(book.ticker, 'bid', bid, this.#size, OrderFlags.POST_ONLY);
    if (this.lastDeny !== Deny.NONE) ctx.log.debug({ deny: this.lastDeny }, 'join-best-bid: not placed'); // every refusal has a code
  }
}

export default definePlugin<{ size: string }>({
  name: 'join-best-bid',
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: { size: { type: 'string', pattern: '^[0-9]{1,9}(\\.[0-9]{1,2})?$', default: '1.00', description: 'contracts' } },
  },
  create: (params) => new JoinBestBid(requireCount(params.size, 'size')),
});

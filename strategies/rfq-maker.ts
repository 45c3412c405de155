/**
 * Sample RFQ maker: answers each RFQ on one of its markets with a two-sided quote priced from the
 * local book: a YES bid at mid - edge (snapped down to the grid) and a NO bid equal to 1 - the YES
 * price at mid + edge (snapped up), so whichever side the requester takes we trade at least
 * `edge` better than the book's mid. Neither side crosses the touch (the YES bid stays under the
 * best ask, the YES-equivalent of the NO bid over the best bid), so the quote is post-only safe.
 * A side the grid cannot price is declined (bid 0).
 *
 * Size limits: an RFQ above `maxContracts` (or one sized by target cost) is not answered; at most
 * `maxOpenQuotes` of its quotes are open at once. When a quote is accepted it takes a last look
 * (book in sync, the side taken still at or better than the current mid) and confirms; otherwise
 * it lets the confirm window lapse. It withdraws its open quotes on a market whose book goes out
 * of sync or that is deactivated. Every action goes through ctx (risk gate, quote book, route).
 */

import { PRICE_INVALID, PRICE_ONE, definePlugin, requireCount, requirePrice } from '../src/strategy/index.ts';
import type { Count, LevelGrid, LifecycleView, Price, PriceGrid, QuoteView, RfqView, Strategy, StrategyBook, StrategyContext } from '../src/strategy/index.ts';

export interface RfqMakerParams {
  /** Distance from the book mid to each side, dollars ("0.0200"). */
  edge: string;
  /** Largest RFQ answered, contracts ("100.00"). */
  maxContracts: string;
  /** Quotes of this instance open at once. */
  maxOpenQuotes: number;
  /** Send quotes post-only (the venue refuses a quote that would take liquidity). */
  postOnly: boolean;
}

export const paramsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    edge: { type: 'string', pattern: '^0\\.[0-9]{1,4}$', default: '0.0200', description: 'distance from the mid to each side, dollars' },
    maxContracts: { type: 'string', pattern: '^[0-9]{1,9}(\\.[0-9]{1,2})?$', default: '100.00', description: 'largest RFQ answered, contracts' },
    maxOpenQuotes: { type: 'integer', minimum: 1, maximum: 10_000, default: 10, description: 'open quotes at once' },
    postOnly: { type: 'boolean', default: true, description: 'post-only quotes' },
  },
} as const;

/** The two bids of a quote (0: the side is declined); one reused record. */
export class QuotePrices {
  yesBid = 0 as Price;
  noBid = 0 as Price;
}

/** What pricing reads of a book (src/book's OrderBook satisfies it). */
export interface PricingBook {
  readonly grid: LevelGrid;
  bestBid(): Price;
  bestAsk(): Price;
}

/**
 * Prices a quote from the book's touch: false (and both bids 0) when the book has no bid or no ask.
 * The mid may fall between ticks (bid + ask odd): the targets are mid -/+ edge before snapping.
 */
export function priceQuote(book: PricingBook, edge: number, out: QuotePrices): boolean {
  out.yesBid = 0 as Price;
  out.noBid = 0 as Price;
  const bid = book.bestBid();
  const ask = book.bestAsk();
  if (bid === PRICE_INVALID || ask === PRICE_INVALID || bid >= ask) return false;
  const grid = book.grid;
  const mid = (bid + ask) / 2;
  let yes = grid.snap((mid - edge) as Price, 'down');
  if (yes !== PRICE_INVALID && yes >= ask) yes = grid.snap((ask - 1) as Price, 'down');
  let yesAsk = grid.snap((mid + edge) as Price, 'up');
  if (yesAsk !== PRICE_INVALID && yesAsk <= bid) yesAsk = grid.snap((bid + 1) as Price, 'up');
  out.yesBid = (yes === PRICE_INVALID ? 0 : yes) as Price;
  out.noBid = (yesAsk === PRICE_INVALID ? 0 : PRICE_ONE - yesAsk) as Price;
  return out.yesBid !== 0 || out.noBid !== 0;
}

/**
 * The last look before confirming: the side taken still trades at or better than the current
 * mid. `acceptedSide` 'no' (the requester buys NO) means we buy YES at yesBid; 'yes' means we buy
 * NO at noBid, i.e. sell YES at 1 - noBid.
 */
export function stillFair(book: PricingBook, quote: Pick<QuoteView, 'yesBid' | 'noBid' | 'acceptedSide'>): boolean {
  const bid = book.bestBid();
  const ask = book.bestAsk();
  if (bid === PRICE_INVALID || ask === PRICE_INVALID) return false;
  const mid2 = bid + ask; // twice the mid, to stay in integers
  if (quote.acceptedSide === 'no') return quote.yesBid > 0 && 2 * quote.yesBid <= mid2;
  if (quote.acceptedSide === 'yes') return quote.noBid > 0 && 2 * (PRICE_ONE - quote.noBid) >= mid2;
  return false;
}

export class RfqMaker implements Strategy {
  readonly #edge: number;
  readonly #maxContracts: Count;
  readonly #maxOpen: number;
  readonly #flags: number;
  readonly #prices = new QuotePrices();
  readonly #open: QuoteView[] = [];

  constructor(params: Readonly<RfqMakerParams>) {
    this.#edge = params.edge === '0' ? 0 : requirePrice(params.edge, 'edge');
    this.#maxContracts = requireCount(params.maxContracts, 'maxContracts');
    this.#maxOpen = params.maxOpenQuotes;
    this.#flags = params.postOnly ? 1 : 0; // OrderFlags.POST_ONLY
  }

  onBook(_book: StrategyBook, _ctx: StrategyContext): void {}

  onRfq(rfq: RfqView, ctx: StrategyContext, deleted: boolean): void {
    if (deleted) return; // the quote book closes our quotes on it
    if (rfq.contracts <= 0 || rfq.contracts > this.#maxContracts) return;
    const book = ctx.book(rfq.marketTicker);
    if (book === undefined || !book.synced) return;
    if (ctx.openQuotes(this.#open) >= this.#maxOpen) return;
    const prices = this.#prices;
    if (!priceQuote(book, this.#edge, prices)) return;
    ctx.quote(rfq.id, prices.yesBid, prices.noBid, this.#flags);
  }

  onQuoteUpdate(quote: QuoteView, ctx: StrategyContext): void {
    if (quote.status !== 'accepted') return;
    const book = ctx.book(quote.ticker);
    if (book === undefined || !book.synced || !stillFair(book, quote)) return; // lapses unconfirmed
    ctx.confirmQuote(quote.handle);
  }

  onBookOutOfSync(book: StrategyBook, ctx: StrategyContext): void {
    ctx.cancelAllQuotes(book.ticker);
  }

  onLifecycle(event: LifecycleView, ctx: StrategyContext): void {
    if (event.marketTicker !== undefined && event.isDeactivated === true) ctx.cancelAllQuotes(event.marketTicker);
  }
}

export default definePlugin<RfqMakerParams>({
  name: 'rfq-maker',
  paramsSchema,
  create: (params) => new RfqMaker(params),
});

/**
 * Sample market maker: quotes a post-only bid and ask around the book mid (or a configured fair
 * value) at a half-spread in ticks of the market's grid, skewed against the position, and keeps
 * them there by amending when the target moves by at least `requoteTicks` (or a partial fill
 * shrank the quote: it is topped up to `size`). It stops quoting the
 * side whose fill would take |position| beyond `maxPosition`, cancels both quotes when the book
 * goes out of sync (the gate denies new ones until the book is whole again) and re-quotes on the
 * next book update after a resync.
 *
 * Ticks are grid levels, so on tapered grids the spread follows the local tick size. Quotes never
 * cross the touch: the bid stays at least one level under the best ask and the ask one over the
 * best bid (post-only). Per market it keeps at most one order per side, tracked by client order
 * id; it never sends a change while a request on that order is in flight.
 * Owns quoting decisions only; every order goes through ctx (risk gate, then OMS).
 */

import {
  Deny,
  OrderFlags,
  OrderState,
  PRICE_INVALID,
  definePlugin,
  isLiveOrder,
  isPendingOrder,
  requireCount,
  requirePrice,
} from '../src/strategy/index.ts';
import type { BookSide, Count, FillView, OrderView, Price, Strategy, StrategyBook, StrategyContext } from '../src/strategy/index.ts';

export interface MarketMakerParams {
  /** Contracts per quote, fixed-point string ("1.00"). */
  size: string;
  /** Distance of each quote from the center, in grid ticks. */
  halfSpreadTicks: number;
  /** YES price in dollars ("0.5000") to quote around instead of the book mid; null = mid. */
  fairValue: string | null;
  /** Largest |position| in contracts a fill may lead to ("10.00"). */
  maxPosition: string;
  /** Ticks the quotes move against the position when |position| = maxPosition (linear below). */
  skewTicksAtMaxPosition: number;
  /** Amend a quote when its target moved by at least this many ticks. */
  requoteTicks: number;
  /** Re-check quotes this often without book updates, ms (0: only on events). */
  timerIntervalMs: number;
  /** After the venue rejects a quote, place no new quote in that market for this long, ms (no reject loop). */
  rejectBackoffMs: number;
}

const COUNT_TEXT = '^[0-9]{1,9}(\\.[0-9]{1,2})?$';

export const paramsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    size: { type: 'string', pattern: COUNT_TEXT, default: '1.00', description: 'contracts per quote' },
    halfSpreadTicks: { type: 'integer', minimum: 0, maximum: 10_000, default: 2, description: 'ticks from center to each quote' },
    fairValue: { type: ['string', 'null'], pattern: '^0\\.[0-9]{1,4}$', default: null, description: 'YES price in dollars to quote around; null: book mid' },
    maxPosition: { type: 'string', pattern: COUNT_TEXT, default: '10.00', description: 'largest |position| in contracts' },
    skewTicksAtMaxPosition: { type: 'integer', minimum: 0, maximum: 10_000, default: 2, description: 'quote shift at max position, ticks' },
    requoteTicks: { type: 'integer', minimum: 1, maximum: 10_000, default: 1, description: 'amend when the target moved this many ticks' },
    timerIntervalMs: { type: 'integer', minimum: 0, maximum: 3_600_000, default: 1_000, description: 'periodic re-check, ms; 0 none' },
    rejectBackoffMs: { type: 'integer', minimum: 0, maximum: 3_600_000, default: 1_000, description: 'no new quote in a market this long after a venue reject, ms' },
  },
} as const;

/** Per-market quoting state, allocated once at start. */
/** Markets missing a quote re-quoted per timer call, at most. */
const TIMER_REQUOTES_MAX = 64;
/** Markets re-checked in turn per timer call, whatever their quotes. */
const TIMER_SWEEP = 64;

/** An order this maker keeps: its handle (no id string made per order), or its id's text when it has none (a create the router held); 0: none. */
type OrderRef = string | number;
const NONE: OrderRef = 0;

/** Whether `order` is the one `ref` names. */
function isRef(order: OrderView, ref: OrderRef): boolean {
  return typeof ref === 'number' ? ref > 0 && order.handle === ref : order.clientOrderId === ref;
}

class Quotes {
  bidId: OrderRef = NONE;
  askId: OrderRef = NONE;
  /** Re-entrancy guard: an order callback inside ctx.place must not re-quote the same market. */
  busy = false;
  /** No new quote before this time (Unix ms): the venue rejected one, so re-placing at once would loop. */
  quietUntilMs = 0;
  /**
   * A wanted change waited for a request in flight on its order. The maker hears of book changes
   * only when a best price moves (bookUpdates 'bestPrice'), so the timer re-checks it: on a quiet
   * book no later update would.
   */
  behind = false;
  constructor(readonly ticker: string) {}
}

export class MarketMaker implements Strategy {
  readonly #size: Count;
  readonly #halfSpread: number;
  readonly #fair: Price;
  readonly #maxPosition: Count;
  readonly #skewAtMax: number;
  readonly #requoteTicks: number;
  readonly #rejectBackoffMs: number;
  readonly #quotes = new Map<string, Quotes>();
  /** The same Quotes in the order first seen, and the timer's cursors over them and over ctx.markets. */
  readonly #all: Quotes[] = [];
  #missingCursor = 0;
  #sweepCursor = 0;

  constructor(params: Readonly<MarketMakerParams>) {
    this.#size = requireCount(params.size, 'size');
    if (this.#size <= 0) throw new Error('size must be above 0');
    this.#halfSpread = params.halfSpreadTicks;
    this.#fair = params.fairValue === null ? PRICE_INVALID : requirePrice(params.fairValue, 'fairValue');
    if (this.#fair === 0) throw new Error('fairValue must be above 0');
    this.#maxPosition = requireCount(params.maxPosition, 'maxPosition');
    this.#skewAtMax = params.skewTicksAtMaxPosition;
    this.#requoteTicks = params.requoteTicks;
    this.#rejectBackoffMs = params.rejectBackoffMs;
  }

  onStart(ctx: StrategyContext): void {
    for (const ticker of ctx.markets) {
      const book = ctx.book(ticker);
      if (book !== undefined && book.synced) this.onBook(book, ctx);
    }
  }

  onBook(book: StrategyBook, ctx: StrategyContext): void {
    const quotes = this.#quotesOf(book.ticker);
    if (quotes.busy) return;
    quotes.busy = true;
    try {
      this.#requote(book, ctx, quotes);
    } finally {
      quotes.busy = false;
    }
  }

  onBookOutOfSync(book: StrategyBook, ctx: StrategyContext): void {
    const quotes = this.#quotes.get(book.ticker);
    if (quotes === undefined) return;
    this.#pull(ctx, quotes, 'bid');
    this.#pull(ctx, quotes, 'ask');
  }

  onFill(fill: FillView, ctx: StrategyContext): void {
    // The position moved: the skew and the side limits change now, not at the next book update.
    const book = ctx.book(fill.marketTicker);
    if (book !== undefined && book.synced) this.onBook(book, ctx);
  }

  onOrderUpdate(order: OrderView, ctx: StrategyContext): void {
    const quotes = this.#quotes.get(order.ticker);
    if (quotes === undefined || isLiveOrder(order.state)) return;
    // A quote closed (filled, cancelled by the venue, rejected): forget it and quote again.
    if (isRef(order, quotes.bidId)) quotes.bidId = NONE;
    else if (isRef(order, quotes.askId)) quotes.askId = NONE;
    else return;
    if (order.state === OrderState.REJECTED) {
      quotes.quietUntilMs = ctx.nowMs() + this.#rejectBackoffMs; // the timer re-quotes after the pause
      return;
    }
    const book = ctx.book(order.ticker);
    if (book !== undefined && book.synced) this.onBook(book, ctx);
  }

  /**
   * The periodic re-check, bounded per call so that thousands of markets never hold the event loop
   * (a walk of all 5,000 took ~37 ms). Up to TIMER_SWEEP markets: all of them. Above: the markets
   * missing a quote whose pause is over or behind their target, up to TIMER_REQUOTES_MAX, then TIMER_SWEEP markets in
   * turn (a quote that stayed put while its amend was in flight, a market not seen yet). Book
   * updates and fills re-quote the rest as they come.
   */
  onTimer(nowMs: number, ctx: StrategyContext): void {
    const markets = ctx.markets;
    if (markets.length <= TIMER_SWEEP) {
      for (const ticker of markets) this.#recheck(ticker, ctx);
      return;
    }
    const all = this.#all;
    let requotes = 0;
    for (let seen = 0; seen < all.length && requotes < TIMER_REQUOTES_MAX; seen++) {
      const quotes = all[this.#missingCursor++ % all.length]!;
      if ((quotes.bidId !== NONE && quotes.askId !== NONE && !quotes.behind) || nowMs < quotes.quietUntilMs) continue;
      requotes++;
      this.#recheck(quotes.ticker, ctx);
    }
    for (let i = TIMER_SWEEP; i > 0; i--) this.#recheck(markets[this.#sweepCursor++ % markets.length]!, ctx);
  }

  #recheck(ticker: string, ctx: StrategyContext): void {
    const book = ctx.book(ticker);
    if (book !== undefined && book.synced) this.onBook(book, ctx);
  }

  #requote(book: StrategyBook, ctx: StrategyContext, quotes: Quotes): void {
    quotes.behind = false;
    if (!book.synced) {
      this.onBookOutOfSync(book, ctx);
      return;
    }
    const grid = book.grid;
    const bestBid = book.bestBidLevel;
    const bestAsk = book.bestAskLevel;
    // Twice the center level, so a mid between two levels stays an integer.
    let center2: number;
    if (this.#fair !== PRICE_INVALID) {
      const snapped = grid.snap(this.#fair, 'nearest');
      if (snapped === PRICE_INVALID) return;
      center2 = 2 * grid.levelOf(snapped);
    } else if (bestBid >= 0 && bestAsk >= 0) {
      center2 = bestBid + bestAsk;
    } else {
      // No two-sided book and no fair value: nothing to quote around.
      this.#pull(ctx, quotes, 'bid');
      this.#pull(ctx, quotes, 'ask');
      return;
    }
    const position = ctx.position(quotes.ticker);
    const max = this.#maxPosition;
    // Long: both quotes move down (buy less eagerly, sell more eagerly); short: up.
    const shift = max > 0 ? -Math.round((position * this.#skewAtMax) / max) : 0;
    let bidLevel = Math.floor((center2 + 2 * shift - 2 * this.#halfSpread) / 2);
    let askLevel = Math.ceil((center2 + 2 * shift + 2 * this.#halfSpread) / 2);
    if (bestAsk >= 0 && bidLevel >= bestAsk) bidLevel = bestAsk - 1;
    if (bestBid >= 0 && askLevel <= bestBid) askLevel = bestBid + 1;
    const top = grid.levelCount - 1;
    const size = this.#size;
    const canBid = position + size <= max && bidLevel >= 0 && bidLevel <= top;
    const canAsk = position - size >= -max && askLevel >= 0 && askLevel <= top;
    this.#quote(ctx, quotes, book, 'bid', canBid ? bidLevel : -1);
    this.#quote(ctx, quotes, book, 'ask', canAsk ? askLevel : -1);
  }

  /** Brings one side to `level` (-1: no quote on that side). */
  #quote(ctx: StrategyContext, quotes: Quotes, book: StrategyBook, side: BookSide, level: number): void {
    const id = side === 'bid' ? quotes.bidId : quotes.askId;
    let order: OrderView | null = id === NONE ? null : ctx.order(id);
    if (order !== null && !isLiveOrder(order.state)) order = null;
    if (order === null && id !== NONE) this.#setId(quotes, side, NONE);
    if (level < 0) {
      if (order !== null && order.state !== OrderState.PENDING_CANCEL) ctx.cancel(id);
      return;
    }
    const grid = book.grid;
    const price = grid.priceAt(level);
    if (order === null) {
      if (ctx.nowMs() < quotes.quietUntilMs) {
        ctx.wantNextBook(quotes.ticker); // re-placed at the first change after the pause
        return;
      }
      if (ctx.place(quotes.ticker, side, price, this.#size, OrderFlags.POST_ONLY) === Deny.NONE) this.#setId(quotes, side, ctx.lastOrderHandle > 0 ? ctx.lastOrderHandle : ctx.lastClientOrderId);
      return;
    }
    const current = grid.levelOf(order.price);
    const moved = current < 0 ? this.#requoteTicks : Math.abs(current - level);
    // A quote a partial fill shrank is topped up at its target price.
    if (moved < this.#requoteTicks && order.remainingCount >= this.#size) return;
    if (isPendingOrder(order.state)) {
      // Taken at the book's next change (as when every change is heard), or by the timer on a quiet book.
      quotes.behind = true;
      ctx.wantNextBook(quotes.ticker);
      return;
    }
    ctx.amend(id, price, this.#size);
  }

  #pull(ctx: StrategyContext, quotes: Quotes, side: BookSide): void {
    const id = side === 'bid' ? quotes.bidId : quotes.askId;
    if (id === NONE) return;
    const order = ctx.order(id);
    if (order === null || !isLiveOrder(order.state)) {
      this.#setId(quotes, side, NONE);
      return;
    }
    // The OMS holds a cancel for an order it cannot cancel yet (no order id, request in flight).
    if (order.state !== OrderState.PENDING_CANCEL) ctx.cancel(id);
  }

  #setId(quotes: Quotes, side: BookSide, id: OrderRef): void {
    if (side === 'bid') quotes.bidId = id;
    else quotes.askId = id;
  }

  /** The market's state, made on first use (once per market, not per message). */
  #quotesOf(ticker: string): Quotes {
    let quotes = this.#quotes.get(ticker);
    if (quotes === undefined) {
      quotes = new Quotes(ticker);
      this.#quotes.set(ticker, quotes);
      this.#all.push(quotes);
    }
    return quotes;
  }

  /** Test and status helper: the current quotes of a market, each its handle or its id's text (0: none). */
  quoteIds(ticker: string): { bid: string | number; ask: string | number } {
    const quotes = this.#quotes.get(ticker);
    return { bid: quotes?.bidId ?? NONE, ask: quotes?.askId ?? NONE };
  }
}

export default definePlugin<MarketMakerParams>({
  name: 'market-maker',
  paramsSchema,
  timerIntervalMs: 1_000,
  // It prices off the best bid and ask only: a delta that moves neither changes nothing it decides.
  bookUpdates: 'bestPrice',
  // It acts only through ctx and its own instance: the keep-warm may run a second one on a shadow market.
  rehearse: true,
  create: (params) => new MarketMaker(params),
});

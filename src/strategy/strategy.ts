/**
 * The strategy plugin contract: what a plugin module exports, the synchronous callbacks a strategy
 * implements, and the read-only views of market data, fills and orders it is handed. Views are
 * structural so the feed's reused records and the OMS's order records satisfy them without a copy;
 * a plugin must copy what it keeps, because the record is overwritten by the next message.
 * This file owns types and constants only; it never runs a plugin (strategy-host.ts does).
 */

import type { BookSide, Count, OutcomeSide, Price } from '../core/index.ts';
import type { OrderBook } from '../book/index.ts';
import type { StrategyContext } from './strategy-context.ts';

/** The order book a strategy reads: src/book's OrderBook, shared with the risk gate. Never mutate it. */
export type StrategyBook = OrderBook;

/** A public trade (feed `trade` record). */
export interface TradeView {
  readonly marketTicker: string;
  readonly yesPrice: Price;
  readonly count: Count;
  readonly takerBookSide: BookSide;
  readonly takerOutcomeSide: OutcomeSide;
  readonly tsMs: number;
}

/** One of our fills (feed `fill` record), delivered after the OMS has applied it. */
export interface FillView {
  readonly tradeId: string;
  readonly orderId: string;
  /** '' when the exchange did not send it. */
  readonly clientOrderId: string;
  readonly marketTicker: string;
  readonly bookSide: BookSide;
  readonly yesPrice: Price;
  readonly count: Count;
  readonly isTaker: boolean;
  /** Signed position after the fill; COUNT_INVALID when absent. */
  readonly postPosition: Count;
  readonly subaccount: number;
  readonly tsMs: number;
}

/**
 * One of our orders as the OMS knows it (src/oms Order satisfies it), delivered after each change
 * of state or counts. `state` is the OMS's OrderState code; use isLiveOrder / isPendingOrder
 * (exported here) rather than comparing codes. It is the OMS's own record, which is reused for a
 * later order once this one has been terminal for the OMS's retention time (5 minutes by default):
 * keep the clientOrderId, not the view, beyond that, or compare `generation`.
 */
export interface OrderView {
  /** The id as text (an OMS order makes it the first time it is read; a handle needs none). */
  readonly clientOrderId: string;
  /**
   * This session's handle of the order (its id's counter), 0 when it has none (a create still
   * held, an order of an earlier session). Kept instead of the id text, it finds, cancels and
   * amends the order (ctx.order, ctx.cancel, ctx.amend, ctx.decrease take either) with no string
   * made per order.
   */
  readonly handle: number;
  /** '' until the exchange has given one. */
  readonly orderId: string;
  readonly ticker: string;
  readonly side: BookSide;
  readonly price: Price;
  /** 1/100 contract (plain numbers in the OMS record). */
  readonly remainingCount: number;
  readonly filledCount: number;
  readonly state: number;
  /** Placed post-only (amends keep the flag). */
  readonly postOnly: boolean;
  readonly subaccount: number;
  /** The host's number of the owning strategy (OrderIntent.strategyId). */
  readonly strategyId: number;
  /** Times the record was reused: a view kept across it now shows another order. */
  readonly generation: number;
}

/**
 * A lifecycle message: market lifecycle (`market_lifecycle_v2`: created, activated, deactivated,
 * determined, settled, ...), `event_lifecycle`, `event_fee_update`. Fields beyond `type` depend on it.
 */
export interface LifecycleView {
  readonly type: string;
  readonly marketTicker?: string;
  readonly eventType?: string;
  readonly isDeactivated?: boolean | null;
}

/**
 * One candlestick as a record (LiveCandles.candle(i)); prices in 1/10,000 dollar, -1 when the
 * period had no trade (PRICE_INVALID), counts in 1/100 contract, endTs in Unix seconds.
 */
export interface CandleView {
  readonly endTs: number;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly mean: number;
  /** Last trade price before the period; -1 when none. */
  readonly previous: number;
  readonly volume: number;
  readonly trades: number;
  readonly yesBid: { readonly open: number; readonly high: number; readonly low: number; readonly close: number };
  readonly yesAsk: { readonly open: number; readonly high: number; readonly low: number; readonly close: number };
  readonly openInterest: number;
}

/**
 * Live candlesticks of one market at one interval (ctx.candles), read from the last snapshot the
 * worker pool published: index 0 is the oldest candle kept, length - 1 the period in progress.
 * Reads never wait and never allocate (except candle(i)); the values move under the view when the
 * pool publishes, so read what you need within one callback. Price getters answer -1 when the
 * period had no trade (or the index is out of range).
 */
export interface CandleSeriesView {
  readonly ticker: string;
  readonly intervalMinutes: number;
  readonly length: number;
  endTs(index: number): number;
  open(index: number): number;
  high(index: number): number;
  low(index: number): number;
  close(index: number): number;
  /** Volume-weighted mean trade price of the period. */
  mean(index: number): number;
  volume(index: number): number;
  yesBidClose(index: number): number;
  yesAskClose(index: number): number;
  candle(index: number): CandleView | null;
}

/** An RFQ open on the venue (`communications` rfq_created), delivered to the strategies trading its market. */
export interface RfqView {
  readonly id: string;
  readonly marketTicker: string;
  readonly eventTicker: string;
  /** The requester's pseudonymous communications id ('' when not sent). */
  readonly creatorId: string;
  /** 1/100 contract; 0 on a target-cost RFQ. */
  readonly contracts: Count;
  /** Centicents (1/10,000 $); negative (CENTICENTS_INVALID) on a contracts RFQ. */
  readonly targetCost: number;
  readonly tsMs: number;
}

/** A quote's status as the quote book knows it ('cancelling' / 'confirming': our request in flight). */
export type QuoteStatus = 'pending' | 'open' | 'cancelling' | 'cancelled' | 'accepted' | 'confirming' | 'confirmed' | 'executed' | 'rejected';

/** One of our quotes (src/oms's Quote satisfies it), delivered to its strategy after each change the venue made. */
export interface QuoteView {
  /** The runtime's handle (ctx.cancelQuote / ctx.confirmQuote take it). */
  readonly handle: number;
  /** '' until the venue has given one. */
  readonly quoteId: string;
  readonly rfqId: string;
  readonly ticker: string;
  readonly yesBid: Price;
  readonly noBid: Price;
  /** Contracts we may buy on the side taken, 1/100 contract. */
  readonly count: Count;
  readonly status: QuoteStatus;
  /** The side the RFQ creator took once accepted ('yes': we buy NO at noBid); '' before. */
  readonly acceptedSide: 'yes' | 'no' | '';
  readonly subaccount: number;
  readonly strategyId: number;
  /** The venue's last error code for it ('' when none). */
  readonly lastCode: string;
}

/** The write budget as a strategy sees it (ctx.budget()); whole tokens. */
export interface BudgetView {
  /** Write tokens in the bucket now (the reserve included: only cancels may spend it). */
  writeTokens: number;
  writeCapacity: number;
  writePerSecond: number;
  /** Tokens only cancels may spend. */
  writeReserve: number;
  /** This strategy's creates and amends the router holds for the budget. */
  held: number;
  /** Every strategy's held intents. */
  heldTotal: number;
}

/** A held create or amend left the router's queue (Strategy.onHeld). */
export interface HeldIntentView {
  readonly clientOrderId: string;
  readonly ticker: string;
  readonly kind: 'create' | 'amend';
  /** True: it went out (the order's next states come through onOrderUpdate as usual). */
  readonly sent: boolean;
  /** Why it was dropped: a deny code (the gate's, now), or NONE when the strategy's own cancel dropped it. */
  readonly deny: number;
}

/**
 * A running strategy. Every callback is synchronous and runs on the hot path's event loop: no
 * awaiting, no blocking I/O, no allocation per call where a reused record serves. A callback that
 * throws faults the strategy: the host stops it and cancels its orders (a broken strategy must
 * not keep quoting). Every callback is optional except onBook.
 */
export interface Strategy {
  onStart?(ctx: StrategyContext): void;
  onStop?(ctx: StrategyContext): void;
  /** A book of one of the strategy's markets changed (snapshot applied or delta applied). */
  onBook(book: StrategyBook, ctx: StrategyContext): void;
  /** The book lost sequence: quotes on it are denied (BOOK_NOT_SYNCED) until onBook after a resync. */
  onBookOutOfSync?(book: StrategyBook, ctx: StrategyContext): void;
  onTrade?(trade: TradeView, ctx: StrategyContext): void;
  onFill?(fill: FillView, ctx: StrategyContext): void;
  /**
   * One of its orders changed: at once after a venue answer or message; one event-loop turn later
   * for the OMS's own changes (timeouts, reconciliation); never for its own requests' effects.
   */
  onOrderUpdate?(order: OrderView, ctx: StrategyContext): void;
  onLifecycle?(event: LifecycleView, ctx: StrategyContext): void;
  /** An RFQ on one of the strategy's markets was created (answer with ctx.quote) or deleted (`deleted` true). */
  onRfq?(rfq: RfqView, ctx: StrategyContext, deleted: boolean): void;
  /**
   * One of its quotes changed at the venue: open, accepted (confirm with ctx.confirmQuote within
   * the window, after a last look), executed, cancelled or rejected. Never for its own requests' effects.
   */
  onQuoteUpdate?(quote: QuoteView, ctx: StrategyContext): void;
  /** The host's shared coarse tick, at most every `timerIntervalMs`. */
  onTimer?(nowMs: number, ctx: StrategyContext): void;
  /** A create or amend the router held for the write budget was sent or dropped. */
  onHeld?(held: HeldIntentView, ctx: StrategyContext): void;
}

/** JSON Schema (draft 2020-12 keywords; ajv strict mode) of a plugin's params. */
export type ParamsSchema = Readonly<Record<string, unknown>>;

/**
 * What a plugin module's default export must be. `create` receives the params after validation
 * against `paramsSchema` (defaults filled in, frozen). `timerIntervalMs` is the default interval of
 * onTimer (0 or absent: no timer); a numeric `timerIntervalMs` param, when the schema has one, wins.
 */
export interface StrategyPlugin<P = Record<string, unknown>> {
  readonly name: string;
  readonly paramsSchema: ParamsSchema;
  readonly timerIntervalMs?: number;
  /**
   * Which book changes reach onBook: 'every' (the default) each applied delta and snapshot;
   * 'bestPrice' only those that moved the best bid or best ask price (book.topMoved), with every
   * snapshot and resync. A quoter that prices off the top of the book is called a fraction as
   * often (on a busy book most deltas change sizes or deeper levels), and across thousands of
   * markets the calls it skips are cache misses saved.
   */
  readonly bookUpdates?: 'every' | 'bestPrice';
  /**
   * true: the keep-warm dry run (process.keepWarmMs) may run a second instance of this plugin,
   * made by create() with the deployment's params, on a shadow market whose best bid moves between
   * two of its calls (one such strategy per dry run, in turn): its onBook and the places, amends and cancels it makes through ctx, answered by a shadow
   * venue that never leaves the process. At a maker's pace the plugin's own code otherwise runs
   * from cold caches (the main job's strategy hop: ~35 µs live against ~0.3 µs back to back).
   * Only for a plugin whose callbacks act solely through ctx and its own instance: no module-level
   * state, I/O, timers or logging per call (the second instance shares the module). An instance
   * that throws is dropped from the rehearsal, never faults the deployment. Absent: false.
   */
  readonly rehearse?: boolean;
  create(params: Readonly<P>): Strategy;
}

/**
 * Order options as a bit set, so a place() call allocates no options object. Without IOC or FOK
 * an order is good-till-cancelled.
 */
export const OrderFlags = {
  NONE: 0,
  POST_ONLY: 1,
  REDUCE_ONLY: 2,
  IOC: 4, //  immediate_or_cancel
  FOK: 8, //  fill_or_kill
} as const;
export type OrderFlags = number;

/**
 * An exit trigger on one of the strategy's Margin positions (ctx.exitTrigger), in the strategy's
 * subaccount. Absent fields are absent on the wire: a bracket leg left out is cleared, a count
 * left out covers the whole position.
 */
export interface ExitTriggerSpec {
  ticker: string;
  /** 'set' (default): create or replace; 'update': one cross bracket by triggerId; 'delete': by kind, or one by triggerId. */
  action?: 'set' | 'update' | 'delete';
  /** 'bracket' (default): stop-loss and/or take-profit; 'trailing': one trail. */
  kind?: 'bracket' | 'trailing';
  stopLossPrice?: Price;
  takeProfitPrice?: Price;
  trailAmount?: Price;
  trailBps?: number;
  /** Whole contracts closed when it fires; requires clientTriggerId. */
  count?: Count;
  /** A bracket following one of our orders' fills (its venue order id); requires clientTriggerId. */
  anchorOrderId?: string;
  clientTriggerId?: string;
  triggerId?: string;
  /** An isolated position (one trigger per kind, closes in full); default cross. */
  isolated?: boolean;
}

/** Helper for plugin authors: `export default definePlugin({...})` keeps the params type. */
export function definePlugin<P>(plugin: StrategyPlugin<P>): StrategyPlugin<P> {
  return plugin;
}

/**
 * What the strategy host needs from the rest of the runtime, as narrow interfaces the wiring
 * implements (src/runtime) and tests fake. The host never reaches the risk gate, the OMS, the
 * feed or the exchange in any other way, so a plugin cannot go around the gate: its only way to an
 * order is OrderPort.submit, whose contract is "risk gate, then OMS".
 * This file owns the interfaces only.
 */

import type { Clock, Count, ExitTriggerIntent, OrderIntent, Price } from '../core/index.ts';
import type { Deny } from '../risk/index.ts';
import type { OrderBook } from '../book/index.ts';
import type { Logger } from '../telemetry/index.ts';
import type { BudgetView, CandleSeriesView, OrderView, QuoteView, RfqView } from './strategy.ts';

export interface OrderPort {
  /**
   * Runs the intent through the risk gate and, when allowed, hands it to the OMS, which writes the
   * request before returning. Returns the gate's Deny code (NONE on accept). On NONE for a NEW
   * intent, `intent.orderHandle` holds the new order's handle (and `intent.clientOrderId` its id
   * when it was made as text: a held create). Synchronous; keeps nothing of
   * `intent`. For CANCEL / AMEND / DECREASE the strategy context has already filled market, side,
   * prevPrice and prevCount from order().
   */
  submit(intent: OrderIntent): Deny;
  /** The OMS's record of one of our orders, or null when unknown. */
  order(clientOrderId: string): OrderView | null;
  /** The OMS's record of this session's order with `handle` (OrderView.handle), or null. Absent: handles find nothing. */
  orderByHandle?(handle: number): OrderView | null;
  /** The text of this session's client order id with `handle`, made now. Absent: ''. */
  clientOrderIdOf?(handle: number): string;
  /** Writes the live orders of one strategy (of one market, or all when ticker is null) into `out`; returns how many. */
  openOrders(strategyId: number, ticker: string | null, out: OrderView[]): number;
  /** The index of an order-entry route by its config name ('rest', 'fix'); -1 when the runtime has none. */
  routeIndex(name: string): number;
  /** Net signed position of a subaccount in a market (positive YES, negative NO), 1/100 contract. */
  position(subaccount: number, ticker: string): Count;
  /** The write budget and the strategy's held intents, written into `out`; absent: no budget to show. */
  budget?(strategyId: number, out: BudgetView): BudgetView;
  /** Whether the strategy's intents are held when the bucket is empty, and its turns per rotation. */
  setHolding?(strategyId: number, hold: boolean, priority: number): void;
}

export interface MarketPort {
  /** The risk gate's handle of a market, -1 when the runtime does not know it. */
  marketHandle(ticker: string): number;
  /** The local book of a market, undefined when unknown. */
  book(ticker: string): OrderBook | undefined;
  /**
   * Makes markets known (registered with the gate, books subscribed) before a strategy that trades
   * them starts; resolves when each has a handle. Markets the runtime cannot find reject.
   */
  ensureMarkets(tickers: readonly string[]): Promise<void>;
}

export interface OrderGroupPort {
  /** Creates an exchange order group (through the gate's GROUP_CREATE check); resolves to the gate's group handle. */
  create(subaccount: number, contractsLimit: Count): Promise<number>;
  /** Deletes a group the host created (its orders are already cancelled). */
  release(handle: number, subaccount: number): Promise<void>;
}

/** Live candlesticks (the runtime's CandleFeed); synchronous reads of the last published snapshot. */
export interface CandlePort {
  /** Candles of a market at an interval the runtime keeps; null when it keeps none for them. */
  candles(ticker: string, intervalMinutes: number): CandleSeriesView | null;
}

/**
 * Quotes on RFQs: the contract is the same as OrderPort's, "risk gate, then the quote book, then
 * the route", synchronous, returning the gate's (or the quote book's) Deny code.
 */
export interface QuotePort {
  /** A new quote on an open RFQ; on NONE `lastQuoteHandle` holds its handle. */
  quote(strategyId: number, subaccount: number, rfqId: string, yesBid: Price, noBid: Price, postOnly: boolean): Deny;
  readonly lastQuoteHandle: number;
  cancelQuote(strategyId: number, handle: number): Deny;
  confirmQuote(strategyId: number, handle: number): Deny;
  /** One of our quotes, or null when unknown (or pruned). */
  quoteView(handle: number): QuoteView | null;
  /** An RFQ open on the venue, or null. */
  rfq(rfqId: string): RfqView | null;
  /** Writes the strategy's quotes not yet closed into `out`; returns how many. */
  openQuotes(strategyId: number, out: QuoteView[]): number;
}

/** The answer to an exit-trigger write (ctx.exitTrigger). */
export interface ExitTriggerAnswer {
  /** The gate's code (NONE: sent; the venue's answer is in the other fields). */
  readonly deny: Deny;
  /** The venue's trigger id; '' when none (denied, refused, a delete). */
  readonly triggerId: string;
  /** The trigger's state after the answer (pending_on_entry, active, filled, canceled, ...); '' when none. */
  readonly state: string;
  /** The venue's or the route's error code when it refused or its fate is unknown; '' otherwise. */
  readonly error: string;
}

/**
 * Exit triggers on Margin positions (stop-loss / take-profit brackets, trailing stops): "risk gate
 * (RiskGate.checkTrigger), then the trigger table, which sends it". Off the hot path: a REST round
 * trip, so the answer is a promise.
 */
export interface TriggerPort {
  submit(intent: Readonly<ExitTriggerIntent>): Promise<ExitTriggerAnswer>;
}

export interface StrategyHostPorts {
  /** null or absent: no Margin exchange (ctx.exitTrigger answers INTENT_INVALID). */
  triggers?: TriggerPort | null;
  /** null or absent: quoting is off (ctx.quote answers INTENT_INVALID). */
  quotes?: QuotePort | null;
  orders: OrderPort;
  markets: MarketPort;
  /** null or absent: ctx.candles answers null (candles off). */
  candles?: CandlePort | null;
  /** null: order groups configured for a strategy are an error at start. */
  orderGroups: OrderGroupPort | null;
  clock: Clock;
  logger: Logger;
}

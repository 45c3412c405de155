/**
 * The simulator engine's public record types: what callers pass in (order requests, queries), what
 * the engine returns (orders, fills, positions, balances, pages) and the listener it calls. All
 * numbers are fixed-point units from src/core (Price, Count, Centicents); times are Unix ms. This
 * file owns shapes only; it never renders wire JSON (render.ts does) and holds no state.
 */

import type { BookSide, Centicents, Count, Price, PriceGrid, PriceLevelStructure, PriceRangeText } from '../../core/index.ts';

// ---------------------------------------------------------------------------------------------
// Errors: returned, never thrown, with the exchange's REST status and code (rest.md §2).

export type SimErrorCode =
  | 'bad_request'
  | 'invalid_order'
  | 'invalid_price'
  | 'invalid_order_size'
  | 'insufficient_balance'
  | 'market_closed'
  | 'market_not_found'
  | 'not_found'
  | 'order_already_exists'
  | 'order_group_triggered'
  | 'order_group_limit_reached'
  | 'exchange_paused'
  | 'trading_paused'
  | 'user_not_found'
  | 'forbidden'
  // RFQs and quotes (communications.ts routes; the exchange publishes no list, rest.md §2 gap)
  | 'quote_expired'
  | 'invalid_quote_status'
  | 'too_many_open_rfqs'
  | 'too_many_requests'
  // Combo market creation (interface-spec Errors 3)
  | 'conflicting_leg_outcomes'
  | 'duplicated_legs'
  | 'invalid_market_combination'
  // Transfers and subaccounts (src/sim/treasury; codes are the simulator's choice, rest.md §11 gap)
  | 'intra_exchange_transfers_inactive'
  | 'subaccount_limit_reached'
  | 'idempotency_key_already_used'
  // Block-trade proposals (engine/block-trades.ts)
  | 'block_trade_proposal_not_pending';

/** An expected failure: the REST status and error body the exchange would send. */
export interface SimError {
  readonly isError: true;
  readonly status: number;
  readonly code: SimErrorCode;
  readonly message: string;
  readonly details?: string;
}

export function isSimError(value: unknown): value is SimError {
  return typeof value === 'object' && value !== null && (value as { isError?: unknown }).isError === true;
}

// ---------------------------------------------------------------------------------------------
// Enumerations.

export type TimeInForce = 'good_till_canceled' | 'immediate_or_cancel' | 'fill_or_kill';
export type SelfTradePrevention = 'taker_at_cross' | 'maker';
export type OrderStatus = 'resting' | 'canceled' | 'executed';
/**
 * Why an order last changed (WS user_order / orderbook_delta `last_update_reason`). '' = created.
 * Values from rest.md §4 plus ReduceOnlyCancel / OrderGroupCancel / MarketCloseCancel / CancelAll,
 * which the Predictions list does not publish (gap): the sim's own names.
 */
export type UpdateReason =
  | ''
  | 'Trade'
  | 'Cancel'
  | 'Decrease'
  | 'Amend'
  | 'SelfTradeCancel'
  | 'ExpiryCancel'
  | 'PostOnlyCrossCancel'
  | 'ImmediateOrCancel'
  | 'FillOrKillCancel'
  | 'OrderGroupCancel'
  | 'MarketCloseCancel'
  | 'PauseCancel';
export type MarketStatus = 'initialized' | 'inactive' | 'active' | 'closed' | 'determined' | 'disputed' | 'amended' | 'finalized';
export type MarketResult = 'yes' | 'no' | 'scalar' | '';
export type FeeType = 'quadratic' | 'quadratic_with_maker_fees' | 'quadratic_with_combo_maker_fees' | 'flat';
/** Exchange shards the Predictions exchange uses (interface-spec: 0 main, 2 commodities, 3 basketball). */
export type ExchangeIndex = 0 | 2 | 3;
export const EXCHANGE_INDEXES: readonly ExchangeIndex[] = [0, 2, 3];

// ---------------------------------------------------------------------------------------------
// Catalog (config/markets.json after validation).

export interface SettlementSource {
  name: string;
  url: string;
}

export interface SeriesSpec {
  ticker: string;
  title: string;
  category: string;
  frequency: string;
  tags: string[];
  settlementSources: SettlementSource[];
  contractUrl: string;
  contractTermsUrl: string;
  feeType: FeeType;
  /** Fee multiplier as a decimal string ("1", "0.5"); kept as text, never a float. */
  feeMultiplier: string;
  exchangeIndex: ExchangeIndex;
}

export interface EventSpec {
  /** Combo events only: the collection that created it (absent or null otherwise). */
  mveCollectionTicker?: string | null;
  eventTicker: string;
  seriesTicker: string;
  title: string;
  subTitle: string;
  collateralReturnType: string;
  mutuallyExclusive: boolean;
  category: string;
  strikeDate: number | null; // unix s
  strikePeriod: string;
  settlementSources: SettlementSource[];
  productMetadata: Record<string, unknown> | null;
  feeTypeOverride: FeeType | null;
  feeMultiplierOverride: string | null;
  exchangeIndex: ExchangeIndex;
}

export interface MarketSpec {
  ticker: string;
  eventTicker: string;
  marketId: string; // uuid used on WS messages
  marketType: 'binary' | 'scalar';
  title: string;
  subtitle: string;
  yesSubTitle: string;
  noSubTitle: string;
  status: MarketStatus;
  exchangeIndex: ExchangeIndex;
  priceLevelStructure: PriceLevelStructure;
  priceRanges: PriceRangeText[] | null;
  openTimeMs: number;
  closeTimeMs: number;
  expectedExpirationTimeMs: number | null;
  latestExpirationTimeMs: number;
  settlementTimerSeconds: number;
  canCloseEarly: boolean;
  rulesPrimary: string;
  rulesSecondary: string;
  strikeType: string | null;
  floorStrike: number | null;
  capStrike: number | null;
  customStrike: Record<string, unknown> | null;
  /** Fair value the activity generator starts from (YES price). */
  initialFairPrice: Price;
  /** Combo markets only: the collection that created it and its legs (absent or null otherwise). */
  mveCollectionTicker?: string | null;
  mveSelectedLegs?: readonly MveLeg[] | null;
}

/** One leg of a combo market (the wire's TickerPair / MveSelectedLeg). */
export interface MveLeg {
  readonly eventTicker: string;
  readonly marketTicker: string;
  readonly side: 'yes' | 'no';
}

/** An event of a multivariate event collection, with its own leg rules (the wire's AssociatedEvent). */
export interface CollectionEventSpec {
  eventTicker: string;
  isYesOnly: boolean;
  /** Markets of this event a combo may use, inclusive; null = no limit. */
  sizeMin: number | null;
  sizeMax: number | null;
}

/** A multivariate (combo) event collection (config/markets.json `collections`). */
export interface CollectionSpec {
  collectionTicker: string;
  /** Series of the combo events and markets it creates (their exchange_index and fees). */
  seriesTicker: string;
  title: string;
  description: string;
  openTimeMs: number;
  closeTimeMs: number;
  associatedEvents: CollectionEventSpec[];
  isOrdered: boolean;
  /** Legs per combo, inclusive. */
  sizeMin: number;
  sizeMax: number;
  functionalDescription: string;
}

export interface Catalog {
  series: SeriesSpec[];
  events: EventSpec[];
  markets: MarketSpec[];
  /** Multivariate event collections; absent = none. */
  collections?: CollectionSpec[];
}

// ---------------------------------------------------------------------------------------------
// Live records (read-only views of engine state; valid until the next engine call mutates them).

export interface Market {
  readonly spec: MarketSpec;
  readonly ticker: string;
  readonly eventTicker: string;
  readonly exchangeIndex: ExchangeIndex;
  readonly status: MarketStatus;
  readonly priceLevelStructure: PriceLevelStructure;
  /** Explicit price_ranges, or null when the structure's grid is used. */
  readonly priceRanges: readonly PriceRangeText[] | null;
  /** The current price grid (replaced by a regrid). */
  readonly grid: PriceGrid;
  readonly result: MarketResult;
  readonly createdMs: number;
  readonly updatedMs: number;
  readonly lastPrice: Price; // 0 when never traded
  readonly volume: Count;
  readonly volume24h: Count;
  readonly openInterest: Count;
  readonly yesSubTitle: string;
  readonly noSubTitle: string;
  readonly title: string;
  readonly subtitle: string;
  readonly strikeType: string | null;
  readonly floorStrike: number | null;
  readonly capStrike: number | null;
  readonly customStrike: Record<string, unknown> | null;
  readonly settlementValue: Centicents | null;
  readonly settledMs: number;
  readonly determinationMs: number;
  readonly closeTimeMs: number;
  /** Combo markets: the collection and legs; null for every other market. */
  readonly mveCollectionTicker: string | null;
  readonly mveSelectedLegs: readonly MveLeg[] | null;
  /** Best YES bid / YES ask (= 1 - best NO bid); 0 when that side is empty. */
  bestBid(): Price;
  bestAsk(): Price;
  bestBidSize(): Count;
  bestAskSize(): Count;
  /** The bands of the current grid as wire strings (price_ranges is always sent: the authority). */
  wirePriceRanges(): PriceRangeText[];
}

export interface EventInfo {
  readonly spec: EventSpec;
  readonly eventTicker: string;
  readonly markets: readonly Market[];
  readonly updatedMs: number;
}

export interface Order {
  readonly orderId: string;
  readonly userId: string;
  readonly clientOrderId: string;
  readonly ticker: string;
  readonly eventTicker: string;
  readonly exchangeIndex: ExchangeIndex;
  readonly subaccount: number;
  /** bid = buy YES, ask = sell YES (= buy NO at 1 - price). */
  readonly side: BookSide;
  /** YES price. */
  readonly price: Price;
  readonly initialCount: Count;
  readonly fillCount: Count;
  readonly remainingCount: Count;
  readonly status: OrderStatus;
  readonly timeInForce: TimeInForce;
  readonly postOnly: boolean;
  readonly reduceOnly: boolean;
  readonly selfTradePrevention: SelfTradePrevention;
  readonly orderGroupId: string | null;
  readonly cancelOrderOnPause: boolean;
  /** Unix seconds, 0 = none. */
  readonly expirationTs: number;
  readonly createdMs: number;
  readonly lastUpdateMs: number;
  readonly lastUpdateReason: UpdateReason;
  readonly takerFillCost: Centicents;
  readonly makerFillCost: Centicents;
  readonly takerFees: Centicents;
  readonly makerFees: Centicents;
  /** Creation sequence number (orders sort and paginate by it). */
  readonly seq: number;
}

export interface Fill {
  /** Also the public trade id. */
  readonly fillId: string;
  readonly orderId: string;
  readonly clientOrderId: string;
  readonly userId: string;
  readonly ticker: string;
  readonly exchangeIndex: ExchangeIndex;
  readonly subaccount: number;
  /** The order's book side. */
  readonly side: BookSide;
  /** YES price of the trade. */
  readonly price: Price;
  readonly count: Count;
  readonly isTaker: boolean;
  readonly fee: Centicents;
  /** Signed position in the market (this subaccount) after the fill. */
  readonly postPosition: Count;
  readonly tsMs: number;
  readonly seq: number;
}

export interface Trade {
  readonly tradeId: string;
  readonly ticker: string;
  readonly price: Price; // YES price
  readonly count: Count;
  readonly takerSide: BookSide;
  readonly isBlockTrade: boolean;
  readonly tsMs: number;
  readonly seq: number;
}

export interface Position {
  readonly userId: string;
  readonly subaccount: number;
  readonly ticker: string;
  readonly eventTicker: string;
  readonly exchangeIndex: ExchangeIndex;
  /** Signed: + long YES, - long NO. */
  readonly position: Count;
  /** Cost of the contracts held now (YES cost when long YES, NO cost when long NO). */
  readonly positionCost: Centicents;
  /** Fees paid on the contracts held now (share of fees of the opening fills). */
  readonly positionFeeCost: Centicents;
  readonly realizedPnl: Centicents;
  readonly feesPaid: Centicents;
  /** Sum of the notional of every fill (dollars traded). */
  readonly totalTraded: Centicents;
  /** Contracts traded in this market. */
  readonly volume: Count;
  readonly lastUpdatedMs: number;
}

export interface EventPositionView {
  eventTicker: string;
  totalCost: Centicents;
  totalCostShares: Count;
  eventExposure: Centicents;
  realizedPnl: Centicents;
  feesPaid: Centicents;
}

export interface OrderGroup {
  readonly orderGroupId: string;
  readonly userId: string;
  readonly subaccount: number;
  readonly exchangeIndex: ExchangeIndex;
  /** null = no auto-cancel limit. */
  readonly contractsLimit: Count | null;
  readonly triggered: boolean;
  readonly createdMs: number;
  /** Matched contracts inside the rolling window as of the last match or query. */
  readonly matchedInWindow: Count;
}

export type OrderGroupEventType = 'created' | 'triggered' | 'reset' | 'deleted' | 'limit_updated';

export interface OrderGroupEvent {
  readonly eventType: OrderGroupEventType;
  readonly orderGroupId: string;
  readonly subaccount: number;
  readonly contractsLimit: Count | null;
  readonly tsMs: number;
}

export type MarketLifecycleType =
  | 'created'
  | 'activated'
  | 'deactivated'
  | 'close_date_updated'
  | 'determined'
  | 'settled'
  | 'price_level_structure_updated'
  | 'metadata_updated';

export interface MarketLifecycleEvent {
  readonly eventType: MarketLifecycleType;
  readonly market: Market;
  readonly tsMs: number;
}

export interface EventLifecycleEvent {
  readonly event: EventInfo;
  readonly tsMs: number;
}

// ---------------------------------------------------------------------------------------------
// Requests (already decoded into units by the server).

export interface CreateOrderParams {
  ticker: string;
  clientOrderId?: string | null;
  side: BookSide;
  price: Price;
  count: Count;
  timeInForce: TimeInForce;
  selfTradePrevention: SelfTradePrevention;
  /** Unix seconds; 0 / null / undefined = none. Only with good_till_canceled. */
  expirationTs?: number | null;
  postOnly?: boolean;
  reduceOnly?: boolean;
  cancelOrderOnPause?: boolean;
  subaccount?: number;
  orderGroupId?: string | null;
  /** undefined / null / -1 = route by ticker; else must equal the market's index. */
  exchangeIndex?: number | null;
  /**
   * Engine-internal, set only by the RFQ part: the order is a quoter's execution order (the combo
   * fee rule looks at it). Order entry from the servers never sets it.
   */
  quoteExecution?: boolean;
}

export interface CreateOrderResult {
  readonly isError: false;
  readonly order: Order;
  /** Contracts filled by this request. */
  readonly fillCount: Count;
  /** Contracts left resting (0 when IOC/FOK/post-only/STP cancelled or fully filled). */
  readonly remainingCount: Count;
  /** Sum over this request's fills of price x count (YES price), for average_fill_price. */
  readonly fillNotional: Centicents;
  /** Fees of this request's fills, for average_fee_paid. */
  readonly fees: Centicents;
  /** Volume-weighted YES price of this request's fills, rounded to the price unit; 0 without fills. */
  readonly averageFillPrice: Price;
  /** Fee per whole contract of this request's fills, centicents; 0 without fills. */
  readonly averageFeePaid: Centicents;
  readonly tsMs: number;
}

export interface CancelOrderResult {
  readonly isError: false;
  readonly order: Order;
  readonly reducedBy: Count;
  readonly tsMs: number;
}

export interface AmendOrderParams {
  ticker: string;
  side: BookSide;
  price: Price;
  /** New total: already filled + desired remaining. */
  count: Count;
  clientOrderId?: string | null;
  updatedClientOrderId?: string | null;
  subaccount?: number | null;
  exchangeIndex?: number | null;
}

export interface AmendOrderResult {
  readonly isError: false;
  readonly order: Order;
  /** True when the amend changed the resting size or filled (remaining_count / fill_count are then sent). */
  readonly sizeChangedOrFilled: boolean;
  readonly fillCount: Count;
  readonly remainingCount: Count;
  readonly fillNotional: Centicents;
  readonly fees: Centicents;
  readonly averageFillPrice: Price;
  readonly averageFeePaid: Centicents;
  readonly tsMs: number;
}

export interface DecreaseOrderParams {
  reduceBy?: Count | null;
  reduceTo?: Count | null;
  subaccount?: number | null;
  exchangeIndex?: number | null;
  ticker?: string | null;
}

export interface DecreaseOrderResult {
  readonly isError: false;
  readonly order: Order;
  readonly remainingCount: Count;
  readonly tsMs: number;
}

export interface BatchCancelItem {
  orderId: string;
  subaccount?: number | null;
  exchangeIndex?: number | null;
  ticker?: string | null;
}

export interface CreateOrderGroupParams {
  subaccount?: number;
  contractsLimit?: Count | null;
  exchangeIndex?: number | null;
}

// ---------------------------------------------------------------------------------------------
// Queries and pages.

export interface Page<T> {
  readonly items: T[];
  /** Opaque; "" on the last page. */
  readonly cursor: string;
}

export interface PageQuery {
  cursor?: string | null;
  limit?: number | null;
}

export interface OrderQuery extends PageQuery {
  ticker?: string | null;
  /** One or more event tickers (comma list already split). */
  eventTickers?: string[] | null;
  status?: OrderStatus | null;
  subaccount?: number | null;
  exchangeIndex?: number | null;
  /** Unix seconds, inclusive bounds on created time. */
  minTs?: number | null;
  maxTs?: number | null;
}

export interface FillQuery extends PageQuery {
  ticker?: string | null;
  orderId?: string | null;
  subaccount?: number | null;
  exchangeIndex?: number | null;
  minTs?: number | null;
  maxTs?: number | null;
}

export interface PositionQuery extends PageQuery {
  ticker?: string | null;
  eventTicker?: string | null;
  subaccount?: number | null;
  exchangeIndex?: number | null;
  /** 'position': non-zero positions only; 'total_traded': traded at all. Default: either. */
  countFilter?: 'position' | 'total_traded' | null;
  /**
   * Only positions archived to history (GET /historical/positions): those of events whose every
   * market settled before this instant, Unix ms. Absent or null: no such filter.
   */
  archivedBeforeMs?: number | null;
}

export interface PositionsPage {
  readonly marketPositions: Position[];
  readonly eventPositions: EventPositionView[];
  readonly cursor: string;
}

export interface MarketQuery extends PageQuery {
  eventTicker?: string | null;
  seriesTicker?: string | null;
  tickers?: string[] | null;
  /** Filter values (differ from object statuses): unopened | open | paused | closed | settled. */
  status?: 'unopened' | 'open' | 'paused' | 'closed' | 'settled' | null;
  /** only: combo markets only; exclude: no combo markets; absent: both (rest.md §5). */
  mveFilter?: 'only' | 'exclude' | null;
}

export interface EventQuery extends PageQuery {
  /** true: combo events only (GET /events/multivariate); false or absent: combo events excluded (GET /events). */
  multivariate?: boolean | null;
  /** Combo events of this collection (with multivariate). */
  collectionTicker?: string | null;
  seriesTicker?: string | null;
  eventTickers?: string[] | null;
  status?: 'unopened' | 'open' | 'closed' | 'settled' | null;
}

export interface TradeQuery extends PageQuery {
  ticker?: string | null;
  minTs?: number | null;
  maxTs?: number | null;
}

export interface BalanceView {
  /** Available cash (deposits - costs - fees + proceeds - resting order collateral), centicents. */
  readonly balance: Centicents;
  /** Mark-to-market value of positions, centicents. */
  readonly portfolioValue: Centicents;
  readonly updatedMs: number;
  /** Per exchange index (always 0, 2, 3). */
  readonly breakdown: ReadonlyArray<{ exchangeIndex: ExchangeIndex; balance: Centicents }>;
}

export interface SubaccountBalanceView {
  readonly subaccount: number;
  readonly exchangeIndex: ExchangeIndex;
  readonly balance: Centicents;
  readonly updatedMs: number;
}

export interface RestingOrderValueView {
  readonly total: Centicents;
  readonly breakdown: ReadonlyArray<{ exchangeIndex: ExchangeIndex; value: Centicents }>;
}

export interface QueuePositionView {
  readonly orderId: string;
  readonly ticker: string;
  readonly queuePosition: Count;
}

export interface OrderbookView {
  readonly ticker: string;
  /** YES bids [yes price, size], ascending price. */
  readonly yes: Array<[Price, Count]>;
  /** NO bids [no price, size], ascending NO price. */
  readonly no: Array<[Price, Count]>;
}

export interface ExchangeIndexStatusView {
  exchangeIndex: ExchangeIndex;
  description: string;
  exchangeActive: boolean;
  tradingActive: boolean;
  intraExchangeTransfersActive: boolean;
}

export interface ExchangeStatusView {
  exchangeActive: boolean;
  tradingActive: boolean;
  intraExchangeTransfersActive: boolean;
  exchangeIndexStatuses: ExchangeIndexStatusView[];
}

// ---------------------------------------------------------------------------------------------
// RFQs and quotes (interface-spec communications; rfq-book.ts owns their state).

export type RfqStatus = 'open' | 'closed';
/** Only accepted, confirmed and executed are durable (a roll or restart clears the others). */
export type QuoteStatus = 'open' | 'cancelled' | 'accepted' | 'confirmed' | 'executed';
export type QuoteSide = 'yes' | 'no';

export interface Rfq {
  readonly rfqId: string;
  readonly userId: string;
  /** The creator's public communications id. */
  readonly creatorId: string;
  readonly subaccount: number;
  readonly marketTicker: string;
  readonly eventTicker: string;
  /** Contracts requested; 0 for an RFQ sized by target cost. */
  readonly contracts: Count;
  /** Dollars to spend (centicents), or null when sized in contracts. */
  readonly targetCost: Centicents | null;
  readonly restRemainder: boolean;
  readonly status: RfqStatus;
  readonly createdMs: number;
  readonly updatedMs: number;
  /** 0 while open. */
  readonly closedMs: number;
  readonly cancellationReason: string;
  readonly mveCollectionTicker: string | null;
  readonly mveSelectedLegs: readonly MveLeg[] | null;
}

export interface Quote {
  readonly quoteId: string;
  readonly rfqId: string;
  readonly userId: string;
  /** The quoter's public communications id. */
  readonly creatorId: string;
  readonly subaccount: number;
  readonly rfqUserId: string;
  readonly rfqCreatorId: string;
  readonly rfqSubaccount: number;
  readonly marketTicker: string;
  readonly eventTicker: string;
  /** YES and NO bids of the maker; 0 = that side declined. */
  readonly yesBid: Price;
  readonly noBid: Price;
  /** Contracts of the quote: the RFQ's, or for an RFQ sized by cost the larger side's. */
  readonly contracts: Count;
  /** Contracts the requester gets accepting yes / no (0 where declined). */
  readonly yesContracts: Count;
  readonly noContracts: Count;
  readonly rfqTargetCost: Centicents | null;
  readonly restRemainder: boolean;
  readonly postOnly: boolean;
  readonly status: QuoteStatus;
  /** The side the RFQ creator takes; null until accepted. */
  readonly acceptedSide: QuoteSide | null;
  readonly createdMs: number;
  readonly updatedMs: number;
  readonly acceptedMs: number;
  readonly confirmedMs: number;
  readonly executedMs: number;
  readonly cancelledMs: number;
  readonly cancellationReason: string;
  /** Orders of the execution ('' before it). */
  readonly creatorOrderId: string;
  readonly creatorClientOrderId: string;
  readonly rfqCreatorOrderId: string;
  readonly rfqCreatorClientOrderId: string;
}

export interface RfqEvent {
  readonly type: 'rfq_created' | 'rfq_deleted';
  readonly rfq: Rfq;
  readonly tsMs: number;
}

export interface QuoteEvent {
  readonly type: 'quote_created' | 'quote_accepted' | 'quote_executed';
  readonly quote: Quote;
  readonly rfq: Rfq;
  readonly tsMs: number;
}

export interface CreateRfqParams {
  marketTicker: string;
  /** Exactly one of contracts and targetCost. */
  contracts?: Count | null;
  targetCost?: Centicents | null;
  restRemainder: boolean;
  replaceExisting?: boolean;
  subaccount?: number;
}

export interface CreateQuoteParams {
  rfqId: string;
  yesBid: Price;
  noBid: Price;
  restRemainder: boolean;
  postOnly?: boolean;
  subaccount?: number;
}

export interface RfqQuery extends PageQuery {
  eventTicker?: string | null;
  marketTicker?: string | null;
  /** The caller's own RFQs on this subaccount. */
  subaccount?: number | null;
  status?: string | null;
  creatorUserId?: string | null;
  /** user_filter=self: only the caller's RFQs. */
  self?: boolean;
}

export interface QuoteQuery extends PageQuery {
  /** Unix seconds, bounds on the last update. */
  minTs?: number | null;
  maxTs?: number | null;
  status?: string | null;
  quoteCreatorUserId?: string | null;
  rfqCreatorUserId?: string | null;
  rfqId?: string | null;
  /** user_filter=self: quotes the caller created. */
  self?: boolean;
  /** rfq_user_filter=self: quotes on the caller's RFQs. */
  rfqSelf?: boolean;
  /** A restricted key's subaccount: only quotes where the caller's side is on it. */
  subaccount?: number | null;
}

// ---------------------------------------------------------------------------------------------
// Combo (multivariate) markets (combos.ts).

export interface Collection {
  readonly spec: CollectionSpec;
  /** Inherited from the collection's series. */
  readonly exchangeIndex: ExchangeIndex;
}

export interface CollectionQuery extends PageQuery {
  status?: 'unopened' | 'open' | 'closed' | null;
  associatedEventTicker?: string | null;
  seriesTicker?: string | null;
}

export interface ComboResult {
  readonly market: Market;
  readonly event: EventInfo;
  /** False when the legs resolved to a market created earlier. */
  readonly created: boolean;
}

// ---------------------------------------------------------------------------------------------
// Listener: called synchronously, in causal order. Arguments are live records: copy what you keep.

export interface EngineListener {
  /**
   * A level of `market`'s book changed. side 'yes' = YES bids at YES price; 'no' = NO bids at NO
   * price. `order` is the order whose change caused it (own-order annotation), reason why.
   */
  onBookDelta(market: Market, side: 'yes' | 'no', price: Price, delta: Count, order: Order, reason: UpdateReason, tsMs: number): void;
  onTrade(market: Market, trade: Trade): void;
  onFill(userId: string, fill: Fill, order: Order): void;
  onUserOrder(userId: string, order: Order): void;
  onPosition(userId: string, position: Position): void;
  onOrderGroup(userId: string, event: OrderGroupEvent): void;
  onMarketLifecycle(event: MarketLifecycleEvent): void;
  onEventLifecycle(event: EventLifecycleEvent): void;
  /** An RFQ was created or closed (broadcast to every communications subscriber). */
  onRfq(event: RfqEvent): void;
  /** A quote was created, accepted or executed (sent to its two parties only). */
  onQuote(event: QuoteEvent): void;
}

// ---------------------------------------------------------------------------------------------
// Construction.

export interface SimEngineOptions {
  /** true: a post-only that would cross is rejected 400 invalid_order "post only cross" (demo capture); false: cancelled with PostOnlyCrossCancel (spec). */
  postOnlyCrossReject400: boolean;
  /** Trade fee rounding per fill: 'centicent' ($0.0001, the exchange's fee_rounding page and the wire capture) or 'cent' (legacy). */
  feeRounding: 'centicent' | 'cent';
  /** Order groups per user (exchange: 100,000). */
  maxOrderGroupsPerUser: number;
  /** Order group matched-contracts window (exchange: 15 s). */
  orderGroupWindowMs: number;
  /** Public trades kept per market for GET /markets/trades. */
  tradeHistoryPerMarket: number;
  /** Largest order count accepted (Count units). */
  maxOrderCount: Count;
  /** Accepted quote not confirmed within this many ms is voided (fix.md §7: 30 s). */
  rfqConfirmWindowMs: number;
  /** Delay between confirm and execution, ms (docs: "after the execution timeout"; value not published, 0 = at confirm). */
  rfqExecutionDelayMs: number;
  /** Closed RFQs and cancelled quotes are kept this long after their last update (interface-spec Limits: 7 days). */
  rfqRetentionMs: number;
  /** Open RFQs per user (OpenAPI CreateRFQ: 100). */
  maxOpenRfqsPerUser: number;
  /** Post-only quotes crossing the book this many times within the window rate-limit the quoter (values ours). */
  postOnlyCrossLimit: number;
  postOnlyCrossWindowMs: number;
  /** How long such a quoter is refused (429). */
  postOnlyCrossPenaltyMs: number;
  /** Combo fee rule: a quoter executing against an order that rested under this many ms (5 s) swaps fee roles. */
  comboFreshRestMs: number;
}

export interface SimEngineConfig {
  /** Unix ms, integer. */
  now: () => number;
  seed: number;
  catalog: Catalog;
  options?: Partial<SimEngineOptions>;
}

export interface AddUserOptions {
  /**
   * false for synthetic participants (market activity): their terminal orders and fills are not
   * kept, so a long run does not grow memory; client_order_id uniqueness is not tracked for them.
   */
  keepHistory?: boolean;
}

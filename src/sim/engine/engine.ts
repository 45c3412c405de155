/**
 * SimEngine: the simulator's exchange core, composed of one part per concept, and the one place
 * its events leave from. Pure and in-process: no I/O, no timers; time comes from the injected
 * `now`, ids from the seed, so a run is reproducible. Listeners are called synchronously in
 * causal order. It never renders wire JSON (render.ts) and never authenticates (the servers do).
 *
 *   matching      order entry and the match loop                       matching.ts
 *   accounts      users, cash, collateral, fees, positions, settlement  accounts.ts
 *   orderGroups   order groups and their matched-contracts window      order-groups.ts
 *   queries       read views and paging for REST and snapshots         queries.ts
 *   venue         exchange indexes, series, events, markets, lifecycle venue.ts
 *   (internal)    order store: orders by id, expiry, cancels           order-store.ts
 *   (internal)    events: listeners and emission                       events.ts
 *
 * Dependencies point one way (events <- accounts <- order store <- venue, order groups <- matching;
 * queries reads accounts, venue and the store), so a new front end plugs into one part: the FIX
 * acceptor into `matching` (and `queries` for status requests), RFQ into `accounts` and `venue`
 * (quotes settle as fills and public trades), the Margin exchange into an account model beside
 * `accounts`. This class owns the wiring, the seeded id sources (drawn in a fixed order: orders,
 * trades, groups) and the flat method API the servers, the activity generator, benches and tests
 * call; each method is a one-line delegation to its part.
 */

import type { Centicents, Count, PriceLevelStructure, PriceRangeText } from '../../core/index.ts';
import { SeededRandom } from '../../core/index.ts';
import type {
  Collection, CollectionQuery, ComboResult, CreateQuoteParams, CreateRfqParams, MveLeg, Quote, QuoteQuery, QuoteSide, Rfq, RfqQuery,
  AddUserOptions, AmendOrderParams, AmendOrderResult, BalanceView, BatchCancelItem, CancelOrderResult, CreateOrderGroupParams,
  CreateOrderParams, CreateOrderResult, DecreaseOrderParams, DecreaseOrderResult, EngineListener, EventInfo, EventQuery, EventSpec,
  ExchangeStatusView, Fill, FillQuery, Market, MarketQuery, MarketSpec, MarketStatus, Order, OrderbookView, OrderGroup, OrderQuery,
  Page, Position, PositionQuery, PositionsPage, QueuePositionView, RestingOrderValueView, SeriesSpec, SimEngineConfig,
  SimEngineOptions, SimError, SubaccountBalanceView, Trade, TradeQuery,
} from './types.ts';
import { IdSource } from './ids.ts';
import { EngineEvents } from './events.ts';
import { Accounts } from './accounts.ts';
import { OrderStore } from './order-store.ts';
import { Venue, type MarketMetadataPatch } from './venue.ts';
import { OrderGroups } from './order-groups.ts';
import { Matching } from './matching.ts';
import { Queries } from './queries.ts';
import { RfqBook } from './rfq-book.ts';
import { Combos } from './combos.ts';

export type { MarketMetadataPatch };

const DEFAULT_OPTIONS: SimEngineOptions = {
  postOnlyCrossReject400: false,
  feeRounding: 'centicent',
  maxOrderGroupsPerUser: 100_000,
  orderGroupWindowMs: 15_000,
  tradeHistoryPerMarket: 1_000,
  maxOrderCount: 10_000_000_000 as Count, // 100 million contracts: price x count stays a safe integer
  rfqConfirmWindowMs: 30_000,
  rfqExecutionDelayMs: 0,
  rfqRetentionMs: 7 * 24 * 3_600_000,
  maxOpenRfqsPerUser: 100,
  postOnlyCrossLimit: 3,
  postOnlyCrossWindowMs: 10_000,
  postOnlyCrossPenaltyMs: 30_000,
  comboFreshRestMs: 5_000,
};

export class SimEngine {
  readonly options: Readonly<SimEngineOptions>;
  readonly matching: Matching;
  readonly accounts: Accounts;
  readonly orderGroups: OrderGroups;
  readonly queries: Queries;
  readonly venue: Venue;
  readonly rfqs: RfqBook;
  readonly combos: Combos;
  readonly #events: EngineEvents;

  constructor(config: SimEngineConfig) {
    const options = Object.freeze({ ...DEFAULT_OPTIONS, ...(config.options ?? {}) });
    const now = config.now;
    const random = new SeededRandom(config.seed);
    const orderIds = new IdSource(random);
    const tradeIds = new IdSource(random);
    const groupIds = new IdSource(random);
    // Drawn after the three above, so order, trade and group ids stay what they were for a seed.
    const rfqIds = new IdSource(random);
    const quoteIds = new IdSource(random);
    const communicationsSalt = random.nextHex8() + random.nextHex8();
    const events = new EngineEvents();
    const accounts = new Accounts(now, options, events);
    const orders = new OrderStore(orderIds, accounts, events);
    const venue = new Venue(now, options, config.catalog, tradeIds, events, orders, accounts);
    const orderGroups = new OrderGroups(now, options, groupIds, accounts, orders, events);
    this.options = options;
    this.#events = events;
    this.accounts = accounts;
    this.venue = venue;
    this.orderGroups = orderGroups;
    this.matching = new Matching(now, options, orderIds, venue, accounts, orders, orderGroups, events);
    this.queries = new Queries(now, venue, accounts, orders);
    this.rfqs = new RfqBook(now, options, rfqIds, quoteIds, communicationsSalt, venue, accounts, this.matching, events);
    this.combos = new Combos(now, config.catalog.collections ?? [], venue);
  }

  // ---------------------------------------------------------------------------------------------
  // Events.

  /** Book deltas emitted so far (the activity generator bounds a step with it). */
  get bookUpdateCount(): number {
    return this.#events.bookUpdateCount;
  }

  /** Adds a listener (missing methods are no-ops); returns its unsubscribe function. */
  subscribe(listener: Partial<EngineListener>): () => void {
    return this.#events.subscribe(listener);
  }

  // ---------------------------------------------------------------------------------------------
  // Matching: order entry.

  createOrder(userId: string, params: CreateOrderParams): CreateOrderResult | SimError {
    return this.matching.createOrder(userId, params);
  }

  cancelOrder(userId: string, orderId: string, subaccount?: number | null): CancelOrderResult | SimError {
    return this.matching.cancelOrder(userId, orderId, subaccount);
  }

  amendOrder(userId: string, orderId: string, params: AmendOrderParams): AmendOrderResult | SimError {
    return this.matching.amendOrder(userId, orderId, params);
  }

  decreaseOrder(userId: string, orderId: string, params: DecreaseOrderParams): DecreaseOrderResult | SimError {
    return this.matching.decreaseOrder(userId, orderId, params);
  }

  batchCreateOrders(userId: string, params: readonly CreateOrderParams[]): Array<CreateOrderResult | SimError> {
    return this.matching.batchCreateOrders(userId, params);
  }

  batchCancelOrders(userId: string, items: readonly BatchCancelItem[]): Array<CancelOrderResult | SimError> {
    return this.matching.batchCancelOrders(userId, items);
  }

  /** Cancels every resting order of the user (one subaccount, or all when null). Returns how many. */
  cancelAllOrders(userId: string, subaccount: number | null): number {
    return this.matching.cancelAllOrders(userId, subaccount);
  }

  /** Cancels every GTC order whose expiration_time has passed; also runs before each call. */
  expireOrders(): number {
    return this.matching.expireOrders();
  }

  // ---------------------------------------------------------------------------------------------
  // Accounts: users, money, balances.

  /** Registers a user (idempotent). */
  addUser(userId: string, options?: AddUserOptions): void {
    this.accounts.addUser(userId, options);
  }

  hasUser(userId: string): boolean {
    return this.accounts.hasUser(userId);
  }

  /** Adds (or with a negative amount removes) cash on (subaccount, exchange index). */
  deposit(userId: string, subaccount: number, exchangeIndex: number, amount: Centicents): SimError | null {
    return this.accounts.deposit(userId, subaccount, exchangeIndex, amount);
  }

  /** Moves cash between two subaccounts of one user on one exchange index. */
  transfer(userId: string, fromSubaccount: number, toSubaccount: number, exchangeIndex: number, amount: Centicents): SimError | null {
    return this.accounts.transfer(userId, fromSubaccount, toSubaccount, exchangeIndex, amount);
  }

  getBalance(userId: string, query: { subaccount?: number | null; exchangeIndex?: number | null }): BalanceView | SimError {
    return this.accounts.getBalance(userId, query);
  }

  listSubaccountBalances(userId: string): SubaccountBalanceView[] | SimError {
    return this.accounts.listSubaccountBalances(userId);
  }

  restingOrderValue(userId: string): RestingOrderValueView | SimError {
    return this.accounts.restingOrderValue(userId);
  }

  // ---------------------------------------------------------------------------------------------
  // Order groups.

  createOrderGroup(userId: string, params: CreateOrderGroupParams): OrderGroup | SimError {
    return this.orderGroups.createOrderGroup(userId, params);
  }

  getOrderGroup(userId: string, orderGroupId: string, subaccount?: number | null): { group: OrderGroup; orderIds: string[] } | SimError {
    return this.orderGroups.getOrderGroup(userId, orderGroupId, subaccount);
  }

  listOrderGroups(userId: string, subaccount?: number | null): OrderGroup[] | SimError {
    return this.orderGroups.listOrderGroups(userId, subaccount);
  }

  deleteOrderGroup(userId: string, orderGroupId: string, subaccount?: number | null): SimError | null {
    return this.orderGroups.deleteOrderGroup(userId, orderGroupId, subaccount);
  }

  resetOrderGroup(userId: string, orderGroupId: string, subaccount?: number | null): SimError | null {
    return this.orderGroups.resetOrderGroup(userId, orderGroupId, subaccount);
  }

  triggerOrderGroup(userId: string, orderGroupId: string, subaccount?: number | null): SimError | null {
    return this.orderGroups.triggerOrderGroup(userId, orderGroupId, subaccount);
  }

  setOrderGroupLimit(userId: string, orderGroupId: string, contractsLimit: Count | null, subaccount?: number | null): SimError | null {
    return this.orderGroups.setOrderGroupLimit(userId, orderGroupId, contractsLimit, subaccount);
  }

  // ---------------------------------------------------------------------------------------------
  // Queries: read views.

  getOrder(userId: string, orderId: string, subaccount?: number | null): Order | SimError {
    return this.queries.getOrder(userId, orderId, subaccount);
  }

  listOrders(userId: string, query: OrderQuery): Page<Order> | SimError {
    return this.queries.listOrders(userId, query);
  }

  /** The user's resting orders (any market), oldest first: for tests, activity and reconciliation. */
  restingOrders(userId: string): Order[] {
    return this.queries.restingOrders(userId);
  }

  listFills(userId: string, query: FillQuery): Page<Fill> | SimError {
    return this.queries.listFills(userId, query);
  }

  /** One position record (live) or undefined when never opened. */
  getPosition(userId: string, ticker: string, subaccount = 0): Position | undefined {
    return this.queries.getPosition(userId, ticker, subaccount);
  }

  listPositions(userId: string, query: PositionQuery): PositionsPage | SimError {
    return this.queries.listPositions(userId, query);
  }

  queuePosition(userId: string, orderId: string, subaccount?: number | null): QueuePositionView | SimError {
    return this.queries.queuePosition(userId, orderId, subaccount);
  }

  queuePositions(userId: string, query: { tickers?: string[] | null; eventTicker?: string | null; subaccount?: number | null }): QueuePositionView[] | SimError {
    return this.queries.queuePositions(userId, query);
  }

  /** Levels ascending by their own side's price; depth 0/null = all, else the best `depth` levels per side. */
  orderbook(ticker: string, depth?: number | null): OrderbookView | SimError {
    return this.queries.orderbook(ticker, depth);
  }

  listMarkets(query: MarketQuery): Page<Market> | SimError {
    return this.queries.listMarkets(query);
  }

  listEvents(query: EventQuery): Page<EventInfo> | SimError {
    return this.queries.listEvents(query);
  }

  listTrades(query: TradeQuery): Page<Trade> | SimError {
    return this.queries.listTrades(query);
  }

  // ---------------------------------------------------------------------------------------------
  // Venue: listings, market lifecycle, exchange indexes.

  getMarket(ticker: string): Market | undefined {
    return this.venue.market(ticker);
  }

  markets(): readonly Market[] {
    return this.venue.marketList();
  }

  getEvent(eventTicker: string): EventInfo | undefined {
    return this.venue.event(eventTicker);
  }

  getSeries(ticker: string): SeriesSpec | undefined {
    return this.venue.getSeries(ticker);
  }

  listSeries(): readonly SeriesSpec[] {
    return this.venue.listSeries();
  }

  exchangeStatus(): ExchangeStatusView {
    return this.venue.exchangeStatus();
  }

  /** Adds a market at run time (and its event when new); emits event_lifecycle and market created. */
  addMarket(spec: MarketSpec, eventSpec?: EventSpec): SimError | null {
    return this.venue.addMarket(spec, eventSpec);
  }

  /** Moves a market to `status`, cancelling the orders that status ends (see Venue.setMarketStatus). */
  setMarketStatus(ticker: string, status: MarketStatus): SimError | null {
    return this.venue.setMarketStatus(ticker, status);
  }

  /** Determines and settles a market: orders cancelled, positions paid, lifecycle determined then settled. */
  settleMarket(ticker: string, result: 'yes' | 'no'): SimError | null {
    return this.venue.settleMarket(ticker, result);
  }

  /** Moves a market to a finer (or equal) grid keeping every resting order; emits price_level_structure_updated. */
  setPriceLevelStructure(ticker: string, structure: PriceLevelStructure, priceRanges?: readonly PriceRangeText[] | null): SimError | null {
    return this.venue.setPriceLevelStructure(ticker, structure, priceRanges);
  }

  updateMarketMetadata(ticker: string, patch: MarketMetadataPatch): SimError | null {
    return this.venue.updateMarketMetadata(ticker, patch);
  }

  setExchangeIndexStatus(exchangeIndex: number, status: { exchangeActive?: boolean; tradingActive?: boolean; intraExchangeTransfersActive?: boolean }): SimError | null {
    return this.venue.setExchangeIndexStatus(exchangeIndex, status);
  }

  // ---------------------------------------------------------------------------------------------
  // RFQs and quotes (rfq-book.ts).

  communicationsId(userId: string): string {
    return this.rfqs.communicationsId(userId);
  }

  createRfq(userId: string, params: CreateRfqParams): Rfq | SimError {
    return this.rfqs.createRfq(userId, params);
  }

  getRfq(rfqId: string): Rfq | undefined {
    return this.rfqs.getRfq(rfqId);
  }

  listRfqs(userId: string, lock: number | null, query: RfqQuery): Page<Rfq> | SimError {
    return this.rfqs.listRfqs(userId, lock, query);
  }

  deleteRfq(userId: string, rfqId: string, lock: number | null): SimError | null {
    return this.rfqs.deleteRfq(userId, rfqId, lock);
  }

  createQuote(userId: string, params: CreateQuoteParams): Quote | SimError {
    return this.rfqs.createQuote(userId, params);
  }

  getQuote(userId: string, quoteId: string, rfqId: string | null, lock: number | null): Quote | SimError {
    return this.rfqs.getQuote(userId, quoteId, rfqId, lock);
  }

  listQuotes(userId: string, lock: number | null, query: QuoteQuery): Page<Quote> | SimError {
    return this.rfqs.listQuotes(userId, lock, query);
  }

  deleteQuote(userId: string, quoteId: string, rfqId: string | null, lock: number | null): SimError | null {
    return this.rfqs.deleteQuote(userId, quoteId, rfqId, lock);
  }

  acceptQuote(userId: string, quoteId: string, rfqId: string | null, side: QuoteSide, lock: number | null): Quote | SimError {
    return this.rfqs.acceptQuote(userId, quoteId, rfqId, side, lock);
  }

  confirmQuote(userId: string, quoteId: string, rfqId: string | null, lock: number | null): Quote | SimError {
    return this.rfqs.confirmQuote(userId, quoteId, rfqId, lock);
  }

  /** A server roll: open (and cancelled) quotes are cleared, later requests for them are 404. */
  rollQuotes(): number {
    return this.rfqs.roll();
  }

  /** Runs due RFQ timers (confirm windows, delayed executions, retention); every RFQ call runs them too. */
  runRfqTimers(): void {
    this.rfqs.runDue();
  }

  // ---------------------------------------------------------------------------------------------
  // Combo markets (combos.ts).

  getCollection(collectionTicker: string): Collection | undefined {
    return this.combos.collection(collectionTicker);
  }

  listCollections(query: CollectionQuery): Page<Collection> | SimError {
    return this.combos.listCollections(query);
  }

  /** Creates (or resolves) the combo market of `legs` in a collection. */
  createComboMarket(collectionTicker: string, legs: readonly MveLeg[]): ComboResult | SimError {
    return this.combos.createMarket(collectionTicker, legs);
  }
}

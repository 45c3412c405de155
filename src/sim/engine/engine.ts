/**
 * SimEngine: the simulator's exchange core. It owns markets and their books, users' balances,
 * positions, orders, fills and order groups, and matches V2 orders (one YES-quoted book) with
 * price-time priority. Pure and in-process: no I/O, no timers; time comes from the injected
 * `now`, ids from the seed, so a run is reproducible. It never renders wire JSON (render.ts).
 */

import type { Centicents, Count, PriceLevelStructure, PriceRangeText } from '../../core/index.ts';
import type {
  AddUserOptions, AmendOrderParams, AmendOrderResult, BalanceView, BatchCancelItem, CancelOrderResult,
  CreateOrderGroupParams, CreateOrderParams, CreateOrderResult, DecreaseOrderParams, DecreaseOrderResult,
  EngineListener, EventInfo, EventQuery, ExchangeStatusView, Fill, FillQuery, Market, MarketQuery, MarketStatus,
  Order, OrderbookView, OrderGroup, OrderQuery, Page, PositionQuery, PositionsPage, QueuePositionView,
  RestingOrderValueView, SeriesSpec, SimEngineConfig, SimEngineOptions, SimError, SubaccountBalanceView, Trade,
  TradeQuery,
} from './types.ts';

function notImplemented(): never {
  throw new Error('SimEngine: not implemented yet');
}

export class SimEngine {
  readonly options: Readonly<SimEngineOptions>;
  constructor(config: SimEngineConfig) { void config; this.options = notImplemented(); }
  get bookUpdateCount(): number { return notImplemented(); }
  subscribe(listener: Partial<EngineListener>): () => void { void listener; return notImplemented(); }
  addUser(userId: string, options?: AddUserOptions): void { void userId; void options; notImplemented(); }
  hasUser(userId: string): boolean { void userId; return notImplemented(); }
  deposit(userId: string, subaccount: number, exchangeIndex: number, amount: Centicents): SimError | null { void [userId, subaccount, exchangeIndex, amount]; return notImplemented(); }
  createOrder(userId: string, params: CreateOrderParams): CreateOrderResult | SimError { void [userId, params]; return notImplemented(); }
  cancelOrder(userId: string, orderId: string, subaccount?: number | null): CancelOrderResult | SimError { void [userId, orderId, subaccount]; return notImplemented(); }
  amendOrder(userId: string, orderId: string, params: AmendOrderParams): AmendOrderResult | SimError { void [userId, orderId, params]; return notImplemented(); }
  decreaseOrder(userId: string, orderId: string, params: DecreaseOrderParams): DecreaseOrderResult | SimError { void [userId, orderId, params]; return notImplemented(); }
  batchCreateOrders(userId: string, params: readonly CreateOrderParams[]): Array<CreateOrderResult | SimError> { void [userId, params]; return notImplemented(); }
  batchCancelOrders(userId: string, items: readonly BatchCancelItem[]): Array<CancelOrderResult | SimError> { void [userId, items]; return notImplemented(); }
  cancelAllOrders(userId: string, subaccount: number | null): number { void [userId, subaccount]; return notImplemented(); }
  expireOrders(): number { return notImplemented(); }
  getOrder(userId: string, orderId: string, subaccount?: number | null): Order | SimError { void [userId, orderId, subaccount]; return notImplemented(); }
  listOrders(userId: string, query: OrderQuery): Page<Order> | SimError { void [userId, query]; return notImplemented(); }
  listFills(userId: string, query: FillQuery): Page<Fill> | SimError { void [userId, query]; return notImplemented(); }
  listPositions(userId: string, query: PositionQuery): PositionsPage | SimError { void [userId, query]; return notImplemented(); }
  getBalance(userId: string, query: { subaccount?: number | null; exchangeIndex?: number | null }): BalanceView | SimError { void [userId, query]; return notImplemented(); }
  listSubaccountBalances(userId: string): SubaccountBalanceView[] | SimError { void userId; return notImplemented(); }
  restingOrderValue(userId: string): RestingOrderValueView | SimError { void userId; return notImplemented(); }
  queuePosition(userId: string, orderId: string, subaccount?: number | null): QueuePositionView | SimError { void [userId, orderId, subaccount]; return notImplemented(); }
  queuePositions(userId: string, query: { tickers?: string[] | null; eventTicker?: string | null; subaccount?: number | null }): QueuePositionView[] | SimError { void [userId, query]; return notImplemented(); }
  orderbook(ticker: string, depth?: number | null): OrderbookView | SimError { void [ticker, depth]; return notImplemented(); }
  exchangeStatus(): ExchangeStatusView { return notImplemented(); }
  getMarket(ticker: string): Market | undefined { void ticker; return notImplemented(); }
  markets(): readonly Market[] { return notImplemented(); }
  listMarkets(query: MarketQuery): Page<Market> | SimError { void query; return notImplemented(); }
  getEvent(eventTicker: string): EventInfo | undefined { void eventTicker; return notImplemented(); }
  listEvents(query: EventQuery): Page<EventInfo> | SimError { void query; return notImplemented(); }
  getSeries(ticker: string): SeriesSpec | undefined { void ticker; return notImplemented(); }
  listSeries(): readonly SeriesSpec[] { return notImplemented(); }
  listTrades(query: TradeQuery): Page<Trade> | SimError { void query; return notImplemented(); }
  createOrderGroup(userId: string, params: CreateOrderGroupParams): OrderGroup | SimError { void [userId, params]; return notImplemented(); }
  getOrderGroup(userId: string, orderGroupId: string, subaccount?: number | null): { group: OrderGroup; orderIds: string[] } | SimError { void [userId, orderGroupId, subaccount]; return notImplemented(); }
  listOrderGroups(userId: string, subaccount?: number | null): OrderGroup[] | SimError { void [userId, subaccount]; return notImplemented(); }
  deleteOrderGroup(userId: string, orderGroupId: string, subaccount?: number | null): SimError | null { void [userId, orderGroupId, subaccount]; return notImplemented(); }
  resetOrderGroup(userId: string, orderGroupId: string, subaccount?: number | null): SimError | null { void [userId, orderGroupId, subaccount]; return notImplemented(); }
  triggerOrderGroup(userId: string, orderGroupId: string, subaccount?: number | null): SimError | null { void [userId, orderGroupId, subaccount]; return notImplemented(); }
  setOrderGroupLimit(userId: string, orderGroupId: string, contractsLimit: Count | null, subaccount?: number | null): SimError | null { void [userId, orderGroupId, contractsLimit, subaccount]; return notImplemented(); }
  setMarketStatus(ticker: string, status: MarketStatus): SimError | null { void [ticker, status]; return notImplemented(); }
  settleMarket(ticker: string, result: 'yes' | 'no'): SimError | null { void [ticker, result]; return notImplemented(); }
  setPriceLevelStructure(ticker: string, structure: PriceLevelStructure, priceRanges?: readonly PriceRangeText[] | null): SimError | null { void [ticker, structure, priceRanges]; return notImplemented(); }
  updateMarketMetadata(ticker: string, patch: MarketMetadataPatch): SimError | null { void [ticker, patch]; return notImplemented(); }
  setExchangeIndexStatus(exchangeIndex: number, status: { exchangeActive?: boolean; tradingActive?: boolean }): SimError | null { void [exchangeIndex, status]; return notImplemented(); }
}

export interface MarketMetadataPatch {
  title?: string;
  subtitle?: string;
  yesSubTitle?: string;
  noSubTitle?: string;
  strikeType?: string | null;
  floorStrike?: number | null;
  capStrike?: number | null;
  customStrike?: Record<string, unknown> | null;
  closeTimeMs?: number;
}

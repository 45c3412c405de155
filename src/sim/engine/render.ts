/**
 * Wire rendering: turns engine records into the exchange's JSON objects (REST rest.md §3-§7 and
 * WebSocket websocket.md §6 payloads) with exact field names and fixed-point strings: prices 4
 * decimals, counts 2, fees 6 (fee_cost), money 4. The one place wire formats live; the servers
 * call these and add envelopes (HTTP status, {type, sid, seq, msg}). Never on the matching path.
 */

import type { Centicents, Count, Price } from '../../core/index.ts';
import { formatCount, formatDollars, formatPrice } from '../../core/index.ts';
import type {
  AmendOrderResult, BalanceView, CancelOrderResult, CreateOrderResult, DecreaseOrderResult, EventInfo,
  EventLifecycleEvent, EventPositionView, ExchangeStatusView, Fill, Market, MarketLifecycleEvent, Order,
  OrderbookView, OrderGroup, OrderGroupEvent, Position, QueuePositionView, RestingOrderValueView, SeriesSpec,
  SimError, SubaccountBalanceView, Trade, UpdateReason,
} from './types.ts';

export type Json = Record<string, unknown>;

const PRICE_ONE = 10_000;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}

function noPrice(price: Price): string {
  return formatPrice((PRICE_ONE - price) as Price);
}

/** Integer cents of centicents, truncated toward zero (balance "truncates sub-cent"). */
function centsOf(value: Centicents): number {
  const cents = Math.trunc(value / 100);
  return cents === 0 ? 0 : cents;
}

function outcomeOf(side: 'bid' | 'ask'): 'yes' | 'no' {
  return side === 'bid' ? 'yes' : 'no';
}

/** A multiplier kept as decimal text in the catalog, as the JSON number the schema wants. */
function multiplierNumber(text: string): number {
  return Number(text);
}

// ---------------------------------------------------------------------------------------------
// Errors.

/** REST error body, nested as the exchange sends most 4xx: {"error":{code,message,details?}}. */
export function errorToJson(error: SimError): Json {
  return { error: errorToFlatJson(error) };
}

/** Flat ErrorResponse (batch items, and the decode-failure shape). */
export function errorToFlatJson(error: SimError): Json {
  return error.details === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, details: error.details };
}

// ---------------------------------------------------------------------------------------------
// Orders and fills.

/** The REST Order object (GET /portfolio/orders, rest.md §4). */
export function orderToJson(order: Order): Json {
  const outcome = outcomeOf(order.side);
  return {
    order_id: order.orderId,
    user_id: order.userId,
    client_order_id: order.clientOrderId,
    ticker: order.ticker,
    side: outcome, // deprecated: the outcome side
    action: 'buy', // deprecated: V2 orders buy their outcome side
    outcome_side: outcome,
    book_side: order.side,
    type: 'limit',
    status: order.status,
    yes_price_dollars: formatPrice(order.price),
    no_price_dollars: noPrice(order.price),
    fill_count_fp: formatCount(order.fillCount),
    remaining_count_fp: formatCount(order.remainingCount),
    initial_count_fp: formatCount(order.initialCount),
    taker_fill_cost_dollars: formatDollars(order.takerFillCost),
    maker_fill_cost_dollars: formatDollars(order.makerFillCost),
    taker_fees_dollars: formatDollars(order.takerFees),
    maker_fees_dollars: formatDollars(order.makerFees),
    expiration_time: order.expirationTs === 0 ? null : iso(order.expirationTs * 1000),
    created_time: iso(order.createdMs),
    last_update_time: iso(order.lastUpdateMs),
    self_trade_prevention_type: order.selfTradePrevention,
    order_group_id: order.orderGroupId,
    cancel_order_on_pause: order.cancelOrderOnPause,
    subaccount_number: order.subaccount,
    exchange_index: order.exchangeIndex,
  };
}

function averages(out: Json, fillCount: Count, averageFillPrice: Price, averageFeePaid: Centicents): void {
  if (fillCount > 0) {
    out.average_fill_price = formatPrice(averageFillPrice);
    out.average_fee_paid = formatDollars(averageFeePaid);
  }
}

/** CreateOrderV2Response (201, flat). */
export function createOrderResultToJson(result: CreateOrderResult): Json {
  const out: Json = {
    order_id: result.order.orderId,
    client_order_id: result.order.clientOrderId,
    fill_count: formatCount(result.fillCount),
    remaining_count: formatCount(result.remainingCount),
  };
  averages(out, result.fillCount, result.averageFillPrice, result.averageFeePaid);
  out.ts_ms = result.tsMs;
  return out;
}

/** CancelOrderV2Response. */
export function cancelOrderResultToJson(result: CancelOrderResult): Json {
  return { order_id: result.order.orderId, client_order_id: result.order.clientOrderId, reduced_by: formatCount(result.reducedBy), ts_ms: result.tsMs };
}

/** AmendOrderV2Response: remaining_count / fill_count only when the amend changed size or filled. */
export function amendOrderResultToJson(result: AmendOrderResult): Json {
  const out: Json = { order_id: result.order.orderId, client_order_id: result.order.clientOrderId };
  if (result.sizeChangedOrFilled) {
    out.remaining_count = formatCount(result.remainingCount);
    out.fill_count = formatCount(result.fillCount);
  }
  averages(out, result.fillCount, result.averageFillPrice, result.averageFeePaid);
  out.ts_ms = result.tsMs;
  return out;
}

/** DecreaseOrderV2Response. */
export function decreaseOrderResultToJson(result: DecreaseOrderResult): Json {
  return { order_id: result.order.orderId, client_order_id: result.order.clientOrderId, remaining_count: formatCount(result.remainingCount), ts_ms: result.tsMs };
}

/** Batch create item: the create response, or {error} (flat) with no ts_ms. */
export function batchCreateItemToJson(result: CreateOrderResult | SimError, clientOrderId: string | null): Json {
  if (result.isError) {
    const out: Json = { error: errorToFlatJson(result) };
    if (clientOrderId !== null && clientOrderId !== '') out.client_order_id = clientOrderId;
    return out;
  }
  return createOrderResultToJson(result);
}

/** Batch cancel item: {order_id, reduced_by, ...} or {order_id, reduced_by "0.00", error}. */
export function batchCancelItemToJson(result: CancelOrderResult | SimError, orderId: string): Json {
  if (result.isError) return { order_id: orderId, reduced_by: '0.00', error: errorToFlatJson(result) };
  return cancelOrderResultToJson(result);
}

/** The REST Fill object (GET /portfolio/fills). */
export function fillToJson(fill: Fill): Json {
  const outcome = outcomeOf(fill.side);
  return {
    fill_id: fill.fillId,
    trade_id: fill.fillId,
    order_id: fill.orderId,
    ticker: fill.ticker,
    market_ticker: fill.ticker,
    exchange_index: fill.exchangeIndex,
    side: outcome,
    action: 'buy',
    outcome_side: outcome,
    book_side: fill.side,
    count_fp: formatCount(fill.count),
    yes_price_dollars: formatPrice(fill.price),
    no_price_dollars: noPrice(fill.price),
    is_taker: fill.isTaker,
    fee_cost: formatDollars(fill.fee, 6),
    created_time: iso(fill.tsMs),
    ts: seconds(fill.tsMs),
    subaccount_number: fill.subaccount,
  };
}

/** The REST public Trade object (GET /markets/trades). */
export function tradeToJson(trade: Trade): Json {
  const outcome = outcomeOf(trade.takerSide);
  return {
    trade_id: trade.tradeId,
    ticker: trade.ticker,
    count_fp: formatCount(trade.count),
    yes_price_dollars: formatPrice(trade.price),
    no_price_dollars: noPrice(trade.price),
    taker_side: outcome,
    taker_outcome_side: outcome,
    taker_book_side: trade.takerSide,
    created_time: iso(trade.tsMs),
    is_block_trade: trade.isBlockTrade,
  };
}

// ---------------------------------------------------------------------------------------------
// Markets, events, series.

function priceOrZero(price: Price): string {
  return formatPrice(price);
}

/** The REST Market object (GET /markets, rest.md §5). Empty book sides render "0.0000". */
export function marketToJson(market: Market): Json {
  const spec = market.spec;
  const bid = market.bestBid();
  const ask = market.bestAsk();
  const out: Json = {
    ticker: market.ticker,
    event_ticker: market.eventTicker,
    market_type: spec.marketType,
    title: market.title,
    subtitle: market.subtitle,
    yes_sub_title: market.yesSubTitle,
    no_sub_title: market.noSubTitle,
    created_time: iso(market.createdMs),
    updated_time: iso(market.updatedMs),
    open_time: iso(spec.openTimeMs),
    close_time: iso(market.closeTimeMs),
    latest_expiration_time: iso(spec.latestExpirationTimeMs),
    settlement_timer_seconds: spec.settlementTimerSeconds,
    status: market.status,
    yes_bid_dollars: priceOrZero(bid),
    yes_bid_size_fp: formatCount(market.bestBidSize()),
    yes_ask_dollars: priceOrZero(ask),
    yes_ask_size_fp: formatCount(market.bestAskSize()),
    no_bid_dollars: ask === 0 ? '0.0000' : noPrice(ask),
    no_ask_dollars: bid === 0 ? '0.0000' : noPrice(bid),
    last_price_dollars: priceOrZero(market.lastPrice),
    previous_yes_bid_dollars: '0.0000',
    previous_yes_ask_dollars: '0.0000',
    previous_price_dollars: '0.0000',
    notional_value_dollars: '1.0000',
    volume_fp: formatCount(market.volume),
    volume_24h_fp: formatCount(market.volume24h),
    open_interest_fp: formatCount(market.openInterest),
    liquidity_dollars: '0.0000',
    result: market.result,
    can_close_early: spec.canCloseEarly,
    expiration_value: '',
    rules_primary: spec.rulesPrimary,
    rules_secondary: spec.rulesSecondary,
    price_level_structure: market.priceLevelStructure,
    price_ranges: rangesOf(market),
    exchange_index: market.exchangeIndex,
  };
  if (spec.expectedExpirationTimeMs !== null) out.expected_expiration_time = iso(spec.expectedExpirationTimeMs);
  if (market.strikeType !== null) out.strike_type = market.strikeType;
  if (market.floorStrike !== null) out.floor_strike = market.floorStrike;
  if (market.capStrike !== null) out.cap_strike = market.capStrike;
  if (market.customStrike !== null) out.custom_strike = market.customStrike;
  if (market.settlementValue !== null) out.settlement_value_dollars = formatDollars(market.settlementValue);
  if (market.settledMs !== 0) out.settlement_ts = iso(market.settledMs);
  if (market.mveCollectionTicker !== null) {
    out.mve_collection_ticker = market.mveCollectionTicker;
    out.mve_selected_legs = (market.mveSelectedLegs ?? []).map((leg) => ({ event_ticker: leg.eventTicker, market_ticker: leg.marketTicker, side: leg.side }));
  }
  return out;
}

function rangesOf(market: Market): Array<{ start: string; end: string; step: string }> {
  return market.wirePriceRanges();
}

/** The REST EventData object; markets nested when asked (with_nested_markets). */
export function eventToJson(event: EventInfo, withNestedMarkets: boolean): Json {
  const spec = event.spec;
  const out: Json = {
    event_ticker: event.eventTicker,
    series_ticker: spec.seriesTicker,
    sub_title: spec.subTitle,
    title: spec.title,
    collateral_return_type: spec.collateralReturnType,
    mutually_exclusive: spec.mutuallyExclusive,
    category: spec.category,
    strike_period: spec.strikePeriod,
    settlement_sources: spec.settlementSources.map((s) => ({ name: s.name, url: s.url })),
    last_updated_ts: iso(event.updatedMs),
    exchange_index: spec.exchangeIndex,
  };
  if (spec.strikeDate !== null) out.strike_date = iso(spec.strikeDate * 1000);
  if (spec.productMetadata !== null) out.product_metadata = spec.productMetadata;
  if (spec.feeTypeOverride !== null) out.fee_type_override = spec.feeTypeOverride;
  if (spec.feeMultiplierOverride !== null) out.fee_multiplier_override = multiplierNumber(spec.feeMultiplierOverride);
  if (withNestedMarkets) out.markets = event.markets.map(marketToJson);
  return out;
}

/** The REST Series object. */
export function seriesToJson(series: SeriesSpec): Json {
  return {
    ticker: series.ticker,
    frequency: series.frequency,
    title: series.title,
    category: series.category,
    tags: [...series.tags],
    settlement_sources: series.settlementSources.map((s) => ({ name: s.name, url: s.url })),
    contract_url: series.contractUrl,
    contract_terms_url: series.contractTermsUrl,
    fee_type: series.feeType,
    fee_multiplier: multiplierNumber(series.feeMultiplier),
    additional_prohibitions: [],
    exchange_index: series.exchangeIndex,
  };
}

// ---------------------------------------------------------------------------------------------
// Portfolio.

/** The REST MarketPosition object. */
export function positionToJson(position: Position): Json {
  return {
    ticker: position.ticker,
    exchange_index: position.exchangeIndex,
    total_traded_dollars: formatDollars(position.totalTraded),
    position_fp: formatCount(position.position),
    market_exposure_dollars: formatDollars(position.positionCost),
    realized_pnl_dollars: formatDollars(position.realizedPnl),
    fees_paid_dollars: formatDollars(position.feesPaid),
    last_updated_ts: iso(position.lastUpdatedMs),
  };
}

export function eventPositionToJson(position: EventPositionView): Json {
  return {
    event_ticker: position.eventTicker,
    total_cost_dollars: formatDollars(position.totalCost),
    total_cost_shares_fp: formatCount(position.totalCostShares),
    event_exposure_dollars: formatDollars(position.eventExposure),
    realized_pnl_dollars: formatDollars(position.realizedPnl),
    fees_paid_dollars: formatDollars(position.feesPaid),
  };
}

/** GET /portfolio/balance body; balance_breakdown omitted when withBreakdown is false (restricted keys). */
export function balanceToJson(balance: BalanceView, withBreakdown: boolean): Json {
  const out: Json = {
    balance: centsOf(balance.balance),
    balance_dollars: formatDollars(balance.balance),
    portfolio_value: centsOf(balance.portfolioValue),
    updated_ts: seconds(balance.updatedMs),
  };
  if (withBreakdown) out.balance_breakdown = balance.breakdown.map((b) => ({ exchange_index: b.exchangeIndex, balance: formatDollars(b.balance) }));
  return out;
}

/** One entry of GET /portfolio/subaccounts/balances. */
export function subaccountBalanceToJson(balance: SubaccountBalanceView): Json {
  return { subaccount_number: balance.subaccount, exchange_index: balance.exchangeIndex, balance: formatDollars(balance.balance), updated_ts: seconds(balance.updatedMs) };
}

/** GET /portfolio/summary/total_resting_order_value body. */
export function restingOrderValueToJson(value: RestingOrderValueView): Json {
  return {
    total_resting_order_value: centsOf(value.total),
    resting_order_value_breakdown: value.breakdown.map((b) => ({ exchange_index: b.exchangeIndex, balance: formatDollars(b.value) })),
  };
}

/** One entry of GET /portfolio/orders/queue_positions (the single-order endpoint sends only queue_position_fp). */
export function queuePositionToJson(view: QueuePositionView): Json {
  return { order_id: view.orderId, market_ticker: view.ticker, queue_position_fp: formatCount(view.queuePosition) };
}

function levelsToJson(levels: ReadonlyArray<readonly [Price, Count]>): string[][] {
  return levels.map(([price, size]) => [formatPrice(price), formatCount(size)]);
}

/** GET /markets/{ticker}/orderbook body: {orderbook_fp:{yes_dollars, no_dollars}}, ascending. */
export function orderbookToJson(view: OrderbookView): Json {
  return { orderbook_fp: { yes_dollars: levelsToJson(view.yes), no_dollars: levelsToJson(view.no) } };
}

/** GET /exchange/status body (top level = exchange index 0). */
export function exchangeStatusToJson(status: ExchangeStatusView): Json {
  return {
    exchange_active: status.exchangeActive,
    trading_active: status.tradingActive,
    intra_exchange_transfers_active: status.intraExchangeTransfersActive,
    exchange_index_statuses: status.exchangeIndexStatuses.map((s) => ({
      exchange_index: s.exchangeIndex,
      description: s.description,
      exchange_active: s.exchangeActive,
      trading_active: s.tradingActive,
      intra_exchange_transfers_active: s.intraExchangeTransfersActive,
    })),
  };
}

/**
 * One entry of GET /portfolio/order_groups. is_auto_cancel_enabled: true when the group has a
 * contracts limit (the schema only says "whether auto-cancel is enabled"; every limited group
 * auto-cancels).
 */
export function orderGroupToJson(group: OrderGroup): Json {
  const out: Json = { id: group.orderGroupId, is_auto_cancel_enabled: group.contractsLimit !== null };
  if (group.contractsLimit !== null) out.contracts_limit_fp = formatCount(group.contractsLimit);
  out.exchange_index = group.exchangeIndex;
  return out;
}

/** GET /portfolio/order_groups/{id} body. */
export function orderGroupDetailToJson(group: OrderGroup, orderIds: readonly string[]): Json {
  const out: Json = { is_auto_cancel_enabled: group.contractsLimit !== null };
  if (group.contractsLimit !== null) out.contracts_limit_fp = formatCount(group.contractsLimit);
  out.orders = [...orderIds];
  out.exchange_index = group.exchangeIndex;
  return out;
}

/** POST /portfolio/order_groups/create body (201). */
export function createOrderGroupToJson(group: OrderGroup): Json {
  return { order_group_id: group.orderGroupId, subaccount: group.subaccount, exchange_index: group.exchangeIndex };
}

// ---------------------------------------------------------------------------------------------
// WebSocket msg payloads (websocket.md §6); the server wraps them in {type, sid, seq?, msg}.

function marketIdOf(market: Market): string {
  return market.spec.marketId;
}

/** orderbook_snapshot msg; an empty side is omitted. */
export function orderbookSnapshotToWsMsg(market: Market, view: OrderbookView): Json {
  const out: Json = { market_ticker: market.ticker, market_id: marketIdOf(market) };
  if (view.yes.length > 0) out.yes_dollars_fp = levelsToJson(view.yes);
  if (view.no.length > 0) out.no_dollars_fp = levelsToJson(view.no);
  return out;
}

/**
 * orderbook_delta msg. withOwnOrder: the receiving user owns `order` (adds client_order_id, and
 * subaccount when withSubaccount). last_update_reason is sent only when not empty.
 */
export function orderbookDeltaToWsMsg(
  market: Market, side: 'yes' | 'no', price: Price, delta: Count, order: Order | null, reason: UpdateReason, tsMs: number,
  withOwnOrder: boolean, withSubaccount = true,
): Json {
  const out: Json = {
    market_ticker: market.ticker,
    market_id: marketIdOf(market),
    price_dollars: formatPrice(price),
    delta_fp: formatCount(delta),
    side,
  };
  if (withOwnOrder && order !== null) {
    if (order.clientOrderId !== '') out.client_order_id = order.clientOrderId;
    if (withSubaccount) out.subaccount = order.subaccount;
  }
  if (reason !== '') out.last_update_reason = reason;
  out.ts_ms = tsMs;
  out.ts = iso(tsMs);
  return out;
}

/** ticker msg; dollar_volume / dollar_open_interest are whole dollars (contracts at $1 notional). */
export function tickerToWsMsg(market: Market, lastTradeSize: Count, tsMs: number): Json {
  return {
    market_ticker: market.ticker,
    market_id: marketIdOf(market),
    price_dollars: formatPrice(market.lastPrice),
    yes_bid_dollars: formatPrice(market.bestBid()),
    yes_ask_dollars: formatPrice(market.bestAsk()),
    yes_bid_size_fp: formatCount(market.bestBidSize()),
    yes_ask_size_fp: formatCount(market.bestAskSize()),
    last_trade_size_fp: formatCount(lastTradeSize),
    volume_fp: formatCount(market.volume),
    open_interest_fp: formatCount(market.openInterest),
    dollar_volume: Math.floor(market.volume / 100),
    dollar_open_interest: Math.floor(market.openInterest / 100),
    ts_ms: tsMs,
    ts: seconds(tsMs),
    time: iso(tsMs),
  };
}

/** trade msg. */
export function tradeToWsMsg(trade: Trade, market: Market): Json {
  const outcome = outcomeOf(trade.takerSide);
  void market;
  return {
    trade_id: trade.tradeId,
    market_ticker: trade.ticker,
    yes_price_dollars: formatPrice(trade.price),
    no_price_dollars: noPrice(trade.price),
    count_fp: formatCount(trade.count),
    taker_outcome_side: outcome,
    taker_book_side: trade.takerSide,
    taker_side: outcome,
    is_block_trade: trade.isBlockTrade,
    ts_ms: trade.tsMs,
    ts: seconds(trade.tsMs),
  };
}

/** fill msg (private). */
export function fillToWsMsg(fill: Fill): Json {
  const outcome = outcomeOf(fill.side);
  const out: Json = {
    trade_id: fill.fillId,
    order_id: fill.orderId,
    market_ticker: fill.ticker,
    exchange_index: fill.exchangeIndex,
    is_taker: fill.isTaker,
    outcome_side: outcome,
    book_side: fill.side,
    side: outcome,
    action: 'buy',
    purchased_side: outcome,
    yes_price_dollars: formatPrice(fill.price),
    count_fp: formatCount(fill.count),
    fee_cost: formatDollars(fill.fee, 6),
    post_position_fp: formatCount(fill.postPosition),
    subaccount: fill.subaccount,
    ts_ms: fill.tsMs,
    ts: seconds(fill.tsMs),
  };
  if (fill.clientOrderId !== '') out.client_order_id = fill.clientOrderId;
  return out;
}

/** user_order msg (private). */
export function userOrderToWsMsg(order: Order): Json {
  const outcome = outcomeOf(order.side);
  const out: Json = {
    order_id: order.orderId,
    user_id: order.userId,
    ticker: order.ticker,
    status: order.status,
    outcome_side: outcome,
    book_side: order.side,
    side: outcome,
    is_yes: outcome === 'yes',
    yes_price_dollars: formatPrice(order.price),
    fill_count_fp: formatCount(order.fillCount),
    remaining_count_fp: formatCount(order.remainingCount),
    initial_count_fp: formatCount(order.initialCount),
    taker_fill_cost_dollars: formatDollars(order.takerFillCost),
    maker_fill_cost_dollars: formatDollars(order.makerFillCost),
    taker_fees_dollars: formatDollars(order.takerFees),
    maker_fees_dollars: formatDollars(order.makerFees),
    client_order_id: order.clientOrderId,
    self_trade_prevention_type: order.selfTradePrevention,
    created_ts_ms: order.createdMs,
    created_time: iso(order.createdMs),
    last_updated_ts_ms: order.lastUpdateMs,
    last_update_time: iso(order.lastUpdateMs),
    subaccount_number: order.subaccount,
    exchange_index: order.exchangeIndex,
    last_update_reason: order.lastUpdateReason,
  };
  if (order.orderGroupId !== null) out.order_group_id = order.orderGroupId;
  if (order.expirationTs !== 0) {
    out.expiration_ts_ms = order.expirationTs * 1000;
    out.expiration_time = iso(order.expirationTs * 1000);
  }
  return out;
}

/** market_position msg (private). */
export function positionToWsMsg(position: Position): Json {
  return {
    user_id: position.userId,
    market_ticker: position.ticker,
    position_fp: formatCount(position.position),
    position_cost_dollars: formatDollars(position.positionCost),
    realized_pnl_dollars: formatDollars(position.realizedPnl),
    fees_paid_dollars: formatDollars(position.feesPaid),
    position_fee_cost_dollars: formatDollars(position.positionFeeCost),
    volume_fp: formatCount(position.volume),
    subaccount: position.subaccount,
  };
}

/** order_group_updates msg (private; the envelope carries seq). */
export function orderGroupEventToWsMsg(event: OrderGroupEvent): Json {
  const out: Json = { event_type: event.eventType, order_group_id: event.orderGroupId };
  if ((event.eventType === 'created' || event.eventType === 'limit_updated') && event.contractsLimit !== null) {
    out.contracts_limit_fp = formatCount(event.contractsLimit);
  }
  out.ts_ms = event.tsMs;
  return out;
}

/** market_lifecycle_v2 msg: the fields each event type carries (websocket.md §6.8). */
export function marketLifecycleToWsMsg(event: MarketLifecycleEvent): Json {
  const market = event.market;
  const spec = market.spec;
  const out: Json = { event_type: event.eventType, market_ticker: market.ticker };
  switch (event.eventType) {
    case 'created':
      out.exchange_index = market.exchangeIndex;
      out.open_ts = seconds(spec.openTimeMs);
      out.close_ts = seconds(market.closeTimeMs);
      out.price_level_structure = market.priceLevelStructure;
      out.price_ranges = rangesOf(market);
      out.additional_metadata = {
        name: market.title,
        title: market.title,
        yes_sub_title: market.yesSubTitle,
        no_sub_title: market.noSubTitle,
        rules_primary: spec.rulesPrimary,
        rules_secondary: spec.rulesSecondary,
        can_close_early: spec.canCloseEarly,
        event_ticker: market.eventTicker,
        expected_expiration_ts: spec.expectedExpirationTimeMs === null ? undefined : seconds(spec.expectedExpirationTimeMs),
        strike_type: market.strikeType ?? undefined,
        floor_strike: market.floorStrike ?? undefined,
        cap_strike: market.capStrike ?? undefined,
        custom_strike: market.customStrike ?? undefined,
      };
      break;
    case 'activated':
      out.is_deactivated = false;
      break;
    case 'deactivated':
      out.is_deactivated = true;
      break;
    case 'close_date_updated':
      out.close_ts = seconds(market.closeTimeMs);
      break;
    case 'determined':
      out.result = market.result;
      out.determination_ts = seconds(market.determinationMs);
      if (market.settlementValue !== null) out.settlement_value = formatDollars(market.settlementValue);
      break;
    case 'settled':
      out.settled_ts = seconds(market.settledMs);
      break;
    case 'price_level_structure_updated':
      out.price_level_structure = market.priceLevelStructure;
      out.price_ranges = rangesOf(market);
      break;
    case 'metadata_updated':
      if (market.strikeType !== null) out.strike_type = market.strikeType;
      if (market.floorStrike !== null) out.floor_strike = market.floorStrike;
      if (market.capStrike !== null) out.cap_strike = market.capStrike;
      if (market.customStrike !== null) out.custom_strike = market.customStrike;
      out.yes_sub_title = market.yesSubTitle;
      break;
  }
  return out;
}

/** event_lifecycle msg. */
export function eventLifecycleToWsMsg(event: EventLifecycleEvent): Json {
  const spec = event.event.spec;
  const out: Json = {
    event_ticker: spec.eventTicker,
    exchange_index: spec.exchangeIndex,
    title: spec.title,
    subtitle: spec.subTitle,
    collateral_return_type: spec.collateralReturnType,
    series_ticker: spec.seriesTicker,
  };
  if (spec.strikeDate !== null) out.strike_date = spec.strikeDate;
  if (spec.strikePeriod !== '') out.strike_period = spec.strikePeriod;
  return out;
}

/**
 * Wire rendering: turns engine records into the exchange's JSON objects (REST rest.md §3-§7 and
 * WebSocket websocket.md §6 payloads), with exact field names and fixed-point strings. The one
 * place wire formats live; the servers call these and add envelopes. Never on the matching path.
 */

import type {
  AmendOrderResult, BalanceView, CancelOrderResult, CreateOrderResult, DecreaseOrderResult, EventInfo,
  EventLifecycleEvent, EventPositionView, ExchangeStatusView, Fill, Market, MarketLifecycleEvent, Order,
  OrderbookView, OrderGroup, OrderGroupEvent, Position, QueuePositionView, RestingOrderValueView, SeriesSpec,
  SimError, SubaccountBalanceView, Trade, UpdateReason,
} from './types.ts';
import type { Count, Price } from '../../core/index.ts';

type Json = Record<string, unknown>;
function todo(): never { throw new Error('render: not implemented'); }

/** REST error body, nested as the exchange sends it: {"error":{code,message,details?}}. */
export function errorToJson(error: SimError): Json { void error; return todo(); }
/** Batch item error (flat ErrorResponse). */
export function errorToFlatJson(error: SimError): Json { void error; return todo(); }
export function orderToJson(order: Order): Json { void order; return todo(); }
export function createOrderResultToJson(result: CreateOrderResult): Json { void result; return todo(); }
export function cancelOrderResultToJson(result: CancelOrderResult): Json { void result; return todo(); }
export function amendOrderResultToJson(result: AmendOrderResult): Json { void result; return todo(); }
export function decreaseOrderResultToJson(result: DecreaseOrderResult): Json { void result; return todo(); }
export function fillToJson(fill: Fill): Json { void fill; return todo(); }
export function tradeToJson(trade: Trade): Json { void trade; return todo(); }
export function marketToJson(market: Market): Json { void market; return todo(); }
export function eventToJson(event: EventInfo, withNestedMarkets: boolean): Json { void [event, withNestedMarkets]; return todo(); }
export function seriesToJson(series: SeriesSpec): Json { void series; return todo(); }
export function positionToJson(position: Position): Json { void position; return todo(); }
export function eventPositionToJson(position: EventPositionView): Json { void position; return todo(); }
export function balanceToJson(balance: BalanceView, withBreakdown: boolean): Json { void [balance, withBreakdown]; return todo(); }
export function subaccountBalanceToJson(balance: SubaccountBalanceView): Json { void balance; return todo(); }
export function restingOrderValueToJson(value: RestingOrderValueView): Json { void value; return todo(); }
export function queuePositionToJson(view: QueuePositionView): Json { void view; return todo(); }
/** GET /markets/{ticker}/orderbook body: {orderbook_fp:{yes_dollars, no_dollars}}. */
export function orderbookToJson(view: OrderbookView): Json { void view; return todo(); }
export function exchangeStatusToJson(status: ExchangeStatusView): Json { void status; return todo(); }
export function orderGroupToJson(group: OrderGroup): Json { void group; return todo(); }
// WebSocket msg payloads (the server wraps them in {type, sid, seq?, msg}).
export function orderbookSnapshotToWsMsg(market: Market, view: OrderbookView): Json { void [market, view]; return todo(); }
export function orderbookDeltaToWsMsg(market: Market, side: 'yes' | 'no', price: Price, delta: Count, order: Order | null, reason: UpdateReason, tsMs: number, withOwnOrder: boolean): Json { void [market, side, price, delta, order, reason, tsMs, withOwnOrder]; return todo(); }
export function tickerToWsMsg(market: Market, lastTradeSize: Count, tsMs: number): Json { void [market, lastTradeSize, tsMs]; return todo(); }
export function tradeToWsMsg(trade: Trade, market: Market): Json { void [trade, market]; return todo(); }
export function fillToWsMsg(fill: Fill): Json { void fill; return todo(); }
export function userOrderToWsMsg(order: Order): Json { void order; return todo(); }
export function positionToWsMsg(position: Position): Json { void position; return todo(); }
export function orderGroupEventToWsMsg(event: OrderGroupEvent): Json { void event; return todo(); }
export function marketLifecycleToWsMsg(event: MarketLifecycleEvent): Json { void event; return todo(); }
export function eventLifecycleToWsMsg(event: EventLifecycleEvent): Json { void event; return todo(); }

/**
 * Margin records as the wire shows them (margin-api.openapi.yaml): prices and money as fixed-point
 * dollar strings, counts as 2-decimal strings, rates as JSON numbers (display only). The seed's
 * omission rules live here: a position with is_portfolio true carries no margin_used and roe, its
 * risk row no maintenance_margin_required, position_leverage or estimated_liquidation_price.
 */

import { asCenticents, asCount, asPrice, formatCount, formatDollars, formatPrice } from '../../core/index.ts';
import { mulDivRound, ppmToNumber } from './arith.ts';
import { maintenanceRatePpm } from './catalog.ts';
import type { MarginEngine } from './margin-engine.ts';
import type { ExitTriggerRecord } from './triggers.ts';
import type { AccountRecord, FundingPaymentRecord, MarginFillRecord, MarginOrderRecord, MarginTradeRecord, MarketState, PositionRecord } from './records.ts';

export const price = (value: number): string => formatPrice(asPrice(value));
export const count = (value: number): string => formatCount(asCount(value));
export const dollars = (value: number): string => formatDollars(asCenticents(value));
export const iso = (ms: number): string => new Date(ms).toISOString();

/** Notional sizes the leverage estimates are keyed by, dollars. */
const LEVERAGE_NOTIONALS = ['1000', '10000', '100000', '1000000'];
const DAY_MS = 86_400_000;

function leverageAt(market: MarketState, notionalDollars: string): number {
  const rate = maintenanceRatePpm(market.spec, Number(notionalDollars) * 10_000);
  return Number((1_000_000 / rate).toFixed(4));
}

export function marketToJson(market: MarketState, nowMs: number): Record<string, unknown> {
  const spec = market.spec;
  const estimates: Record<string, number> = {};
  for (const notional of LEVERAGE_NOTIONALS) estimates[notional] = leverageAt(market, notional);
  let volume24h = 0;
  let volume24hNotional = 0;
  for (let i = market.trades.length - 1; i >= 0 && market.trades[i].createdMs > nowMs - DAY_MS; i--) {
    volume24h += market.trades[i].count;
    volume24hNotional += mulDivRound(market.trades[i].count, market.trades[i].price, 100);
  }
  const out: Record<string, unknown> = {
    ticker: spec.ticker,
    title: spec.title,
    exchange_index: 0,
    contract_size: spec.contractSize,
    tick_size: price(spec.tickSize),
    status: 'active',
    fractional_trading_enabled: false,
    leverage_estimate: estimates['1000'],
    leverage_estimates: estimates,
    long_leverage_estimates: { ...estimates },
    short_leverage_estimates: { ...estimates },
    price: price(market.lastPrice ?? market.mark),
    volume: count(market.volume),
    volume_notional_value_dollars: dollars(market.volumeNotional),
    open_interest: count(market.openInterest),
    open_interest_notional_value_dollars: dollars(mulDivRound(market.openInterest, market.mark, 100)),
    volume_24h: count(volume24h),
    volume_24h_notional_value_dollars: dollars(volume24hNotional),
    settlement_mark_price: { price: price(market.mark), ts_ms: market.markMs },
    liquidation_mark_price: { price: price(market.mark), ts_ms: market.markMs },
    reference_price: { price: price(market.reference), ts_ms: market.referenceMs },
    schedule: null, // trades 24/7
  };
  if (spec.assetClass !== null) out.asset_class = spec.assetClass; // omitted when unassigned (seed)
  const bid = market.book.best('bid');
  const ask = market.book.best('ask');
  if (bid !== null) out.bid = price(bid);
  if (ask !== null) out.ask = price(ask);
  return out;
}

export function orderToJson(order: MarginOrderRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    order_id: order.orderId,
    user_id: order.userId,
    client_order_id: order.clientOrderId,
    ticker: order.ticker,
    side: order.side,
    last_update_reason: order.lastUpdateReason,
    price: price(order.price),
    fill_count: count(order.filled),
    remaining_count: count(order.remaining),
    created_time: iso(order.createdMs),
    last_update_time: iso(order.lastUpdateMs),
    self_trade_prevention_type: order.selfTradePrevention,
    cancel_order_on_pause: order.cancelOrderOnPause,
    order_source: order.source,
  };
  if (order.expirationTs !== null) out.expiration_time = iso(order.expirationTs * 1000);
  if (order.reason !== null) out.order_reason = order.reason; // only on system orders (seed)
  return out;
}

export function fillToJson(fill: MarginFillRecord): Record<string, unknown> {
  return {
    fill_id: fill.fillId,
    order_id: fill.orderId,
    is_taker: fill.isTaker,
    side: fill.side,
    count: count(fill.count),
    created_time: iso(fill.createdMs),
    ticker: fill.ticker,
    price: price(fill.price),
    entry_price: price(fill.entryPrice),
    fees: dollars(fill.fee),
    realized_pnl: dollars(fill.realizedPnl),
    order_source: fill.source,
  };
}

export function tradeToJson(trade: MarginTradeRecord): Record<string, unknown> {
  return { trade_id: trade.tradeId, ticker: trade.ticker, count: count(trade.count), price: price(trade.price), created_time: iso(trade.createdMs), taker_side: trade.takerSide };
}

/** Average entry of an open position, rounded to a price unit. */
export function entryPriceOf(position: PositionRecord): number {
  return position.count === 0 ? 0 : mulDivRound(Math.abs(position.openCost), 1, Math.abs(position.count));
}

export function positionToJson(engine: MarginEngine, account: AccountRecord, position: PositionRecord): Record<string, unknown> {
  const unrealized = engine.unrealizedOf(position);
  const portfolio = engine.isPortfolio(account, position);
  const out: Record<string, unknown> = {
    subaccount: account.subaccount,
    market_ticker: position.ticker,
    position: count(position.count),
    entry_price: price(entryPriceOf(position)),
    unrealized_pnl: dollars(unrealized),
    fees: dollars(position.fees),
    is_portfolio: portfolio,
  };
  if (!portfolio) {
    const used = engine.positionMaintenance(position);
    out.margin_used = dollars(used);
    out.roe = used === 0 ? null : Number(((unrealized / used) * 100).toFixed(4));
  }
  return out;
}

export function riskPositionToJson(engine: MarginEngine, account: AccountRecord, position: PositionRecord): Record<string, unknown> {
  const market = engine.markets.get(position.ticker)!;
  const notional = mulDivRound(Math.abs(position.count), market.mark, 100);
  const portfolio = engine.isPortfolio(account, position);
  const out: Record<string, unknown> = {
    subaccount: account.subaccount,
    market_ticker: position.ticker,
    position: count(position.count),
    mark_price: price(market.mark),
    position_notional: dollars(notional),
    is_portfolio: portfolio,
  };
  if (!portfolio) {
    const maintenance = engine.positionMaintenance(position);
    out.maintenance_margin_required = dollars(maintenance);
    out.position_leverage = maintenance === 0 ? null : Number((notional / maintenance).toFixed(4));
    const liquidation = engine.estimatedLiquidationPrice(account, position);
    out.estimated_liquidation_price = liquidation === null ? null : price(liquidation);
  }
  return out;
}

export function fundingHistoryToJson(payment: FundingPaymentRecord): Record<string, unknown> {
  return {
    market_ticker: payment.ticker,
    funding_time: iso(payment.fundingMs),
    funding_rate: ppmToNumber(payment.ratePpm),
    mark_price: price(payment.markPrice),
    funding_amount: dollars(payment.amount),
    quantity: count(payment.count),
    subaccount_number: payment.subaccount,
  };
}

/** ExitTrigger (margin-api.openapi.yaml): optional fields only when they apply. */
export function exitTriggerToJson(trigger: ExitTriggerRecord, effectiveStop: number | null): Record<string, unknown> {
  const out: Record<string, unknown> = { id: trigger.id, ticker: trigger.ticker, kind: trigger.kind, status: trigger.status };
  if (trigger.reason !== null) out.status_reason = trigger.reason;
  if (trigger.triggeredLeg !== null) out.triggered_leg = trigger.triggeredLeg;
  if (trigger.triggeredOrderId !== null) out.triggered_order_id = trigger.triggeredOrderId;
  if (trigger.anchorOrderId !== null) out.anchor_order_id = trigger.anchorOrderId;
  if (trigger.clientTriggerId !== null) out.client_trigger_id = trigger.clientTriggerId;
  if (trigger.stopLoss !== null) out.stop_loss_price = price(trigger.stopLoss);
  if (trigger.takeProfit !== null) out.take_profit_price = price(trigger.takeProfit);
  if (trigger.trailAmount !== null) out.trail_amount = price(trigger.trailAmount);
  if (trigger.trailBps !== null) out.trail_bps = trigger.trailBps;
  if (trigger.watermark !== null) out.watermark_price = price(trigger.watermark);
  if (effectiveStop !== null) out.effective_stop_price = price(effectiveStop);
  out.count = count(trigger.count);
  out.filled_count = count(trigger.filled);
  out.created_time = iso(trigger.createdMs);
  out.updated_time = iso(trigger.updatedMs);
  return out;
}

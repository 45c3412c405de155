/**
 * Margin candlesticks and margin order groups (interface-spec Margin exchange; OpenAPI
 * GetMarginMarketCandlesticks, /margin/order_groups*).
 *
 * Candlesticks come from the margin engine's own tapes: trades (price OHLC, notional-weighted
 * mean, previous close, volume and its dollar notional = the period-specific volume notional field),
 * book tops (bid and ask OHLC; an empty side counts as $0) and open interest (count and notional at
 * the mark). A period is (end - interval, end]; periods with no trade repeat the previous close
 * (or the mark when the market never traded) with volume 0. Window: the periods whose end lies in [start_ts, end_ts] (the open one only when end_ts reaches its end), at most CANDLES_MAX.
 *
 * Order groups: create (201, bound to exchange_index 0, margin-only), list, get, delete, reset,
 * trigger, limit; the 200 answers of delete, reset, trigger and limit are `{}` as on Predictions.
 */

import { asCount, asPrice, type Count } from '../../../../core/index.ts';
import { marginRender, type MarketState } from '../../../margin/index.ts';
import { mulDivRound, notionalOf } from '../../../margin/arith.ts';
import { MARGIN_EXCHANGE_INDEX, type MarginOrderGroup } from '../../../margin/index.ts';
import { BodyReader } from '../body.ts';
import { invalidField, jsonReply, msgError, nestedError, RestError, type RestReply } from '../reply.ts';
import { route, type RestContext, type RouteDef } from '../route.ts';
import { callerKey, querySubaccount } from './caller.ts';
import { marginOf } from './margin-market.ts';
import { filterSubaccount, oneSubaccount } from './margin-orders.ts';

const PERIOD_MINUTES = [1, 60, 1440] as const;
export const MARGIN_CANDLES_MAX = 5000;

interface Ohlc {
  open: number;
  high: number;
  low: number;
  close: number;
}

function ohlcJson(o: Ohlc): Record<string, string> {
  return { open: marginRender.price(o.open), low: marginRender.price(o.low), high: marginRender.price(o.high), close: marginRender.price(o.close) };
}

/** Last index i with items[i].ms <= t (items ascending by ms), or -1. */
function lastAtOrBefore<T>(items: readonly T[], t: number, msOf: (item: T) => number): number {
  let lo = 0;
  let hi = items.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (msOf(items[mid]) <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** OHLC of one side of the top over (startMs, endMs]: the value in force at the start, then each change. */
function topOhlc(market: MarketState, side: 'bid' | 'ask', startMs: number, endMs: number): Ohlc {
  const tops = market.tops;
  const first = lastAtOrBefore(tops, startMs, (t) => t.ms);
  const valueAt = (i: number): number => (i < 0 ? 0 : (tops[i][side] ?? 0));
  const open = valueAt(first);
  const o: Ohlc = { open, high: open, low: open, close: open };
  for (let i = first + 1; i < tops.length && tops[i].ms <= endMs; i++) {
    const v = valueAt(i);
    if (v > o.high) o.high = v;
    if (v < o.low) o.low = v;
    o.close = v;
  }
  return o;
}

function getCandlesticks(ctx: RestContext): RestReply {
  const market = marginOf(ctx).markets.get(ctx.params.ticker);
  if (market === undefined) return nestedError(404, 'not_found', 'market not found');
  const q = ctx.query;
  const startTs = q.integer('start_ts');
  const endTs = q.integer('end_ts');
  const interval = q.integer('period_interval');
  if (startTs === null || endTs === null || interval === null) throw new RestError(msgError('start_ts, end_ts and period_interval are required'));
  if (!(PERIOD_MINUTES as readonly number[]).includes(interval)) throw new RestError(msgError(`period_interval must be one of ${PERIOD_MINUTES.join(', ')}`));
  if (endTs < startTs) throw new RestError(msgError('end_ts must not be before start_ts'));
  const periodSec = interval * 60;
  let firstEnd = Math.ceil(startTs / periodSec) * periodSec;
  if (q.boolean('include_latest_before_start') === true) firstEnd -= periodSec;
  // A candle is in the answer only when its end lies in [start_ts, end_ts]: the last one ends at or
  // before end_ts, so the open period (ending after end_ts) is never returned.
  const lastEnd = Math.floor(endTs / periodSec) * periodSec;
  if ((lastEnd - firstEnd) / periodSec + 1 > MARGIN_CANDLES_MAX) throw new RestError(msgError(`at most ${MARGIN_CANDLES_MAX} candlesticks per request`));
  const trades = market.trades;
  const interest = market.openInterestTape;
  // Previous close: the last trade at or before the first period's start.
  let tradeIndex = lastAtOrBefore(trades, (firstEnd - periodSec) * 1000, (t) => t.createdMs);
  let previous = tradeIndex >= 0 ? trades[tradeIndex].price : market.mark;
  tradeIndex++;
  const candlesticks: unknown[] = [];
  for (let end = firstEnd; end <= lastEnd; end += periodSec) {
    const startMs = (end - periodSec) * 1000;
    const endMs = end * 1000;
    const price: Ohlc = { open: previous, high: previous, low: previous, close: previous };
    let volume = 0;
    let notional = 0;
    let weighted = 0; // sum of price x count, for the mean
    let traded = false;
    for (; tradeIndex < trades.length && trades[tradeIndex].createdMs <= endMs; tradeIndex++) {
      const trade = trades[tradeIndex];
      if (trade.createdMs <= startMs) continue;
      if (!traded) {
        price.open = price.high = price.low = trade.price;
        traded = true;
      }
      if (trade.price > price.high) price.high = trade.price;
      if (trade.price < price.low) price.low = trade.price;
      price.close = trade.price;
      volume += trade.count;
      notional += notionalOf(asPrice(trade.price), asCount(trade.count) as Count);
      weighted += trade.price * trade.count;
    }
    const mean = volume === 0 ? price.close : Math.round(weighted / volume);
    const interestIndex = lastAtOrBefore(interest, endMs, (e) => e.ms);
    const openInterest = interestIndex < 0 ? 0 : interest[interestIndex].openInterest;
    const mark = interestIndex < 0 ? market.mark : interest[interestIndex].mark;
    candlesticks.push({
      end_period_ts: end,
      bid: ohlcJson(topOhlc(market, 'bid', startMs, endMs)),
      ask: ohlcJson(topOhlc(market, 'ask', startMs, endMs)),
      price: { ...ohlcJson(price), mean: marginRender.price(mean), previous: marginRender.price(previous) },
      volume: marginRender.count(volume),
      volume_notional_value_dollars: marginRender.dollars(notional),
      open_interest: marginRender.count(openInterest),
      open_interest_notional_value_dollars: marginRender.dollars(mulDivRound(openInterest, mark, 100)),
    });
    previous = price.close;
  }
  return jsonReply(200, { ticker: market.spec.ticker, candlesticks });
}

// ---- order groups ---------------------------------------------------------------------------

/** The limit in count units from contracts_limit (whole) and/or contracts_limit_fp; they must agree. */
function decodeLimit(body: BodyReader): number | null {
  const whole = body.integer('contracts_limit');
  const fixed = body.count('contracts_limit_fp', false);
  if (whole !== null && whole < 1) throw invalidField('contracts_limit', 'contracts_limit must be >= 1');
  const fromWhole = whole === null ? null : whole * 100;
  if (fromWhole !== null && fixed !== null && fromWhole !== fixed) throw invalidField('contracts_limit_fp', 'contracts_limit and contracts_limit_fp disagree');
  const limit = fixed ?? fromWhole;
  if (limit !== null && limit <= 0) throw invalidField('contracts_limit_fp', 'contracts_limit_fp must be positive');
  return limit;
}

function groupOf(ctx: RestContext): MarginOrderGroup {
  const key = callerKey(ctx);
  const subaccount = filterSubaccount(ctx, querySubaccount(ctx));
  const group = ctx.services.marginOrderGroups.get(key.userId, ctx.params.order_group_id, subaccount);
  if (group === null) throw new RestError(nestedError(404, 'not_found', 'order group not found'));
  return group;
}

function createGroup(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const body = new BodyReader(ctx.body ?? {});
  const limit = decodeLimit(body);
  const exchangeIndex = body.integer('exchange_index') ?? MARGIN_EXCHANGE_INDEX;
  const subaccount = oneSubaccount(ctx, body.subaccount());
  const group = ctx.services.marginOrderGroups.create(key.userId, subaccount, exchangeIndex, limit);
  if ('code' in group) return nestedError(group.status, group.code, group.message, 'exchange_index');
  return jsonReply(201, { order_group_id: group.id, subaccount: group.subaccount, exchange_index: group.exchangeIndex });
}

function groupJson(group: MarginOrderGroup): Record<string, unknown> {
  const out: Record<string, unknown> = { id: group.id, is_auto_cancel_enabled: group.limit !== null, exchange_index: group.exchangeIndex };
  if (group.limit !== null) out.contracts_limit_fp = marginRender.count(group.limit);
  return out;
}

function listGroups(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const subaccount = filterSubaccount(ctx, querySubaccount(ctx));
  return jsonReply(200, { order_groups: ctx.services.marginOrderGroups.list(key.userId, subaccount).map(groupJson) });
}

function getGroup(ctx: RestContext): RestReply {
  const group = groupOf(ctx);
  const out: Record<string, unknown> = {
    is_auto_cancel_enabled: group.limit !== null,
    orders: ctx.services.marginOrderGroups.restingOrderIds(group),
    exchange_index: group.exchangeIndex,
  };
  if (group.limit !== null) out.contracts_limit_fp = marginRender.count(group.limit);
  return jsonReply(200, out);
}

function deleteGroup(ctx: RestContext): RestReply {
  ctx.services.marginOrderGroups.delete(groupOf(ctx));
  return { status: 200, body: '{}' };
}

function resetGroup(ctx: RestContext): RestReply {
  ctx.services.marginOrderGroups.reset(groupOf(ctx));
  return { status: 200, body: '{}' };
}

function triggerGroup(ctx: RestContext): RestReply {
  ctx.services.marginOrderGroups.trigger(groupOf(ctx));
  return { status: 200, body: '{}' };
}

function limitGroup(ctx: RestContext): RestReply {
  const group = groupOf(ctx);
  const limit = decodeLimit(new BodyReader(ctx.body ?? {}));
  if (limit === null) throw invalidField('contracts_limit_fp', 'contracts_limit or contracts_limit_fp is required');
  ctx.services.marginOrderGroups.setLimit(group, limit, ctx.services.now());
  return { status: 200, body: '{}' };
}

export const MARGIN_EXTRA_ROUTES: readonly RouteDef[] = [
  route('GET', '/margin/markets/{ticker}/candlesticks', { auth: false }, getCandlesticks),
  route('POST', '/margin/order_groups/create', { auth: true, scope: 'trade', body: 'optional' }, createGroup),
  route('GET', '/margin/order_groups', { auth: true }, listGroups),
  route('GET', '/margin/order_groups/{order_group_id}', { auth: true }, getGroup),
  route('DELETE', '/margin/order_groups/{order_group_id}', { auth: true, scope: 'trade' }, deleteGroup),
  route('PUT', '/margin/order_groups/{order_group_id}/reset', { auth: true, scope: 'trade', body: 'optional' }, resetGroup),
  route('PUT', '/margin/order_groups/{order_group_id}/trigger', { auth: true, scope: 'trade', body: 'optional' }, triggerGroup),
  route('PUT', '/margin/order_groups/{order_group_id}/limit', { auth: true, scope: 'trade', body: 'json' }, limitGroup),
];

/**
 * Candlestick routes (OpenAPI trade-api paths; interface-spec "Event candlestick response"):
 *
 *   GET /series/{series_ticker}/markets/{ticker}/candlesticks   {ticker, candlesticks}
 *   GET /markets/candlesticks?market_tickers=...                 {markets: [{market_ticker, candlesticks}]}
 *   GET /series/{series_ticker}/events/{ticker}/candlesticks    {market_tickers, market_candlesticks, adjusted_end_ts}
 *   GET /events/{ticker}/candlesticks                           the same, without the series
 *   GET /historical/markets/{ticker}/candlesticks               {ticker, candlesticks} (historical shape)
 *
 * All public (rest.md §1 lists the candlestick endpoints among those that need no signature) at
 * the default cost. Queries: start_ts, end_ts (Unix seconds) and period_interval are required;
 * period_interval is 1, 60 or 1440 where the schema enumerates it, any whole number of minutes
 * 1-1440 on the batch route (its schema says only `minimum: 1`); start_ts after end_ts is a 400.
 * Query errors use the bare {"msg"} shape (rest.md §2), unknown markets and events the nested 404,
 * a series that does not hold the market or event a nested 404 too. include_latest_before_start
 * is validated as a boolean and otherwise ignored (README "Choices").
 *
 * Candles come from the simulator's history (history/sim-history.ts), i.e. from the shared
 * arithmetic of src/workers/candles. One request spans at most MAX_AGGREGATE_CANDIDATES periods x
 * markets; beyond that the end is pulled in (adjusted_end_ts on the event routes; the others have
 * no field for it and end early). This file decodes queries and wraps renderings.
 */

import { INTERVAL_MINUTES_MAX, isPeriodInterval } from '../../../../workers/index.ts';
import { candlesToHistoricalJson, candlesToJson } from '../../../history/index.ts';
import type { EventInfo, Market } from '../../../engine/index.ts';
import { jsonReply, msgError, nestedError, RestError, type RestReply } from '../reply.ts';
import { route, type RestContext, type RouteDef } from '../route.ts';

interface CandleQuery {
  intervalMinutes: number;
  startTs: number;
  endTs: number;
}

function required(ctx: RestContext, name: string): number {
  const value = ctx.query.integer(name);
  if (value === null) throw new RestError(msgError(`${name} is required`));
  return value;
}

/** The window and interval; `anyInterval` for the batch route (1..1440 minutes), else the enum. */
function candleQuery(ctx: RestContext, anyInterval: boolean): CandleQuery {
  const startTs = required(ctx, 'start_ts');
  const endTs = required(ctx, 'end_ts');
  const intervalMinutes = required(ctx, 'period_interval');
  if (anyInterval ? intervalMinutes < 1 || intervalMinutes > INTERVAL_MINUTES_MAX : !isPeriodInterval(intervalMinutes)) {
    throw new RestError(msgError(anyInterval ? `period_interval must be between 1 and ${INTERVAL_MINUTES_MAX} minutes, got ${intervalMinutes}` : `period_interval must be one of 1, 60, 1440, got ${intervalMinutes}`));
  }
  if (startTs > endTs) throw new RestError(msgError(`start_ts (${startTs}) must not be after end_ts (${endTs})`));
  ctx.query.boolean('include_latest_before_start'); // validated, not used
  return { intervalMinutes, startTs, endTs };
}

function marketOr404(ctx: RestContext, ticker: string): Market {
  const market = ctx.services.engine.getMarket(ticker);
  if (market === undefined) throw new RestError(nestedError(404, 'not_found', `market ${ticker.slice(0, 64)} not found`));
  return market;
}

function eventOr404(ctx: RestContext, eventTicker: string): EventInfo {
  const event = ctx.services.engine.getEvent(eventTicker);
  if (event === undefined) throw new RestError(nestedError(404, 'not_found', `event ${eventTicker.slice(0, 64)} not found`));
  return event;
}

function checkSeries(ctx: RestContext, event: EventInfo | undefined, what: string): void {
  const series = ctx.params.series_ticker;
  if (event === undefined || event.spec.seriesTicker !== series) {
    throw new RestError(nestedError(404, 'not_found', `${what} is not in series ${series.slice(0, 64)}`));
  }
}

function getMarketCandlesticks(ctx: RestContext): RestReply {
  const q = candleQuery(ctx, false);
  const market = marketOr404(ctx, ctx.params.ticker);
  checkSeries(ctx, ctx.services.engine.getEvent(market.eventTicker), `market ${market.ticker}`);
  const answer = ctx.services.history.candles([market.ticker], q.intervalMinutes, q.startTs, q.endTs, ctx.services.now());
  return jsonReply(200, { ticker: market.ticker, candlesticks: candlesToJson(answer.tables[0]) });
}

function getBatchCandlesticks(ctx: RestContext): RestReply {
  const tickers = ctx.query.list('market_tickers');
  if (tickers === null) return msgError('market_tickers is required');
  const q = candleQuery(ctx, true);
  for (const ticker of tickers) marketOr404(ctx, ticker);
  const answer = ctx.services.history.candles(tickers, q.intervalMinutes, q.startTs, q.endTs, ctx.services.now());
  return jsonReply(200, { markets: tickers.map((ticker, i) => ({ market_ticker: ticker, candlesticks: candlesToJson(answer.tables[i]) })) });
}

function eventCandlesticks(ctx: RestContext, event: EventInfo, q: CandleQuery): RestReply {
  const tickers = event.markets.map((m) => m.ticker);
  if (tickers.length === 0) return jsonReply(200, { market_tickers: [], market_candlesticks: [], adjusted_end_ts: q.endTs });
  const answer = ctx.services.history.candles(tickers, q.intervalMinutes, q.startTs, q.endTs, ctx.services.now());
  return jsonReply(200, {
    market_tickers: tickers,
    market_candlesticks: answer.tables.map(candlesToJson),
    // Required by the schema, so always sent: the requested end unless the request was too large.
    adjusted_end_ts: answer.plan.adjustedEndTs,
  });
}

function getSeriesEventCandlesticks(ctx: RestContext): RestReply {
  const q = candleQuery(ctx, false);
  const event = eventOr404(ctx, ctx.params.ticker);
  checkSeries(ctx, event, `event ${event.eventTicker}`);
  return eventCandlesticks(ctx, event, q);
}

function getEventCandlesticks(ctx: RestContext): RestReply {
  const q = candleQuery(ctx, false);
  return eventCandlesticks(ctx, eventOr404(ctx, ctx.params.ticker), q);
}

function getHistoricalMarketCandlesticks(ctx: RestContext): RestReply {
  const q = candleQuery(ctx, false);
  const market = marketOr404(ctx, ctx.params.ticker);
  const answer = ctx.services.history.candles([market.ticker], q.intervalMinutes, q.startTs, q.endTs, ctx.services.now());
  return jsonReply(200, { ticker: market.ticker, candlesticks: candlesToHistoricalJson(answer.tables[0]) });
}

export const CANDLESTICK_ROUTES: readonly RouteDef[] = [
  route('GET', '/markets/candlesticks', { auth: false }, getBatchCandlesticks),
  route('GET', '/series/{series_ticker}/markets/{ticker}/candlesticks', { auth: false }, getMarketCandlesticks),
  route('GET', '/series/{series_ticker}/events/{ticker}/candlesticks', { auth: false }, getSeriesEventCandlesticks),
  route('GET', '/events/{ticker}/candlesticks', { auth: false }, getEventCandlesticks),
  route('GET', '/historical/markets/{ticker}/candlesticks', { auth: false }, getHistoricalMarketCandlesticks),
];

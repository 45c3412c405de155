/**
 * Market data routes (spec/rest.md §5, §8): markets, one market, order books (signed), trades,
 * events and series. Query validation follows rest.md: limits above the maximum are a 400 {"msg"}
 * (never clamped), a garbage cursor is the engine's business (silent 200). Timestamp filters of
 * GET /markets other than status and mve_filter are accepted and ignored (README); GET /events leaves
 * combo events out (they are listed by GET /events/multivariate, routes/multivariate.ts). This file only decodes queries
 * and wraps engine renderings; it never touches books.
 */

import {
  eventToJson,
  isSimError,
  marketToJson,
  orderbookToJson,
  seriesToJson,
  tradeToJson,
} from '../../../engine/index.ts';
import { jsonReply, msgError, nestedError, RestError, simErrorReply, type RestReply } from '../reply.ts';
import { route, type RestContext, type RouteDef } from '../route.ts';
import { localizeMarket, parseAcceptLanguage } from '../../../i18n/localize.ts';

const MARKET_STATUS_FILTERS = ['unopened', 'open', 'paused', 'closed', 'settled'] as const;
const EVENT_STATUS_FILTERS = ['unopened', 'open', 'closed', 'settled'] as const;

function getMarkets(ctx: RestContext): RestReply {
  const q = ctx.query;
  const limit = q.limit(100, 1000);
  const page = ctx.services.engine.listMarkets({
    limit,
    cursor: q.cursor(),
    eventTicker: q.string('event_ticker'),
    seriesTicker: q.string('series_ticker'),
    tickers: q.list('tickers'),
    status: q.oneOf('status', MARKET_STATUS_FILTERS),
    mveFilter: q.oneOf('mve_filter', ['only', 'exclude'] as const),
  });
  if (isSimError(page)) return simErrorReply(page);
  const locale = parseAcceptLanguage(ctx.acceptLanguage);
  return jsonReply(200, { markets: page.items.map((market) => localizeMarket(marketToJson(market) as Record<string, unknown>, locale)), cursor: page.cursor });
}

function getMarket(ctx: RestContext): RestReply {
  const market = ctx.services.engine.getMarket(ctx.params.ticker);
  if (market === undefined) return nestedError(404, 'not_found', `market ${ctx.params.ticker} not found`);
  return jsonReply(200, { market: localizeMarket(marketToJson(market) as Record<string, unknown>, parseAcceptLanguage(ctx.acceptLanguage)) });
}

function depthOf(ctx: RestContext): number | null {
  const depth = ctx.query.integer('depth');
  if (depth !== null && depth > 100) throw new RestError(msgError(`depth must be between 0 and 100, got ${depth}`));
  return depth === 0 ? null : depth;
}

function getOrderbook(ctx: RestContext): RestReply {
  const depth = depthOf(ctx);
  const view = ctx.services.engine.orderbook(ctx.params.ticker, depth);
  if (isSimError(view)) return simErrorReply(view);
  return jsonReply(200, orderbookToJson(view));
}

function getOrderbooks(ctx: RestContext): RestReply {
  const tickers = ctx.query.list('tickers');
  if (tickers === null) return msgError('tickers is required');
  if (tickers.length > 100) return msgError(`at most 100 tickers, got ${tickers.length}`);
  const orderbooks: unknown[] = [];
  for (const ticker of tickers) {
    const view = ctx.services.engine.orderbook(ticker, null);
    if (isSimError(view)) return simErrorReply(view);
    orderbooks.push({ ticker, orderbook_fp: orderbookToJson(view).orderbook_fp });
  }
  return jsonReply(200, { orderbooks });
}

function getTrades(ctx: RestContext): RestReply {
  const q = ctx.query;
  const limit = q.limit(100, 1000);
  const isBlockTrade = q.boolean('is_block_trade');
  const page = ctx.services.engine.listTrades({
    limit,
    cursor: q.cursor(),
    ticker: q.string('ticker'),
    minTs: q.integer('min_ts'),
    maxTs: q.integer('max_ts'),
  });
  if (isSimError(page)) return simErrorReply(page);
  // The sim never makes block trades: is_block_trade=true is an empty page.
  const trades = isBlockTrade === true ? [] : page.items.map(tradeToJson);
  return jsonReply(200, { trades, cursor: isBlockTrade === true ? '' : page.cursor });
}

function getEvents(ctx: RestContext): RestReply {
  const q = ctx.query;
  const limit = q.limit(200, 200);
  const withNested = q.boolean('with_nested_markets') === true;
  const page = ctx.services.engine.listEvents({
    limit,
    cursor: q.cursor(),
    seriesTicker: q.string('series_ticker'),
    eventTickers: q.list('tickers'),
    status: q.oneOf('status', EVENT_STATUS_FILTERS),
  });
  if (isSimError(page)) return simErrorReply(page);
  return jsonReply(200, { events: page.items.map((event) => eventToJson(event, withNested)), cursor: page.cursor });
}

function getEvent(ctx: RestContext): RestReply {
  const event = ctx.services.engine.getEvent(ctx.params.event_ticker);
  if (event === undefined) return nestedError(404, 'not_found', `event ${ctx.params.event_ticker} not found`);
  const withNested = ctx.query.boolean('with_nested_markets') === true;
  // Top-level `markets` is deprecated but still required by the schema (rest.md §5).
  const locale = parseAcceptLanguage(ctx.acceptLanguage);
  return jsonReply(200, { event: eventToJson(event, withNested), markets: event.markets.map((market) => localizeMarket(marketToJson(market) as Record<string, unknown>, locale)) });
}

function getSeriesList(ctx: RestContext): RestReply {
  const category = ctx.query.string('category');
  const tags = ctx.query.list('tags');
  const series = ctx.services.engine
    .listSeries()
    .filter((s) => (category === null || s.category === category) && (tags === null || tags.some((tag) => s.tags.includes(tag))));
  return jsonReply(200, { series: series.map(seriesToJson) });
}

function getSeries(ctx: RestContext): RestReply {
  const series = ctx.services.engine.getSeries(ctx.params.series_ticker);
  if (series === undefined) return nestedError(404, 'not_found', `series ${ctx.params.series_ticker} not found`);
  return jsonReply(200, { series: seriesToJson(series) });
}

export const MARKET_DATA_ROUTES: readonly RouteDef[] = [
  route('GET', '/markets', { auth: false }, getMarkets),
  route('GET', '/markets/trades', { auth: false }, getTrades),
  route('GET', '/markets/orderbooks', { auth: true }, getOrderbooks),
  route('GET', '/markets/{ticker}', { auth: false }, getMarket),
  route('GET', '/markets/{ticker}/orderbook', { auth: true }, getOrderbook),
  route('GET', '/events', { auth: false }, getEvents),
  route('GET', '/events/{event_ticker}', { auth: false }, getEvent),
  route('GET', '/series', { auth: false }, getSeriesList),
  route('GET', '/series/{series_ticker}', { auth: false }, getSeries),
];

/**
 * Margin exchange market data and funding routes (margin-api.openapi.yaml): markets, one market,
 * orderbook, public trades, funding rate estimate and history, risk parameters, exchange status.
 * Public (unsigned) like the trading API's market data. This file decodes queries and renders.
 */

import { marginRender, ppmToNumber, type MarginEngine } from '../../../margin/index.ts';
import { decodeCursor, encodeCursor } from '../../../engine/pagination.ts';
import { jsonReply, nestedError, type RestReply } from '../reply.ts';
import { route, type RestContext, type RouteDef } from '../route.ts';

export function marginOf(ctx: RestContext): MarginEngine {
  const margin = ctx.services.margin;
  margin.advance();
  return margin;
}

function getMarkets(ctx: RestContext): RestReply {
  const margin = marginOf(ctx);
  const status = ctx.query.oneOf('status', ['inactive', 'active', 'closed'] as const);
  const now = ctx.services.now();
  const markets = status === null || status === 'active' ? [...margin.markets.values()].map((m) => marginRender.marketToJson(m, now)) : [];
  return jsonReply(200, { markets });
}

function getMarket(ctx: RestContext): RestReply {
  const market = marginOf(ctx).markets.get(ctx.params.ticker);
  if (market === undefined) return nestedError(404, 'market_not_found', 'market not found');
  return jsonReply(200, { market: marginRender.marketToJson(market, ctx.services.now()) });
}

function getOrderbook(ctx: RestContext): RestReply {
  const market = marginOf(ctx).markets.get(ctx.params.ticker);
  if (market === undefined) return nestedError(404, 'market_not_found', 'market not found');
  const depth = ctx.query.integer('depth') ?? 0;
  const level = ([p, c]: [number, number]): [string, string] => [marginRender.price(p), marginRender.count(c)];
  return jsonReply(200, { orderbook: { bids: market.book.depth('bid', depth).map(level), asks: market.book.depth('ask', depth).map(level) } });
}

function getTrades(ctx: RestContext): RestReply {
  const q = ctx.query;
  const ticker = q.string('ticker');
  if (ticker === null) return nestedError(400, 'bad_request', 'ticker is required', 'ticker');
  const market = marginOf(ctx).markets.get(ticker);
  if (market === undefined) return jsonReply(200, { trades: [], cursor: '' });
  const limit = q.limit(100, 1000);
  const minTs = q.integer('min_ts');
  const maxTs = q.integer('max_ts');
  const after = decodeCursor(q.cursor()); // seq of the last trade returned (newest first)
  const out = [];
  let cursor = '';
  for (let i = market.trades.length - 1; i >= 0; i--) {
    const trade = market.trades[i];
    if (after !== -1 && trade.seq >= after) continue;
    if (minTs !== null && trade.createdMs < minTs * 1000) continue;
    if (maxTs !== null && trade.createdMs > maxTs * 1000) continue;
    if (out.length === limit) {
      cursor = encodeCursor(out[out.length - 1].seq);
      break;
    }
    out.push(trade);
  }
  return jsonReply(200, { trades: out.map(marginRender.tradeToJson), cursor });
}

function getFundingEstimate(ctx: RestContext): RestReply {
  const ticker = ctx.query.string('ticker');
  if (ticker === null) return nestedError(400, 'bad_request', 'ticker is required', 'ticker');
  const margin = marginOf(ctx);
  const market = margin.markets.get(ticker);
  if (market === undefined) return nestedError(400, 'market_not_found', 'market not found', 'ticker');
  return jsonReply(200, {
    market_ticker: ticker,
    computed_time: marginRender.iso(ctx.services.now()),
    funding_rate: ppmToNumber(margin.fundingEstimatePpm(market)),
    mark_price: marginRender.price(market.mark),
    next_funding_time: marginRender.iso(market.nextFundingMs),
  });
}

function getHistoricalFundingRates(ctx: RestContext): RestReply {
  const margin = marginOf(ctx);
  const ticker = ctx.query.string('ticker');
  const startTs = ctx.query.integer('start_ts');
  const endTs = ctx.query.integer('end_ts');
  const rates = [];
  for (const market of margin.markets.values()) {
    if (ticker !== null && market.spec.ticker !== ticker) continue;
    for (const rate of market.fundingRates) {
      if (startTs !== null && rate.fundingMs < startTs * 1000) continue;
      if (endTs !== null && rate.fundingMs > endTs * 1000) continue;
      rates.push(rate);
    }
  }
  rates.sort((a, b) => a.fundingMs - b.fundingMs || (a.ticker < b.ticker ? -1 : 1));
  return jsonReply(200, {
    funding_rates: rates.map((r) => ({ market_ticker: r.ticker, funding_time: marginRender.iso(r.fundingMs), funding_rate: ppmToNumber(r.ratePpm), mark_price: marginRender.price(r.markPrice) })),
  });
}

function getRiskParameters(ctx: RestContext): RestReply {
  const margin = marginOf(ctx);
  const multipliers: Record<string, number> = {};
  for (const market of margin.markets.values()) multipliers[market.spec.ticker] = ppmToNumber(market.spec.initialMarginMultiplierPpm);
  return jsonReply(200, {
    liquidation_margin_ratio_threshold: ppmToNumber(margin.catalog.liquidationMarginRatioPpm),
    queue_entry_margin_ratio_threshold: ppmToNumber(margin.catalog.queueEntryMarginRatioPpm),
    initial_margin_multiplier: multipliers,
  });
}

export const MARGIN_MARKET_ROUTES: readonly RouteDef[] = [
  route('GET', '/margin/markets', { auth: false }, getMarkets),
  route('GET', '/margin/markets/{ticker}', { auth: false }, getMarket),
  route('GET', '/margin/markets/{ticker}/orderbook', { auth: false }, getOrderbook),
  route('GET', '/margin/trades', { auth: false }, getTrades),
  route('GET', '/margin/funding_rates/estimate', { auth: false }, getFundingEstimate),
  route('GET', '/margin/funding_rates/historical', { auth: false }, getHistoricalFundingRates),
  route('GET', '/margin/risk_parameters', { auth: false }, getRiskParameters),
  route('GET', '/margin/exchange/status', { auth: false }, () => jsonReply(200, { exchange_active: true, trading_active: true })),
];

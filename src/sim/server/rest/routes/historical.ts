/**
 * Historical routes (OpenAPI "historical" tag; interface-spec Trading API):
 *
 *   GET /historical/cutoff      {market_settled_ts, trades_created_ts, orders_updated_ts,
 *                                market_positions_last_updated_ts}, public
 *   GET /historical/trades      {trades, cursor}: public trades filled before trades_created_ts,
 *                                newest first; ticker, min_ts, max_ts, limit (0-1000, 0 or absent
 *                                = 100, MarketLimitQuery), cursor, is_block_trade; public
 *   GET /historical/positions   {market_positions, event_positions, cursor}: positions of events
 *                                whose every market settled before market_positions_last_updated_ts
 *                                (archived per whole event); ticker, event_ticker, subaccount
 *                                (omitted: the primary, or a restricted key's own), limit
 *                                (1-1000, default 100), cursor; signed, scope read
 *
 * The simulator has one cutoff for all four fields: its history's (SimHistory.cutoffMs, a fixed
 * lag behind the clock). Trades come from the history's tapes, so a trade older than the tape's
 * reach is gone (bounded memory); the sim makes no block trades, so is_block_trade=true is empty.
 * The GET /historical/markets/{ticker}/candlesticks route lives with the other candlesticks.
 * This file decodes queries and renders.
 */

import { decodeCursor, encodeCursor, eventPositionToJson, isSimError, positionToJson, tradeToJson } from '../../../engine/index.ts';
import { jsonReply, simErrorReply, type RestReply } from '../reply.ts';
import { route, type RestContext, type RouteDef } from '../route.ts';
import { callerKey, querySubaccount, readSubaccount } from './caller.ts';

function getCutoff(ctx: RestContext): RestReply {
  const cutoff = new Date(ctx.services.history.cutoffMs(ctx.services.now())).toISOString();
  return jsonReply(200, {
    market_settled_ts: cutoff,
    trades_created_ts: cutoff,
    orders_updated_ts: cutoff,
    market_positions_last_updated_ts: cutoff,
  });
}

function getHistoricalTrades(ctx: RestContext): RestReply {
  const q = ctx.query;
  const limitAsked = q.limit(100, 1000, 0);
  const limit = limitAsked === 0 ? 100 : limitAsked; // 0 is the Go zero value: "not given"
  const isBlockTrade = q.boolean('is_block_trade');
  const ticker = q.string('ticker');
  const minTs = q.integer('min_ts');
  const maxTs = q.integer('max_ts');
  const cursor = q.cursor();
  if (isBlockTrade === true) return jsonReply(200, { trades: [], cursor: '' });
  const history = ctx.services.history;
  const page = history.trades({ ticker, minTs, maxTs, limit, beforeMs: history.cutoffMs(ctx.services.now()), beforeSeq: decodeCursor(cursor) });
  const last = page.items[page.items.length - 1];
  return jsonReply(200, { trades: page.items.map(tradeToJson), cursor: page.more && last !== undefined ? encodeCursor(last.seq) : '' });
}

function getHistoricalPositions(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const q = ctx.query;
  const limit = q.limit(100, 1000);
  // interface-spec: "subaccount (omitted means primary)"; a restricted key's omission means its own.
  const subaccount = readSubaccount(ctx, querySubaccount(ctx)) ?? 0;
  const page = ctx.services.engine.listPositions(key.userId, {
    limit,
    cursor: q.cursor(),
    ticker: q.string('ticker'),
    eventTicker: q.string('event_ticker'),
    subaccount,
    archivedBeforeMs: ctx.services.history.cutoffMs(ctx.services.now()),
  });
  if (isSimError(page)) return simErrorReply(page);
  return jsonReply(200, {
    market_positions: page.marketPositions.map(positionToJson),
    event_positions: page.eventPositions.map(eventPositionToJson),
    cursor: page.cursor,
  });
}

export const HISTORICAL_ROUTES: readonly RouteDef[] = [
  route('GET', '/historical/cutoff', { auth: false }, getCutoff),
  route('GET', '/historical/trades', { auth: false }, getHistoricalTrades),
  route('GET', '/historical/positions', { auth: true }, getHistoricalPositions),
];

/**
 * GET /incentive_programs (interface-spec; OpenAPI GetIncentivePrograms): programs derived from the
 * catalog, so they name real markets. Every Predictions market has a weekly program (liquidity on
 * even catalog positions, volume on odd) and every Margin market a weekly margin_maker_volume
 * program with `max_reward_per_account` (event-only fields omitted). Weeks are aligned to Monday
 * 00:00 UTC of the simulator clock: last week's program is paid out, this week's active, next
 * week's upcoming. Filters: status (all, active, upcoming, closed, paid_out), type (all, liquidity,
 * volume, margin_maker_volume), incentive_description (exact); cursor paging (limit 1-10,000).
 * Not simulated: hidden events (the catalog has none), so none is excluded. Rewards in centicents.
 */

import { jsonReply, nestedError, type RestReply } from '../reply.ts';
import { route, type RestContext, type RouteDef } from '../route.ts';

const WEEK_MS = 7 * 24 * 3600 * 1000;
const MONDAY_OFFSET_MS = 4 * 24 * 3600 * 1000; // 1970-01-01 was a Thursday
const STATUSES = ['all', 'active', 'upcoming', 'closed', 'paid_out'] as const;
const TYPES = ['all', 'liquidity', 'volume', 'margin_maker_volume'] as const;
const DESCRIPTION_CHARS_MAX = 200;

interface Program {
  id: string;
  marketId: string;
  marketTicker: string;
  type: 'liquidity' | 'volume' | 'margin_maker_volume';
  description: string;
  startMs: number;
  endMs: number;
  periodRewardCenticents: number;
  margin: boolean;
}

function programsAt(ctx: RestContext, nowMs: number): Program[] {
  const weekStart = Math.floor((nowMs - MONDAY_OFFSET_MS) / WEEK_MS) * WEEK_MS + MONDAY_OFFSET_MS;
  const out: Program[] = [];
  const weeks = [weekStart - WEEK_MS, weekStart, weekStart + WEEK_MS];
  const markets = ctx.services.engine.markets();
  for (let i = 0; i < markets.length; i++) {
    const market = markets[i];
    const type = i % 2 === 0 ? 'liquidity' : 'volume';
    for (const start of weeks) {
      out.push({
        id: `ip-${market.ticker}-${start / 1000}`,
        marketId: market.spec.marketId,
        marketTicker: market.ticker,
        type,
        description: `${type === 'liquidity' ? 'Liquidity' : 'Volume'} incentive on ${market.ticker}`,
        startMs: start,
        endMs: start + WEEK_MS,
        periodRewardCenticents: type === 'liquidity' ? 5_000_000 : 2_500_000, // $500, $250
        margin: false,
      });
    }
  }
  for (const spec of ctx.services.margin.catalog.markets) {
    for (const start of weeks) {
      out.push({
        id: `ip-${spec.ticker}-${start / 1000}`,
        marketId: spec.ticker,
        marketTicker: spec.ticker,
        type: 'margin_maker_volume',
        description: `Margin maker volume incentive on ${spec.ticker}`,
        startMs: start,
        endMs: start + WEEK_MS,
        periodRewardCenticents: 10_000_000, // $1,000
        margin: true,
      });
    }
  }
  return out;
}

function statusOf(program: Program, nowMs: number): 'active' | 'upcoming' | 'closed' | 'paid_out' {
  if (nowMs < program.startMs) return 'upcoming';
  if (nowMs < program.endMs) return 'active';
  // Paid out one day after the period closes.
  return nowMs >= program.endMs + 24 * 3600 * 1000 ? 'paid_out' : 'closed';
}

function toJson(program: Program, nowMs: number): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: program.id,
    market_id: program.marketId,
    market_ticker: program.marketTicker,
    incentive_type: program.type,
    incentive_description: program.description,
    start_date: new Date(program.startMs).toISOString(),
    end_date: new Date(program.endMs).toISOString(),
    period_reward: program.periodRewardCenticents,
    paid_out: statusOf(program, nowMs) === 'paid_out',
  };
  if (program.margin) out.max_reward_per_account = 1_000_000; // $100 per account
  else {
    out.discount_factor_bps = 5000;
    if (program.type === 'liquidity') out.target_size_fp = '100.00';
  }
  return out;
}

function getPrograms(ctx: RestContext): RestReply {
  const q = ctx.query;
  const status = q.oneOf('status', STATUSES) ?? 'all';
  const type = q.oneOf('type', TYPES) ?? 'all';
  const description = q.string('incentive_description');
  if (description !== null && description.length > DESCRIPTION_CHARS_MAX) return nestedError(400, 'bad_request', `incentive_description must be at most ${DESCRIPTION_CHARS_MAX} characters`);
  const limit = q.limit(100, 10_000);
  const nowMs = ctx.services.now();
  const matching = programsAt(ctx, nowMs).filter((p) => {
    if (type !== 'all' && p.type !== type) return false;
    if (status !== 'all' && statusOf(p, nowMs) !== status) return false;
    return description === null || p.description === description;
  });
  const cursor = q.cursor();
  const start = cursor !== null && /^\d{1,9}$/.test(cursor) ? Number(cursor) : 0;
  const page = matching.slice(start, start + limit);
  const next = start + page.length;
  const body: Record<string, unknown> = { incentive_programs: page.map((p) => toJson(p, nowMs)) };
  if (next < matching.length) body.next_cursor = String(next);
  return jsonReply(200, body);
}

export const INCENTIVE_ROUTES: readonly RouteDef[] = [route('GET', '/incentive_programs', { auth: false }, getPrograms)];

/**
 * The location attestation rule (interface-spec Authentication 3): after the account's
 * api_key_region_expiration_ts passes, its keys may not trade Sports, Elections and Entertainment
 * markets. A market belongs to those by its series' category, or for elections by the `elections`
 * tag (the catalog files them under Politics). Applied to REST order creation (single and batch);
 * other order entry paths (FIX, amend) are not gated.
 */

import { simError, type SimError } from '../../../engine/index.ts';
import type { RestContext } from '../route.ts';

const GATED_CATEGORIES: ReadonlySet<string> = new Set(['Sports', 'Elections', 'Entertainment']);
const GATED_TAGS: ReadonlySet<string> = new Set(['elections']);

/** 403 when the user's attestation lapsed and `ticker` is a gated market; null otherwise. */
export function regionGate(ctx: RestContext, userId: string, ticker: string): SimError | null {
  const expirationTs = ctx.services.keys.regionExpiration(userId);
  if (expirationTs === null || expirationTs * 1000 > ctx.services.now()) return null; // never attested: not gated
  const market = ctx.services.engine.getMarket(ticker);
  if (market === undefined) return null; // the engine answers market_not_found
  const event = ctx.services.engine.getEvent(market.eventTicker);
  const series = event === undefined ? undefined : ctx.services.engine.getSeries(event.spec.seriesTicker);
  if (series === undefined) return null;
  if (!GATED_CATEGORIES.has(series.category) && !series.tags.some((tag) => GATED_TAGS.has(tag))) return null;
  return simError(403, 'forbidden', `the account's API key region attestation expired; ${series.category} markets cannot be traded`, 'api_key_region_expired');
}

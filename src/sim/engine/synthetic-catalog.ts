/**
 * Synthetic market catalogs: N demo Predictions markets spread over up to 50 series and their
 * events, generated from a seed, for load at market-making scale (`npm run sim --
 * --synthetic-markets N`, startSim `syntheticMarkets`). They are listed ALONGSIDE the file catalog
 * (config/markets.json), after its markets, so tests and jobs written against the demo markets keep
 * working. The generator writes exchange-style JSON and runs it through parseCatalog, so synthetic
 * markets pass the same validation as a hand-written catalog. It owns generation only.
 *
 * Shape (every series of one kind, so the tickers read like the exchange's strike ladders):
 *   series  KXSYN{ss}                 ss = 01..50
 *   event   KXSYN{ss}-27{MON}{DD}     one per day from 2027-01-01, round-robin over the series
 *   market  KXSYN{ss}-27{MON}{DD}-T{strike}   10 strikes per event, "above {strike}?" (strike_type greater)
 * Times are fixed dates (open 2026-01-01, close the event's day 23:59:59Z), never the wall clock, so
 * the same seed and N always give the same catalog.
 */

import { SeededRandom } from '../../core/index.ts';
import type { PriceLevelStructure } from '../../core/index.ts';
import { CatalogError, parseCatalog } from './catalog.ts';
import type { Catalog } from './types.ts';

/** Most synthetic markets: 10,000 events over 50 series is 200 days of events per series, inside one year. */
export const SYNTHETIC_MARKETS_MAX = 100_000;
/** Strikes per event: a typical exchange ladder. */
export const SYNTHETIC_MARKETS_PER_EVENT = 10;
/** Series the events spread over (fewer when there are fewer events). */
export const SYNTHETIC_SERIES_MAX = 50;
export const SYNTHETIC_SERIES_PREFIX = 'KXSYN';

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
/** Grids the series use, weighted toward the common one-cent grid. */
const STRUCTURES: readonly PriceLevelStructure[] = ['linear_cent', 'linear_cent', 'linear_cent', 'deci_cent', 'tapered_deci_cent'];
const STRIKE_STEPS = [1, 2, 5, 10, 25];
const DAY_MS = 86_400_000;
const FIRST_EVENT_DAY_MS = Date.UTC(2027, 0, 1);

type Json = Record<string, unknown>;

/** The synthetic part only, as exchange-style catalog JSON (the config/markets.json format). */
export function syntheticCatalogJson(marketCount: number, seed: number): { series: Json[]; events: Json[]; markets: Json[] } {
  if (!Number.isSafeInteger(marketCount) || marketCount < 1 || marketCount > SYNTHETIC_MARKETS_MAX) {
    throw new CatalogError('synthetic markets', [`count: expected an integer from 1 to ${SYNTHETIC_MARKETS_MAX}, got ${marketCount}`]);
  }
  const random = new SeededRandom(seed ^ 0x5eed5);
  const eventCount = Math.ceil(marketCount / SYNTHETIC_MARKETS_PER_EVENT);
  const seriesCount = Math.min(SYNTHETIC_SERIES_MAX, eventCount);
  const series: Json[] = [];
  const strikeBase: number[] = [];
  const strikeStep: number[] = [];
  const structure: PriceLevelStructure[] = [];
  for (let s = 0; s < seriesCount; s++) {
    const ticker = seriesTicker(s);
    series.push({
      ticker, title: `Synthetic index ${s + 1} above a strike`, category: 'Synthetic', frequency: 'daily', tags: ['synthetic'],
      settlement_sources: [{ name: 'Simulator', url: 'https://example.invalid/synthetic' }], fee_type: 'quadratic', fee_multiplier: '1', exchange_index: 0,
    });
    strikeStep.push(STRIKE_STEPS[random.nextInt(STRIKE_STEPS.length)]);
    strikeBase.push(strikeStep[s] * (10 + random.nextInt(90)));
    structure.push(STRUCTURES[random.nextInt(STRUCTURES.length)]);
  }
  const events: Json[] = [];
  const markets: Json[] = [];
  for (let e = 0; e < eventCount; e++) {
    const s = e % seriesCount;
    const dayMs = FIRST_EVENT_DAY_MS + Math.floor(e / seriesCount) * DAY_MS;
    const eventTicker = `${seriesTicker(s)}-${dateCode(dayMs)}`;
    const closeTime = new Date(dayMs + DAY_MS - 1000).toISOString().replace('.000Z', 'Z');
    events.push({ event_ticker: eventTicker, series_ticker: seriesTicker(s), title: `Synthetic index ${s + 1} on ${closeTime.slice(0, 10)}`, strike_date: closeTime });
    const strikes = Math.min(SYNTHETIC_MARKETS_PER_EVENT, marketCount - e * SYNTHETIC_MARKETS_PER_EVENT);
    for (let k = 0; k < strikes; k++) {
      const strike = strikeBase[s] + k * strikeStep[s];
      markets.push({
        ticker: `${eventTicker}-T${strike}`, event_ticker: eventTicker, title: `Synthetic index ${s + 1} above ${strike}?`,
        yes_sub_title: `Above ${strike}`, no_sub_title: `${strike} or below`, status: 'active', price_level_structure: structure[s],
        open_time: '2026-01-01T00:00:00Z', close_time: closeTime, strike_type: 'greater', floor_strike: strike,
        rules_primary: `If synthetic index ${s + 1} is above ${strike} at ${closeTime}, the market resolves to Yes.`,
        initial_fair_price: fairText(k, random),
      });
    }
  }
  return { series, events, markets };
}

/**
 * `base` with `marketCount` synthetic markets appended (series, events and markets after the
 * base's own, so the file's markets keep their listing positions). Throws CatalogError when a
 * synthetic ticker collides with one of the base catalog's.
 */
export function withSyntheticMarkets(base: Catalog, marketCount: number, seed: number): Catalog {
  const synthetic = parseCatalog(syntheticCatalogJson(marketCount, seed), 'synthetic markets');
  const taken = new Set<string>();
  for (const s of base.series) taken.add(s.ticker);
  for (const e of base.events) taken.add(e.eventTicker);
  for (const m of base.markets) taken.add(m.ticker);
  const clashes = synthetic.series.filter((s) => taken.has(s.ticker)).map((s) => `series ${s.ticker} is also in the base catalog`);
  if (clashes.length > 0) throw new CatalogError('synthetic markets', clashes);
  return {
    series: [...base.series, ...synthetic.series],
    events: [...base.events, ...synthetic.events],
    markets: [...base.markets, ...synthetic.markets],
    collections: base.collections ?? [],
  };
}

function seriesTicker(index: number): string {
  return `${SYNTHETIC_SERIES_PREFIX}${String(index + 1).padStart(2, '0')}`;
}

/** "27JAN05": the exchange's event date code (year, month, day). */
function dateCode(dayMs: number): string {
  const date = new Date(dayMs);
  return `${String(date.getUTCFullYear() % 100).padStart(2, '0')}${MONTHS[date.getUTCMonth()]}${String(date.getUTCDate()).padStart(2, '0')}`;
}

/**
 * Fair YES price of the k-th strike as a dollar string: higher strikes are less likely, from about
 * 0.90 down to 0.10, with a little seeded jitter; parseCatalog snaps it to the market's grid.
 */
function fairText(strikeIndex: number, random: SeededRandom): string {
  const span = SYNTHETIC_MARKETS_PER_EVENT - 1;
  const fair = 9000 - Math.floor((strikeIndex * 8000) / span) + random.nextInt(401) - 200; // 1/10,000 dollar
  const clamped = fair < 300 ? 300 : fair > 9700 ? 9700 : fair;
  return `0.${String(clamped).padStart(4, '0')}`;
}

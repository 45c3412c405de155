/**
 * Combos: the multivariate event collections of the catalog and the combo (multivariate) markets
 * created from them (interface-spec Endpoints and Errors 3; OpenAPI
 * CreateMarketInMultivariateEventCollection). It owns the collections, the validation of a leg
 * list with the exchange's three error codes (`duplicated_legs`, `conflicting_leg_outcomes`,
 * `invalid_market_combination`, `details` naming the offending tickers comma-separated), and the
 * map from a canonical leg list to the market it created, so the same legs always resolve to the
 * same market. A new combo market gets its own event in the collection's series (exchange index
 * and fees from there) and the combo grid `center_deci_edge_centi_cent` (interface-spec: "Combo
 * markets use it"); the venue lists it and emits the lifecycle (`event_lifecycle`, then `created`,
 * which the WebSocket hub routes to `multivariate_market_lifecycle`). It never matches orders and
 * never renders wire JSON.
 *
 * Choices where the documents are silent (README): ticker shape `<series>-S<hash>` for the event
 * and `<event>-<hash>` for the market (a hash of the collection and the canonical legs); legs are
 * canonical in the given order when the collection `is_ordered`, else sorted by market ticker; the
 * combo closes when its first leg closes; its initial fair price is the product of the legs'.
 */

import { PriceGrid, type Price } from '../../core/index.ts';
import type { Collection, CollectionQuery, CollectionSpec, ComboResult, EventSpec, MarketSpec, MveLeg, Page, SimError } from './types.ts';
import { marketIdFromTicker } from './catalog.ts';
import { ERR_BAD_LIMIT, simError } from './errors.ts';
import { decodeCursor, oldestFirst, pageLimit } from './pagination.ts';
import type { Venue } from './venue.ts';
import type { MarketState } from './market-state.ts';

/** The combo grid (interface-spec price_level_structure: "Combo markets use it"). */
export const COMBO_PRICE_LEVEL_STRUCTURE = 'center_deci_edge_centi_cent' as const;
const COMBO_GRID = PriceGrid.fromStructure(COMBO_PRICE_LEVEL_STRUCTURE);

class CollectionState implements Collection {
  readonly spec: CollectionSpec;
  readonly exchangeIndex: Collection['exchangeIndex'];
  readonly index: number;
  constructor(spec: CollectionSpec, exchangeIndex: Collection['exchangeIndex'], index: number) {
    this.spec = spec;
    this.exchangeIndex = exchangeIndex;
    this.index = index;
  }
}

export function collectionStatus(spec: CollectionSpec, nowMs: number): 'unopened' | 'open' | 'closed' {
  if (nowMs < spec.openTimeMs) return 'unopened';
  if (nowMs > spec.closeTimeMs) return 'closed';
  return 'open';
}

/** FNV-1a over the text, `rounds` 32-bit words as upper-case hex. */
function hashHex(text: string, salt: number, words: number): string {
  let out = '';
  let hash = (0x811c9dc5 ^ salt) >>> 0;
  for (let word = 0; word < words; word++) {
    for (let i = 0; i < text.length; i++) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    hash = Math.imul(hash ^ (word + 1), 0x01000193) >>> 0;
    out += hash.toString(16).padStart(8, '0');
  }
  return out.toUpperCase();
}

export class Combos {
  readonly #now: () => number;
  readonly #venue: Venue;
  readonly #collections = new Map<string, CollectionState>();
  readonly #list: CollectionState[] = [];
  /** Canonical key of (collection, legs) -> the combo market created for it. */
  readonly #byLegs = new Map<string, MarketState>();

  constructor(now: () => number, collections: readonly CollectionSpec[], venue: Venue) {
    this.#now = now;
    this.#venue = venue;
    for (const spec of collections) {
      const series = venue.getSeries(spec.seriesTicker);
      const state = new CollectionState(spec, series?.exchangeIndex ?? 0, this.#list.length);
      this.#collections.set(spec.collectionTicker, state);
      this.#list.push(state);
    }
  }

  collection(ticker: string): Collection | undefined {
    return this.#collections.get(ticker);
  }

  listCollections(query: CollectionQuery): Page<Collection> | SimError {
    const limit = pageLimit(query.limit, 100, 200);
    if (limit === -1) return ERR_BAD_LIMIT;
    const nowMs = this.#now();
    const match = (c: CollectionState): boolean =>
      (query.status === undefined || query.status === null || collectionStatus(c.spec, nowMs) === query.status) &&
      (query.seriesTicker === undefined || query.seriesTicker === null || c.spec.seriesTicker === query.seriesTicker) &&
      (query.associatedEventTicker === undefined ||
        query.associatedEventTicker === null ||
        c.spec.associatedEvents.some((e) => e.eventTicker === query.associatedEventTicker));
    return oldestFirst<CollectionState>(this.#list, decodeCursor(query.cursor), limit, match, (c) => c.index);
  }

  /**
   * Creates the combo market of `legs` in the collection, or resolves the one created earlier.
   * Errors: 404 unknown collection; 400 market_closed outside the collection's dates; 400
   * duplicated_legs, conflicting_leg_outcomes, invalid_market_combination (details: tickers).
   */
  createMarket(collectionTicker: string, legs: readonly MveLeg[]): ComboResult | SimError {
    const collection = this.#collections.get(collectionTicker);
    if (collection === undefined) return simError(404, 'not_found', `multivariate event collection ${collectionTicker} not found`);
    const spec = collection.spec;
    const nowMs = this.#now();
    if (collectionStatus(spec, nowMs) !== 'open') return simError(400, 'market_closed', 'the collection is not open');
    const invalid = this.#validate(spec, legs);
    if (invalid !== null) return invalid;
    const canonical = spec.isOrdered ? [...legs] : [...legs].sort((a, b) => (a.marketTicker < b.marketTicker ? -1 : a.marketTicker > b.marketTicker ? 1 : 0));
    const key = `${spec.collectionTicker}|${canonical.map((leg) => `${leg.marketTicker}:${leg.side}`).join(',')}`;
    const existing = this.#byLegs.get(key);
    if (existing !== undefined) return { market: existing, event: existing.event, created: false };
    const created = this.#createMarket(collection, canonical, key, nowMs);
    if ('isError' in created) return created;
    this.#byLegs.set(key, created);
    return { market: created, event: created.event, created: true };
  }

  #validate(spec: CollectionSpec, legs: readonly MveLeg[]): SimError | null {
    // 1. The same market twice: same side is a duplicate, opposite sides conflict.
    const seen = new Map<string, MveLeg>();
    const duplicated: string[] = [];
    const opposite: string[] = [];
    for (const leg of legs) {
      const earlier = seen.get(leg.marketTicker);
      if (earlier === undefined) seen.set(leg.marketTicker, leg);
      else if (earlier.side === leg.side) {
        if (!duplicated.includes(leg.marketTicker)) duplicated.push(leg.marketTicker);
      } else if (!opposite.includes(leg.marketTicker)) opposite.push(leg.marketTicker);
    }
    if (duplicated.length > 0) return simError(400, 'duplicated_legs', 'the same market is selected more than once', duplicated.join(','));
    if (opposite.length > 0) return simError(400, 'conflicting_leg_outcomes', 'a market is selected with both outcomes', opposite.join(','));
    // 2. Every leg must be a live market of an associated event, on an allowed side.
    const offending: string[] = [];
    const perEvent = new Map<string, MveLeg[]>();
    for (const leg of legs) {
      const associated = spec.associatedEvents.find((e) => e.eventTicker === leg.eventTicker);
      const market = this.#venue.market(leg.marketTicker);
      const bad =
        associated === undefined ||
        market === undefined ||
        market.eventTicker !== leg.eventTicker ||
        market.mveCollectionTicker !== null ||
        market.status !== 'active' ||
        (associated.isYesOnly && leg.side !== 'yes');
      if (bad) offending.push(leg.marketTicker);
      const list = perEvent.get(leg.eventTicker);
      if (list === undefined) perEvent.set(leg.eventTicker, [leg]);
      else list.push(leg);
    }
    if (offending.length > 0) return simError(400, 'invalid_market_combination', 'legs are not markets of the collection that can be combined', offending.join(','));
    if (legs.length < spec.sizeMin || legs.length > spec.sizeMax) {
      return simError(400, 'invalid_market_combination', `a combo of this collection takes ${spec.sizeMin} to ${spec.sizeMax} legs, got ${legs.length}`);
    }
    for (const associated of spec.associatedEvents) {
      const chosen = perEvent.get(associated.eventTicker) ?? [];
      if ((associated.sizeMax !== null && chosen.length > associated.sizeMax) || (associated.sizeMin !== null && chosen.length < associated.sizeMin)) {
        const tickers = chosen.map((leg) => leg.marketTicker).join(',');
        return simError(400, 'invalid_market_combination', `event ${associated.eventTicker} allows ${associated.sizeMin ?? 0} to ${associated.sizeMax ?? 'any'} legs`, tickers === '' ? undefined : tickers);
      }
    }
    // 3. Outcomes that cannot happen together: two YES legs of a mutually exclusive event.
    for (const [eventTicker, chosen] of perEvent) {
      const event = this.#venue.event(eventTicker);
      const yes = chosen.filter((leg) => leg.side === 'yes');
      if (event !== undefined && event.spec.mutuallyExclusive && yes.length > 1) {
        return simError(400, 'conflicting_leg_outcomes', `at most one market of the mutually exclusive event ${eventTicker} can resolve yes`, yes.map((leg) => leg.marketTicker).join(','));
      }
    }
    return null;
  }

  #createMarket(collection: CollectionState, legs: readonly MveLeg[], key: string, nowMs: number): MarketState | SimError {
    const spec = collection.spec;
    const series = this.#venue.getSeries(spec.seriesTicker);
    if (series === undefined) return simError(400, 'bad_request', `collection series ${spec.seriesTicker} is not listed`);
    const eventTicker = `${spec.seriesTicker}-S${hashHex(key, 1, 2).slice(0, 11)}`;
    const ticker = `${eventTicker}-${hashHex(key, 2, 2).slice(0, 11)}`;
    const markets = legs.map((leg) => this.#venue.market(leg.marketTicker)!);
    const description = legs.map((leg, i) => `${leg.side} ${markets[i].title || leg.marketTicker}`).join(', ');
    let closeMs = spec.closeTimeMs;
    let latestMs = 0;
    let fair = 10_000;
    for (let i = 0; i < legs.length; i++) {
      const market = markets[i];
      if (market.closeTimeMs > 0 && market.closeTimeMs < closeMs) closeMs = market.closeTimeMs;
      if (market.spec.latestExpirationTimeMs > latestMs) latestMs = market.spec.latestExpirationTimeMs;
      const legFair = legs[i].side === 'yes' ? market.spec.initialFairPrice : 10_000 - market.spec.initialFairPrice;
      fair = Math.round((fair * legFair) / 10_000);
    }
    if (latestMs < closeMs) latestMs = closeMs;
    const fairPrice = COMBO_GRID.snap(Math.min(Math.max(fair, 1), 9_999) as Price, 'nearest');
    const eventSpec: EventSpec = {
      mveCollectionTicker: spec.collectionTicker,
      eventTicker,
      seriesTicker: spec.seriesTicker,
      title: spec.title,
      subTitle: description,
      collateralReturnType: '',
      mutuallyExclusive: false,
      category: series.category,
      strikeDate: null,
      strikePeriod: '',
      settlementSources: series.settlementSources.map((s) => ({ ...s })),
      productMetadata: null,
      feeTypeOverride: null,
      feeMultiplierOverride: null,
      exchangeIndex: series.exchangeIndex,
    };
    const marketSpec: MarketSpec = {
      ticker,
      eventTicker,
      marketId: marketIdFromTicker(ticker),
      marketType: 'binary',
      title: description,
      subtitle: '',
      yesSubTitle: description,
      noSubTitle: `not (${description})`,
      status: 'active',
      exchangeIndex: series.exchangeIndex,
      priceLevelStructure: COMBO_PRICE_LEVEL_STRUCTURE,
      priceRanges: null,
      openTimeMs: nowMs,
      closeTimeMs: closeMs,
      expectedExpirationTimeMs: null,
      latestExpirationTimeMs: latestMs,
      settlementTimerSeconds: 60,
      canCloseEarly: true,
      rulesPrimary: `Resolves Yes if every selected leg resolves as selected: ${description}.`,
      rulesSecondary: '',
      strikeType: null,
      floorStrike: null,
      capStrike: null,
      customStrike: null,
      initialFairPrice: fairPrice,
      mveCollectionTicker: spec.collectionTicker,
      mveSelectedLegs: legs.map((leg) => ({ eventTicker: leg.eventTicker, marketTicker: leg.marketTicker, side: leg.side })),
    };
    const error = this.#venue.addMarket(marketSpec, eventSpec);
    if (error !== null) return error;
    return this.#venue.market(ticker)!;
  }
}

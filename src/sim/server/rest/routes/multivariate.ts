/**
 * Combo (multivariate) routes (interface-spec Endpoints; OpenAPI multivariate tag):
 * GET /multivariate_event_collections, GET and POST /multivariate_event_collections/{collection_ticker}
 * (create or resolve a combo market; `write::trade` suffices) and GET /events/multivariate (the
 * combo events, which GET /events leaves out). The removed PUT .../lookup is not served (404).
 * Collection reads and combo events are public, like the other market data (the OpenAPI gives
 * them no security). This file decodes and renders; the engine's combos part validates legs.
 */

import {
  collectionToJson,
  eventToJson,
  isSimError,
  marketToJson,
  type MveLeg,
} from '../../../engine/index.ts';
import { BodyReader } from '../body.ts';
import { invalidField, jsonReply, msgError, nestedError, simErrorReply, type RestReply } from '../reply.ts';
import { route, type RestContext, type RouteDef } from '../route.ts';
import { writeSubaccount } from './caller.ts';

const LEG_SIDES = ['yes', 'no'] as const;
/** Legs in one request: docs silent; the collections' own size_max is far below (bounds the work of a request). */
const LEGS_MAX = 100;

function getCollections(ctx: RestContext): RestReply {
  const q = ctx.query;
  const limit = q.limit(100, 200);
  const page = ctx.services.engine.listCollections({
    limit,
    cursor: q.cursor(),
    status: q.oneOf('status', ['unopened', 'open', 'closed'] as const),
    associatedEventTicker: q.string('associated_event_ticker'),
    seriesTicker: q.string('series_ticker'),
  });
  if (isSimError(page)) return simErrorReply(page);
  return jsonReply(200, { multivariate_contracts: page.items.map(collectionToJson), cursor: page.cursor });
}

function getCollection(ctx: RestContext): RestReply {
  const collection = ctx.services.engine.getCollection(ctx.params.collection_ticker);
  if (collection === undefined) return nestedError(404, 'not_found', `multivariate event collection ${ctx.params.collection_ticker} not found`);
  return jsonReply(200, { multivariate_contract: collectionToJson(collection) });
}

function createComboMarket(ctx: RestContext): RestReply {
  const body = new BodyReader(ctx.body);
  const items = body.array('selected_markets', true)!;
  if (items.length === 0) throw invalidField('selected_markets', 'selected_markets must not be empty');
  if (items.length > LEGS_MAX) throw invalidField('selected_markets', `at most ${LEGS_MAX} selected_markets`);
  const legs: MveLeg[] = items.map((item, index) => {
    const leg = new BodyReader(item, `selected_markets[${index}].`);
    const marketTicker = leg.ticker('market_ticker', true);
    const eventTicker = leg.ticker('event_ticker', true);
    if (marketTicker === '') throw invalidField(`selected_markets[${index}].market_ticker`, 'market_ticker must not be empty');
    if (eventTicker === '') throw invalidField(`selected_markets[${index}].event_ticker`, 'event_ticker must not be empty');
    return { marketTicker, eventTicker, side: leg.oneOf('side', LEG_SIDES, true) };
  });
  const withPayload = body.boolean('with_market_payload') ?? false;
  writeSubaccount(ctx, null); // registers the caller (restricted keys may create combos, interface-spec Authentication 2)
  const result = ctx.services.engine.createComboMarket(ctx.params.collection_ticker, legs);
  if (isSimError(result)) return simErrorReply(result);
  const out: Record<string, unknown> = { event_ticker: result.event.eventTicker, market_ticker: result.market.ticker };
  if (withPayload) out.market = marketToJson(result.market);
  return jsonReply(200, out);
}

function getMultivariateEvents(ctx: RestContext): RestReply {
  const q = ctx.query;
  const limit = q.limit(100, 200);
  const seriesTicker = q.string('series_ticker');
  const collectionTicker = q.string('collection_ticker');
  if (seriesTicker !== null && collectionTicker !== null) return msgError('collection_ticker cannot be used together with series_ticker');
  const withNested = q.boolean('with_nested_markets') === true;
  const page = ctx.services.engine.listEvents({ limit, cursor: q.cursor(), seriesTicker, multivariate: true, collectionTicker });
  if (isSimError(page)) return simErrorReply(page);
  return jsonReply(200, { events: page.items.map((event) => eventToJson(event, withNested)), cursor: page.cursor });
}

export const MULTIVARIATE_ROUTES: readonly RouteDef[] = [
  route('GET', '/multivariate_event_collections', { auth: false }, getCollections),
  route('GET', '/multivariate_event_collections/{collection_ticker}', { auth: false }, getCollection),
  route('POST', '/multivariate_event_collections/{collection_ticker}', { auth: true, scope: 'trade', body: 'json' }, createComboMarket),
  route('GET', '/events/multivariate', { auth: false }, getMultivariateEvents),
];

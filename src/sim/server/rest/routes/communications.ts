/**
 * RFQ and quote routes (interface-spec "Predictions, communications"; OpenAPI /communications/*):
 * the communications id, RFQ create / list / get / delete, quote create / list, the RFQ-scoped
 * quote get / delete / accept / confirm, and the deprecated quote-id-only forms, which behave the
 * same with the RFQ resolved from the quote (interface-spec: deprecated, not removed; FIX: "when
 * omitted, the RFQ is resolved best-effort"). Writes need `write` or `write::trade`; reads `read`.
 * A restricted key acts on its subaccount: an omitted subaccount is the locked one, another is 403,
 * and RFQs and quotes of its other subaccounts are 404 to it. Bodies are decoded strictly
 * (body.ts); the engine's RFQ book decides everything else. This file decodes, scopes and renders.
 */

import { COUNT_INVALID, parseDollars, type Centicents, type Count } from '../../../../core/index.ts';
import { isSimError, quoteToJson, rfqToJson, type QuoteSide, type SimError, type Viewer } from '../../../engine/index.ts';
import { BodyReader } from '../body.ts';
import { emptyReply, invalidField, jsonReply, nestedError, RestError, simErrorReply, TOO_MANY_REQUESTS, type RestReply } from '../reply.ts';
import { route, type RestContext, type RouteDef } from '../route.ts';
import { callerKey, querySubaccount, readSubaccount, restrictedSubaccountError, writeSubaccount } from './caller.ts';

const SIDES: readonly QuoteSide[] = ['yes', 'no'];
const SELF = ['self'] as const;

/** A SimError as its reply; the post-only quoter limit answers the exchange's 429 body. */
function errorReply(error: SimError): RestReply {
  return error.status === 429 ? { ...TOO_MANY_REQUESTS } : simErrorReply(error);
}

function viewerOf(ctx: RestContext): Viewer {
  const key = callerKey(ctx);
  return { userId: key.userId, lock: key.subaccount };
}

function requiredBoolean(body: BodyReader, name: string): boolean {
  const value = body.boolean(name);
  if (value === null) throw new RestError(nestedError(400, 'bad_request', `missing required field ${name}`, name));
  return value;
}

// ---- communications id ------------------------------------------------------------------------

function getCommunicationsId(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  ctx.services.ensureUser(key.userId);
  return jsonReply(200, { communications_id: ctx.services.engine.communicationsId(key.userId) });
}

// ---- RFQs -------------------------------------------------------------------------------------

function createRfq(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const body = new BodyReader(ctx.body);
  const marketTicker = body.ticker('market_ticker', true);
  if (marketTicker === '') throw invalidField('market_ticker', 'market_ticker must not be empty');
  const whole = body.integer('contracts');
  const fixed = body.count('contracts_fp', false);
  let contracts: Count | null = fixed;
  if (whole !== null) {
    const asCount = whole * 100;
    if (whole <= 0 || !Number.isSafeInteger(asCount)) throw new RestError(nestedError(400, 'invalid_order_size', 'contracts must be a positive whole number', 'contracts'));
    if (fixed !== null && fixed !== asCount) throw invalidField('contracts,contracts_fp', 'contracts and contracts_fp must match');
    contracts = asCount as Count;
  }
  let targetCost: Centicents | null = null;
  const dollars = body.string('target_cost_dollars', false);
  if (dollars !== null && dollars !== '') {
    targetCost = parseDollars(dollars);
    if (!Number.isSafeInteger(targetCost) || targetCost <= 0) throw new RestError(nestedError(400, 'bad_request', 'target_cost_dollars must be a positive dollar amount', 'target_cost_dollars'));
  }
  const centiCents = body.integer('target_cost_centi_cents'); // deprecated: the same amount in centicents
  if (centiCents !== null) {
    if (centiCents <= 0) throw invalidField('target_cost_centi_cents', 'target_cost_centi_cents must be positive');
    if (targetCost !== null && targetCost !== centiCents) throw invalidField('target_cost_dollars,target_cost_centi_cents', 'target_cost_dollars and target_cost_centi_cents must match');
    targetCost = centiCents as Centicents;
  }
  if (contracts === COUNT_INVALID) throw new RestError(nestedError(400, 'invalid_order_size', 'contracts_fp must be a contract count', 'contracts_fp'));
  const restRemainder = requiredBoolean(body, 'rest_remainder');
  const replaceExisting = body.boolean('replace_existing') ?? false;
  body.string('subtrader_id', false); // FCM members only: accepted and ignored
  body.boolean('target_cost_excludes_fees');
  const subaccount = writeSubaccount(ctx, body.subaccount());
  const rfq = ctx.services.engine.createRfq(key.userId, { marketTicker, contracts, targetCost, restRemainder, replaceExisting, subaccount });
  if (isSimError(rfq)) return errorReply(rfq);
  return jsonReply(201, { id: rfq.rfqId });
}

function getRfqs(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const q = ctx.query;
  const limit = q.limit(100, 100);
  const requested = querySubaccount(ctx);
  if (key.subaccount !== null && requested !== null && requested !== key.subaccount) throw restrictedSubaccountError(key);
  ctx.services.ensureUser(key.userId);
  const page = ctx.services.engine.listRfqs(key.userId, key.subaccount, {
    limit,
    cursor: q.cursor(),
    eventTicker: q.string('event_ticker'),
    marketTicker: q.string('market_ticker'),
    subaccount: requested,
    status: q.oneOf('status', ['open', 'closed'] as const),
    creatorUserId: q.string('creator_user_id'),
    self: q.oneOf('user_filter', SELF) === 'self',
  });
  if (isSimError(page)) return errorReply(page);
  const viewer = viewerOf(ctx);
  return jsonReply(200, { rfqs: page.items.map((rfq) => rfqToJson(rfq, viewer)), cursor: page.cursor });
}

function getRfq(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  ctx.services.ensureUser(key.userId);
  const rfq = ctx.services.engine.getRfq(ctx.params.rfq_id);
  if (rfq === undefined) return nestedError(404, 'not_found', 'rfq not found');
  return jsonReply(200, { rfq: rfqToJson(rfq, viewerOf(ctx)) });
}

function deleteRfq(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  ctx.services.ensureUser(key.userId);
  const error = ctx.services.engine.deleteRfq(key.userId, ctx.params.rfq_id, key.subaccount);
  if (error !== null) return errorReply(error);
  return emptyReply(204);
}

// ---- quotes -----------------------------------------------------------------------------------

function createQuote(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const body = new BodyReader(ctx.body);
  const rfqId = body.id('rfq_id', true);
  const yesBid = body.price('yes_bid', true);
  const noBid = body.price('no_bid', true);
  if (yesBid >= 10_000) throw new RestError(nestedError(400, 'invalid_price', 'yes_bid must be below 1', 'yes_bid'));
  if (noBid >= 10_000) throw new RestError(nestedError(400, 'invalid_price', 'no_bid must be below 1', 'no_bid'));
  const restRemainder = requiredBoolean(body, 'rest_remainder');
  const postOnly = body.boolean('post_only') ?? false;
  const subaccount = writeSubaccount(ctx, body.subaccount());
  const quote = ctx.services.engine.createQuote(key.userId, { rfqId, yesBid, noBid, restRemainder, postOnly, subaccount });
  if (isSimError(quote)) return errorReply(quote);
  return jsonReply(201, { id: quote.quoteId });
}

function getQuotes(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const q = ctx.query;
  const limit = q.limit(500, 500);
  readSubaccount(ctx, null);
  q.string('rfq_creator_subtrader_id'); // FCM members only: accepted and ignored
  const page = ctx.services.engine.listQuotes(key.userId, key.subaccount, {
    limit,
    cursor: q.cursor(),
    minTs: q.integer('min_ts'),
    maxTs: q.integer('max_ts'),
    status: q.oneOf('status', ['open', 'accepted', 'confirmed', 'executed', 'cancelled'] as const),
    quoteCreatorUserId: q.string('quote_creator_user_id'),
    rfqCreatorUserId: q.string('rfq_creator_user_id'),
    rfqId: q.string('rfq_id'),
    self: q.oneOf('user_filter', SELF) === 'self',
    rfqSelf: q.oneOf('rfq_user_filter', SELF) === 'self',
  });
  if (isSimError(page)) return errorReply(page);
  const viewer = viewerOf(ctx);
  return jsonReply(200, { quotes: page.items.map((quote) => quoteToJson(quote, viewer)), cursor: page.cursor });
}

/** The RFQ id of the scoped forms; null on the deprecated quote-id-only forms. */
function rfqIdOf(ctx: RestContext): string | null {
  return ctx.params.rfq_id ?? null;
}

function getQuote(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  ctx.services.ensureUser(key.userId);
  const quote = ctx.services.engine.getQuote(key.userId, ctx.params.quote_id, rfqIdOf(ctx), key.subaccount);
  if (isSimError(quote)) return errorReply(quote);
  return jsonReply(200, { quote: quoteToJson(quote, viewerOf(ctx)) });
}

function deleteQuote(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  ctx.services.ensureUser(key.userId);
  const error = ctx.services.engine.deleteQuote(key.userId, ctx.params.quote_id, rfqIdOf(ctx), key.subaccount);
  if (error !== null) return errorReply(error);
  return emptyReply(204);
}

function acceptQuote(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  const body = new BodyReader(ctx.body);
  const side = body.oneOf('accepted_side', SIDES, true);
  ctx.services.ensureUser(key.userId);
  const quote = ctx.services.engine.acceptQuote(key.userId, ctx.params.quote_id, rfqIdOf(ctx), side, key.subaccount);
  if (isSimError(quote)) return errorReply(quote);
  return emptyReply(204);
}

function confirmQuote(ctx: RestContext): RestReply {
  const key = callerKey(ctx);
  if (ctx.body !== undefined) new BodyReader(ctx.body); // EmptyResponse: any object
  ctx.services.ensureUser(key.userId);
  const quote = ctx.services.engine.confirmQuote(key.userId, ctx.params.quote_id, rfqIdOf(ctx), key.subaccount);
  if (isSimError(quote)) return errorReply(quote);
  return emptyReply(204);
}

const READ = { auth: true };
const WRITE = { auth: true, scope: 'trade' as const };

export const COMMUNICATIONS_ROUTES: readonly RouteDef[] = [
  route('GET', '/communications/id', READ, getCommunicationsId),
  route('POST', '/communications/rfqs', { ...WRITE, body: 'json' }, createRfq),
  route('GET', '/communications/rfqs', READ, getRfqs),
  route('GET', '/communications/rfqs/{rfq_id}', READ, getRfq),
  route('DELETE', '/communications/rfqs/{rfq_id}', WRITE, deleteRfq),
  route('POST', '/communications/quotes', { ...WRITE, body: 'json' }, createQuote),
  route('GET', '/communications/quotes', READ, getQuotes),
  route('GET', '/communications/rfqs/{rfq_id}/quotes/{quote_id}', READ, getQuote),
  route('DELETE', '/communications/rfqs/{rfq_id}/quotes/{quote_id}', WRITE, deleteQuote),
  route('PUT', '/communications/rfqs/{rfq_id}/quotes/{quote_id}/accept', { ...WRITE, body: 'json' }, acceptQuote),
  route('PUT', '/communications/rfqs/{rfq_id}/quotes/{quote_id}/confirm', { ...WRITE, body: 'optional' }, confirmQuote),
  // Deprecated quote-id-only forms: same behaviour, the RFQ resolved from the quote.
  route('GET', '/communications/quotes/{quote_id}', READ, getQuote),
  route('DELETE', '/communications/quotes/{quote_id}', WRITE, deleteQuote),
  route('PUT', '/communications/quotes/{quote_id}/accept', { ...WRITE, body: 'json' }, acceptQuote),
  route('PUT', '/communications/quotes/{quote_id}/confirm', { ...WRITE, body: 'optional' }, confirmQuote),
];

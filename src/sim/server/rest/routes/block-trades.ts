/**
 * Block-trade proposals (interface-spec communications: GET needs `read::block_trade_accept`, accept
 * needs `write::block_trade_accept`, the parent scopes also serve; block-trade endpoints are
 * unavailable to subaccount-restricted keys, 403). Propose (the official client's
 * POST /communications/block-trade-proposals) takes the buyer, seller, market, YES price in
 * centicents, count in centicount, maker side and expiry; accept (204) records one party's
 * acceptance, and the second executes the trade (engine/block-trades.ts).
 */

import { isSimError, type BlockTradeParty, type BlockTradeProposal } from '../../../engine/index.ts';
import { ID_CHARS_MAX } from '../bounds.ts';
import { BodyReader } from '../body.ts';
import { emptyReply, invalidField, jsonReply, nestedError, RestError, simErrorReply, type RestReply } from '../reply.ts';
import { route, type RestContext, type RouteDef } from '../route.ts';
import { callerKey } from './caller.ts';

const STATUS_CHARS_MAX = 32;

function unrestrictedUser(ctx: RestContext): string {
  const key = callerKey(ctx);
  if (key.subaccount !== null) throw new RestError(nestedError(403, 'forbidden', 'block-trade endpoints are unavailable to subaccount-restricted API keys', 'subaccount_restricted'));
  return key.userId;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function proposalToJson(p: BlockTradeProposal): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: p.id,
    proposer_user_id: p.proposerUserId,
    buyer_user_id: p.buyer.userId,
    seller_user_id: p.seller.userId,
    market_ticker: p.marketTicker,
    price_centi_cents: p.priceCenticents,
    centicount: p.centicount,
    maker_side: p.makerSide,
    expiration_ts: iso(p.expirationMs),
    status: p.status,
    created_ts: iso(p.createdMs),
    updated_ts: iso(p.updatedMs),
    buyer_accepted: p.buyer.accepted,
    seller_accepted: p.seller.accepted,
  };
  const party = (prefix: string, x: BlockTradeParty): void => {
    if (x.subtraderId !== null) out[`${prefix}_subtrader_id`] = x.subtraderId;
    if (x.accepted) out[`${prefix}_accepted_ts`] = iso(x.acceptedMs);
    if (x.orderId !== null) out[`${prefix}_order_id`] = x.orderId;
  };
  party('buyer', p.buyer);
  party('seller', p.seller);
  if (p.executedMs !== 0) out.executed_ts = iso(p.executedMs);
  return out;
}

function listProposals(ctx: RestContext): RestReply {
  const userId = unrestrictedUser(ctx);
  const limit = ctx.query.limit(100, 100);
  const status = ctx.query.string('status');
  if (status !== null && status.length > STATUS_CHARS_MAX) throw invalidField('status', `status must be at most ${STATUS_CHARS_MAX} characters`);
  const all = ctx.services.blockTrades.list(userId, { marketTicker: ctx.query.string('market_ticker'), status });
  // Cursor: the number of proposals already returned (decimal), so pages are stable while nothing new arrives.
  const cursorText = ctx.query.cursor();
  const start = cursorText !== null && /^\d{1,9}$/.test(cursorText) ? Number(cursorText) : 0;
  const page = all.slice(start, start + limit);
  const next = start + page.length;
  return jsonReply(200, { block_trade_proposals: page.map(proposalToJson), cursor: next < all.length ? String(next) : '' });
}

function party(body: BodyReader, prefix: 'buyer' | 'seller'): { userId: string; subtraderId: string | null; subaccount: number } {
  const userId = body.id(`${prefix}_user_id`, true);
  const subtraderId = body.id(`${prefix}_subtrader_id`, false);
  return { userId, subtraderId, subaccount: body.subaccount(`${prefix}_subaccount`) ?? 0 };
}

function propose(ctx: RestContext): RestReply {
  const userId = unrestrictedUser(ctx);
  const body = new BodyReader(ctx.body);
  const buyer = party(body, 'buyer');
  const seller = party(body, 'seller');
  const marketTicker = body.ticker('market_ticker', true);
  const price = body.integer('price_centi_cents');
  const centicount = body.integer('centicount');
  if (price === null) throw invalidField('price_centi_cents', 'missing required field price_centi_cents');
  if (centicount === null) throw invalidField('centicount', 'missing required field centicount');
  const makerSide = body.string('maker_side', true);
  if (makerSide !== 'yes' && makerSide !== 'no') throw invalidField('maker_side', 'maker_side must be yes or no');
  const expiration = body.string('expiration_ts', true);
  const expirationMs = expiration.length <= 40 ? Date.parse(expiration) : Number.NaN;
  if (!Number.isFinite(expirationMs)) throw invalidField('expiration_ts', 'expiration_ts must be an RFC 3339 date-time');
  for (const p of [buyer, seller]) {
    ctx.services.ensureUser(p.userId);
    ctx.services.ensureFunded(p.userId, p.subaccount);
  }
  const proposal = ctx.services.blockTrades.propose(userId, { buyer, seller, marketTicker, priceCenticents: price, centicount, makerSide, expirationMs });
  if (isSimError(proposal)) return simErrorReply(proposal);
  return jsonReply(201, { block_trade_proposal_id: proposal.id });
}

function accept(ctx: RestContext): RestReply {
  const userId = unrestrictedUser(ctx);
  const body = new BodyReader(ctx.body ?? {});
  const subtraderId = body.string('subtrader_id', false);
  if (subtraderId !== null && subtraderId.length > ID_CHARS_MAX) throw invalidField('subtrader_id', `subtrader_id must be at most ${ID_CHARS_MAX} characters`);
  const result = ctx.services.blockTrades.accept(userId, ctx.params.block_trade_proposal_id, body.subaccount());
  if (isSimError(result)) return simErrorReply(result);
  return emptyReply(204);
}

export const BLOCK_TRADE_ROUTES: readonly RouteDef[] = [
  route('GET', '/communications/block-trade-proposals', { auth: true, scope: 'block_trade_read' }, listProposals),
  route('POST', '/communications/block-trade-proposals', { auth: true, scope: 'block_trade_write', body: 'json' }, propose),
  route('POST', '/communications/block-trade-proposals/{block_trade_proposal_id}/accept', { auth: true, scope: 'block_trade_write', body: 'optional' }, accept),
];

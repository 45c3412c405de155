/**
 * Block-trade proposals (communications): a proposer names a buyer and a seller (users, optional
 * subaccounts), a market, a YES price in centicents, a count in 1/100 contract and which side is the
 * maker; each party accepts; when both have accepted before `expiration_ts` the trade executes
 * through the matching part as two real orders (the maker's rests first, the other crosses it), as
 * an executed RFQ quote does, so positions, fills and balances are real. Statuses: pending,
 * accepted (both accepted, execution failed: the reason is kept), executed, expired. Not simulated:
 * the trade carrying is_block_trade (the matching part has no block flag), subtrader ids beyond
 * echoing them.
 */

import { asCount, asPrice, type Count, type Price } from '../../core/index.ts';
import type { SimEngine } from './engine.ts';
import { simError } from './errors.ts';
import { isSimError, type SimError } from './types.ts';

export type BlockTradeStatus = 'pending' | 'accepted' | 'executed' | 'expired';

export interface BlockTradeParty {
  readonly userId: string;
  readonly subtraderId: string | null;
  readonly subaccount: number;
  accepted: boolean;
  acceptedMs: number;
  orderId: string | null;
}

export interface BlockTradeProposal {
  readonly id: string;
  readonly proposerUserId: string;
  readonly buyer: BlockTradeParty;
  readonly seller: BlockTradeParty;
  readonly marketTicker: string;
  /** YES price, centicents (= Price units, 1/10,000 dollar). */
  readonly priceCenticents: number;
  /** Count, 1/100 contract. */
  readonly centicount: number;
  readonly makerSide: 'yes' | 'no';
  readonly expirationMs: number;
  status: BlockTradeStatus;
  readonly createdMs: number;
  updatedMs: number;
  executedMs: number;
  failure: string | null;
}

export interface ProposeBlockTradeParams {
  buyer: { userId: string; subtraderId: string | null; subaccount: number };
  seller: { userId: string; subtraderId: string | null; subaccount: number };
  marketTicker: string;
  priceCenticents: number;
  centicount: number;
  makerSide: 'yes' | 'no';
  expirationMs: number;
}

/** Live proposals kept: a memory bound (oldest finished ones dropped first). */
export const BLOCK_TRADE_PROPOSALS_MAX = 10_000;

export class BlockTrades {
  readonly #engine: SimEngine;
  readonly #now: () => number;
  readonly #proposals: BlockTradeProposal[] = [];
  #nextId = 1;

  constructor(engine: SimEngine, now: () => number) {
    this.#engine = engine;
    this.#now = now;
  }

  propose(proposerUserId: string, params: ProposeBlockTradeParams): BlockTradeProposal | SimError {
    const nowMs = this.#now();
    const market = this.#engine.getMarket(params.marketTicker);
    if (market === undefined) return simError(404, 'market_not_found', 'market not found');
    if (!Number.isSafeInteger(params.priceCenticents) || params.priceCenticents <= 0 || params.priceCenticents >= 10_000) {
      return simError(400, 'invalid_price', 'price_centi_cents must be between 1 and 9999', 'price_centi_cents');
    }
    if (!Number.isSafeInteger(params.centicount) || params.centicount <= 0) return simError(400, 'bad_request', 'centicount must be a positive integer', 'centicount');
    if (params.expirationMs <= nowMs) return simError(400, 'bad_request', 'expiration_ts must be in the future', 'expiration_ts');
    if (params.buyer.userId === params.seller.userId && params.buyer.subaccount === params.seller.subaccount) {
      return simError(400, 'bad_request', 'buyer and seller must differ', 'seller_user_id');
    }
    if (proposerUserId !== params.buyer.userId && proposerUserId !== params.seller.userId) {
      return simError(403, 'forbidden', 'the proposer must be the buyer or the seller');
    }
    this.#trim();
    const party = (p: ProposeBlockTradeParams['buyer']): BlockTradeParty => ({ ...p, accepted: false, acceptedMs: 0, orderId: null });
    const proposal: BlockTradeProposal = {
      id: `btp-${String(this.#nextId++).padStart(10, '0')}`,
      proposerUserId,
      buyer: party(params.buyer),
      seller: party(params.seller),
      marketTicker: params.marketTicker,
      priceCenticents: params.priceCenticents,
      centicount: params.centicount,
      makerSide: params.makerSide,
      expirationMs: params.expirationMs,
      status: 'pending',
      createdMs: nowMs,
      updatedMs: nowMs,
      executedMs: 0,
      failure: null,
    };
    this.#proposals.push(proposal);
    return proposal;
  }

  #trim(): void {
    if (this.#proposals.length < BLOCK_TRADE_PROPOSALS_MAX) return;
    const index = this.#proposals.findIndex((p) => p.status !== 'pending');
    this.#proposals.splice(index === -1 ? 0 : index, 1);
  }

  #expire(nowMs: number): void {
    for (const proposal of this.#proposals) {
      if (proposal.status === 'pending' && nowMs >= proposal.expirationMs) {
        proposal.status = 'expired';
        proposal.updatedMs = nowMs;
      }
    }
  }

  /** Proposals where `userId` is proposer, buyer or seller, newest first. */
  list(userId: string, filter: { marketTicker: string | null; status: string | null }): BlockTradeProposal[] {
    this.#expire(this.#now());
    const out: BlockTradeProposal[] = [];
    for (let i = this.#proposals.length - 1; i >= 0; i--) {
      const p = this.#proposals[i];
      if (p.proposerUserId !== userId && p.buyer.userId !== userId && p.seller.userId !== userId) continue;
      if (filter.marketTicker !== null && p.marketTicker !== filter.marketTicker) continue;
      if (filter.status !== null && p.status !== filter.status) continue;
      out.push(p);
    }
    return out;
  }

  /**
   * `userId` accepts as buyer or seller (the subaccount, when given, picks the role when the user is
   * both). The second acceptance executes the trade.
   */
  accept(userId: string, proposalId: string, subaccount: number | null): BlockTradeProposal | SimError {
    const nowMs = this.#now();
    this.#expire(nowMs);
    const proposal = this.#proposals.find((p) => p.id === proposalId);
    if (proposal === undefined) return simError(404, 'not_found', 'block trade proposal not found');
    const matches = (party: BlockTradeParty): boolean => party.userId === userId && (subaccount === null || party.subaccount === subaccount);
    const party = matches(proposal.buyer) && !proposal.buyer.accepted ? proposal.buyer : matches(proposal.seller) && !proposal.seller.accepted ? proposal.seller : null;
    if (party === null) {
      if (matches(proposal.buyer) || matches(proposal.seller)) return simError(409, 'block_trade_proposal_not_pending', 'block trade proposal already accepted by this party');
      return simError(404, 'not_found', 'block trade proposal not found');
    }
    if (proposal.status !== 'pending') return simError(409, 'block_trade_proposal_not_pending', `block trade proposal is ${proposal.status}`);
    party.accepted = true;
    party.acceptedMs = nowMs;
    proposal.updatedMs = nowMs;
    if (proposal.buyer.accepted && proposal.seller.accepted) this.#execute(proposal, nowMs);
    return proposal;
  }

  #execute(proposal: BlockTradeProposal, nowMs: number): void {
    proposal.status = 'accepted';
    const maker = proposal.makerSide === 'yes' ? proposal.buyer : proposal.seller;
    const taker = maker === proposal.buyer ? proposal.seller : proposal.buyer;
    const price: Price = asPrice(proposal.priceCenticents);
    const count: Count = asCount(proposal.centicount);
    const place = (party: BlockTradeParty, timeInForce: 'good_till_canceled' | 'immediate_or_cancel') =>
      this.#engine.createOrder(party.userId, {
        ticker: proposal.marketTicker,
        clientOrderId: `${proposal.id}-${party === proposal.buyer ? 'buy' : 'sell'}`,
        side: party === proposal.buyer ? 'bid' : 'ask',
        price,
        count,
        timeInForce,
        selfTradePrevention: 'taker_at_cross',
        subaccount: party.subaccount,
      });
    const resting = place(maker, 'good_till_canceled');
    if (resting.isError) {
      proposal.failure = resting.code;
      return;
    }
    maker.orderId = resting.order.orderId;
    const crossing = place(taker, 'immediate_or_cancel');
    if (crossing.isError) {
      proposal.failure = crossing.code;
    } else {
      taker.orderId = crossing.order.orderId;
      if (crossing.order.status === 'executed') {
        proposal.status = 'executed';
        proposal.executedMs = nowMs;
      }
    }
    // The maker's order exists only for this trade: no remainder may stay on the book.
    const makerOrder = this.#engine.getOrder(maker.userId, resting.order.orderId, maker.subaccount);
    if (!isSimError(makerOrder) && makerOrder.status === 'resting') {
      this.#engine.cancelOrder(maker.userId, resting.order.orderId, maker.subaccount);
    }
    proposal.updatedMs = nowMs;
  }
}

// Goal: the simulator's RFQ and quote workflow over real sockets, as interface-spec
// (communications), the OpenAPI /communications/* operations and websocket.md §6.11 describe it:
// the lifecycle end to end between two users (create RFQ in 0.01-contract steps, quote, accept,
// confirm, executed) with real fills, positions, balances and a public trade; the communications
// messages each party receives (RFQs to everyone, quote messages to the two parties only, each with
// its own subaccount and order ids) and that a third user gets none of the private ones; every error
// case (quote not of the RFQ 404, third parties 404, wrong party 403, wrong state 400, expired 400,
// sizes and prices 400); the deprecated quote-id-only forms; token costs; post-only quotes and the
// quoter rate limit; the confirm window, the execution delay, a roll (open quotes 404 afterwards,
// accepted ones durable) and the 7-day retention on an injected clock; the official client.
// Responses are validated against the OpenAPI, messages against the AsyncAPI.
// Method: two in-process simulators (one on the wall clock, one on a clock the test moves; requests
// to the latter are signed with its time), undici fetch and WebSocket clients, kalshi-typescript.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { CommunicationsApi, Configuration } from 'kalshi-typescript';
import { RestClient, WsClient, type KeyPair, type RestResult } from '../helpers/clients.ts';
import { AsyncApiValidator, errorsOf, OpenApiValidator } from '../helpers/schemas.ts';
import { order, startTestSim } from '../helpers/test-sim.ts';

const MARKET = 'KXDEMO-26DEC31-T50'; // linear_cent, quadratic fees (maker fee 0)
const MAKER_USER = 'c0ffee00-0000-4000-8000-00000000a001';
const THIRD_USER = 'c0ffee00-0000-4000-8000-00000000a002';

// The axios the official client itself loads (a dependency of kalshi-typescript, not of ours).
const clientRequire = createRequire(createRequire(import.meta.url).resolve('kalshi-typescript'));
const axios = clientRequire('axios') as { create(): any };

const openapi = new OpenApiValidator();
const asyncapi = new AsyncApiValidator();

function check(method: string, path: string, status: number, body: unknown): void {
  const validate = openapi.response(method, path, status);
  expect(validate(body), `${method} ${path} ${status}: ${errorsOf(validate)}\n${JSON.stringify(body).slice(0, 600)}`).toBe(true);
}

function checkError(result: RestResult, status: number, code: string): void {
  expect(result.status, result.text).toBe(status);
  expect(result.body.error.code, result.text).toBe(code);
  const validate = openapi.component('ErrorResponse');
  expect(validate(result.body.error), errorsOf(validate)).toBe(true);
}

const PAYLOADS: Record<string, string> = {
  rfq_created: 'rfqCreatedPayload',
  rfq_deleted: 'rfqDeletedPayload',
  quote_created: 'quoteCreatedPayload',
  quote_accepted: 'quoteAcceptedPayload',
  quote_executed: 'quoteExecutedPayload',
};

function checkMessages(messages: any[]): void {
  for (const message of messages) {
    const name = PAYLOADS[message.type];
    if (name === undefined) continue;
    const validate = asyncapi.payload(name);
    expect(validate(message), `${message.type}: ${errorsOf(validate)}\n${JSON.stringify(message)}`).toBe(true);
    expect(Number.isInteger(message.seq), `${message.type} carries seq`).toBe(true);
  }
}

const isComms = (m: any): boolean => typeof m.type === 'string' && m.type in PAYLOADS;

describe('RFQs and quotes on the wall clock', () => {
  let sim: Awaited<ReturnType<typeof startTestSim>>;
  let requesterKey: KeyPair;
  let makerKey: KeyPair;
  let thirdKey: KeyPair;
  let requester: RestClient;
  let maker: RestClient;
  let third: RestClient;

  beforeAll(async () => {
    sim = await startTestSim();
    requesterKey = sim.demoKey;
    makerKey = sim.createApiKey({ scopes: ['read', 'write'], tier: 'prime', userId: MAKER_USER });
    thirdKey = sim.createApiKey({ scopes: ['read', 'write'], tier: 'prime', userId: THIRD_USER });
    requester = new RestClient(sim.httpUrl, requesterKey);
    maker = new RestClient(sim.httpUrl, makerKey);
    third = new RestClient(sim.httpUrl, thirdKey);
  });
  afterAll(async () => {
    await sim.close();
  });

  async function rfq(body: Record<string, unknown> = {}): Promise<string> {
    const created = await requester.post('/communications/rfqs', { market_ticker: MARKET, contracts_fp: '10', rest_remainder: false, ...body });
    expect(created.status, created.text).toBe(201);
    return created.body.id;
  }

  async function quote(rfqId: string, body: Record<string, unknown> = {}, client = maker): Promise<string> {
    const created = await client.post('/communications/quotes', { rfq_id: rfqId, yes_bid: '0.40', no_bid: '0.55', rest_remainder: false, ...body });
    expect(created.status, created.text).toBe(201);
    return created.body.id;
  }

  it('communications id: one pseudonymous id per user, never the user id', async () => {
    const mine = await requester.get('/communications/id');
    check('GET', '/communications/id', 200, mine.body);
    const again = await requester.get('/communications/id');
    const theirs = await maker.get('/communications/id');
    expect(again.body.communications_id).toBe(mine.body.communications_id);
    expect(theirs.body.communications_id).not.toBe(mine.body.communications_id);
    expect(mine.body.communications_id).not.toContain(sim.userId);
  });

  it('lifecycle: create, quote, accept, confirm, executed, with fills, positions, balances and the messages of each party', async () => {
    const wsRequester = await WsClient.open(sim.wsUrl, requesterKey);
    const wsMaker = await WsClient.open(sim.wsUrl, makerKey);
    const wsThird = await WsClient.open(sim.wsUrl, thirdKey);
    try {
      for (const ws of [wsRequester, wsMaker, wsThird]) await ws.subscribe({ channels: ['communications'] });
      const balances = async (): Promise<{ requester: any; maker: any }> => ({
        requester: (await requester.get('/portfolio/balance?subaccount=0')).body,
        maker: (await maker.get('/portfolio/balance?subaccount=0')).body,
      });
      const before = await balances();
      const created = await requester.post('/communications/rfqs', { market_ticker: MARKET, contracts_fp: '10.57', rest_remainder: false });
      check('POST', '/communications/rfqs', 201, created.body);
      const rfqId = created.body.id;
      // Every RFQ is broadcast publicly.
      for (const ws of [wsRequester, wsMaker, wsThird]) {
        const message = await ws.waitFor((m) => m.type === 'rfq_created' && m.msg.id === rfqId);
        expect(message.msg).toMatchObject({ market_ticker: MARKET, event_ticker: 'KXDEMO-26DEC31', contracts_fp: '10.57' });
      }
      const fetched = await maker.get(`/communications/rfqs/${rfqId}`);
      check('GET', '/communications/rfqs/{rfq_id}', 200, fetched.body);
      expect(fetched.body.rfq).toMatchObject({ id: rfqId, status: 'open', contracts_fp: '10.57', rest_remainder: false });
      expect(fetched.body.rfq.creator_user_id).toBeUndefined(); // private to the creator
      const own = await requester.get(`/communications/rfqs/${rfqId}`);
      expect(own.body.rfq).toMatchObject({ creator_user_id: sim.userId, creator_subaccount: 0 });

      const quoted = await maker.post('/communications/quotes', { rfq_id: rfqId, yes_bid: '0.40', no_bid: '0.55', rest_remainder: false });
      check('POST', '/communications/quotes', 201, quoted.body);
      const quoteId = quoted.body.id;
      for (const ws of [wsRequester, wsMaker]) {
        const message = await ws.waitFor((m) => m.type === 'quote_created' && m.msg.quote_id === quoteId);
        expect(message.msg).toMatchObject({ rfq_id: rfqId, yes_bid_dollars: '0.4000', no_bid_dollars: '0.5500', yes_contracts_offered_fp: '10.57' });
        expect(message.msg.subaccount).toBeUndefined(); // both sides on the primary account
      }
      const seenByRequester = await requester.get(`/communications/rfqs/${rfqId}/quotes/${quoteId}`);
      check('GET', '/communications/rfqs/{rfq_id}/quotes/{quote_id}', 200, seenByRequester.body);
      expect(seenByRequester.body.quote).toMatchObject({ id: quoteId, rfq_id: rfqId, status: 'open', contracts_fp: '10.57', rfq_creator_user_id: sim.userId });
      expect(seenByRequester.body.quote.creator_user_id).toBeUndefined();
      expect(seenByRequester.body.quote.post_only).toBeUndefined();

      const accepted = await requester.put(`/communications/rfqs/${rfqId}/quotes/${quoteId}/accept`, { accepted_side: 'yes' });
      expect(accepted.status, accepted.text).toBe(204);
      for (const ws of [wsRequester, wsMaker]) {
        const message = await ws.waitFor((m) => m.type === 'quote_accepted' && m.msg.quote_id === quoteId);
        expect(message.msg).toMatchObject({ accepted_side: 'yes', contracts_accepted_fp: '10.57' });
      }
      expect((await maker.get(`/communications/rfqs/${rfqId}/quotes/${quoteId}`)).body.quote).toMatchObject({ status: 'accepted', accepted_side: 'yes' });

      const confirmed = await maker.put(`/communications/rfqs/${rfqId}/quotes/${quoteId}/confirm`);
      expect(confirmed.status, confirmed.text).toBe(204);
      const makerExecuted = await wsMaker.waitFor((m) => m.type === 'quote_executed' && m.msg.quote_id === quoteId);
      const requesterExecuted = await wsRequester.waitFor((m) => m.type === 'quote_executed' && m.msg.quote_id === quoteId);
      expect(makerExecuted.msg.order_id).not.toBe(requesterExecuted.msg.order_id); // each its own order
      await wsThird.waitFor((m) => m.type === 'rfq_deleted' && m.msg.id === rfqId); // the RFQ closed: a barrier for the third party
      expect(wsThird.messages.filter((m) => m.type.startsWith('quote_'))).toEqual([]);

      const final = await maker.get(`/communications/rfqs/${rfqId}/quotes/${quoteId}`);
      expect(final.body.quote).toMatchObject({ status: 'executed', creator_order_id: makerExecuted.msg.order_id, post_only: false, creator_user_id: MAKER_USER });
      expect(final.body.quote.executed_ts).toEqual(expect.any(String));
      expect((await requester.get(`/communications/rfqs/${rfqId}`)).body.rfq).toMatchObject({ status: 'closed', cancellation_reason: 'executed' });

      // The requester bought 10.57 YES at 1 - 0.55 = 0.45 (resting, maker fee 0 on a quadratic
      // series); the quoter sold YES at 0.45 = bought NO at 0.55 as the taker.
      const requesterFills = await requester.get(`/portfolio/fills?order_id=${requesterExecuted.msg.order_id}`);
      expect(requesterFills.body.fills).toHaveLength(1);
      expect(requesterFills.body.fills[0]).toMatchObject({ count_fp: '10.57', yes_price_dollars: '0.4500', book_side: 'bid', is_taker: false, fee_cost: '0.000000' });
      const makerFills = await maker.get(`/portfolio/fills?order_id=${makerExecuted.msg.order_id}`);
      // Taker fee 0.07 x 10.57 x 0.45 x 0.55 = 0.18312525, rounded up to the centicent.
      expect(makerFills.body.fills[0]).toMatchObject({ count_fp: '10.57', yes_price_dollars: '0.4500', book_side: 'ask', is_taker: true, fee_cost: '0.183200' });
      expect(makerFills.body.fills[0].trade_id).toBe(requesterFills.body.fills[0].trade_id);
      const requesterPosition = await requester.get(`/portfolio/positions?ticker=${MARKET}`);
      expect(requesterPosition.body.market_positions[0]).toMatchObject({ position_fp: '10.57' });
      const makerPosition = await maker.get(`/portfolio/positions?ticker=${MARKET}`);
      expect(makerPosition.body.market_positions[0]).toMatchObject({ position_fp: '-10.57' });
      const after = await balances();
      const dollars = (text: string): number => Math.round(Number(text) * 10_000);
      expect(dollars(before.requester.balance_dollars) - dollars(after.requester.balance_dollars)).toBe(47_565); // 10.57 x 0.45
      expect(dollars(before.maker.balance_dollars) - dollars(after.maker.balance_dollars)).toBe(58_135 + 1_832); // 10.57 x 0.55 + fee
      const trades = await requester.get(`/markets/trades?ticker=${MARKET}`);
      expect(trades.body.trades[0]).toMatchObject({ trade_id: makerFills.body.fills[0].trade_id, count_fp: '10.57', yes_price_dollars: '0.4500', is_block_trade: false });

      for (const ws of [wsRequester, wsMaker, wsThird]) checkMessages(ws.messages);
    } finally {
      wsRequester.close();
      wsMaker.close();
      wsThird.close();
    }
  });

  it('a restricted key sees quote messages of its own subaccount only, with that subaccount', async () => {
    const locked = sim.createApiKey({ scopes: ['read', 'write'], tier: 'prime', subaccount: 3 });
    const sibling = sim.createApiKey({ scopes: ['read', 'write'], tier: 'prime', subaccount: 4 });
    const lockedClient = new RestClient(sim.httpUrl, locked);
    const wsLocked = await WsClient.open(sim.wsUrl, locked);
    const wsSibling = await WsClient.open(sim.wsUrl, sibling);
    try {
      await wsLocked.subscribe({ channels: ['communications'] });
      await wsSibling.subscribe({ channels: ['communications'] });
      const created = await lockedClient.post('/communications/rfqs', { market_ticker: MARKET, contracts: 2, rest_remainder: false });
      expect(created.status, created.text).toBe(201);
      const rfqId = created.body.id;
      expect((await lockedClient.get(`/communications/rfqs/${rfqId}`)).body.rfq.creator_subaccount).toBe(3);
      const quoteId = await quote(rfqId);
      const message = await wsLocked.waitFor((m) => m.type === 'quote_created' && m.msg.quote_id === quoteId);
      expect(message.msg.subaccount).toBe(3);
      await wsSibling.waitFor((m) => m.type === 'rfq_created' && m.msg.id === rfqId); // RFQs reach every subaccount
      const siblingClient = new RestClient(sim.httpUrl, sibling);
      checkError(await siblingClient.get(`/communications/rfqs/${rfqId}/quotes/${quoteId}`), 404, 'not_found');
      checkError(await siblingClient.put(`/communications/rfqs/${rfqId}/quotes/${quoteId}/accept`, { accepted_side: 'yes' }), 404, 'not_found');
      checkError(await lockedClient.post('/communications/rfqs', { market_ticker: MARKET, contracts: 2, rest_remainder: false, subaccount: 5 }), 403, 'forbidden');
      await requester.get('/communications/id'); // a round trip: the sibling's queue is flushed by now
      expect(wsSibling.messages.filter((m) => m.type === 'quote_created' && m.msg.quote_id === quoteId)).toEqual([]);
      checkMessages(wsLocked.messages);
    } finally {
      wsLocked.close();
      wsSibling.close();
    }
  });

  it('errors: quote not of the RFQ 404, third party 404, wrong party 403, wrong state 400, expired 400', async () => {
    const rfqA = await rfq();
    const rfqB = await rfq();
    const quoteA = await quote(rfqA);
    // A quote that is not the RFQ's is 404 on every scoped form.
    checkError(await requester.get(`/communications/rfqs/${rfqB}/quotes/${quoteA}`), 404, 'not_found');
    checkError(await maker.delete(`/communications/rfqs/${rfqB}/quotes/${quoteA}`), 404, 'not_found');
    checkError(await requester.put(`/communications/rfqs/${rfqB}/quotes/${quoteA}/accept`, { accepted_side: 'yes' }), 404, 'not_found');
    checkError(await maker.put(`/communications/rfqs/${rfqB}/quotes/${quoteA}/confirm`), 404, 'not_found');
    check('GET', '/communications/rfqs/{rfq_id}/quotes/{quote_id}', 404, (await requester.get(`/communications/rfqs/${rfqB}/quotes/${quoteA}`)).body.error);
    // Unknown, and a third party's view.
    checkError(await requester.get(`/communications/rfqs/${rfqA}/quotes/no-such-quote`), 404, 'not_found');
    checkError(await third.get(`/communications/rfqs/${rfqA}/quotes/${quoteA}`), 404, 'not_found');
    checkError(await requester.get('/communications/rfqs/no-such-rfq'), 404, 'not_found');
    // Wrong party.
    checkError(await maker.put(`/communications/rfqs/${rfqA}/quotes/${quoteA}/accept`, { accepted_side: 'yes' }), 403, 'forbidden');
    checkError(await requester.put(`/communications/rfqs/${rfqA}/quotes/${quoteA}/confirm`), 403, 'forbidden');
    checkError(await requester.delete(`/communications/rfqs/${rfqA}/quotes/${quoteA}`), 403, 'forbidden');
    // Wrong state.
    checkError(await maker.put(`/communications/rfqs/${rfqA}/quotes/${quoteA}/confirm`), 400, 'invalid_quote_status');
    const declined = await quote(rfqB, { yes_bid: '0.30', no_bid: '0' });
    checkError(await requester.put(`/communications/rfqs/${rfqB}/quotes/${declined}/accept`, { accepted_side: 'yes' }), 400, 'bad_request');
    checkError(await requester.put(`/communications/rfqs/${rfqB}/quotes/${declined}/accept`, { accepted_side: 'maybe' }), 400, 'bad_request');
    expect((await requester.put(`/communications/rfqs/${rfqA}/quotes/${quoteA}/accept`, { accepted_side: 'no' })).status).toBe(204);
    checkError(await requester.put(`/communications/rfqs/${rfqA}/quotes/${quoteA}/accept`, { accepted_side: 'no' }), 400, 'invalid_quote_status');
    checkError(await maker.delete(`/communications/rfqs/${rfqA}/quotes/${quoteA}`), 400, 'invalid_quote_status');
    // A new quote replaces the maker's earlier open one; the earlier is then expired.
    const replaced = await quote(rfqB, { yes_bid: '0.31', no_bid: '0.60' });
    const earlier = await maker.get(`/communications/rfqs/${rfqB}/quotes/${declined}`);
    expect(earlier.body.quote).toMatchObject({ status: 'cancelled', cancellation_reason: 'replaced' });
    const expired = await requester.put(`/communications/rfqs/${rfqB}/quotes/${declined}/accept`, { accepted_side: 'no' });
    checkError(expired, 400, 'quote_expired');
    expect(expired.body.error.details).toBe('EXPIRED');
    // Deleting an RFQ cancels its open quotes; a second delete is 404; quoting it is refused.
    const deleted = await requester.delete(`/communications/rfqs/${rfqB}`);
    expect(deleted.status).toBe(204);
    expect((await maker.get(`/communications/rfqs/${rfqB}/quotes/${replaced}`)).body.quote).toMatchObject({ status: 'cancelled', cancellation_reason: 'rfq_closed' });
    checkError(await requester.delete(`/communications/rfqs/${rfqB}`), 404, 'not_found');
    checkError(await maker.post('/communications/quotes', { rfq_id: rfqB, yes_bid: '0.30', no_bid: '0.60', rest_remainder: false }), 400, 'invalid_order');
    checkError(await maker.delete(`/communications/rfqs/${rfqA}`), 404, 'not_found'); // only the creator deletes
  });

  it('errors: RFQ sizes in 0.01 steps, sizing rules, quote prices on the grid', async () => {
    checkError(await requester.post('/communications/rfqs', { market_ticker: MARKET, contracts_fp: '1.005', rest_remainder: false }), 400, 'invalid_order_size');
    checkError(await requester.post('/communications/rfqs', { market_ticker: MARKET, contracts_fp: '0', rest_remainder: false }), 400, 'invalid_order_size');
    checkError(await requester.post('/communications/rfqs', { market_ticker: MARKET, rest_remainder: false }), 400, 'bad_request');
    checkError(await requester.post('/communications/rfqs', { market_ticker: MARKET, contracts: 3, contracts_fp: '2.00', rest_remainder: false }), 400, 'bad_request');
    checkError(await requester.post('/communications/rfqs', { market_ticker: MARKET, contracts_fp: '2', target_cost_dollars: '5', rest_remainder: false }), 400, 'bad_request');
    checkError(await requester.post('/communications/rfqs', { market_ticker: MARKET, contracts_fp: '2' }), 400, 'bad_request');
    checkError(await requester.post('/communications/rfqs', { market_ticker: 'KXNOPE-1', contracts_fp: '2', rest_remainder: false }), 404, 'market_not_found');
    checkError(await requester.post('/communications/rfqs', { market_ticker: 'KXCPI-26JUN-T3', contracts_fp: '2', rest_remainder: false }), 400, 'market_closed');
    const flat = await requester.post('/communications/rfqs', { market_ticker: MARKET, contracts_fp: 2, rest_remainder: false });
    expect(flat.status).toBe(400);
    expect(flat.body.code).toBe('bad_request'); // a JSON number for a fixed-point string: flat shape
    const id = await rfq({ contracts_fp: '0.01' });
    expect((await requester.get(`/communications/rfqs/${id}`)).body.rfq.contracts_fp).toBe('0.01');
    checkError(await maker.post('/communications/quotes', { rfq_id: id, yes_bid: '0', no_bid: '0', rest_remainder: false }), 400, 'invalid_price');
    checkError(await maker.post('/communications/quotes', { rfq_id: id, yes_bid: '0.405', no_bid: '0', rest_remainder: false }), 400, 'invalid_price');
    checkError(await maker.post('/communications/quotes', { rfq_id: id, yes_bid: '1', no_bid: '0', rest_remainder: false }), 400, 'invalid_price');
    checkError(await maker.post('/communications/quotes', { rfq_id: 'no-such-rfq', yes_bid: '0.40', no_bid: '0', rest_remainder: false }), 404, 'not_found');
    checkError(await requester.post('/communications/quotes', { rfq_id: id, yes_bid: '0.40', no_bid: '0', rest_remainder: false }), 400, 'invalid_order');
    // Target cost: the exchange derives the contracts from the quote prices.
    const byCost = await rfq({ contracts_fp: undefined, target_cost_dollars: '9.00' });
    const costQuote = await quote(byCost, { yes_bid: '0.40', no_bid: '0.55' });
    const seen = await maker.get(`/communications/rfqs/${byCost}/quotes/${costQuote}`);
    // YES at 1 - 0.55 = 0.45: 9 / 0.45 = 20 contracts; NO at 0.60: 15.
    expect(seen.body.quote).toMatchObject({ yes_contracts_fp: '20.00', no_contracts_fp: '15.00', rfq_target_cost_dollars: '9.0000' });
    expect((await requester.get(`/communications/rfqs/${byCost}`)).body.rfq).toMatchObject({ contracts_fp: '0.00', target_cost_dollars: '9.0000' });
  });

  it('lists: RFQs public with filters, quotes to their parties with filters, validated', async () => {
    const id = await rfq({ contracts_fp: '3' });
    const quoteId = await quote(id);
    const rfqs = await third.get(`/communications/rfqs?market_ticker=${MARKET}&status=open&limit=100`);
    check('GET', '/communications/rfqs', 200, rfqs.body);
    expect(rfqs.body.rfqs.map((r: any) => r.id)).toContain(id);
    const mine = await requester.get('/communications/rfqs?user_filter=self');
    expect(mine.body.rfqs.every((r: any) => r.creator_user_id === sim.userId)).toBe(true);
    expect((await third.get('/communications/rfqs?user_filter=self')).body.rfqs).toEqual([]);
    const page = await requester.get('/communications/rfqs?limit=1');
    expect(page.body.rfqs).toHaveLength(1);
    expect(page.body.cursor).not.toBe('');
    expect((await requester.get('/communications/rfqs?limit=101')).body).toEqual({ msg: expect.any(String) });
    const quotes = await maker.get(`/communications/quotes?rfq_id=${id}`);
    check('GET', '/communications/quotes', 200, quotes.body);
    expect(quotes.body.quotes.map((q: any) => q.id)).toEqual([quoteId]);
    expect((await requester.get(`/communications/quotes?rfq_user_filter=self&rfq_id=${id}`)).body.quotes).toHaveLength(1);
    expect((await requester.get(`/communications/quotes?user_filter=self&rfq_id=${id}`)).body.quotes).toHaveLength(0);
    expect((await third.get(`/communications/quotes?rfq_id=${id}`)).body.quotes).toEqual([]);
    expect((await maker.get(`/communications/quotes?rfq_id=${id}&status=executed`)).body.quotes).toEqual([]);
    const future = Math.floor(Date.now() / 1000) + 3600;
    expect((await maker.get(`/communications/quotes?rfq_id=${id}&min_ts=${future}`)).body.quotes).toEqual([]);
  });

  it('deprecated quote-id-only forms: get, delete, accept and confirm behave as the scoped forms', async () => {
    const id = await rfq({ contracts_fp: '1' });
    const first = await quote(id);
    const got = await requester.get(`/communications/quotes/${first}`);
    check('GET', '/communications/quotes/{quote_id}', 200, got.body);
    expect(got.body.quote.rfq_id).toBe(id);
    expect((await maker.delete(`/communications/quotes/${first}`)).status).toBe(204);
    expect((await maker.get(`/communications/quotes/${first}`)).body.quote.status).toBe('cancelled');
    const second = await quote(id);
    expect((await requester.put(`/communications/quotes/${second}/accept`, { accepted_side: 'no' })).status).toBe(204);
    expect((await maker.put(`/communications/quotes/${second}/confirm`)).status).toBe(204);
    expect((await maker.get(`/communications/quotes/${second}`)).body.quote).toMatchObject({ status: 'executed', accepted_side: 'no' });
    checkError(await third.get(`/communications/quotes/${second}`), 404, 'not_found');
  });

  it('post-only quotes: a quote crossing the book is refused; three crossings rate-limit the quoter (429)', async () => {
    const quoter = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read', 'write'], tier: 'prime', userId: 'c0ffee00-0000-4000-8000-00000000a004' }));
    const market = 'KXFEDDECISION-26DEC-C50';
    // Resting liquidity: an ask at 0.30 (YES), so a YES bid at 0.30 or above would take it.
    const resting = await third.post('/portfolio/events/orders', order({ ticker: market, side: 'ask', price: '0.30', count: '5' }));
    expect(resting.status).toBe(201);
    const created = await requester.post('/communications/rfqs', { market_ticker: market, contracts_fp: '1', rest_remainder: false });
    const id = created.body.id;
    const ok = await quoter.post('/communications/quotes', { rfq_id: id, yes_bid: '0.29', no_bid: '0.60', rest_remainder: false, post_only: true });
    expect(ok.status, ok.text).toBe(201);
    expect((await quoter.get(`/communications/quotes/${ok.body.id}`)).body.quote.post_only).toBe(true);
    for (let i = 0; i < 3; i++) {
      const crossed = await quoter.post('/communications/quotes', { rfq_id: id, yes_bid: '0.31', no_bid: '0.60', rest_remainder: false, post_only: true });
      checkError(crossed, 400, 'invalid_order');
      expect(crossed.body.error.details).toBe('post only cross');
    }
    const limited = await quoter.post('/communications/quotes', { rfq_id: id, yes_bid: '0.20', no_bid: '0.60', rest_remainder: false, post_only: true });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'too many requests' });
    // Not post-only and not crossing: fine for another quoter.
    expect((await maker.post('/communications/quotes', { rfq_id: id, yes_bid: '0.31', no_bid: '0.60', rest_remainder: false })).status).toBe(201);
  });

  it('communications subscription parameters: user_filter self and the shard errors 19-22', async () => {
    const ws = await WsClient.open(sim.wsUrl, thirdKey);
    try {
      const expectError = async (params: Record<string, unknown>, code: number): Promise<void> => {
        const id = ws.send('subscribe', { channels: ['communications'], ...params });
        const reply = await ws.waitFor((m) => m.id === id);
        expect(reply).toMatchObject({ type: 'error', msg: { code } });
      };
      await expectError({ shard_factor: 0 }, 19);
      await expectError({ shard_key: 1 }, 20);
      await expectError({ shard_factor: 4, shard_key: 4 }, 21);
      await expectError({ shard_factor: 101 }, 22);
      await expectError({ user_filter: 'others' }, 11);
      const [self] = await ws.subscribe({ channels: ['communications'], user_filter: 'self' });
      const [all] = await ws.subscribe({ channels: ['communications'], shard_factor: 1, shard_key: 0 });
      const id = await rfq({ contracts_fp: '1' });
      await ws.waitFor((m) => m.type === 'rfq_created' && m.msg.id === id && m.sid === all.msg.sid);
      const own = await third.post('/communications/rfqs', { market_ticker: MARKET, contracts_fp: '1', rest_remainder: false });
      await ws.waitFor((m) => m.type === 'rfq_created' && m.msg.id === own.body.id && m.sid === self.msg.sid);
      expect(ws.messages.filter((m) => m.sid === self.msg.sid && m.type === 'rfq_created').map((m) => m.msg.id)).toEqual([own.body.id]);
    } finally {
      ws.close();
    }
  });

  it('the official client reads and drives the RFQ routes', async () => {
    // Every client instance adds its signing interceptor to the axios instance it is given (the
    // global one by default, where one key would sign for all, rest.md §1 client quirk): each
    // party gets an axios instance of its own.
    const configuration = (key: KeyPair): Configuration => new Configuration({ basePath: `${sim.httpUrl}/trade-api/v2`, apiKey: key.keyId, privateKeyPem: key.privateKeyPem });
    const requesterApi = new CommunicationsApi(configuration(requesterKey), undefined, axios.create());
    const makerApi = new CommunicationsApi(configuration(makerKey), undefined, axios.create());
    const asRequester = (): CommunicationsApi => requesterApi;
    const asMaker = (): CommunicationsApi => makerApi;
    const id = (await asRequester().getCommunicationsID()).data.communications_id;
    const created = await asRequester().createRFQ({ market_ticker: MARKET, contracts_fp: '2.50', rest_remainder: false });
    expect(created.status).toBe(201);
    const rfqId = created.data.id;
    expect((await asMaker().getRFQ(rfqId)).data.rfq).toMatchObject({ id: rfqId, creator_id: id, contracts_fp: '2.50' });
    expect((await asMaker().getRFQs(undefined, undefined, MARKET)).data.rfqs.map((r) => r.id)).toContain(rfqId);
    const quoted = await asMaker().createQuote({ rfq_id: rfqId, yes_bid: '0.40', no_bid: '0.50', rest_remainder: false });
    const quoteId = quoted.data.id;
    const listed = await asRequester().getQuotes(undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, rfqId);
    expect(listed.data.quotes[0].id).toBe(quoteId);
    expect((await asRequester().acceptRFQQuote(rfqId, quoteId, { accepted_side: 'yes' })).status).toBe(204);
    expect((await asMaker().confirmRFQQuote(rfqId, quoteId, {})).status).toBe(204);
    expect((await asMaker().getRFQQuote(rfqId, quoteId)).data.quote.status).toBe('executed');
    expect((await asMaker().getQuote(quoteId)).data.quote.status).toBe('executed'); // deprecated form
    let caught: any;
    try {
      await asRequester().getRFQQuote('not-this-rfq', quoteId);
    } catch (error) {
      caught = error;
    }
    expect(caught?.response?.status).toBe(404);
  });
});

describe('RFQ timers, roll and retention on an injected clock', () => {
  let sim: Awaited<ReturnType<typeof startTestSim>>;
  const clock = { ms: Date.now() };
  let requester: RestClient;
  let maker: RestClient;

  /** Requests signed at the simulator's time (its timestamp window follows its clock). */
  function at(client: RestClient, method: string, path: string, body?: unknown): Promise<RestResult> {
    return client.request(method, path, body ?? (method === 'PUT' ? {} : undefined), client.headers(method, path, clock.ms));
  }

  beforeAll(async () => {
    sim = await startTestSim({ clock: { nowMs: () => clock.ms }, engineOptions: { rfqExecutionDelayMs: 2_000 } });
    requester = new RestClient(sim.httpUrl, sim.demoKey);
    maker = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read', 'write'], tier: 'prime', userId: MAKER_USER }));
  });
  afterAll(async () => {
    await sim.close();
  });

  async function rfqAndQuote(): Promise<{ rfqId: string; quoteId: string }> {
    const created = await at(requester, 'POST', '/communications/rfqs', { market_ticker: MARKET, contracts_fp: '1', rest_remainder: false });
    expect(created.status, created.text).toBe(201);
    const quoted = await at(maker, 'POST', '/communications/quotes', { rfq_id: created.body.id, yes_bid: '0.40', no_bid: '0.55', rest_remainder: false });
    expect(quoted.status, quoted.text).toBe(201);
    return { rfqId: created.body.id, quoteId: quoted.body.id };
  }

  it('token costs: quote create, delete and get by id cost 2; RFQ writes use the write bucket', async () => {
    // On this clock the buckets do not refill between the reads and the request (on the wall
    // clock a slow request let the write bucket refill past the quote's cost).
    const costs = await new RestClient(sim.httpUrl, null).get('/account/endpoint_costs');
    for (const [method, path] of [
      ['POST', '/communications/quotes'],
      ['DELETE', '/communications/rfqs/{rfq_id}/quotes/{quote_id}'],
      ['DELETE', '/communications/quotes/{quote_id}'],
      ['GET', '/communications/rfqs/{rfq_id}/quotes/{quote_id}'],
      ['GET', '/communications/quotes/{quote_id}'],
    ]) {
      expect(costs.body.endpoint_costs).toContainEqual({ method, path: `/trade-api/v2${path}`, cost: 2 });
    }
    const basic = sim.createApiKey({ scopes: ['read', 'write'], tier: 'basic', userId: 'c0ffee00-0000-4000-8000-00000000a003' });
    const client = new RestClient(sim.httpUrl, basic);
    const rfq = await at(requester, 'POST', '/communications/rfqs', { market_ticker: MARKET, contracts_fp: '1', rest_remainder: false });
    expect(rfq.status, rfq.text).toBe(201);
    const writeBefore = sim.rateLimiter.available(basic.keyId, 'basic', 'write');
    const created = await at(client, 'POST', '/communications/quotes', { rfq_id: rfq.body.id, yes_bid: '0.20', no_bid: '0.20', rest_remainder: false });
    expect(created.status, created.text).toBe(201);
    expect(writeBefore - sim.rateLimiter.available(basic.keyId, 'basic', 'write')).toBe(2);
    const readBefore = sim.rateLimiter.available(basic.keyId, 'basic', 'read');
    expect((await at(client, 'GET', `/communications/rfqs/${rfq.body.id}/quotes/${created.body.id}`)).status).toBe(200);
    expect(readBefore - sim.rateLimiter.available(basic.keyId, 'basic', 'read')).toBe(2);
  });

  it('confirmed is durable until the execution delay ends, then executed', async () => {
    const { rfqId, quoteId } = await rfqAndQuote();
    expect((await at(requester, 'PUT', `/communications/rfqs/${rfqId}/quotes/${quoteId}/accept`, { accepted_side: 'yes' })).status).toBe(204);
    expect((await at(maker, 'PUT', `/communications/rfqs/${rfqId}/quotes/${quoteId}/confirm`)).status).toBe(204);
    expect((await at(maker, 'GET', `/communications/rfqs/${rfqId}/quotes/${quoteId}`)).body.quote.status).toBe('confirmed');
    sim.engine.rollQuotes(); // confirmed survives a roll
    expect((await at(maker, 'GET', `/communications/rfqs/${rfqId}/quotes/${quoteId}`)).body.quote.status).toBe('confirmed');
    clock.ms += 2_000;
    const executed = await at(maker, 'GET', `/communications/rfqs/${rfqId}/quotes/${quoteId}`);
    expect(executed.body.quote).toMatchObject({ status: 'executed', creator_order_id: expect.any(String) });
  });

  it('an accepted quote not confirmed within 30 s expires', async () => {
    const { rfqId, quoteId } = await rfqAndQuote();
    expect((await at(requester, 'PUT', `/communications/rfqs/${rfqId}/quotes/${quoteId}/accept`, { accepted_side: 'no' })).status).toBe(204);
    clock.ms += 30_001;
    const late = await at(maker, 'PUT', `/communications/rfqs/${rfqId}/quotes/${quoteId}/confirm`);
    expect(late.status).toBe(400);
    expect(late.body.error).toMatchObject({ code: 'quote_expired', details: 'EXPIRED' });
    expect((await at(maker, 'GET', `/communications/quotes/${quoteId}`)).body.quote).toMatchObject({ status: 'cancelled', cancellation_reason: 'confirm_timeout' });
  });

  it('a roll clears open quotes (404 afterwards on every form) and keeps accepted ones', async () => {
    const open = await rfqAndQuote();
    const accepted = await rfqAndQuote();
    expect((await at(requester, 'PUT', `/communications/rfqs/${accepted.rfqId}/quotes/${accepted.quoteId}/accept`, { accepted_side: 'yes' })).status).toBe(204);
    expect(sim.engine.rollQuotes()).toBeGreaterThanOrEqual(1);
    for (const [client, method, path, body] of [
      [requester, 'GET', `/communications/rfqs/${open.rfqId}/quotes/${open.quoteId}`, undefined],
      [requester, 'GET', `/communications/quotes/${open.quoteId}`, undefined],
      [requester, 'PUT', `/communications/rfqs/${open.rfqId}/quotes/${open.quoteId}/accept`, { accepted_side: 'yes' }],
      [maker, 'DELETE', `/communications/rfqs/${open.rfqId}/quotes/${open.quoteId}`, undefined],
    ] as const) {
      const result = await at(client, method, path, body);
      expect(result.status, `${method} ${path}`).toBe(404);
      expect(result.body.error.code).toBe('not_found');
    }
    expect((await at(requester, 'GET', `/communications/quotes/${accepted.quoteId}`)).body.quote.status).toBe('accepted');
    expect((await at(requester, 'GET', `/communications/rfqs/${open.rfqId}`)).body.rfq.status).toBe('open'); // RFQs are not cleared
  });

  it('retention: closed RFQs and cancelled quotes are kept 7 days after their last update', async () => {
    const { rfqId, quoteId } = await rfqAndQuote();
    expect((await at(maker, 'DELETE', `/communications/rfqs/${rfqId}/quotes/${quoteId}`)).status).toBe(204);
    expect((await at(requester, 'DELETE', `/communications/rfqs/${rfqId}`)).status).toBe(204);
    const week = 7 * 24 * 3_600_000;
    clock.ms += week - 1;
    expect((await at(maker, 'GET', `/communications/quotes/${quoteId}`)).status).toBe(200);
    expect((await at(requester, 'GET', `/communications/rfqs/${rfqId}`)).status).toBe(200);
    clock.ms += 1;
    expect((await at(maker, 'GET', `/communications/quotes/${quoteId}`)).status).toBe(404);
    expect((await at(requester, 'GET', `/communications/rfqs/${rfqId}`)).status).toBe(404);
  });
});

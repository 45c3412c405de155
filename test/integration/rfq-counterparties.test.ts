/**
 * Goal: with market activity on, the simulator's RFQ participants are counterparties on the wire
 * (src/sim/activity/rfq-participants.ts). (1) The official kalshi-typescript client as a maker sees
 * other participants' RFQs on the `communications` WebSocket channel, quotes them over REST inside
 * the book's spread until one is accepted (a bounded number), confirms, is executed and gets the
 * whole fill, the messages in the documented order
 * (rfq_created, quote_created, quote_accepted, quote_executed, rfq_deleted). (2) The same cycle on a
 * KalshiRFQ FIX session: 35=R, 35=S, AI PENDING, AI ACCEPTED, U7, U8 and the ExecutionReport.
 * (3) A user's RFQ receives a simulated quote within a few seconds. (4) Same seed -> the same
 * participant RFQs (market, size) in the same order; another seed -> different ones.
 * Method: in-process simulators on 127.0.0.1 port 0 with activity and a high RFQ rate; clients over
 * real sockets; every wait bounded by time (the cycle within 20 s).
 */

import { createPrivateKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommunicationsApi, Configuration, MarketApi, PortfolioApi } from 'kalshi-typescript';
import { MsgType, Tag } from '../../src/fix/index.ts';
import { RestClient, WsClient } from '../sim/helpers/clients.ts';
import { MARKET, startTestSim } from '../sim/helpers/test-sim.ts';
import { FixTestClient, until, type Received } from '../sim/fix/fix-test-client.ts';

type Sim = Awaited<ReturnType<typeof startTestSim>>;

const FIX_MAKER = 'c0ffee00-0000-4000-8000-00000000c001';
const REQUESTER = 'c0ffee00-0000-4000-8000-00000000c002';

/**
 * Activity on (books with a spread), RFQs often, every acceptable quote accepted: a cycle completes
 * in seconds. A modest book rate keeps the touch still between a quote and its acceptance.
 */
function startActivitySim(seed: number, fix = false): Promise<Sim> {
  return startTestSim({
    seed,
    activity: { updatesPerSec: 50, rfqsPerMinute: 600, rfq: { acceptPerMille: 1_000, quoteWindowMs: 1_000 } },
    ...(fix ? { fix: { enabled: true } } : {}),
  });
}

/**
 * A quote strictly inside MARKET's spread, whole cents (its grid is linear_cent): YES bid one cent
 * over the best bid, YES ask one cent under the best ask. The participants accept only quotes
 * inside the spread (the requester's order enters the book first at execution); null when the
 * spread is too narrow for that.
 */
async function insideQuote(configuration: Configuration): Promise<{ yesBidCents: number; yesAskCents: number } | null> {
  const book = (await new MarketApi(configuration).getMarketOrderbook(MARKET)).data.orderbook_fp;
  const best = (levels: string[][] | undefined): number => Math.max(0, ...(levels ?? []).map(([price]) => Math.round(Number(price) * 100)));
  const bid = best(book.yes_dollars as string[][]);
  const noBid = best(book.no_dollars as string[][]);
  const ask = noBid === 0 ? 100 : 100 - noBid;
  if (ask - bid < 2) return null;
  return { yesBidCents: bid === 0 ? ask - 2 : bid + 1, yesAskCents: ask === 100 ? bid + 2 : ask - 1 };
}

const QUOTED_RFQS_MAX = 12;

describe('RFQ counterparties in the simulator', () => {
  let sim: Sim;

  beforeAll(async () => {
    sim = await startActivitySim(21, true);
  });
  afterAll(async () => {
    await sim.close();
  });

  it('the official client quotes participant RFQs seen on communications: accepted, confirmed, executed, filled', async () => {
    const configuration = new Configuration({ basePath: `${sim.httpUrl}/trade-api/v2`, apiKey: sim.demoKey.keyId, privateKeyPem: sim.demoKey.privateKeyPem });
    const communications = new CommunicationsApi(configuration);
    const ws = await WsClient.open(sim.wsUrl, sim.demoKey);
    try {
      await ws.subscribe({ channels: ['communications'] });
      // Quote each plain participant RFQ on MARKET until one of our quotes is accepted.
      const quoted = new Map<string, { rfq: any; quoteId: string }>();
      let accepted: any;
      const deadline = Date.now() + 20_000;
      while (accepted === undefined && Date.now() < deadline && quoted.size < QUOTED_RFQS_MAX) {
        const rfqs = ws.messages.filter((m) => m.type === 'rfq_created' && m.msg.market_ticker === MARKET && m.msg.contracts_fp !== undefined && !quoted.has(m.msg.id));
        const rfq = rfqs.at(-1);
        const prices = rfq === undefined ? null : await insideQuote(configuration);
        if (rfq !== undefined && prices !== null) {
          expect(rfq.msg.creator_id).toMatch(/^[0-9a-f]{32}$/);
          const quote = await communications.createQuote({
            rfq_id: rfq.msg.id, yes_bid: (prices.yesBidCents / 100).toFixed(4), no_bid: ((100 - prices.yesAskCents) / 100).toFixed(4), rest_remainder: false,
          });
          expect(quote.status).toBe(201);
          quoted.set(rfq.msg.id, { rfq, quoteId: quote.data.id });
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
        const ours = new Set([...quoted.values()].map((q) => q.quoteId));
        accepted = ws.messages.find((m) => m.type === 'quote_accepted' && ours.has(m.msg.quote_id));
      }
      expect(accepted, `none of ${quoted.size} quotes accepted`).toBeDefined();
      const { rfq: created, quoteId } = [...quoted.values()].find((q) => q.quoteId === accepted.msg.quote_id)!;
      const rfqId = created.msg.id as string;
      expect(['yes', 'no']).toContain(accepted.msg.accepted_side);
      expect(accepted.msg.contracts_accepted_fp).toBe(created.msg.contracts_fp);
      const confirmed = await communications.confirmRFQQuote(rfqId, quoteId);
      expect(confirmed.status).toBe(204);
      const executed = await ws.waitFor((m) => m.type === 'quote_executed' && m.msg.quote_id === quoteId, 5_000);
      const deleted = await ws.waitFor((m) => m.type === 'rfq_deleted' && m.msg.id === rfqId, 5_000);
      const order = [created, ws.messages.find((m) => m.type === 'quote_created' && m.msg.quote_id === quoteId), accepted, executed, deleted]
        .map((m) => ws.messages.indexOf(m));
      expect(order[1]).toBeGreaterThan(-1);
      expect(order).toEqual([...order].sort((a, b) => a - b));

      const fills = await new PortfolioApi(configuration).getFills(undefined, executed.msg.order_id as string);
      const filled = fills.data.fills.reduce((sum, fill) => sum + Math.round(Number(fill.count_fp) * 100), 0);
      // The requester's order enters the book first and may take resting orders the activity moved
      // across the quote's price since it was made (a slow machine: more time between accept and
      // confirm); the quoter's order fills what is left of the accepted size, never more.
      expect(filled).toBeGreaterThan(0);
      expect(filled).toBeLessThanOrEqual(Math.round(Number(created.msg.contracts_fp) * 100));
      expect(fills.data.fills.every((fill) => fill.is_taker)).toBe(true); // the quoter's order is the taker
      const final = await communications.getQuote(quoteId);
      expect(final.data.quote.status).toBe('executed');
    } finally {
      ws.close();
    }
  }, 30_000);

  it('the same cycle on a KalshiRFQ FIX session: R, S, AI PENDING, AI ACCEPTED, U7, U8 and the execution', async () => {
    const key = sim.createApiKey({ scopes: ['read', 'write'], tier: 'prime', userId: FIX_MAKER });
    // The book is public: read with the demo configuration (the official client signs with the
    // process's first key anyway; see the note in the next test).
    const configuration = new Configuration({ basePath: `${sim.httpUrl}/trade-api/v2`, apiKey: sim.demoKey.keyId, privateKeyPem: sim.demoKey.privateKeyPem });
    const maker = await new FixTestClient({ port: sim.fix!.ports.KalshiRFQ, sessionName: 'KalshiRFQ', keyId: key.keyId, privateKey: createPrivateKey(key.privateKeyPem) }).open();
    try {
      const requests = new Map<string, Received>(); // client quote id -> the QuoteRequest it answers
      const isAccepted = (m: Received) => m.msgType === MsgType.QuoteStatusReport && m.fields.get(Tag.QuoteStatus) === '0';
      const deadline = Date.now() + 20_000;
      while (!maker.received.some(isAccepted) && Date.now() < deadline && requests.size < QUOTED_RFQS_MAX) {
        const answered = new Set([...requests.values()].map((r) => r.fields.get(Tag.QuoteReqID)));
        const request = maker.received.filter((m) => m.msgType === MsgType.QuoteRequest && m.fields.get(Tag.Symbol) === MARKET && m.fields.has(Tag.OrderQty)
          && !answered.has(m.fields.get(Tag.QuoteReqID))).at(-1);
        const prices = request === undefined ? null : await insideQuote(configuration);
        if (request !== undefined && prices !== null) {
          const clientQuoteId = `fix-maker-${process.pid}-${requests.size}`;
          // BidPx is the YES price, OfferPx the NO price, in cents (fix.md §4).
          maker.send(MsgType.Quote, (e) => e.string(Tag.QuoteID, clientQuoteId).string(Tag.QuoteReqID, request.fields.get(Tag.QuoteReqID)!).string(Tag.Symbol, MARKET)
            .string(Tag.BidPx, String(prices.yesBidCents)).string(Tag.OfferPx, String(100 - prices.yesAskCents)));
          requests.set(clientQuoteId, request);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const acceptedReport = maker.received.find(isAccepted);
      expect(acceptedReport, `none of ${requests.size} quotes accepted`).toBeDefined();
      const quoteId = acceptedReport!.fields.get(Tag.QuoteID)!;
      const rfqId = acceptedReport!.fields.get(Tag.QuoteReqID)!;
      const pendingAt = maker.received.findIndex((m) => m.msgType === MsgType.QuoteStatusReport && m.fields.get(Tag.QuoteID) === quoteId && m.fields.get(Tag.QuoteStatus) === '10');
      expect(pendingAt).toBeGreaterThanOrEqual(0);
      expect(pendingAt).toBeLessThan(maker.received.indexOf(acceptedReport!)); // AI PENDING before AI ACCEPTED
      const [clientQuoteId, request] = [...requests].find(([, r]) => r.fields.get(Tag.QuoteReqID) === rfqId)!;

      const from = maker.received.length;
      maker.send(MsgType.QuoteConfirm, (e) => e.string(Tag.QuoteID, clientQuoteId).string(Tag.RfqId, rfqId));
      const trade = await maker.next((m) => m.msgType === MsgType.ExecutionReport && m.fields.get(Tag.ExecType) === 'F', 'the execution', from);
      const after = maker.received.slice(from);
      const confirmAt = after.findIndex((m) => m.msgType === MsgType.QuoteConfirmStatus);
      expect(confirmAt).toBeGreaterThanOrEqual(0);
      expect(after[confirmAt].fields.get(Tag.QuoteConfirmStatus)).toBe('0');
      expect(confirmAt).toBeLessThan(after.indexOf(trade)); // U8 before the execution
      expect(trade.fields.get(Tag.ClOrdID)).toBe(clientQuoteId);
      expect(trade.fields.get(Tag.LastQty)).toBe(request.fields.get(Tag.OrderQty));
      expect(trade.fields.get(Tag.OrdStatus)).toBe('2');
      const rest = new RestClient(sim.httpUrl, key);
      const fills = await rest.get(`/portfolio/fills?order_id=${trade.fields.get(Tag.OrderID)}`);
      expect(fills.body.fills.map((fill: { count_fp: string }) => fill.count_fp)).toEqual([request.fields.get(Tag.OrderQty)]);
      const final = await rest.get(`/communications/quotes/${quoteId}`);
      expect(final.body.quote.status).toBe('executed');
      await maker.logout();
    } finally {
      maker.destroy();
    }
  }, 30_000);

  it('a user RFQ receives a simulated two-sided quote within a few seconds', async () => {
    // A second user, so through our signed client: kalshi-typescript 3.30.0 installs its signing
    // interceptor on the shared default axios instance, so the first Configuration's key signs
    // every request of the process (a second key's requests would go out as the demo user).
    const key = sim.createApiKey({ scopes: ['read', 'write'], tier: 'prime', userId: REQUESTER });
    const ws = await WsClient.open(sim.wsUrl, key);
    try {
      await ws.subscribe({ channels: ['communications'], user_filter: 'self' });
      const created = await new RestClient(sim.httpUrl, key).post('/communications/rfqs', { market_ticker: MARKET, contracts_fp: '7.00', rest_remainder: false });
      expect(created.status, created.text).toBe(201);
      const rfqId = created.body.id as string;
      const quote = await ws.waitFor((m) => m.type === 'quote_created' && m.msg.rfq_id === rfqId, 5_000);
      expect(Number(quote.msg.yes_bid_dollars)).toBeGreaterThan(0);
      expect(Number(quote.msg.no_bid_dollars)).toBeGreaterThan(0);
      // Around fair value: the requester's YES cost (1 - no_bid) above the YES bid, at most 0.10 apart.
      const yesCost = 1 - Number(quote.msg.no_bid_dollars);
      expect(yesCost).toBeGreaterThan(Number(quote.msg.yes_bid_dollars));
      expect(yesCost - Number(quote.msg.yes_bid_dollars)).toBeLessThanOrEqual(0.1);
      expect(quote.msg.yes_contracts_offered_fp).toBe('7.00');
    } finally {
      ws.close();
    }
  }, 20_000);
});

describe('RFQ participants are deterministic', () => {
  /** The first `count` RFQs of a fresh simulator, oldest first: market and size. */
  async function firstRfqs(seed: number, count: number): Promise<string[]> {
    const sim = await startActivitySim(seed);
    try {
      const rest = new RestClient(sim.httpUrl, sim.demoKey);
      let rfqs: { market_ticker: string; contracts_fp?: string; target_cost_dollars?: string }[] = [];
      for (let i = 0; i < 100 && rfqs.length < count; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const listed = await rest.get('/communications/rfqs?limit=100');
        expect(listed.status, listed.text).toBe(200);
        rfqs = listed.body.rfqs;
      }
      expect(rfqs.length).toBeGreaterThanOrEqual(count);
      return rfqs.reverse().slice(0, count).map((rfq) => `${rfq.market_ticker} ${rfq.contracts_fp} ${rfq.target_cost_dollars ?? '-'}`);
    } finally {
      await sim.close();
    }
  }

  it('the same seed gives the same first RFQs; another seed others', async () => {
    const first = await firstRfqs(33, 12);
    expect(await firstRfqs(33, 12)).toEqual(first);
    expect(await firstRfqs(34, 12)).not.toEqual(first);
  }, 40_000);
});

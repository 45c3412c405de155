/**
 * Goal: the runtime quotes on RFQs end to end over real sockets (issue 15 part 4, WebSocket +
 * REST): a second simulator user creates an RFQ; `communications` brings it to the rfq-maker
 * strategy, which prices it from the local book and quotes through the gate and the quote book
 * (POST /communications/quotes); the requester accepts; the strategy confirms after its last look;
 * the quote executes; the runtime's position equals the venue's and the quote book ends executed,
 * journaled; the execution's fill reaches the quoting strategy's onFill (its order is the venue's,
 * not the OMS's). Also: a quote the venue no longer has (a roll cleared it) is found cancelled by the
 * reconciliation from GET /communications/quotes; an RFQ above the strategy's size limit is not
 * answered. The same lifecycle with rfq.route "fix": RFQs arrive on the KalshiRFQ session (not on
 * `communications`), quotes and the confirm go out on it, and the open quote is booked in the
 * gate's exposure ledger (and released at execution).
 * Method: an in-process simulator without synthetic activity, a liquidity user that makes the
 * book (0.45 / 0.55), a requester user; a Runtime with rfq.enabled and the rfq-maker plugin.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { QuoteState } from '../../src/oms/index.ts';
import { validateConfig } from '../../src/runtime/config.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import { MARKET, ROOT_DIR, counterpartyKey, demoKey, orderBody, rest, startTestSim, waitUntil } from './helpers.ts';
import type { ApiKey, TestSim } from './helpers.ts';

let sim: TestSim;
let runtime: Runtime | null = null;
let liquidity: ApiKey;
let requester: ApiKey;

beforeAll(async () => {
  sim = await startTestSim({ fix: { enabled: true } });
  liquidity = counterpartyKey(sim, 'rfq-liquidity');
  requester = counterpartyKey(sim, 'rfq-requester');
  // The book the maker prices from: YES 0.45 bid, 0.55 ask.
  for (const [side, price] of [['bid', '0.4500'], ['ask', '0.5500']] as const) {
    const placed = await rest(sim, liquidity, 'POST', '/portfolio/events/orders', orderBody(side, price, '50.00'));
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
  }
});

afterEach(async () => {
  await runtime?.stop('test done');
  runtime = null;
});

afterAll(async () => {
  await sim.close();
});

function createRfqRuntime(journal: string, params: Record<string, unknown>, route: 'rest' | 'fix' = 'rest'): Runtime {
  const key = demoKey(sim);
  const config = validateConfig(
    {
      risk: { rateLimitTier: 'prime' },
      exec: { requestTimeoutMs: 1_000 },
      feed: { reconnectBackoffMinMs: 50, reconnectBackoffMaxMs: 200 },
      rfq: { enabled: true, maxOpenQuotes: 10, route },
      strategies: [{ id: 'rfq', plugin: 'strategies/rfq-maker.ts', subaccount: 0, orderGroup: null, markets: [MARKET], params }],
    },
    '<integration>',
    {},
  );
  return new Runtime({
    config,
    venue: {
      restUrl: `${sim.httpUrl}/trade-api/v2`, wsUrl: sim.wsUrl, keyId: key.keyId, privateKey: key.privateKey,
      rfq: route === 'fix' ? { host: sim.fix!.host, port: sim.fix!.ports.KalshiRFQ, tls: false } : null,
    },
    rootDir: ROOT_DIR,
    journalPath: join(sim.workDir, journal),
    logger: createLogger({ level: process.env.INTEGRATION_LOG_LEVEL ?? 'silent', pretty: false }),
    strategies: config.strategies,
    startTimeoutMs: 5_000,
    drainTimeoutMs: 3_000,
    pendingTimeoutMs: 2_000,
    unknownGraceMs: 3_000,
    reconcileIntervalMs: 200,
  });
}

async function createRfq(contracts: string): Promise<string> {
  const created = await rest(sim, requester, 'POST', '/communications/rfqs', { market_ticker: MARKET, contracts_fp: contracts, rest_remainder: false });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

async function venuePosition(): Promise<string | undefined> {
  const positions = await rest(sim, demoKey(sim), 'GET', `/portfolio/positions?ticker=${MARKET}`);
  return (positions.body.market_positions as { ticker: string; position_fp: string }[]).find((p) => p.ticker === MARKET)?.position_fp;
}

describe('RFQ quoting against the simulator (WebSocket + REST)', () => {
  it('quotes an RFQ from the book, confirms the accepted quote, and the execution moves both positions alike', async () => {
    const rt = createRfqRuntime('rfq-lifecycle.jsonl', { edge: '0.0200', maxContracts: '100.00', maxOpenQuotes: 5, postOnly: true });
    runtime = rt;
    await rt.start();
    // What reaches strategies' onFill, and for which strategy (the host's one entry point for fills).
    const fills: [string, number][] = [];
    const deliver = rt.host.onFill.bind(rt.host);
    rt.host.onFill = (fill, strategyId = -1) => {
      fills.push([fill.orderId, strategyId]);
      deliver(fill, strategyId);
    };
    await waitUntil(() => rt.feed.books.get(MARKET)?.synced === true, 5_000, 'book synced');
    const before = await venuePosition();
    expect(before === undefined || before === '0.00').toBe(true);

    const rfqId = await createRfq('10.00');
    const book = rt.quoteBook!;
    await waitUntil(() => [...book.quotes()].some((q) => q.rfqId === rfqId && q.state === QuoteState.OPEN), 5_000, 'our quote open');
    const quote = [...book.quotes()].find((q) => q.rfqId === rfqId)!;
    // mid 0.50, edge 0.02: YES bid 0.48, YES-equivalent ask 0.52 -> NO bid 0.48; 10 contracts.
    expect([quote.yesBid, quote.noBid, quote.count, quote.postOnly]).toEqual([4800, 4800, 1000, true]);
    const listed = await rest(sim, requester, 'GET', `/communications/quotes?rfq_id=${rfqId}`);
    const venueQuote = (listed.body.quotes as { id: string; yes_bid_dollars: string; no_bid_dollars: string; status: string }[])[0];
    expect(venueQuote).toMatchObject({ id: quote.quoteId, yes_bid_dollars: '0.4800', no_bid_dollars: '0.4800', status: 'open' });

    // The requester buys YES at 1 - 0.48 = 0.52 from our NO bid: we end short 10 YES.
    const accepted = await rest(sim, requester, 'PUT', `/communications/rfqs/${rfqId}/quotes/${quote.quoteId}/accept`, { accepted_side: 'yes' });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(204);
    await waitUntil(() => quote.state === QuoteState.EXECUTED, 5_000, 'quote executed');
    expect(quote.acceptedSide).toBe('yes');
    expect(quote.orderId).not.toBe('');
    await waitUntil(() => rt.router.position(0, MARKET) === -1000, 5_000, 'runtime position -10.00');
    await waitUntil(() => fills.some(([orderId]) => orderId === quote.orderId), 5_000, 'the execution fill at onFill');
    expect(fills.filter(([orderId]) => orderId === quote.orderId).map(([, id]) => id)).toEqual([rt.host.strategyNumber('rfq')]);
    expect(await venuePosition()).toBe('-10.00');
    const after = await rest(sim, requester, 'GET', `/communications/quotes/${quote.quoteId}`);
    expect(after.body.quote).toMatchObject({ status: 'executed' });
    expect(book.openCount).toBe(0);

    await rt.stop('test done');
    runtime = null;
    const lines = readFileSync(join(sim.workDir, 'rfq-lifecycle.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"k":"quote"')).map((l) => JSON.parse(l));
    expect(lines.map((l) => l.st)).toEqual(expect.arrayContaining(['pending', 'open', 'accepted', 'confirming', 'executed']));
    expect(lines.at(-1)).toMatchObject({ qid: quote.quoteId, rfq: rfqId, st: 'executed' });
  });

  it('does not answer an RFQ above its size limit, and finds a quote a roll cleared cancelled on reconciliation', async () => {
    const rt = createRfqRuntime('rfq-roll.jsonl', { edge: '0.0300', maxContracts: '5.00', maxOpenQuotes: 5, postOnly: true });
    runtime = rt;
    await rt.start();
    await waitUntil(() => rt.feed.books.get(MARKET)?.synced === true, 5_000, 'book synced');
    const book = rt.quoteBook!;
    const big = await createRfq('50.00');
    const small = await createRfq('5.00');
    await waitUntil(() => [...book.quotes()].some((q) => q.rfqId === small && q.state === QuoteState.OPEN), 5_000, 'quote on the small RFQ');
    expect([...book.quotes()].some((q) => q.rfqId === big)).toBe(false);
    const quote = [...book.quotes()].find((q) => q.rfqId === small)!;
    expect([quote.yesBid, quote.noBid, quote.count]).toEqual([4700, 4700, 500]);

    sim.engine.rollQuotes(); // open quotes cleared at the venue: 404 afterwards, no message
    expect(await book.reconcile()).toBe(1);
    expect(quote.state).toBe(QuoteState.CANCELLED);
    expect(book.openCount).toBe(0);
  });

  it('over the FIX RFQ session: RFQ in, quote out, booked in the ledger, accepted, confirmed, executed; positions agree', async () => {
    const rt = createRfqRuntime('rfq-fix.jsonl', { edge: '0.0200', maxContracts: '100.00', maxOpenQuotes: 5, postOnly: true }, 'fix');
    runtime = rt;
    await rt.start();
    expect(rt.fixQuotes?.sessionState).toBe('active');
    await waitUntil(() => rt.feed.books.get(MARKET)?.synced === true, 5_000, 'book synced');
    const startPosition = rt.router.position(0, MARKET);
    const rfqId = await createRfq('4.00');
    const book = rt.quoteBook!;
    await waitUntil(() => [...book.quotes()].some((q) => q.rfqId === rfqId && q.state === QuoteState.OPEN), 5_000, 'our quote open over FIX');
    const quote = [...book.quotes()].find((q) => q.rfqId === rfqId)!;
    expect(rt.fixQuotes!.stats.rfqs).toBeGreaterThanOrEqual(1); // the RFQ came over FIX
    expect(rt.fixQuotes!.stats.quotesSent).toBeGreaterThanOrEqual(1);
    // Booked as resting on both sides while open: YES bid 4.00 and NO bid 4.00 (a YES ask).
    const slot = rt.gate.exposure.slot(rt.gate.marketHandle(MARKET), 0)!;
    expect([slot.restingBid, slot.restingAsk]).toEqual([400, 400]);
    const listed = await rest(sim, requester, 'GET', `/communications/quotes?rfq_id=${rfqId}`);
    expect((listed.body.quotes as { id: string; status: string }[])[0]).toMatchObject({ id: quote.quoteId, status: 'open' });

    const accepted = await rest(sim, requester, 'PUT', `/communications/rfqs/${rfqId}/quotes/${quote.quoteId}/accept`, { accepted_side: 'no' });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(204);
    await waitUntil(() => quote.state === QuoteState.EXECUTED, 5_000, 'quote executed over FIX');
    expect(quote.acceptedSide).toBe('no'); // the requester bought NO: we bought YES 4
    await waitUntil(() => rt.router.position(0, MARKET) === startPosition + 400, 5_000, 'runtime position +4.00');
    expect([slot.restingBid, slot.restingAsk]).toEqual([0, 0]); // nothing booked once executed
    rt.gate.assertLedger(rt.oms.liveOrders());
    expect(book.openCount).toBe(0);
  });
});

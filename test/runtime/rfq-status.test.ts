/**
 * Goal: with rfq.enabled the status (and so the status line, the table and the dashboard) counts
 * RFQs seen, quotes sent, accepted, executed and the quote actions the gate denied, from a real
 * RFQ lifecycle over real sockets; with quoting off the section is null.
 * Method: an in-process simulator, a liquidity user that makes the book, a requester that creates
 * an RFQ and accepts our quote; a Runtime with rfq.enabled and the rfq-maker plugin (as
 * test/integration/rfq-quoting.test.ts); one quote with crossed bids through the strategy's
 * context, which the gate denies.
 */

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrice } from '../../src/core/index.ts';
import { QuoteState } from '../../src/oms/index.ts';
import { Deny } from '../../src/risk/index.ts';
import { validateConfig } from '../../src/runtime/config.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { statusText } from '../../src/runtime/status-line.ts';
import { renderStatusTable } from '../../src/runtime/status-table.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import { MARKET, ROOT_DIR, counterpartyKey, demoKey, orderBody, rest, startTestSim, waitUntil } from '../integration/helpers.ts';
import type { ApiKey, TestSim } from '../integration/helpers.ts';

let sim: TestSim;
let runtime: Runtime;
let requester: ApiKey;

beforeAll(async () => {
  sim = await startTestSim({});
  const liquidity = counterpartyKey(sim, 'status-liquidity');
  requester = counterpartyKey(sim, 'status-requester');
  for (const [side, price] of [['bid', '0.4500'], ['ask', '0.5500']] as const) {
    const placed = await rest(sim, liquidity, 'POST', '/portfolio/events/orders', orderBody(side, price, '50.00'));
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
  }
  const key = demoKey(sim);
  const config = validateConfig({
    risk: { rateLimitTier: 'prime' },
    exec: { requestTimeoutMs: 1_000 },
    rfq: { enabled: true, maxOpenQuotes: 10, route: 'rest' },
    strategies: [{ id: 'rfq', plugin: 'strategies/rfq-maker.ts', subaccount: 0, orderGroup: null, markets: [MARKET], params: { edge: '0.0200', maxContracts: '100.00', maxOpenQuotes: 5, postOnly: true } }],
  }, '<test>', {});
  runtime = new Runtime({
    config,
    venue: { restUrl: `${sim.httpUrl}/trade-api/v2`, wsUrl: sim.wsUrl, keyId: key.keyId, privateKey: key.privateKey, rfq: null },
    rootDir: ROOT_DIR,
    journalPath: join(sim.workDir, 'rfq-status.jsonl'),
    logger: createLogger({ level: 'silent', pretty: false }),
    strategies: config.strategies,
    startTimeoutMs: 5_000,
    drainTimeoutMs: 3_000,
    pendingTimeoutMs: 2_000,
    unknownGraceMs: 3_000,
    reconcileIntervalMs: 200,
  });
  await runtime.start();
}, 30_000);

afterAll(async () => {
  await runtime?.stop('test done');
  await sim?.close();
}, 30_000);

describe('RFQ counters in the status', () => {
  it('counts the RFQ seen, the quote sent, accepted and executed, and a quote the gate denied', async () => {
    await waitUntil(() => runtime.feed.books.get(MARKET)?.synced === true, 5_000, 'book synced');
    expect(runtime.status().rfq).toEqual({ rfqsSeen: 0, quotesSent: 0, quotesRejected: 0, accepted: 0, confirmed: 0, executed: 0, cancelled: 0, denied: 0, open: 0 });
    const created = await rest(sim, requester, 'POST', '/communications/rfqs', { market_ticker: MARKET, contracts_fp: '10.00', rest_remainder: false });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const rfqId = created.body.id as string;
    const book = runtime.quoteBook!;
    await waitUntil(() => [...book.quotes()].some((q) => q.rfqId === rfqId && q.state === QuoteState.OPEN), 5_000, 'our quote open');
    const quote = [...book.quotes()].find((q) => q.rfqId === rfqId)!;

    // Crossed bids (0.60 + 0.60 >= $1): the gate denies the quote before any I/O.
    const ctx = runtime.host.context('rfq')!;
    expect(ctx.quote(rfqId, parsePrice('0.6000'), parsePrice('0.6000'))).toBe(Deny.QUOTE_PRICES_CROSSED);

    const accepted = await rest(sim, requester, 'PUT', `/communications/rfqs/${rfqId}/quotes/${quote.quoteId}/accept`, { accepted_side: 'yes' });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(204);
    await waitUntil(() => quote.state === QuoteState.EXECUTED, 5_000, 'quote executed');
    const rfq = runtime.status().rfq!;
    expect(rfq).toMatchObject({ rfqsSeen: 1, quotesSent: 1, accepted: 1, confirmed: 1, executed: 1, denied: 1, open: 0 });
    expect(statusText(runtime.status(), 5)).toContain(' | rfq seen 1 quoted 1 accepted 1 executed 1 denied 1');
    const table = renderStatusTable(runtime.status(), { elapsedSec: 5, widthColumns: 160, strategySubaccounts: { rfq: 0 }, sessions: [] });
    expect(table).toContain('rfq       seen 1  quoted 1  accepted 1  executed 1  denied 1  rejected 0  open 0');
  }, 30_000);
});

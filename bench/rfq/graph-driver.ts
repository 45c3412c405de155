/**
 * A focused driver for the graph's share of the RFQ path, for profiling (node --cpu-prof) and for
 * before/after figures of one change; not a suite (bench/run.ts does not run it) and it decides
 * nothing. The runtime's graph with the rfq-maker plugin, as graph-lane.ts builds it, against a
 * simulator started in this process only for the market's grid and a synced book (it is idle while
 * the driver measures), and a stub quote route that only takes the time of create():
 *
 *   RfqInput -> graph.listener.onRfq -> quote book -> strategy host -> rfq-maker -> gate ->
 *   quote book accept (journaled) -> QuoteEntry.create (stub: one hrtime read)
 *
 * Paced under the gate's write budget so every RFQ is quoted. As the suite's steady state: each quote is acked by the stub's caller after the call returned
 * (its quote_id), and each RFQ is deleted ten RFQs later (rfq_deleted), so ~10 quotes stay open
 * and the quote book keeps its closed quotes up to its pruning bound. Prints one JSON line:
 * p50/p99/p999/mean of listener.onRfq -> create in ns over the recorded RFQs.
 *
 *   node --import tsx bench/rfq/graph-driver.ts [--rfqs N] [--warmup N] [--pace-ms N]   (pace: the recorded RFQs only)
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/rfq/graph-driver.ts
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { Pool } from 'undici';
import { COUNT_INVALID, CENTICENTS_INVALID, signedHeaders, systemClock, type Count } from '../../src/core/index.ts';
import { AccountClient, ACCOUNT_CLIENT_DEFAULTS, REST_ORDER_ENTRY_DEFAULTS, RestOrderEntry } from '../../src/exec/index.ts';
import type { QuoteEntry, QuoteListener, QuoteRequest, RfqInput, WireQuote } from '../../src/oms/index.ts';
import { validateConfig } from '../../src/runtime/config.ts';
import { applyEagerTierUp } from '../../src/runtime/jit-tier-up.ts';
import { fetchMarket } from '../../src/runtime/market-directory.ts';
import { TradingGraph } from '../../src/runtime/trading-graph.ts';
import { startSim } from '../../src/sim/index.ts';
import type { StrategyEntry } from '../../src/strategy/index.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import { createHistogram, recordNs } from '../harness.ts';

const REPO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TICKER = 'KXDEMO-26DEC31-T50';
const DELETE_AFTER = 10;

/** The stub route: the time of each create, the handles to ack. */
class StubQuoteRoute implements QuoteEntry {
  calledAt = 0n;
  lastHandle = -1;
  creates = 0;
  setListener(_listener: QuoteListener): void {}
  create(quote: QuoteRequest): void {
    this.calledAt = process.hrtime.bigint();
    this.lastHandle = quote.handle;
    this.creates++;
  }
  cancel(_quote: QuoteRequest): void {}
  confirm(_quote: QuoteRequest): void {}
  async listQuotes(): Promise<WireQuote[]> {
    return [];
  }
}

/** An RFQ message as the FIX route and the feed's record give it. */
class RfqMessage implements RfqInput {
  eventType: 'created' | 'deleted' = 'created';
  id = '';
  creatorId = 'requester';
  marketTicker = TICKER;
  eventTicker = 'KXDEMO-26DEC31';
  contracts = 1000 as Count;
  targetCost = CENTICENTS_INVALID as number;
  tsMs = 0;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function argument(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

async function main(): Promise<void> {
  const rfqs = argument('--rfqs', 10_000);
  const warmup = argument('--warmup', 3_000);
  const paceMs = argument('--pace-ms', 0);
  applyEagerTierUp();
  const work = mkdtempSync(path.join(tmpdir(), 'bench-rfq-driver-'));
  const sim = await startSim({ keysDir: path.join(work, 'keys'), logger: pino({ level: 'silent' }), host: '127.0.0.1', port: 0 });
  let graph: TradingGraph | null = null;
  try {
    // The suite's book: a 0.45 bid and a 0.55 ask from a liquidity user.
    const liquidity = sim.createApiKey({ scopes: ['read', 'write'], userId: 'c0ffee00-0000-4000-8000-0000000bf001', subaccount: 0 });
    const pool = new Pool(sim.httpUrl, { connections: 1 });
    const key = (await import('node:crypto')).createPrivateKey(liquidity.privateKeyPem);
    for (const [side, price] of [['bid', '0.4500'], ['ask', '0.5500']] as const) {
      const orderPath = '/trade-api/v2/portfolio/events/orders';
      const response = await pool.request({
        method: 'POST', path: orderPath,
        headers: { ...signedHeaders(liquidity.keyId, key, Date.now(), 'POST', orderPath), 'content-type': 'application/json' },
        body: JSON.stringify({ ticker: TICKER, client_order_id: `driver-${side}`, side, count: '50.00', price, time_in_force: 'good_till_canceled', self_trade_prevention_type: 'taker_at_cross' }),
      });
      await response.body.text();
    }
    await pool.close();
    const maker = sim.createApiKey({ scopes: ['read', 'write'], userId: 'c0ffee00-0000-4000-8000-0000000bf0a9' });
    const privateKey = (await import('node:crypto')).createPrivateKey(maker.privateKeyPem);
    const restUrl = `${sim.httpUrl}/trade-api/v2`;
    const config = validateConfig(
      {
        risk: { rateLimitTier: 'prime' },
        rfq: { enabled: true, maxOpenQuotes: 100, route: 'rest' },
        workers: { enabled: false },
        strategies: [{
          id: 'rfq-driver', plugin: 'strategies/rfq-maker.ts', subaccount: 0, orderGroup: null, markets: [TICKER],
          params: { edge: '0.0200', maxContracts: '100.00', maxOpenQuotes: 100, postOnly: true },
        }],
      },
      '<rfq driver>',
      {},
    );
    const rest = new RestOrderEntry({ ...REST_ORDER_ENTRY_DEFAULTS, baseUrl: restUrl, keyId: maker.keyId, privateKey, clock: systemClock, signing: 'inline' });
    const account = new AccountClient({
      ...ACCOUNT_CLIENT_DEFAULTS, baseUrl: restUrl, keyId: maker.keyId, privateKey, clock: systemClock,
    });
    const route = new StubQuoteRoute();
    const entries = config.strategies as unknown as StrategyEntry[];
    const built = new TradingGraph({
      config, clock: systemClock, logger: createLogger({ level: 'silent', pretty: false }), entry: rest, reads: account, quoteEntry: route,
      feed: { url: sim.wsUrl, auth: { keyId: maker.keyId, privateKey } },
      journalPath: path.join(work, 'journal.jsonl'), recovered: null, strategies: entries, restrictedSubaccount: -1,
      clientOrderIdPrefix: 'rfqd', rootDir: REPO_DIR,
      markets: ({ gate, feed }) => ({
        marketHandle: (ticker) => gate.marketHandle(ticker),
        book: (ticker) => feed.books.get(ticker),
        ensureMarkets: async (tickers) => {
          for (const ticker of tickers) {
            if (gate.marketHandle(ticker) >= 0) continue;
            const facts = await fetchMarket(restUrl, ticker);
            const book = feed.addMarket(ticker, facts.grid);
            const handle = gate.addMarket(ticker, facts.grid, book, { open: facts.open });
            gate.setMarketCloseTime(handle, facts.closeMs);
            feed.subscribeOrderbooks([ticker]);
            for (let i = 0; i < 1000 && !book.synced; i++) await pause(10);
          }
        },
      }),
      orderGroups: null,
    });
    graph = built;
    built.feed.start();
    for (let i = 0; i < 1000 && built.feed.state !== 'open'; i++) await pause(10);
    await built.host.start(entries);
    const quoteBook = built.quoteBook!;
    const listener = built.listener;
    // --hops: when each hop starts and ends (one hrtime read each, inside the window), by instance wrappers.
    const hops = process.argv.includes('--hops');
    const marks = new Float64Array(16);
    const hopNames = ['listener -> quoteBook.onRfq', 'quoteBook.onRfq', '-> host.onRfq', 'host + strategy -> router.quote', 'router -> gate', 'gate.checkQuote', 'router -> accept', 'quoteBook.accept', 'accept -> create'];
    const hopHistograms = hopNames.map(() => createHistogram());
    if (hops) {
      const now = (): number => Number(process.hrtime.bigint());
      const wrap = <T extends object>(target: T, name: keyof T, before: number, after: number): void => {
        const original = (target[name] as (...args: unknown[]) => unknown).bind(target);
        (target as Record<keyof T, unknown>)[name] = (...args: unknown[]) => {
          marks[before] = now();
          const result = original(...args);
          marks[after] = now();
          return result;
        };
      };
      wrap(quoteBook, 'onRfq', 1, 2);
      wrap(built.host, 'onRfq', 3, 4);
      wrap(built.quoteRouter!, 'quote', 5, 6);
      wrap(built.gate, 'checkQuote', 7, 8);
      wrap(quoteBook, 'accept', 9, 10);
    }
    const message = new RfqMessage();
    const histogram = createHistogram();
    const ids: string[] = [];
    for (let i = 0; i < warmup + rfqs; i++) ids.push(`rfq-${String(i).padStart(8, '0')}-0000-4000-8000-000000000000`);
    let quoted = 0;
    for (let i = 0; i < ids.length; i++) {
      message.eventType = 'created';
      message.id = ids[i]!;
      message.tsMs = Date.now();
      const before = route.creates;
      const t0 = process.hrtime.bigint();
      listener.onRfq(message);
      if (route.creates !== before) {
        if (i >= warmup) recordNs(histogram, Number(route.calledAt - t0));
        if (hops && i >= warmup) {
          marks[0] = Number(t0);
          marks[11] = Number(route.calledAt);
          const order = [0, 1, 2, 3, 5, 7, 8, 9, 10, 11];
          for (let h = 0; h < hopNames.length; h++) recordNs(hopHistograms[h]!, Math.max(0, marks[order[h + 1]!]! - marks[order[h]!]!));
        }
        quoted++;
        quoteBook.onQuoteCreateAck(route.lastHandle, `q-${ids[i]!}`);
      }
      if (i >= DELETE_AFTER) {
        message.eventType = 'deleted';
        message.id = ids[i - DELETE_AFTER]!;
        listener.onRfq(message);
      }
      // --pace-ms N: one RFQ every N ms, as the suite's 10/s (the loop idles between RFQs: caches go cold).
      // Else 100 RFQs per 70 ms (~1,400/s): under the gate's prime write budget (4,000 tokens/s, a
      // quote costs 2), the journal's writes and the feed running between bursts.
      if (paceMs > 0 && i >= warmup) await pause(paceMs);
      else if (i % 100 === 99) await pause(70); // the warm-up too: the JIT has tiered up before paced RFQs
    }
    void COUNT_INVALID;
    process.stdout.write(`${JSON.stringify({
      rfqs, warmup, paceMs, quoted, recorded: histogram.totalCount,
      p50Ns: histogram.getValueAtPercentile(50), p99Ns: histogram.getValueAtPercentile(99), p999Ns: histogram.getValueAtPercentile(99.9),
      meanNs: Math.round(histogram.mean), maxNs: histogram.maxValue, quoteBook: quoteBook.stats,
      ...(hops ? { hopsP50Ns: Object.fromEntries(hopNames.map((name, h) => [name, hopHistograms[h]!.getValueAtPercentile(50)])) } : {}),
    })}\n`);
  } finally {
    graph?.host.halt();
    graph?.feed.stop();
    await graph?.oms.stop();
    await sim.close();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();

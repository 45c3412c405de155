/**
 * Keeps the decision path warm between a market maker's rare orders. At the maker's pace (an order
 * every few hundred ms) the path runs so seldom that V8 never optimizes it and the CPU's caches and
 * predictors forget it: the status line showed a gate check at 60 µs where the hot bench measures
 * 0.2 µs. So every `intervalMs` one dry run goes through shadow instances of the same classes the
 * real path uses (same code, same hidden classes, so the same optimized functions and inline
 * caches): a delta frame decoded and applied by a Feed to a shadow market's book, an intent through
 * a Router (RiskGate.check, Oms.accept, the route's request encoding into a string that is never
 * written), then the shadow order closed by a reject. Nothing reaches the venue, the real books,
 * the real gate's ledger or budget, or the journal. Strategy code is not run (a plugin's onBook
 * cannot be rehearsed without its side effects). The event-loop time it takes is counted in stats.
 */

import { performance } from 'node:perf_hooks';
import { IntentKind, PriceGrid, asCount, createIntent, type Clock, type Count, type OrderIntent, type Price } from '../core/index.ts';
import { encodeCreateOrder } from '../exec/index.ts';
import { ConnectionState, Feed, type FeedSession } from '../feed/index.ts';
import { Oms, type ExecListener, type NewOrder, type OrderEntry, type ExecReject } from '../oms/index.ts';
import { RiskGate, riskLimits, type RiskLimits } from '../risk/index.ts';
import { Router } from '../router/index.ts';

/** The shadow market: a ticker no venue lists (it never leaves this process). */
const SHADOW_TICKER = 'KEEPWARM-SHADOW';
const SHADOW_SID = 1;
/** Shadow orders are closed at once; the OMS forgets them on its tick, every this many runs. */
const PRUNE_EVERY_RUNS = 64;
const REJECT: ExecReject = Object.freeze({ status: 400, code: 'keep_warm', message: 'dry run', details: '' });

/** A route that encodes the request as the REST route does and writes nothing. */
class RehearsalRoute implements OrderEntry {
  bytes = 0;
  setListener(_listener: ExecListener): void {}
  create(order: Readonly<NewOrder>): void {
    this.bytes += encodeCreateOrder(order).length;
  }
  cancel(): void {}
  amend(): void {}
  decrease(): void {}
  cancelAll(): Promise<void> {
    return Promise.resolve();
  }
}

function closedSession(): FeedSession {
  return { state: ConnectionState.CLOSED, isOpen: false, start() {}, stop() {}, send: () => false, reconnect() {}, onTick() {} };
}

export interface KeepWarmOptions {
  /** Time between dry runs, ms. */
  intervalMs: number;
  /** The real gate's limits: the shadow gate runs the same checks (its own budget, at the top tier). */
  limits: RiskLimits;
  clock: Clock;
}

export class KeepWarm {
  readonly stats = { runs: 0, busyUsTotal: 0, sentBytes: 0, denied: 0 };
  readonly #options: KeepWarmOptions;
  readonly #feed: Feed;
  readonly #gate: RiskGate;
  readonly #oms: Oms;
  readonly #router: Router;
  readonly #route = new RehearsalRoute();
  readonly #intent: OrderIntent = createIntent();
  readonly #market: number;
  readonly #runBound = (): void => this.runOnce();
  #seq = 1;
  #up = true;
  #timer: NodeJS.Timeout | null = null;

  constructor(options: KeepWarmOptions) {
    this.#options = options;
    const clock = options.clock;
    const grid = PriceGrid.fromStructure('linear_cent');
    this.#feed = new Feed({ url: 'ws://127.0.0.1:1/keep-warm', auth: null, clock, staleBookMs: 0, createSession: closedSession });
    // Every check the real gate makes, on the shadow's own budget, sized so no run is denied.
    const writesPerSecond = Math.ceil((1_000 / Math.max(1, options.intervalMs)) * 10 * 2);
    this.#gate = new RiskGate({
      limits: riskLimits({ ...options.limits, rateTier: 'custom', writeTokensPerSecond: writesPerSecond, writeCapacityTokens: writesPerSecond, readTokensPerSecond: 100 }),
      clock,
    });
    const reads = { listOrders: () => Promise.resolve([]), listFills: () => Promise.resolve([]), listPositions: () => Promise.resolve([]) };
    this.#oms = new Oms({ reads, listener: this.#gate, clock, clientOrderIdPrefix: 'warm', journal: null, terminalRetentionMs: 0, reconcileIntervalMs: 1e12 });
    this.#router = new Router({ gate: this.#gate, oms: this.#oms, route: this.#route, clock });
    const book = this.#feed.addMarket(SHADOW_TICKER, grid);
    this.#market = this.#gate.addMarket(SHADOW_TICKER, grid, book, { open: true });
    this.#feed.handleFrame(
      `{"type":"orderbook_snapshot","sid":${SHADOW_SID},"seq":${this.#seq},"msg":{"market_ticker":"${SHADOW_TICKER}","market_id":"keep-warm",` +
        `"yes_dollars_fp":[["0.4000","100.00"],["0.4100","100.00"]],"no_dollars_fp":[["0.5500","100.00"],["0.5600","100.00"]]}}`,
    );
    if (!book.synced) throw new Error('keep-warm: the shadow snapshot did not sync its book');
  }

  start(): void {
    if (this.#timer !== null || this.#options.intervalMs <= 0) return;
    this.#timer = setInterval(this.#runBound, this.#options.intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#feed.stop();
  }

  /** One dry run: frame -> decode -> book -> gate -> OMS -> request bytes, then the order closed. */
  runOnce(): void {
    const startMs = performance.now();
    // A level that comes and goes, so the shadow book stays the same run after run.
    this.#up = !this.#up;
    this.#seq++;
    this.#feed.handleFrame(
      `{"type":"orderbook_delta","sid":${SHADOW_SID},"seq":${this.#seq},"msg":{"market_ticker":"${SHADOW_TICKER}","market_id":"keep-warm",` +
        `"price_dollars":"0.3900","delta_fp":"${this.#up ? '-' : ''}10.00","side":"yes","ts_ms":${this.#options.clock.nowMs()}}}`,
    );
    const book = this.#feed.books.get(SHADOW_TICKER)!;
    const intent = this.#intent;
    intent.kind = IntentKind.NEW;
    intent.market = this.#market;
    intent.side = 'bid';
    intent.price = book.bestBid() as Price;
    intent.count = asCount(100) as Count;
    intent.postOnly = true;
    intent.subaccount = 0;
    intent.clientOrderId = '';
    const before = this.#route.bytes;
    if (this.#router.submit(intent) === 0) {
      this.#oms.onCreateReject(intent.clientOrderId, REJECT);
      this.stats.sentBytes += this.#route.bytes - before;
    } else {
      this.stats.denied++;
    }
    this.stats.runs++;
    if (this.stats.runs % PRUNE_EVERY_RUNS === 0) void this.#oms.tick();
    this.stats.busyUsTotal += (performance.now() - startMs) * 1000;
  }

  /** Shadow orders still tracked (they are pruned on the OMS's tick; bounded). */
  get trackedOrders(): number {
    return this.#oms.liveOrderCount;
  }
}

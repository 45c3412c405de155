/**
 * The operator's view of a running runtime, built on a timer, never on the frame path nor on a
 * scrape (unless no timer runs: metrics wired alone, as in a test): one plain, JSON-ready record (books with own orders marked, own orders, positions
 * and PnL, per-hop latency digests, denies by code, feed and session states, counters, the write
 * budget and held intents, the most active markets, RFQ counters) that the
 * Prometheus text and the dashboard's pushes are both rendered from. A scrape serves the text
 * rendered at the last tick; a push sends the JSON rendered at the last tick.
 *
 * It reads the runtime's public surface directly instead of Runtime.status(): status() digests the
 * tick-to-trade histogram with hdr's iterator (HopDigest's comment), 2-3 ms a call measured. The
 * hop digests are re-read only when a hop's count changed. Integers throughout: prices in 1/10,000
 * dollar, counts in 1/100 contract, PnL in micro-dollars (rounded), latencies in ns.
 * Bounded at any number of markets: BOOKS_MAX books (own orders' first, then the most active),
 * POSITIONS_MAX positions by |PnL| with a total, TOP_ROWS most active markets.
 * Owns the record and the PnL history ring; decides nothing, changes nothing.
 */

import type { Runtime, WorkersStatus } from '../runtime/runtime.ts';
import type { EventLoopStallSummary } from '../runtime/event-loop-stall.ts';
import { HOP_NAMES } from '../runtime/tick-to-trade-probe.ts';
import type { HopName } from '../runtime/tick-to-trade-probe.ts';
import type { OrderBook } from '../book/index.ts';
import { ORDER_STATE_NAMES } from '../oms/index.ts';
import { DENY_CODE_COUNT, DENY_NAMES } from '../risk/index.ts';
import { LATENCY_BOUNDS_SECONDS, nowNs } from '../telemetry/index.ts';
import { HopDigest } from './hop-digest.ts';
import { ScaleStatus, topPositions } from '../runtime/scale-status.ts';
import type { BudgetStatus, MarketActivity } from '../runtime/scale-status.ts';
import { rfqStatus } from '../runtime/rfq-status.ts';
import type { RfqStatus } from '../runtime/rfq-status.ts';

/** What the snapshot reads: the runtime's read-only surface (the worker pool's figures optional, for fakes). */
export type SnapshotSource = Pick<Runtime, 'feed' | 'oms' | 'host' | 'listener' | 'probe' | 'stall' | 'fix' | 'marketData' | 'config' | 'mostActive' | 'fillsReceived'> & {
  /** The Margin feed's books are shown beside the Predictions ones (absent or null: none). */
  marginFeed?: Runtime['marginFeed'];
  workersStatus?: () => WorkersStatus | null;
  /** The write budget and the router's held intents (absent in fakes: no budget shown). */
  gate?: Pick<Runtime['gate'], 'budget'>;
  /** The budget's clock (a replay's manual clock is not Date.now()); absent: Date.now(). */
  clock?: Runtime['clock'];
  router?: Pick<Runtime['router'], 'held' | 'holdStats'>;
  /** RFQ quoting (null or absent: quoting off) and the quote router's denies. */
  quoteBook?: Runtime['quoteBook'];
  graph?: { readonly quoteRouter: { readonly quotesDenied: number } | null };
};

/** Ladder depth per side and books per view: the page shows the top of each book, not all of it. */
export const LADDER_LEVELS = 10;
export const BOOKS_MAX = 16;
/** Positions per view, the largest |PnL| first (at 5,000 markets the page and the metrics stay small). */
export const POSITIONS_MAX = 20;
/** Own orders per view (a runaway strategy must not make the push unbounded). */
export const ORDERS_MAX = 200;
/**
 * Latency digests and the stall summary are re-read at most this often: percentiles move slowly
 * for a person, and the walks are most of a tick's cost (~30 µs a hop against ~100 µs for the rest).
 */
export const LATENCY_REFRESH_MS = 1_000;
/** PnL points kept for a page that connects late: 720 ticks (3 minutes at 250 ms). */
export const PNL_HISTORY_POINTS = 720;

/** [price, size, own size] per level; own is our live orders' remaining count at that price. */
export type LadderLevel = [price: number, size: number, own: number];

export interface BookView {
  ticker: string;
  synced: boolean;
  bestBid: number;
  bestAsk: number;
  /** YES bids, best (highest) first. */
  bids: LadderLevel[];
  /** YES asks (NO bids at 1 - price), best (lowest) first. */
  asks: LadderLevel[];
}

export interface OrderView {
  clientOrderId: string;
  ticker: string;
  side: string;
  price: number;
  remaining: number;
  filled: number;
  state: string;
  subaccount: number;
}

export interface PositionView {
  subaccount: number;
  ticker: string;
  position: number;
  pnlMicro: number;
}

export interface HopView {
  hop: HopName;
  count: number;
  meanNs: number;
  p50Ns: number;
  p90Ns: number;
  p99Ns: number;
  p999Ns: number;
  maxNs: number;
  /** Samples at or below each of boundsNs (cumulative). */
  cumulative: number[];
}

export interface OperatorView {
  /** Increments per refresh. */
  seq: number;
  tsMs: number;
  feedState: string;
  sessions: { name: string; state: string }[];
  killSwitch: { reason: string; source: string; sinceMs: number } | null;
  strategies: { id: string; status: string }[];
  booksSynced: number;
  booksTotal: number;
  ordersSent: number;
  openOrders: number;
  fills: number;
  pnlMicro: number;
  /** The POSITIONS_MAX largest by |PnL|, largest first; positionsTotal counts them all. */
  positions: PositionView[];
  positionsTotal: number;
  denies: Record<string, number>;
  /** The write budget and held intents, null when the source has no gate or router (a fake). */
  budget: BudgetStatus | null;
  /** The TOP_ROWS books with the most changes per second, as the runtime's activity walk last found them. */
  mostActive: readonly MarketActivity[];
  /** RFQ quoting counters, null when quoting is off. */
  rfq: RfqStatus | null;
  books: BookView[];
  orders: OrderView[];
  /** Live orders beyond ORDERS_MAX, not listed. */
  ordersOmitted: number;
  /** Histogram bounds shared by every hop, ns. */
  boundsNs: number[];
  hops: HopView[];
  feed: { frames: number; malformed: number; disconnects: number; reconnects: number; seqGaps: number; resyncsRequested: number; resyncs: number };
  probe: { frames: number; framesWithOrder: number };
  omsReconcileRounds: number;
  stall: EventLoopStallSummary;
  workers: WorkersStatus | null;
}

const BOUNDS_NS = Float64Array.from(LATENCY_BOUNDS_SECONDS, (seconds) => Math.round(seconds * 1e9));

export class OperatorSnapshots {
  readonly #source: SnapshotSource;
  readonly #intervalMs: number;
  readonly #digests = HOP_NAMES.map((hop) => new HopDigest(hop, BOUNDS_NS));
  readonly #hopViews: HopView[] = HOP_NAMES.map((hop) => emptyHop(hop));
  readonly #denyScratch = new Float64Array(DENY_CODE_COUNT);
  readonly #levels = new Int32Array(LADDER_LEVELS);
  readonly #listeners: ((view: OperatorView) => void)[] = [];
  // PnL history ring: time (ms) and total PnL (micro-dollars) per tick; `#pnlNext` is the next slot.
  readonly #pnlTs = new Float64Array(PNL_HISTORY_POINTS);
  readonly #pnlMicro = new Float64Array(PNL_HISTORY_POINTS);
  #pnlNext = 0;
  #pnlCount = 0;
  #view: OperatorView | null = null;
  #timer: NodeJS.Timeout | null = null;
  #seq = 0;
  #latencyAtMs = -Infinity;
  #stall: EventLoopStallSummary = { samples: 0, p50Us: 0, p99Us: 0, maxUs: 0 };
  /** Its own rates' readings: Runtime.status() keeps another on the status timer's cadence. */
  readonly #scale = new ScaleStatus();
  /** The timer's own cost on the event loop: ticks, and the time each took (refresh and every listener). */
  readonly stats = { ticks: 0, busyNsTotal: 0, busyNsMax: 0 };

  /** `intervalMs`: the refresh period once started (the dashboard's pushIntervalMs, or the metrics' own). */
  constructor(source: SnapshotSource, intervalMs: number) {
    this.#source = source;
    this.#intervalMs = intervalMs;
  }

  get intervalMs(): number {
    return this.#intervalMs;
  }

  /** The last view built, or null before the first refresh. */
  get view(): OperatorView | null {
    return this.#view;
  }

  /** True while the timer refreshes the view. */
  get running(): boolean {
    return this.#timer !== null;
  }

  /** Called after each timed refresh with the new view (the metrics text and the pushes render here). */
  onRefresh(listener: (view: OperatorView) => void): void {
    this.#listeners.push(listener);
  }

  start(): void {
    if (this.#timer !== null) return;
    this.#tick();
    this.#timer = setInterval(() => this.#tick(), this.#intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** PnL history, oldest first: [tsMs, pnlMicro] pairs. */
  pnlHistory(): [number, number][] {
    const out: [number, number][] = [];
    const start = (this.#pnlNext - this.#pnlCount + PNL_HISTORY_POINTS) % PNL_HISTORY_POINTS;
    for (let i = 0; i < this.#pnlCount; i++) {
      const at = (start + i) % PNL_HISTORY_POINTS;
      out.push([this.#pnlTs[at], this.#pnlMicro[at]]);
    }
    return out;
  }

  #tick(): void {
    const startNs = nowNs();
    const view = this.refresh();
    for (const listener of this.#listeners) listener(view);
    const busyNs = nowNs() - startNs;
    this.stats.ticks++;
    this.stats.busyNsTotal += busyNs;
    if (busyNs > this.stats.busyNsMax) this.stats.busyNsMax = busyNs;
  }

  /** Builds a new view now (the timer calls it; so may a reader with no timer running). */
  refresh(): OperatorView {
    const source = this.#source;
    const oms = source.oms;
    const books = source.feed.books;
    const marginBooks = source.marginFeed?.books ?? null;
    const stores = marginBooks === null ? [books] : [books, marginBooks];
    // Counts the stores keep and the runtime's activity walk: nothing here walks thousands of books.
    let booksSynced = 0;
    let booksTotal = 0;
    for (const store of stores) {
      booksTotal += store.size;
      booksSynced += store.syncedCount;
    }
    const tsMs = Date.now();
    const live = oms.liveOrders();
    const mostActive = source.mostActive;
    const bookList = pickBooks(stores, live, mostActive);
    const positions: PositionView[] = [];
    let pnlMicro = 0;
    for (const position of oms.positions.all()) {
      // Marked as Runtime.status() marks it: realized minus fees plus the open position at the mid.
      const book = books.get(position.ticker) ?? marginBooks?.get(position.ticker);
      const mid = book === undefined ? -1 : midPrice(book);
      const marked = mid < 0 ? 0 : mid * position.position - position.costMicro;
      const pnl = position.realizedMicro + marked - position.feesCenticents * 100;
      pnlMicro += pnl;
      if (position.position !== 0 || position.volume !== 0) positions.push({ subaccount: position.subaccount, ticker: position.ticker, position: position.position, pnlMicro: Math.round(pnl) });
    }
    const gate = source.gate;
    const router = source.router;
    const budget = gate === undefined || router === undefined ? null : this.#scale.budget(gate.budget, router.holdStats, router.held.size, source.clock?.nowMs() ?? tsMs);
    const rfq = rfqStatus(source.quoteBook ?? null, source.listener.stats.rfqsSeen ?? 0, source.graph?.quoteRouter?.quotesDenied ?? 0);
    const denies: Record<string, number> = {};
    const counts = source.host.denyCounts(this.#denyScratch);
    for (let code = 1; code < counts.length; code++) if (counts[code] !== 0) denies[DENY_NAMES[code]] = counts[code];
    const sessions: { name: string; state: string }[] = [];
    if (source.fix !== null) sessions.push({ name: `fix ${source.config.venue.fix.sessionName}`, state: source.fix.sessionState });
    if (source.marketData !== null) sessions.push({ name: 'fix KalshiMD', state: source.marketData.sessionState });
    if (source.marginFeed !== undefined && source.marginFeed !== null) sessions.push({ name: 'margin feed', state: source.marginFeed.state });
    const kill = oms.killSwitchState;
    const counters = source.feed.counters;
    // Latency at most every LATENCY_REFRESH_MS (always on a reader's refresh without a timer).
    const latencyDue = this.#timer === null || tsMs - this.#latencyAtMs >= LATENCY_REFRESH_MS - this.#intervalMs / 2;
    if (latencyDue) {
      this.#latencyAtMs = tsMs;
      this.#stall = source.stall.summary();
    }
    pnlMicro = Math.round(pnlMicro);
    this.#pnlTs[this.#pnlNext] = tsMs;
    this.#pnlMicro[this.#pnlNext] = pnlMicro;
    this.#pnlNext = (this.#pnlNext + 1) % PNL_HISTORY_POINTS;
    if (this.#pnlCount < PNL_HISTORY_POINTS) this.#pnlCount++;
    const orders: OrderView[] = [];
    for (let i = 0; i < live.length && i < ORDERS_MAX; i++) {
      const order = live[i];
      orders.push({ clientOrderId: order.clientOrderId, ticker: order.ticker, side: order.side, price: order.price, remaining: order.remainingCount, filled: order.filledCount, state: ORDER_STATE_NAMES[order.state] ?? String(order.state), subaccount: order.subaccount });
    }
    const view: OperatorView = {
      seq: ++this.#seq,
      tsMs,
      feedState: source.feed.state,
      sessions,
      killSwitch: kill === null ? null : { reason: kill.reason, source: kill.source, sinceMs: kill.tsMs },
      strategies: source.host.summaries().map((s) => ({ id: s.id, status: s.status })),
      booksSynced,
      booksTotal,
      ordersSent: oms.stats.ordersSent,
      openOrders: oms.liveOrderCount,
      fills: source.fillsReceived,
      pnlMicro,
      positions: topPositions(positions, POSITIONS_MAX),
      positionsTotal: positions.length,
      denies,
      budget,
      mostActive,
      rfq,
      books: bookList.map((book) => this.#bookView(book, live)),
      orders,
      ordersOmitted: Math.max(0, live.length - ORDERS_MAX),
      boundsNs: Array.from(BOUNDS_NS),
      hops: latencyDue ? this.#hops() : this.#hopViews.slice(),
      feed: {
        frames: counters.framesReceived,
        malformed: counters.malformedFrames,
        disconnects: counters.disconnects,
        reconnects: Math.max(0, source.listener.stats.connects - 1),
        seqGaps: counters.seqGaps,
        resyncsRequested: counters.resyncsRequested,
        resyncs: counters.resyncsCompleted,
      },
      probe: { frames: source.probe.frames, framesWithOrder: source.probe.framesWithOrder },
      omsReconcileRounds: oms.stats.reconcileRounds,
      stall: this.#stall,
      workers: source.workersStatus?.() ?? null,
    };
    this.#view = view;
    return view;
  }

  #bookView(book: OrderBook, live: readonly { ticker: string; side: string; price: number; remainingCount: number }[]): BookView {
    const grid = book.grid;
    const levels = this.#levels;
    const own = (side: string, price: number): number => {
      let sum = 0;
      for (const order of live) if (order.ticker === book.ticker && order.side === side && order.price === price) sum += order.remainingCount;
      return sum;
    };
    const bids: LadderLevel[] = [];
    const asks: LadderLevel[] = [];
    const bidCount = book.topBidLevels(LADDER_LEVELS, levels);
    for (let i = 0; i < bidCount; i++) {
      const price = grid.priceAt(levels[i]);
      bids.push([price, book.bidSizeAtLevel(levels[i]), own('bid', price)]);
    }
    const askCount = book.topAskLevels(LADDER_LEVELS, levels);
    for (let i = 0; i < askCount; i++) {
      const price = grid.priceAt(levels[i]);
      asks.push([price, book.askSizeAtLevel(levels[i]), own('ask', price)]);
    }
    return { ticker: book.ticker, synced: book.synced, bestBid: book.bestBid(), bestAsk: book.bestAsk(), bids, asks };
  }

  /** Re-digests the hops whose count changed; the others keep their last view. */
  #hops(): HopView[] {
    const probe = this.#source.probe;
    for (let i = 0; i < HOP_NAMES.length; i++) {
      const digest = this.#digests[i];
      // The probe's getter drains its ring into the histograms first, as every reader does.
      if (!digest.read(probe.recorder(HOP_NAMES[i]).histogram)) continue;
      const p = digest.percentilesNs; // DIGEST_PERCENTILES: 50, 90, 99, 99.9
      this.#hopViews[i] = {
        hop: HOP_NAMES[i],
        count: digest.count,
        meanNs: digest.count === 0 ? 0 : Math.round(digest.sumNs / digest.count),
        p50Ns: p[0],
        p90Ns: p[1],
        p99Ns: p[2],
        p999Ns: p[3],
        maxNs: digest.maxNs,
        cumulative: Array.from(digest.cumulative),
      };
    }
    return this.#hopViews.slice();
  }
}

/**
 * At most BOOKS_MAX books: those our live orders rest in first, then the most active, then the
 * first the stores list (so a quiet start still shows some). Lookups by ticker, no scan per pick.
 */
function pickBooks(stores: readonly { get(ticker: string): OrderBook | undefined; books(): Iterable<OrderBook> }[], live: readonly { ticker: string }[], mostActive: readonly MarketActivity[]): OrderBook[] {
  const picked = new Map<string, OrderBook>();
  const pick = (ticker: string): void => {
    if (picked.size >= BOOKS_MAX || picked.has(ticker)) return;
    for (const store of stores) {
      const book = store.get(ticker);
      if (book !== undefined) { picked.set(ticker, book); return; }
    }
  };
  for (let i = 0; i < live.length && picked.size < BOOKS_MAX; i++) pick(live[i].ticker);
  for (const market of mostActive) pick(market.ticker);
  for (const store of stores) {
    for (const book of store.books()) {
      if (picked.size >= BOOKS_MAX) return Array.from(picked.values());
      if (!picked.has(book.ticker)) picked.set(book.ticker, book);
    }
  }
  return Array.from(picked.values());
}

function emptyHop(hop: HopName): HopView {
  return { hop, count: 0, meanNs: 0, p50Ns: 0, p90Ns: 0, p99Ns: 0, p999Ns: 0, maxNs: 0, cumulative: Array.from(BOUNDS_NS, () => 0) };
}

function midPrice(book: OrderBook): number {
  const bid = book.bestBid();
  const ask = book.bestAsk();
  if (bid < 0 || ask < 0) return -1;
  return (bid + ask) / 2;
}


/**
 * Keeps the decision path warm between a market maker's rare orders. At the maker's pace (an order
 * every few hundred ms) the path runs so seldom that V8 never optimizes it and the CPU's caches and
 * predictors forget it: the status line showed a gate check at 60 µs where the hot bench measures
 * 0.2 µs. So every `intervalMs` one dry run goes through shadow instances of the same classes the
 * real path uses (same code, same hidden classes, so the same optimized functions and inline
 * caches): a delta frame decoded and applied by a Feed to a shadow market's book, then an order's
 * life as a market maker's quote lives it, placed, amended and cancelled through a strategy
 * context (StrategyContext.place / amend / cancel, Router, RiskGate.check, Oms, the REST route's
 * requests assembled as bytes into a reused buffer that is never written), the shadow venue
 * acknowledging the create and refusing the amend. With `rfq` (config rfq.enabled) each run also
 * rehearses an RFQ: an rfq_created frame decoded by the Feed (or, when quotes go over FIX, a
 * QuoteRequest 35=R encoded, parsed and read as the FIX quote route reads it) into a shadow QuoteBook, a quote
 * through a QuoteRouter (RiskGate.checkQuote, QuoteBook.accept, the quote encoded as the configured
 * route does: the REST body or the FIX Quote 35=S), the quote closed by a reject and the RFQ by
 * rfq_deleted. With `margin` (config margin.enabled) each run also rehearses a perpetual: a Margin
 * orderbook_delta decoded by a Margin Feed into a shadow tick-grid book, then the same order's life
 * on it through the strategy context (the router picks the shadow Margin route; the gate's margin
 * checks; the Margin requests assembled). The real routes (REST, FIX, Margin) rehearse each
 * create and amend on their own state, nothing sent. Nothing reaches the venue, the real books,
 * the real gate's ledger or budget, or the journal. A strategy's own code runs only when its plugin
 * declares rehearse: true (a second instance of it, on a shadow market of its own, one a run in
 * turn; its requests answered by a shadow venue); with the real OMS, every other run checks an
 * amend of one of its resting orders on the real gate instead of a new bid. The event-loop time it takes is counted in stats.
 */

import { performance } from 'node:perf_hooks';
import { IntentKind, PriceGrid, asCount, asciiConst, createIntent, writeBytes, writeInteger, type BookSide, type Clock, type Count, type OrderIntent, type Price } from '../core/index.ts';
import { AmendBodyWriter, CreateBodyWriter, MARGIN_ORDER_VENUE, OneCancelBodyWriter, PREDICTIONS_ORDER_VENUE, encodeCreateQuote, readQuoteRequest, writeQuoteBody } from '../exec/index.ts';
import type { RestOrderVenue } from '../exec/index.ts';
import { assembleInto, signedFieldsBytes } from '../net/index.ts';
import { FixEncoder, FixGroup, FixMessage, MsgType, Tag, parseMessage } from '../fix/index.ts';
import type { OrderBook } from '../book/index.ts';
import { ConnectionState, Feed, NoopFeedListener, type FeedSession, type RfqRecord } from '../feed/index.ts';
import {
  Oms, OrderState, QuoteBook, type CreateKey, type ExecListener, type NewOrder, type OrderEntry, type OrderKey, type ExecReject, type QuoteEntry, type QuoteListener, type QuoteRequest, type VenueOrderRef, type WireQuote,
} from '../oms/index.ts';
import { Deny, RiskGate, riskLimits, type RiskLimits } from '../risk/index.ts';
import { QuoteRouter, Router, completeOwnAmend } from '../router/index.ts';
import { BoundStrategyContext, OrderFlags, type MarketPort, type Strategy } from '../strategy/index.ts';
import { createLogger } from '../telemetry/index.ts';

/** The shadow markets: tickers no venue lists (they never leave this process). */
const SHADOW_TICKER = 'KEEPWARM-SHADOW';
const SHADOW_PERP = 'KEEPWARM-PERP';
/** The shadow perpetual: a $0.01 tick and a $100.00 mark. */
const SHADOW_PERP_TICK = 100;
const SHADOW_PERP_MARK = 1_000_000 as Price;
const SHADOW_SID = 1;
/** Every dry run's order: 1.00 contract. */
const SHADOW_COUNT = asCount(100) as Count;
/** The real OMS's first live orders the real gate's amend rehearsal takes in turn. */
const REAL_AMEND_SPREAD = 4;
/** Shadow orders left resting (a cancel the shadow gate denied) above which runs stop acknowledging creates: each then ends in a reject. */
const SHADOW_RESTING_MAX = 16;
/** Write tokens a run may spend: the create, amend and cancel (22), a Margin create (10) and a quote (10), with room to spare. */
const RUN_WRITE_TOKENS = 100;
/** The shadow orders' venue ids: this, then the order's number. */
const SHADOW_ORDER_ID = asciiConst('keep-warm-');
const SHADOW_RFQ_SID = 2;
/** The strategies' shadow market (plugin rehearse: true) and its stream: its best bid moves once a round of them. */
const SHADOW_STRATEGY_TICKER = 'KEEPWARM-STRATEGY';
const SHADOW_STRATEGY_SID = 3;
/** Requests of one strategy's rehearsal answered by the shadow venue, at most: one that sends more is dropped from the rehearsal (the rest stay pending in the shadow OMS). */
const STRATEGY_REQUESTS_MAX = 32;
/** Shadow orders still tracked above which the strategy leg pauses (a last bound: closed ones are pruned on the OMS's tick, and a strategy that leaves requests unanswered is dropped). */
const STRATEGY_TRACKED_MAX = 256;
// The rehearsal's delta frame as byte pieces made once: each run writes its seq, sign and time
// between them into a reused buffer (a template string per run, made bytes by handleFrame, was
// ~3 KB per order of the live runtime's garbage at the 2 ms cadence: bench/tick-to-trade/heap-profile.ts).
const DELTA_HEAD = asciiConst(`{"type":"orderbook_delta","sid":${SHADOW_SID},"seq":`);
const DELTA_MARKET = asciiConst(`,"msg":{"market_ticker":"${SHADOW_TICKER}","market_id":"keep-warm","price_dollars":"0.3900","delta_fp":"`);
const DELTA_DOWN = asciiConst('-10.00');
const DELTA_UP = asciiConst('10.00');
const DELTA_TIME = asciiConst('","side":"yes","ts_ms":');
const DELTA_END = asciiConst('}}');
// The Margin delta (websocket.md §7.1) in the same pieces: its level comes and goes as the Predictions one.
const PERP_DELTA_MARKET = asciiConst(`,"msg":{"market_ticker":"${SHADOW_PERP}","price":"99.9800","delta":"`);
const PERP_DELTA_TIME = asciiConst('","side":"bid","ts_ms":');
// The strategies' market: a bid at 0.42 that comes and goes, so its best bid moves between 0.41 and 0.42.
const STRATEGY_DELTA_HEAD = asciiConst(`{"type":"orderbook_delta","sid":${SHADOW_STRATEGY_SID},"seq":`);
const STRATEGY_DELTA_MARKET = asciiConst(`,"msg":{"market_ticker":"${SHADOW_STRATEGY_TICKER}","market_id":"keep-warm-strategy","price_dollars":"0.4200","delta_fp":"`);
// A shadow order's requests as the REST route sends them (RestOrderEntry -> RawHttpPool): the
// venue's checks, the body writers and assembleInto into a reused buffer, a presigned signature's
// head bytes. The same functions, so they are optimized and warm for the real order. Every head is
// bytes made once: the real route's amend head carries its order's id (RawHttpPool.sendTo makes it
// per order, and the real route's rehearseAmend warms that); a head or body made per run was
// 0.8-4 KB of the live runtime's garbage an order at the keep-warm's cadence.
const REHEARSAL_HOST_HEADERS = '\r\nHost: keep-warm\r\nKALSHI-ACCESS-KEY: keep-warm\r\nContent-Type: application/json\r\nKALSHI-ACCESS-TIMESTAMP: ';
const REHEARSAL_SIGNED = signedFieldsBytes('1798761600000', 'A'.repeat(344)); // an RSA-2048 signature's length in base64
const rehearsalRequest = Buffer.allocUnsafe(16 * 1024);
const rehearsalBody = new CreateBodyWriter();
const rehearsalAmend = new AmendBodyWriter();
const rehearsalCancel = new OneCancelBodyWriter();

/** How a rehearsal route encodes a shadow order's create, amend and cancel, as a REST route of `venue` sends them; each returns the request's length. */
class ShadowRequests {
  readonly #createHead: Uint8Array;
  readonly #amendHead: Uint8Array;
  readonly #cancelHead: Uint8Array;
  constructor(readonly venue: Readonly<RestOrderVenue>) {
    const orders = `/trade-api/v2${venue.ordersPath}`;
    this.#createHead = asciiConst(`POST ${orders} HTTP/1.1${REHEARSAL_HOST_HEADERS}`);
    this.#amendHead = asciiConst(`POST ${orders}/keep-warm/amend HTTP/1.1${REHEARSAL_HOST_HEADERS}`);
    // The batched DELETE with its body where the venue has it (Predictions), else the per-order DELETE without one (Margin).
    this.#cancelHead = asciiConst(venue.batched ? `DELETE ${orders}/batched HTTP/1.1${REHEARSAL_HOST_HEADERS}` : `DELETE ${orders}/keep-warm HTTP/1.1\r\nHost: keep-warm\r\nKALSHI-ACCESS-KEY: keep-warm\r\nKALSHI-ACCESS-TIMESTAMP: `);
  }

  create(order: Readonly<NewOrder>): number {
    this.venue.checkCreate(order);
    rehearsalBody.order = order;
    const length = assembleInto(rehearsalRequest, this.#createHead, '', '', rehearsalBody, REHEARSAL_SIGNED);
    rehearsalBody.order = null;
    return length;
  }

  amend(ticker: string, side: BookSide, price: Price, count: Count): number {
    this.venue.checkAmend(side, price, count);
    rehearsalAmend.ticker = ticker;
    rehearsalAmend.side = side;
    rehearsalAmend.price = price;
    rehearsalAmend.count = count;
    const length = assembleInto(rehearsalRequest, this.#amendHead, '', '', rehearsalAmend, REHEARSAL_SIGNED);
    rehearsalAmend.ticker = '';
    return length;
  }

  cancel(order: Readonly<VenueOrderRef> | null, orderId: string, subaccount: number): number {
    if (!this.venue.batched) return assembleInto(rehearsalRequest, this.#cancelHead, '', '', null, REHEARSAL_SIGNED);
    rehearsalCancel.order = order;
    rehearsalCancel.orderId = orderId;
    rehearsalCancel.subaccount = subaccount;
    const length = assembleInto(rehearsalRequest, this.#cancelHead, '', '', rehearsalCancel, REHEARSAL_SIGNED);
    rehearsalCancel.order = null;
    rehearsalCancel.orderId = '';
    return length;
  }
}
const PREDICTIONS_REQUESTS = new ShadowRequests(PREDICTIONS_ORDER_VENUE);
const MARGIN_REQUESTS = new ShadowRequests(MARGIN_ORDER_VENUE);

/** Shadow orders are closed at once; the OMS forgets them on its tick, every this many runs. */
const PRUNE_EVERY_RUNS = 64;
const REJECT: ExecReject = Object.freeze({ status: 400, code: 'keep_warm', message: 'dry run', details: '' });

/** The real router's amend rehearsal (Router.rehearseAmend): its own reads and the gate's quiet check. */
export interface RealAmendRehearsal {
  rehearseAmend(intent: OrderIntent, handle: number): boolean;
}

/** A real route's rehearsals (RestOrderEntry's, FixOrderEntry's): requests assembled on its own state, nothing sent. */
export interface RouteRehearsal {
  /** A create's request; its length, or -1 when it could not be assembled. */
  rehearseCreate(order: Readonly<NewOrder>): number;
  /** An amend of the route's own order tracked last, with this body; its length, or -1 (no such order). Absent: creates only. */
  rehearseAmend?(ticker: string, side: BookSide, price: Price, count: Count, subaccount: number): number;
}

const RequestVerb = { CREATE: 0, CANCEL: 1, AMEND: 2, DECREASE: 3 } as const;
type RequestVerb = (typeof RequestVerb)[keyof typeof RequestVerb];

/**
 * The requests a rehearsed strategy made in one run (bounded, arrays made once), answered after
 * its onBook returned as the shadow venue does: a create acknowledged as resting (rejected while
 * SHADOW_RESTING_MAX shadow orders rest), an amend and a decrease refused, a cancel acknowledged.
 */
class ShadowAnswers {
  readonly #verbs: RequestVerb[] = [];
  readonly #keys: (string | number)[] = [];
  #count = 0;
  /** Requests past STRATEGY_REQUESTS_MAX in a run: left unanswered (their strategy is dropped from the rehearsal). */
  dropped = 0;
  answered = 0;

  add(verb: RequestVerb, key: string | number): void {
    if (this.#count >= STRATEGY_REQUESTS_MAX) {
      this.dropped++;
      return;
    }
    this.#verbs[this.#count] = verb;
    this.#keys[this.#count] = key;
    this.#count++;
  }

  /** Answers the recorded requests in order on `oms`; `nextId` writes a new venue id's bytes into `id` and returns its end. */
  answer(oms: Oms, id: Uint8Array, nextId: () => number, nowMs: number): void {
    for (let i = 0; i < this.#count; i++) {
      const key = this.#keys[i]!;
      switch (this.#verbs[i]) {
        case RequestVerb.CREATE:
          if (oms.liveOrderCount > SHADOW_RESTING_MAX) oms.onCreateReject(key as CreateKey, REJECT);
          else oms.onCreateAckBytes(key as CreateKey, id, 0, nextId(), asCount(0) as Count, SHADOW_COUNT, nowMs);
          break;
        case RequestVerb.CANCEL:
          oms.onCancelAck(key as OrderKey, SHADOW_COUNT, nowMs);
          break;
        case RequestVerb.AMEND:
          oms.onAmendReject(key as string, REJECT);
          break;
        case RequestVerb.DECREASE:
          oms.onDecreaseReject(key as string, REJECT);
          break;
      }
      this.#keys[i] = 0;
      this.answered++;
    }
    this.#count = 0;
  }
}

/**
 * A route that encodes the requests as the REST route (or the Margin route) does and writes
 * nothing; each of the `real` routes rehearses the same order's create and amend on its own state too.
 */
class RehearsalRoute implements OrderEntry {
  bytes = 0;
  /** Creates and amends the real routes assembled (a rehearsal answered a length), summed over the routes. */
  realCreates = 0;
  realAmends = 0;
  /** The venue id of the order amended last: the shadow OMS is told the amend's answer by it. */
  lastAmendId = '';
  /** While a rehearsed strategy acts: its requests' keys, for the shadow venue's answers (ShadowAnswers). */
  recorded: ShadowAnswers | null = null;
  constructor(readonly requests: ShadowRequests, readonly real: readonly RouteRehearsal[] = []) {}
  setListener(_listener: ExecListener): void {}
  create(order: Readonly<NewOrder>): void {
    const handle = order.handle ?? 0;
    this.recorded?.add(RequestVerb.CREATE, handle > 0 ? handle : order.clientOrderId);
    const real = this.real;
    for (let i = 0; i < real.length; i++) if (real[i]!.rehearseCreate(order) > 0) this.realCreates++;
    this.bytes += this.requests.create(order);
  }
  cancel(orderId: string, subaccount: number): void {
    this.recorded?.add(RequestVerb.CANCEL, orderId);
    this.bytes += this.requests.cancel(null, orderId, subaccount);
  }
  cancelOrder(order: Readonly<VenueOrderRef>): void {
    this.recorded?.add(RequestVerb.CANCEL, order.handle > 0 ? order.handle : order.orderId);
    this.bytes += this.requests.cancel(order, '', order.subaccount);
  }
  amend(orderId: string, ticker: string, side: BookSide, price: Price, count: Count, subaccount: number): void {
    this.recorded?.add(RequestVerb.AMEND, orderId);
    this.lastAmendId = orderId;
    const real = this.real;
    for (let i = 0; i < real.length; i++) {
      const route = real[i]!;
      if (route.rehearseAmend !== undefined && route.rehearseAmend(ticker, side, price, count, subaccount) > 0) this.realAmends++;
    }
    this.bytes += this.requests.amend(ticker, side, price, count);
  }
  decrease(orderId: string): void {
    this.recorded?.add(RequestVerb.DECREASE, orderId);
  }
  cancelAll(): Promise<void> {
    return Promise.resolve();
  }
}

/** A quote route that encodes the quote as the configured route does (REST body or FIX 35=S) and writes nothing. */
class RehearsalQuoteRoute implements QuoteEntry {
  bytes = 0;
  readonly #fix: FixEncoder | null;
  #seq = 0;
  constructor(route: 'rest' | 'fix', readonly clock: Clock) {
    this.#fix = route === 'fix' ? new FixEncoder() : null;
  }
  setListener(_listener: QuoteListener): void {}
  create(quote: QuoteRequest): void {
    const fix = this.#fix;
    if (fix === null) {
      this.bytes += encodeCreateQuote(quote, false).length;
      return;
    }
    const encoder = fix.begin(MsgType.Quote, 'KEEPWARM', 'KalshiRFQ', ++this.#seq, this.clock.nowMs());
    this.bytes += writeQuoteBody(encoder, quote, `keep-warm-${this.#seq}`, false).finish().length;
  }
  cancel(): void {}
  confirm(): void {}
  listQuotes(): Promise<WireQuote[]> {
    return Promise.resolve([]);
  }
}

/** The shadow feed's listener: RFQs to the shadow quote book, everything else ignored. */
class RfqRehearsalListener extends NoopFeedListener {
  constructor(readonly quotes: QuoteBook) {
    super();
  }
  override onRfq(record: RfqRecord): void {
    this.quotes.onRfq(record);
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
  /** Rehearse the RFQ path too, encoding as this quote route does (config rfq.enabled, rfq.route); null or absent: no. */
  rfq?: 'rest' | 'fix' | null;
  /** Rehearse a perpetual's path too (config margin.enabled). */
  margin?: boolean;
  /**
   * The real gate, and the route index its Margin markets' orders take (-1: none): each run also
   * runs one check of a would-be bid on the real gate's state, its markets in turn, and leaves no
   * trace (RiskGate.rehearse). The shadow gate warms the code; this warms the real gate's own
   * markets, ledgers and budget (tick-to-trade risk hop ~14 -> ~11 µs at p50 in bench runs).
   * With the real OMS (`oms`), every other run checks instead an amend, to its own price and count,
   * of one of its first few resting orders: a maker's orders are amends, whose checks also read the
   * order's exposure (the main job's risk hop p50 ~20 -> ~15 µs in two pairs of 60 s runs). With
   * the real router (`router`), that amend goes through its own reads first (Router.rehearseAmend:
   * the OMS's lookup by handle, the hold and saturation checks; risk hop ~10.7 -> ~8.0 µs in four
   * pairs).
   */
  realGate?: { gate: RiskGate; marginRoute: number; oms?: Oms | null; router?: RealAmendRehearsal | null } | null;
  /**
   * The real order routes. The REST route: each run's shadow create is also assembled on it
   * (rehearseCreate: the next presigned signature peeked, the request written into the buffer of
   * the connection the next create takes, nothing sent), so a real create finds that state in
   * cache (tick-to-trade exec called -> first byte ~20-24 -> ~15 µs at p50 in bench runs); and its
   * amend, on the path and next per-order signature of the real order tracked last (rehearseAmend:
   * the amend case's exec called -> first byte ~41 -> ~18-23 µs in two pairs of bench runs). The
   * FIX route, when a strategy uses it: the NewOrderSingle and the replace of its live order noted
   * last encoded in the session's buffer, not numbered or sent.
   */
  realRoutes?: readonly RouteRehearsal[];
  /**
   * The real Margin route (MarginOrderEntry, with `margin`): the Margin leg's shadow order's create
   * and amend rehearsed on it as on the REST route (the Margin create path's presigned signature,
   * its order tracked last).
   */
  realMarginRoute?: RouteRehearsal | null;
  /**
   * The strategies whose plugins ask for it (rehearse: true; StrategyHost): each run, one of their
   * second instances, in turn, reads a shadow market whose best bid moves and acts through a
   * shadow context; its requests are answered by the shadow venue after its onBook returns.
   */
  strategies?: StrategyRehearsals | null;
}

/** The strategies' second instances the dry run rehearses (StrategyHost satisfies it). */
export interface StrategyRehearsals {
  /** Replaced (not changed in place) when a strategy starts, stops or is dropped. */
  readonly rehearsals: readonly Strategy[];
  /** `rehearsal` threw: it leaves the rehearsal for good. */
  rehearsalFailed(rehearsal: Strategy, error: unknown): void;
}

/** Above this share of the last interval busy, the loop is doing real work (it warms the path itself). */
const BUSY_UTILIZATION = 0.5;
/** While the loop is that busy, one dry run per this many ms: enough to keep V8's code optimized. */
const BUSY_INTERVAL_MS = 100;

export class KeepWarm {
  /** `thinned`: ticks skipped because the loop was busy (a dry run then costs ~0.8 ms of cold caches at 5,000 markets). */
  readonly stats = { runs: 0, busyUsTotal: 0, sentBytes: 0, denied: 0, thinned: 0, realChecks: 0, strategyCalls: 0, strategyPauses: 0 };

  /** The shadow feed's deltas applied and frames it could not read (tests: every run's frame is one the feed reads). */
  get shadowFeed(): { deltasApplied: number; malformedFrames: number; unknownTypes: number } {
    return this.#feed.counters;
  }
  readonly #options: KeepWarmOptions;
  readonly #feed: Feed;
  readonly #gate: RiskGate;
  readonly #oms: Oms;
  readonly #router: Router;
  readonly #route: RehearsalRoute;
  readonly #marginRoute: RehearsalRoute;
  /** The Margin leg: its feed, the shadow perpetual's market handle and book; null without margin. */
  readonly #margin: { feed: Feed; market: number; book: OrderBook } | null = null;
  readonly #intent: OrderIntent = createIntent();
  readonly #market: number;
  /**
   * A strategy context of the class plugins act through, bound to the shadow router and market:
   * each run's order is placed, amended and cancelled through it, as a market maker's are (a
   * plugin's own code runs only in the strategies' leg, on its own context and market).
   */
  readonly #ctx: BoundStrategyContext;
  /** The rehearsed strategies' leg: their shadow market's book and context, and the answers to their requests; null without options.strategies. */
  readonly #strategyLeg: { rehearsals: StrategyRehearsals; book: OrderBook; ctx: BoundStrategyContext; answers: ShadowAnswers } | null = null;
  #strategySeq = 1;
  /** Strategy-leg runs so far: whose turn it is. */
  #strategyTurn = 0;
  /** The strategies' market's bid at 0.42 rests (it comes and goes, one delta per round of the strategies). */
  #strategyBidUp = false;
  readonly #nextOrderIdBound = (): number => this.#nextOrderId();
  /** The shadow order's venue id as the create's answer carries it (bytes), written per run. */
  readonly #orderId = Buffer.allocUnsafe(32);
  readonly #quotes: QuoteBook | null = null;
  readonly #quoteRouter: QuoteRouter | null = null;
  readonly #quoteRoute: RehearsalQuoteRoute;
  #rfqs = 0;
  /** Quotes over FIX: the QuoteRequest the rehearsal encodes and parses, and what it parses into. */
  readonly #fixRequest: { encoder: FixEncoder; message: FixMessage; group: FixGroup } | null;
  /** The subaccount the shadow trades in: a restricted key's own, else 0 (the gate checks it as it would a real one). */
  readonly #subaccount: number;
  readonly #runBound = (): void => this.#onTimer();
  /** The loop's utilization counters at the last tick, and when the last dry run went. */
  /** performance.now() and the loop's idle time (performance.nodeTiming.idleTime) at the last tick. */
  #tickMs = performance.now();
  #idleMs = performance.nodeTiming.idleTime;
  #lastRunMs = 0;
  #seq = 1;
  /** Shadow orders acknowledged so far: the number in each one's venue id. */
  #orders = 0;
  #up = true;
  /** The real gate's market handle the next run rehearses a check on. */
  #realHandle = 0;
  /** Real amends rehearsed: which of the first live orders the next one takes. */
  #realAmends = 0;
  readonly #frame = Buffer.allocUnsafe(256);
  #timer: NodeJS.Timeout | null = null;

  constructor(options: KeepWarmOptions) {
    this.#options = options;
    this.#route = new RehearsalRoute(PREDICTIONS_REQUESTS, options.realRoutes ?? []);
    const realMargin = options.realMarginRoute ?? null;
    this.#marginRoute = new RehearsalRoute(MARGIN_REQUESTS, realMargin === null ? [] : [realMargin]);
    this.#subaccount = options.limits.restrictedSubaccount >= 0 ? options.limits.restrictedSubaccount : 0;
    const clock = options.clock;
    const grid = PriceGrid.fromStructure('linear_cent');
    this.#feed = new Feed({ url: 'ws://127.0.0.1:1/keep-warm', auth: null, clock, staleBookMs: 0, createSession: closedSession });
    // Every check the real gate makes, on the shadow's own budget, sized so no run is denied.
    const writesPerSecond = Math.ceil((1_000 / Math.max(1, options.intervalMs)) * RUN_WRITE_TOKENS);
    this.#gate = new RiskGate({
      limits: riskLimits({ ...options.limits, rateTier: 'custom', writeTokensPerSecond: writesPerSecond, writeCapacityTokens: writesPerSecond, readTokensPerSecond: 100 }),
      clock,
    });
    const reads = { listOrders: () => Promise.resolve([]), listFills: () => Promise.resolve([]), listPositions: () => Promise.resolve([]) };
    this.#oms = new Oms({ reads, listener: this.#gate, clock, clientOrderIdPrefix: 'warm', journal: null, terminalRetentionMs: 0, reconcileIntervalMs: 1e12 });
    this.#router = new Router({ gate: this.#gate, oms: this.#oms, route: this.#route, moreRoutes: [{ name: 'margin', entry: this.#marginRoute, exchange: 'margin' }], clock });
    const book = this.#feed.addMarket(SHADOW_TICKER, grid);
    this.#market = this.#gate.addMarket(SHADOW_TICKER, grid, book, { open: true });
    this.#feed.handleFrame(
      `{"type":"orderbook_snapshot","sid":${SHADOW_SID},"seq":${this.#seq},"msg":{"market_ticker":"${SHADOW_TICKER}","market_id":"keep-warm",` +
        `"yes_dollars_fp":[["0.4000","100.00"],["0.4100","100.00"]],"no_dollars_fp":[["0.5500","100.00"],["0.5600","100.00"]]}}`,
    );
    if (!book.synced) throw new Error('keep-warm: the shadow snapshot did not sync its book');
    if (options.margin === true) {
      const feed = new Feed({ url: 'ws://127.0.0.1:1/keep-warm/margin', auth: null, clock, staleBookMs: 0, createSession: closedSession, venue: 'margin', markets: this.#gate.markets.registry });
      const perp = feed.addPerpMarket(SHADOW_PERP, SHADOW_PERP_TICK);
      const market = this.#gate.addMarginMarket(SHADOW_PERP, SHADOW_PERP_TICK, perp, { open: true });
      this.#gate.markets.registry.setMark(market, SHADOW_PERP_MARK);
      this.#gate.setMarginBalance(this.#subaccount, 1e12); // $100M: the checks run, none denies
      feed.handleFrame(
        `{"type":"orderbook_snapshot","sid":${SHADOW_SID},"seq":1,"msg":{"market_ticker":"${SHADOW_PERP}","bid":[["99.9000","10.00"],["99.9900","10.00"]],"ask":[["100.0100","10.00"]]}}`,
      );
      if (!perp.synced) throw new Error('keep-warm: the shadow perpetual snapshot did not sync its book');
      this.#margin = { feed, market, book: perp };
    }
    const strategyBook = options.strategies === undefined || options.strategies === null ? null : this.#addStrategyMarket(grid);
    const strategyMarket = strategyBook === null ? -1 : this.#gate.marketHandle(SHADOW_STRATEGY_TICKER);
    const market = this.#market;
    const perp = this.#margin;
    const markets: MarketPort = {
      marketHandle: (ticker) => (ticker === SHADOW_TICKER ? market : ticker === SHADOW_PERP && perp !== null ? perp.market : ticker === SHADOW_STRATEGY_TICKER ? strategyMarket : -1),
      book: (ticker) => (ticker === SHADOW_TICKER ? book : ticker === SHADOW_PERP && perp !== null ? perp.book : ticker === SHADOW_STRATEGY_TICKER && strategyBook !== null ? strategyBook : undefined),
      ensureMarkets: () => Promise.resolve(),
    };
    const tickers = perp === null ? [SHADOW_TICKER] : [SHADOW_TICKER, SHADOW_PERP];
    const log = createLogger({ level: 'silent' });
    const binding = { id: 'keep-warm', strategyId: 0, subaccount: this.#subaccount, orderGroup: -1, markets: tickers, params: {}, log };
    this.#ctx = new BoundStrategyContext(binding, this.#router, markets, clock);
    this.#ctx.setActive(true);
    if (strategyBook !== null) {
      const strategyBinding = { ...binding, id: 'keep-warm-strategies', markets: [SHADOW_STRATEGY_TICKER] };
      const ctx = new BoundStrategyContext(strategyBinding, this.#router, markets, clock);
      ctx.setActive(true);
      this.#strategyLeg = { rehearsals: options.strategies!, book: strategyBook, ctx, answers: new ShadowAnswers() };
    }
    this.#quoteRoute = new RehearsalQuoteRoute(options.rfq === 'fix' ? 'fix' : 'rest', clock);
    this.#fixRequest = options.rfq === 'fix' ? { encoder: new FixEncoder(), message: new FixMessage(), group: new FixGroup(8) } : null;
    if (options.rfq === 'rest' || options.rfq === 'fix') {
      const quotes = new QuoteBook({ clock, journal: null, onOpenCount: (count) => this.#gate.setOpenQuotes(count), onExposure: (quote) => this.#gate.onQuoteChange(quote) });
      quotes.setEntry(this.#quoteRoute);
      this.#quotes = quotes;
      this.#quoteRouter = new QuoteRouter({ gate: this.#gate, quotes, route: this.#quoteRoute });
      this.#feed.setListener(new RfqRehearsalListener(quotes));
    }
  }

  /** The strategies' shadow market on the shadow feed (its own sid) and gate: best bid 0.41, best ask 0.44. */
  #addStrategyMarket(grid: PriceGrid): OrderBook {
    const book = this.#feed.addMarket(SHADOW_STRATEGY_TICKER, grid);
    this.#gate.addMarket(SHADOW_STRATEGY_TICKER, grid, book, { open: true });
    this.#feed.handleFrame(
      `{"type":"orderbook_snapshot","sid":${SHADOW_STRATEGY_SID},"seq":${this.#strategySeq},"msg":{"market_ticker":"${SHADOW_STRATEGY_TICKER}","market_id":"keep-warm-strategy",` +
        `"yes_dollars_fp":[["0.4000","100.00"],["0.4100","100.00"]],"no_dollars_fp":[["0.5500","100.00"],["0.5600","100.00"]]}}`,
    );
    if (!book.synced) throw new Error('keep-warm: the strategies\' shadow snapshot did not sync its book');
    return book;
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
    this.#margin?.feed.stop();
  }

  /**
   * A dry run every interval while the loop is mostly idle (what it is for: a maker's rare orders);
   * while it is busy with real frames, one every BUSY_INTERVAL_MS. At 5,000 markets and tens of
   * thousands of updates a second the 2 ms cadence had cost about a tenth of the core, and single
   * runs of several ms (cold caches) were a large part of the loop's delay tail.
   */
  #onTimer(): void {
    // The loop's utilization since the last tick, from its idle time (what eventLoopUtilization
    // reads, without the two result objects and the hrtime array it makes per call).
    const nowMs = performance.now();
    const idleMs = performance.nodeTiming.idleTime;
    const elapsedMs = nowMs - this.#tickMs;
    const busy = elapsedMs > 0 && 1 - (idleMs - this.#idleMs) / elapsedMs > BUSY_UTILIZATION;
    this.#tickMs = nowMs;
    this.#idleMs = idleMs;
    if (busy && nowMs - this.#lastRunMs < BUSY_INTERVAL_MS) {
      this.stats.thinned++;
      return;
    }
    this.#lastRunMs = nowMs;
    this.runOnce();
  }

  /** One dry run: frame -> decode -> book -> gate -> OMS -> request bytes, then the order closed. */
  runOnce(): void {
    const startMs = performance.now();
    // A level that comes and goes, so the shadow book stays the same run after run.
    this.#up = !this.#up;
    this.#seq++;
    this.#feed.handleBytes(this.#frame, 0, this.#writeDelta(DELTA_MARKET, DELTA_TIME));
    this.#rehearseOrder(SHADOW_TICKER, this.#feed.books.get(SHADOW_TICKER)!, this.#route);
    const real = this.#options.realGate;
    if (real !== undefined && real !== null) {
      // Every other run, with the real OMS given and an order of it resting: its amend checked instead.
      const amended = (this.stats.runs & 1) === 1 && real.oms !== undefined && real.oms !== null && this.#rehearseRealAmend(real.gate, real.oms, real.marginRoute, real.router ?? null);
      if (!amended) this.#rehearseRealGate(real.gate, real.marginRoute);
    }
    if (this.#margin !== null) this.#rehearseMargin(this.#margin.feed, this.#margin.book);
    if (this.#quoteRouter !== null) this.#rehearseRfq();
    if (this.#strategyLeg !== null) this.#rehearseStrategies(this.#strategyLeg);
    this.stats.runs++;
    if (this.stats.runs % PRUNE_EVERY_RUNS === 0) void this.#oms.tick();
    this.stats.busyUsTotal += (performance.now() - startMs) * 1000;
  }

  /**
   * A post-only bid at the touch of `ticker` placed through the shadow context (the router picks
   * `route`, the market's); acknowledged as resting, then amended a level lower (the amend refused
   * by the shadow venue) and cancelled, as a market maker's quote lives. The create alone, closed
   * by a reject, when it was held (no handle) or shadow orders were left resting.
   */
  #rehearseOrder(ticker: string, book: OrderBook, route: RehearsalRoute): void {
    const ctx = this.#ctx;
    const before = route.bytes;
    if (ctx.place(ticker, 'bid', book.bestBid(), SHADOW_COUNT, OrderFlags.POST_ONLY) !== Deny.NONE) {
      this.stats.denied++;
      return;
    }
    const handle = ctx.lastOrderHandle;
    const oms = this.#oms;
    if (handle <= 0 || oms.liveOrderCount > SHADOW_RESTING_MAX) {
      oms.onCreateReject(handle > 0 ? handle : ctx.lastClientOrderId, REJECT);
      this.stats.sentBytes += route.bytes - before;
      return;
    }
    const nowMs = this.#options.clock.nowMs();
    oms.onCreateAckBytes(handle, this.#orderId, 0, this.#nextOrderId(), asCount(0) as Count, SHADOW_COUNT, nowMs);
    if (ctx.amend(handle, book.grid.priceAt(book.bestBidLevel - 1), SHADOW_COUNT) === Deny.NONE) oms.onAmendReject(route.lastAmendId, REJECT);
    else this.stats.denied++;
    if (ctx.cancel(handle) === Deny.NONE) oms.onCancelAck(handle, SHADOW_COUNT, nowMs);
    else this.stats.denied++;
    this.stats.sentBytes += route.bytes - before;
  }

  /** A new shadow venue id (each order its own) written into this.#orderId; its end. */
  #nextOrderId(): number {
    const idBytes = this.#orderId;
    return writeInteger(idBytes, writeBytes(idBytes, 0, SHADOW_ORDER_ID), ++this.#orders);
  }

  /**
   * The strategies' leg: one rehearsed strategy's onBook a run, in turn, through its shadow
   * context on the shadow market, then the shadow venue's answers to what it sent. One that
   * throws, or sends more than a run answers, is dropped for good (rehearsalFailed); while too
   * many shadow orders are tracked the leg pauses.
   */
  #rehearseStrategies(leg: { rehearsals: StrategyRehearsals; book: OrderBook; ctx: BoundStrategyContext; answers: ShadowAnswers }): void {
    const list = leg.rehearsals.rehearsals;
    if (list.length === 0) return;
    if (this.#oms.liveOrderCount > STRATEGY_TRACKED_MAX) {
      this.stats.strategyPauses++;
      return;
    }
    // One strategy a run, in turn (a run's cost stays one onBook however many declare rehearse);
    // the touch moves once a round, so each one sees it move between two of its own calls.
    const turn = this.#strategyTurn++ % list.length;
    if (turn === 0) this.#moveStrategyTouch();
    const rehearsal = list[turn]!;
    const route = this.#route;
    const answers = leg.answers;
    const before = route.bytes;
    const droppedBefore = answers.dropped;
    route.recorded = answers;
    let failure: unknown = null;
    try {
      rehearsal.onBook(leg.book, leg.ctx);
    } catch (error) {
      failure = error ?? new Error('threw a nullish value');
    } finally {
      route.recorded = null;
    }
    answers.answer(this.#oms, this.#orderId, this.#nextOrderIdBound, this.#options.clock.nowMs());
    this.stats.sentBytes += route.bytes - before;
    if (failure !== null) {
      leg.rehearsals.rehearsalFailed(rehearsal, failure);
      return;
    }
    this.stats.strategyCalls++;
    // More than a run answers: what it left pending would stay tracked, so it leaves the rehearsal.
    if (answers.dropped !== droppedBefore) leg.rehearsals.rehearsalFailed(rehearsal, new Error(`sent more than ${STRATEGY_REQUESTS_MAX} requests in one keep-warm run`));
  }

  /** A delta on the strategies' market's own stream: its bid at 0.42 comes or goes, so the best bid moves. */
  #moveStrategyTouch(): void {
    this.#strategySeq++;
    const frame = this.#frame;
    let at = writeBytes(frame, 0, STRATEGY_DELTA_HEAD);
    at = writeInteger(frame, at, this.#strategySeq);
    at = writeBytes(frame, at, STRATEGY_DELTA_MARKET);
    this.#strategyBidUp = !this.#strategyBidUp;
    at = writeBytes(frame, at, this.#strategyBidUp ? DELTA_UP : DELTA_DOWN);
    at = writeBytes(frame, at, DELTA_TIME);
    at = writeInteger(frame, at, Math.floor(this.#options.clock.nowMs()));
    this.#feed.handleBytes(frame, 0, writeBytes(frame, at, DELTA_END));
  }

  /** The reused intent as a new post-only bid of 1.00 contract at `price` in the dry run's subaccount, no order group. */
  #postOnlyBid(market: number, price: Price, route: number): OrderIntent {
    const intent = this.#intent;
    intent.kind = IntentKind.NEW;
    intent.market = market;
    intent.side = 'bid';
    intent.price = price;
    intent.count = SHADOW_COUNT;
    intent.postOnly = true;
    intent.subaccount = this.#subaccount;
    intent.clientOrderId = '';
    intent.orderGroup = -1;
    intent.route = route;
    return intent;
  }

  /** One check of a post-only bid at the touch on the real gate's next market in turn, quietly (nothing taken, nothing reported). */
  #rehearseRealGate(gate: RiskGate, marginRoute: number): void {
    const markets = gate.markets;
    const limit = markets.handleLimit;
    if (limit === 0) return;
    const handle = this.#realHandle < limit ? this.#realHandle : 0;
    this.#realHandle = handle + 1;
    const market = markets.at(handle);
    const book = market === undefined ? null : market.book;
    if (book === null || !book.synced || (market!.isMargin && marginRoute < 0)) return;
    gate.rehearse(this.#postOnlyBid(handle, book.bestBid(), market!.isMargin ? marginRoute : 0));
    this.stats.realChecks++;
  }

  /**
   * One check of an amend, to its own price and count, of one of the real OMS's resting orders (the
   * first few live ones in turn), quietly: a maker's orders are amends, whose checks read the
   * order's own exposure slot as well as the market's. False when none rests.
   */
  #rehearseRealAmend(gate: RiskGate, oms: Oms, marginRoute: number, router: RealAmendRehearsal | null): boolean {
    let order = oms.oldestLiveOrder;
    for (let skip = this.#realAmends++ % REAL_AMEND_SPREAD; skip > 0 && order !== null && order.liveNext !== null; skip--) order = order.liveNext;
    for (let seen = 0; order !== null && order.state !== OrderState.RESTING && seen < REAL_AMEND_SPREAD; seen++) order = order.liveNext;
    if (order === null || order.state !== OrderState.RESTING) return false;
    const market = gate.markets.at(order.market);
    if (market === undefined || (market.isMargin && marginRoute < 0)) return false;
    // As the router makes a strategy's amend of it, to the order's own price and count: through
    // the real router's own reads when it is given and the order has a handle.
    const intent = this.#intent;
    if (router !== null && order.handle > 0 && router.rehearseAmend(intent, order.handle)) {
      this.stats.realChecks++;
      return true;
    }
    completeOwnAmend(intent, order);
    gate.rehearse(intent);
    this.stats.realChecks++;
    return true;
  }

  /** Margin delta -> perpetual book, then the shadow order's life on the perpetual (the router picks the Margin route; the gate's margin checks). */
  #rehearseMargin(feed: Feed, book: OrderBook): void {
    feed.handleBytes(this.#frame, 0, this.#writeDelta(PERP_DELTA_MARKET, PERP_DELTA_TIME));
    this.#rehearseOrder(SHADOW_PERP, book, this.#marginRoute);
  }

  /** This run's delta frame into the reused buffer, its market's pieces between the shared ones (the run's seq, sign and time); its length. */
  #writeDelta(market: Uint8Array, time: Uint8Array): number {
    const frame = this.#frame;
    let at = writeBytes(frame, 0, DELTA_HEAD);
    at = writeInteger(frame, at, this.#seq);
    at = writeBytes(frame, at, market);
    at = writeBytes(frame, at, this.#up ? DELTA_DOWN : DELTA_UP);
    at = writeBytes(frame, at, time);
    at = writeInteger(frame, at, Math.floor(this.#options.clock.nowMs()));
    return writeBytes(frame, at, DELTA_END);
  }

  /** rfq_created -> quote book -> gate -> quote accepted and encoded -> the quote rejected, the RFQ deleted. */
  #rehearseRfq(): void {
    const quotes = this.#quotes!;
    const id = `keep-warm-${++this.#rfqs}`;
    const nowMs = this.#options.clock.nowMs();
    const nowIso = new Date(nowMs).toISOString();
    const fix = this.#fixRequest;
    if (fix === null) {
      this.#feed.handleFrame(
        `{"type":"rfq_created","sid":${SHADOW_RFQ_SID},"msg":{"id":"${id}","creator_id":"keep-warm","market_ticker":"${SHADOW_TICKER}",` +
          `"event_ticker":"KEEPWARM","contracts_fp":"10.00","created_ts":"${nowIso}"}}`,
      );
    } else {
      // As the venue sends it to a maker (fix.md §7), then as FixQuoteRoute reads it.
      const bytes = fix.encoder.begin(MsgType.QuoteRequest, 'KalshiRFQ', 'KEEPWARM', this.#rfqs, nowMs).string(Tag.QuoteReqID, id)
        .int(Tag.NoRelatedSym, 1).string(Tag.Symbol, SHADOW_TICKER).count(Tag.OrderQty, 1000).int(Tag.NoPartyIDs, 1).string(Tag.PartyID, 'keep-warm')
        .finish();
      const parsed = parseMessage(bytes, fix.message);
      const rfq = parsed instanceof FixMessage ? readQuoteRequest(parsed, fix.group) : null;
      if (rfq !== null) quotes.onRfq(rfq);
    }
    const before = this.#quoteRoute.bytes;
    if (this.#quoteRouter!.quote(0, this.#subaccount, id, 3900 as Price, 5500 as Price, true) === 0) {
      quotes.onQuoteCreateReject(this.#quoteRouter!.lastQuoteHandle, 'keep_warm', 400);
      this.stats.sentBytes += this.#quoteRoute.bytes - before;
    } else {
      this.stats.denied++;
    }
    this.#feed.handleFrame(`{"type":"rfq_deleted","sid":${SHADOW_RFQ_SID},"msg":{"id":"${id}","market_ticker":"${SHADOW_TICKER}","deleted_ts":"${nowIso}"}}`);
  }

  /** Shadow creates the real routes assembled on their own state (realRoutes, realMarginRoute), summed over them. */
  get realCreates(): number {
    return this.#route.realCreates + this.#marginRoute.realCreates;
  }

  /** Shadow amends the real routes assembled on their own state, each on its order tracked last (rehearseAmend), summed over them. */
  get realAmends(): number {
    return this.#route.realAmends + this.#marginRoute.realAmends;
  }

  /** Shadow amends and cancels each run's order went through (its create acknowledged as resting). */
  get shadowAmends(): number {
    return this.#ctx.accepted[IntentKind.AMEND]!;
  }

  get shadowCancels(): number {
    return this.#ctx.accepted[IntentKind.CANCEL]!;
  }

  /** The rehearsed strategies' requests answered by the shadow venue, and those past a run's bound left unanswered. */
  get strategyRequests(): { answered: number; dropped: number } {
    const answers = this.#strategyLeg?.answers;
    return { answered: answers?.answered ?? 0, dropped: answers?.dropped ?? 0 };
  }

  /** The strategies' shadow market's book (null without options.strategies): tests read its best bid. */
  get strategyBook(): OrderBook | null {
    return this.#strategyLeg?.book ?? null;
  }

  /** Shadow orders still tracked (they are pruned on the OMS's tick; bounded). */
  get trackedOrders(): number {
    return this.#oms.liveOrderCount;
  }

  /** Shadow quotes not closed (each rehearsal closes its own at once), -1 without the RFQ leg. */
  get openQuotes(): number {
    return this.#quotes === null ? -1 : this.#quotes.openCount;
  }
}

/**
 * RFQ participants: seeded synthetic users on the `communications` side of the venue. Requesters
 * create RFQs on active markets (plain and combo) at a configured rate, wait a short window for
 * quotes, often accept the cheapest one that trades strictly inside the book's spread (the quoter
 * must confirm, docs "Request for Quote") and let the rest lapse (the RFQ is deleted after its
 * lifetime). Quoters answer RFQs that real users create, within a couple of seconds, with a
 * two-sided quote around the book's fair value, and confirm most of their accepted quotes (some
 * are left to the confirm window).
 *
 * It acts only through the engine's public RFQ calls, like any user, so every message reaches the
 * wire through the engine's existing emitters (WebSocket `communications`, KalshiRFQ FIX). Engine
 * events are only queued here (never acted on inside a listener: a reply emitted mid-emission
 * would reach later listeners before the event that caused it); step() acts on what is due.
 * It never reads the wall clock and never uses Math.random: the RFQs created (market, size, side)
 * come from a random stream of their own, so the same seed gives the same sequence of RFQs
 * whatever real users do meanwhile.
 */

import type { Centicents, Count, Price } from '../../core/index.ts';
import { SeededRandom, isSimError } from '../engine/index.ts';
import type { Market, MveLeg, Quote, QuoteEvent, QuoteSide, RfqEvent, SimEngine } from '../engine/index.ts';

export interface RfqParticipantsOptions {
  seed: number;
  /** RFQs the requesters create per minute (all markets together); 0 = none. */
  rfqsPerMinute: number;
  /** Synthetic requesters and quoters. Default 2 each. */
  requesters?: number;
  quoters?: number;
  /** A requester looks at its quotes this long after creating the RFQ, ms. Default 2,000. */
  quoteWindowMs?: number;
  /** An RFQ without an executed quote is deleted this long after creation, ms. Default 15,000. */
  rfqLifetimeMs?: number;
  /** Chance a requester accepts the best acceptable quote, 1/1000. Default 700. */
  acceptPerMille?: number;
  /** Most a requester pays above fair value per contract (Price units, 1/10,000 $). Default 1,000 ($0.10). */
  acceptPremiumMax?: number;
  /** Chance a participant quoter confirms an accepted quote, 1/1000. Default 900. */
  confirmPerMille?: number;
  /** Share of RFQs on a combo market, 1/1000. Default 200. */
  comboPerMille?: number;
  /** Share of RFQs sized by target cost instead of contracts, 1/1000. Default 100. */
  targetCostPerMille?: number;
  /** RFQ size, whole contracts. Default 1..100. */
  contractsMin?: number;
  contractsMax?: number;
  /** Delay before a quoter answers a user's RFQ, ms. Default 200..2,000. */
  quoteDelayMsMin?: number;
  quoteDelayMsMax?: number;
  /** User id prefix. Default "sim-rfq". */
  userPrefix?: string;
}

/** One RFQ a participant created, as the record the participants keep of it. */
export interface ParticipantRfq {
  readonly rfqId: string;
  readonly marketTicker: string;
  readonly contracts: Count;
  readonly targetCost: Centicents | null;
  readonly combo: boolean;
}

/** Cash each participant gets per exchange index: large enough never to run dry ($1,000,000,000). */
const PARTICIPANT_CASH = 10_000_000_000_000 as Centicents;
const EXCHANGE_INDEXES = [0, 2, 3];
const PRICE_ONE = 10_000;
/** Open participant RFQs at once (the engine allows 100 per user); beyond it creation waits. */
const OPEN_RFQS_MAX = 40;
/** Queued replies (quotes to send, confirms) at once; beyond it new RFQs of users go unanswered. */
const TASKS_MAX = 512;
/** How often an undecided or expiring RFQ is looked at again, ms. */
const RECHECK_MS = 500;
/** The participant's RFQs remembered for created() (tests, determinism); oldest dropped first. */
const HISTORY_MAX = 1_000;

class OwnRfq {
  readonly rfqId: string;
  readonly requester: string;
  /** The side the requester wants (it takes the other when only that one is quoted). */
  readonly side: QuoteSide;
  checkAtMs: number;
  readonly closeAtMs: number;
  /** Whether this requester takes a quote at all (drawn once, at the first look with quotes); null before. */
  willing: boolean | null;

  constructor(rfqId: string, requester: string, side: QuoteSide, checkAtMs: number, closeAtMs: number) {
    this.rfqId = rfqId;
    this.requester = requester;
    this.side = side;
    this.checkAtMs = checkAtMs;
    this.closeAtMs = closeAtMs;
    this.willing = null;
  }
}

/** A reply due: quote a user's RFQ, or confirm an accepted quote. */
class Task {
  readonly kind: 'quote' | 'confirm';
  readonly id: string;
  readonly userId: string;
  readonly dueMs: number;

  constructor(kind: 'quote' | 'confirm', id: string, userId: string, dueMs: number) {
    this.kind = kind;
    this.id = id;
    this.userId = userId;
    this.dueMs = dueMs;
  }
}

export class RfqParticipants {
  readonly userIds: readonly string[];
  readonly #engine: SimEngine;
  /**
   * RFQ creation draws only (market, size, side): the sequence of RFQs depends on the seed alone,
   * not on when they are made or how many wait for room (the intervals draw from #timingRandom).
   */
  readonly #createRandom: SeededRandom;
  readonly #timingRandom: SeededRandom;
  /** Everything that reacts to others (quote, accept, confirm). */
  readonly #replyRandom: SeededRandom;
  readonly #requesterIds: string[];
  readonly #quoterIds: string[];
  readonly #participants: Set<string>;
  readonly #tickers: string[];
  readonly #intervalMs: number;
  readonly #settings: Required<Omit<RfqParticipantsOptions, 'seed' | 'rfqsPerMinute' | 'requesters' | 'quoters' | 'userPrefix'>>;
  readonly #own: OwnRfq[] = [];
  readonly #tasks: Task[] = [];
  readonly #history: ParticipantRfq[] = [];
  readonly #unsubscribe: () => void;
  #nextRfqAtMs = -1;
  #createdCount = 0;

  constructor(engine: SimEngine, options: RfqParticipantsOptions) {
    this.#engine = engine;
    this.#createRandom = new SeededRandom((options.seed ^ 0x52465131) | 0);
    this.#replyRandom = new SeededRandom((options.seed ^ 0x51554f54) | 0);
    this.#timingRandom = new SeededRandom((options.seed ^ 0x54494d45) | 0);
    const prefix = options.userPrefix ?? 'sim-rfq';
    this.#requesterIds = [];
    this.#quoterIds = [];
    for (let i = 0; i < (options.requesters ?? 2); i++) this.#requesterIds.push(`${prefix}-requester-${i}`);
    for (let i = 0; i < (options.quoters ?? 2); i++) this.#quoterIds.push(`${prefix}-quoter-${i}`);
    this.userIds = [...this.#requesterIds, ...this.#quoterIds];
    this.#participants = new Set(this.userIds);
    for (const userId of this.userIds) {
      if (!engine.hasUser(userId)) engine.addUser(userId, { keepHistory: false });
      for (const index of EXCHANGE_INDEXES) engine.deposit(userId, 0, index, PARTICIPANT_CASH);
    }
    this.#tickers = engine.markets().filter((m) => m.status === 'active' && m.mveCollectionTicker === null).map((m) => m.ticker);
    this.#intervalMs = options.rfqsPerMinute > 0 ? 60_000 / options.rfqsPerMinute : Number.POSITIVE_INFINITY;
    this.#settings = {
      quoteWindowMs: options.quoteWindowMs ?? 2_000,
      rfqLifetimeMs: options.rfqLifetimeMs ?? 15_000,
      acceptPerMille: options.acceptPerMille ?? 700,
      acceptPremiumMax: options.acceptPremiumMax ?? 1_000,
      confirmPerMille: options.confirmPerMille ?? 900,
      comboPerMille: options.comboPerMille ?? 200,
      targetCostPerMille: options.targetCostPerMille ?? 100,
      contractsMin: options.contractsMin ?? 1,
      contractsMax: options.contractsMax ?? 100,
      quoteDelayMsMin: options.quoteDelayMsMin ?? 200,
      quoteDelayMsMax: options.quoteDelayMsMax ?? 2_000,
    };
    this.#unsubscribe = engine.subscribe({ onRfq: (event) => this.#onRfq(event), onQuote: (event) => this.#onQuote(event) });
  }

  /** RFQs the participants created so far (creation order; the latest HISTORY_MAX). */
  created(): readonly ParticipantRfq[] {
    return this.#history;
  }

  get createdCount(): number {
    return this.#createdCount;
  }

  /** Stops listening to the engine; step() afterwards does nothing. */
  detach(): void {
    this.#unsubscribe();
    this.#nextRfqAtMs = Number.POSITIVE_INFINITY;
    this.#own.length = 0;
    this.#tasks.length = 0;
  }

  /** Acts on everything due at `nowMs` (the engine's clock): new RFQs, replies, decisions. */
  step(nowMs: number): void {
    if (this.#nextRfqAtMs === -1) this.#nextRfqAtMs = nowMs + this.#nextInterval();
    // Lets the engine expire confirm windows and run delayed executions even when nobody calls it.
    this.#engine.runRfqTimers();
    this.#runTasks(nowMs);
    this.#reviewOwn(nowMs);
    // At most a few per step: a stalled loop must not burst hundreds of RFQs at once.
    for (let i = 0; i < 4 && nowMs >= this.#nextRfqAtMs; i++) {
      this.#nextRfqAtMs += this.#nextInterval();
      if (this.#own.length < OPEN_RFQS_MAX) this.#createOne(nowMs);
    }
    if (nowMs >= this.#nextRfqAtMs) this.#nextRfqAtMs = nowMs + this.#nextInterval();
  }

  // ---------------------------------------------------------------------------------------------
  // Requesters.

  /** The mean interval with +-50 % jitter, ms. */
  #nextInterval(): number {
    if (!Number.isFinite(this.#intervalMs)) return Number.POSITIVE_INFINITY;
    return this.#intervalMs * (0.5 + this.#timingRandom.nextInt(1000) / 1000);
  }

  /** Draws one RFQ (every draw made whatever the outcome, so the sequence stays seed-determined). */
  #createOne(nowMs: number): void {
    const random = this.#createRandom;
    const settings = this.#settings;
    const requester = this.#requesterIds[random.nextInt(this.#requesterIds.length)];
    const side: QuoteSide = random.nextInt(2) === 0 ? 'yes' : 'no';
    const combo = random.nextInt(1000) < settings.comboPerMille;
    const whole = settings.contractsMin + random.nextInt(Math.max(1, settings.contractsMax - settings.contractsMin + 1));
    const byCost = random.nextInt(1000) < settings.targetCostPerMille;
    const tickerDraw = random.nextUint32();
    const legsDraw = random.nextUint32();
    const ticker = combo ? this.#comboTicker(legsDraw) : null;
    const marketTicker = ticker ?? this.#tickers[tickerDraw % Math.max(1, this.#tickers.length)];
    if (marketTicker === undefined) return;
    const contracts = (byCost ? 0 : whole * 100) as Count;
    // Target cost: about what `whole` contracts cost at $0.50, in centicents.
    const targetCost = byCost ? ((whole * 5_000) as Centicents) : null;
    const rfq = this.#engine.createRfq(requester, {
      marketTicker, contracts: byCost ? null : contracts, targetCost, restRemainder: false, replaceExisting: false, subaccount: 0,
    });
    if (isSimError(rfq)) return;
    this.#createdCount++;
    this.#own.push(new OwnRfq(rfq.rfqId, requester, side, nowMs + settings.quoteWindowMs, nowMs + settings.rfqLifetimeMs));
    if (this.#history.length >= HISTORY_MAX) this.#history.shift();
    this.#history.push({ rfqId: rfq.rfqId, marketTicker, contracts, targetCost, combo: ticker !== null });
  }

  /**
   * A combo market of an open collection (drawn), created or resolved through the engine like
   * POST /multivariate_event_collections: two to four legs on distinct associated events (one leg
   * per event keeps mutually exclusive events valid), YES on yes-only events; the legs come from
   * `draw` alone. Null when no valid combo comes out (the RFQ then goes to a plain market).
   */
  #comboTicker(draw: number): string | null {
    const engine = this.#engine;
    const page = engine.listCollections({ status: 'open', limit: 10 });
    if (isSimError(page) || page.items.length === 0) return null;
    const spec = page.items[draw % page.items.length].spec;
    const local = new SeededRandom(draw | 0);
    const legs: MveLeg[] = [];
    const wanted = Math.min(spec.sizeMax, Math.max(spec.sizeMin, 2 + local.nextInt(3)));
    const events = spec.associatedEvents.slice();
    while (legs.length < wanted && events.length > 0) {
      const associated = events.splice(local.nextInt(events.length), 1)[0];
      const markets = engine.markets().filter((m) => m.eventTicker === associated.eventTicker && m.status === 'active' && m.mveCollectionTicker === null);
      if (markets.length === 0) continue;
      const market = markets[local.nextInt(markets.length)];
      const side = associated.isYesOnly || local.nextInt(2) === 0 ? 'yes' : 'no';
      legs.push({ eventTicker: associated.eventTicker, marketTicker: market.ticker, side });
    }
    if (legs.length < spec.sizeMin) return null;
    const result = engine.createComboMarket(spec.collectionTicker, legs);
    return isSimError(result) ? null : result.market.ticker;
  }

  /** Decides on RFQs whose quote window passed; deletes the ones past their lifetime. */
  #reviewOwn(nowMs: number): void {
    const own = this.#own;
    for (let i = own.length - 1; i >= 0; i--) {
      const entry = own[i];
      if (nowMs < entry.checkAtMs) continue;
      const rfq = this.#engine.getRfq(entry.rfqId);
      if (rfq === undefined || rfq.status !== 'open') {
        own.splice(i, 1);
        continue;
      }
      const quotes = this.#quotesOf(entry, null);
      // An accepted quote waits for its quoter's confirm (or the engine's confirm timeout).
      if (quotes.some((q) => q.status === 'accepted' || q.status === 'confirmed')) {
        entry.checkAtMs = nowMs + RECHECK_MS;
        continue;
      }
      if (nowMs >= entry.closeAtMs) {
        this.#engine.deleteRfq(entry.requester, entry.rfqId, null);
        own.splice(i, 1);
        continue;
      }
      entry.checkAtMs = nowMs + RECHECK_MS;
      if (entry.willing !== false) this.#decide(entry, quotes.filter((q) => q.status === 'open'));
    }
  }

  /**
   * The requester's look at its open quotes: at the first look with quotes it decides whether it
   * takes one at all (acceptPerMille; if not, the RFQ lapses); a willing requester then takes, at
   * this look or a later one, the cheapest quote on its side (the other side when only that is
   * quoted) that trades strictly inside the book's spread and costs at most fair +
   * acceptPremiumMax. Inside the spread because execution places the requester's order in the
   * book first (rfq-book.ts): at or through the touch it would trade with the book, or queue
   * behind it, instead of with the quoter.
   */
  #decide(entry: OwnRfq, open: Quote[]): void {
    if (open.length === 0) return;
    if (entry.willing === null) entry.willing = this.#replyRandom.nextInt(1000) < this.#settings.acceptPerMille;
    if (!entry.willing) return;
    const market = this.#engine.getMarket(open[0].marketTicker);
    if (market === undefined) return;
    let side = entry.side;
    if (!open.some((q) => offers(q, side))) side = side === 'yes' ? 'no' : 'yes';
    let best: Quote | null = null;
    for (const quote of open) {
      if (!offers(quote, side) || !insideSpread(market, side, costOf(quote, side))) continue;
      if (best === null || costOf(quote, side) < costOf(best, side)) best = quote;
    }
    if (best === null) return;
    const fair = side === 'yes' ? fairValue(market) : PRICE_ONE - fairValue(market);
    if (costOf(best, side) > fair + this.#settings.acceptPremiumMax) return;
    this.#engine.acceptQuote(entry.requester, best.quoteId, entry.rfqId, side, null);
  }

  #quotesOf(entry: OwnRfq, status: string | null): Quote[] {
    const page = this.#engine.listQuotes(entry.requester, null, { rfqId: entry.rfqId, status, limit: 500 });
    return isSimError(page) ? [] : page.items;
  }

  // ---------------------------------------------------------------------------------------------
  // Quoters.

  #onRfq(event: RfqEvent): void {
    if (event.type !== 'rfq_created' || this.#participants.has(event.rfq.userId)) return;
    const settings = this.#settings;
    const span = Math.max(1, settings.quoteDelayMsMax - settings.quoteDelayMsMin + 1);
    // The first quoter always answers (a user's RFQ is never left without a quote); the others often.
    for (let i = 0; i < this.#quoterIds.length; i++) {
      if (i > 0 && this.#replyRandom.nextInt(1000) >= 600) continue;
      this.#queue(new Task('quote', event.rfq.rfqId, this.#quoterIds[i], event.tsMs + settings.quoteDelayMsMin + this.#replyRandom.nextInt(span)));
    }
  }

  #onQuote(event: QuoteEvent): void {
    if (event.type !== 'quote_accepted' || !this.#participants.has(event.quote.userId)) return;
    // Some accepted quotes are left to the confirm window: the requester sees them expire.
    if (this.#replyRandom.nextInt(1000) >= this.#settings.confirmPerMille) return;
    this.#queue(new Task('confirm', event.quote.quoteId, event.quote.userId, event.tsMs + 100 + this.#replyRandom.nextInt(500)));
  }

  #queue(task: Task): void {
    if (this.#tasks.length < TASKS_MAX) this.#tasks.push(task);
  }

  #runTasks(nowMs: number): void {
    const tasks = this.#tasks;
    for (let i = 0; i < tasks.length; ) {
      const task = tasks[i];
      if (task.dueMs > nowMs) {
        i++;
        continue;
      }
      tasks.splice(i, 1);
      if (task.kind === 'quote') this.#quote(task.userId, task.id);
      else this.#engine.confirmQuote(task.userId, task.id, null, null);
    }
  }

  /** A two-sided quote: YES bid a few ticks under fair value, NO bid as many over it (as a YES ask). */
  #quote(userId: string, rfqId: string): void {
    const engine = this.#engine;
    const rfq = engine.getRfq(rfqId);
    if (rfq === undefined || rfq.status !== 'open') return;
    const market = engine.getMarket(rfq.marketTicker);
    if (market === undefined || market.status !== 'active') return;
    const grid = market.grid;
    const fair = fairValue(market);
    // Edge: 1 to 3 cents each side.
    const edge = 100 * (1 + this.#replyRandom.nextInt(3));
    const yesBid = grid.snap((fair - edge) as Price, 'down');
    const yesAsk = grid.snap((fair + edge) as Price, 'up');
    const yes = yesBid > 0 && yesBid < PRICE_ONE ? yesBid : 0;
    const no = yesAsk > 0 && yesAsk < PRICE_ONE ? PRICE_ONE - yesAsk : 0;
    if (yes === 0 && no === 0) return;
    engine.createQuote(userId, { rfqId, yesBid: yes as Price, noBid: no as Price, restRemainder: false, postOnly: false, subaccount: 0 });
  }
}

/** True when the quote lets the requester take `side` (its opposite bid is non-zero). */
function offers(quote: Quote, side: QuoteSide): boolean {
  return (side === 'yes' ? quote.noBid : quote.yesBid) !== 0;
}

/** What the requester pays per contract taking `side`: 1 - the quoter's opposite bid. */
function costOf(quote: Quote, side: QuoteSide): number {
  return PRICE_ONE - (side === 'yes' ? quote.noBid : quote.yesBid);
}

/** True when the requester's YES-equivalent price lies strictly between the best bid and ask present. */
function insideSpread(market: Market, side: QuoteSide, cost: number): boolean {
  const yesPrice = side === 'yes' ? cost : PRICE_ONE - cost;
  const bid = market.bestBid();
  const ask = market.bestAsk();
  return (bid === 0 || yesPrice > bid) && (ask === 0 || yesPrice < ask);
}

/** YES fair value: the book's mid, else the last trade, else the catalog's initial fair price. */
function fairValue(market: Market): number {
  const bid = market.bestBid();
  const ask = market.bestAsk();
  if (bid !== 0 && ask !== 0) return (bid + ask) / 2;
  if (market.lastPrice !== 0) return market.lastPrice;
  return market.spec.initialFairPrice;
}

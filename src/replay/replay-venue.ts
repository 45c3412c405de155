/**
 * The replay venue: the order-entry route of a replay, an OrderEntry (src/oms/order-route.ts)
 * whose exchange is the simulator's matching engine (src/sim/engine) seeded with the recorded
 * market. Time is the recording's: a request reaches the engine `orderLatencyUs` after it was sent,
 * its answer reaches the OMS `answerLatencyUs` later, and our fills and order updates reach the feed
 * as `fill` / `user_order` frames `feedLatencyUs` after the match, through the same decoder, OMS and
 * strategy path as live.
 *
 * Liquidity (the queue-position model): the engine's book holds "mirror" orders standing for the
 * recorded book. When one of our orders arrives, the levels it could cross and the level it joins
 * are brought to the recorded sizes first; new recorded size joins behind us, size that left the
 * level leaves from the back of the queue (`risk_averse`: only trades move us forward) or from the
 * front (`optimistic`). A recorded public trade in a market where we rest is replayed as a mirror
 * taker order of the trade's size and price, so it fills whoever is ahead of us, then us. Replaying
 * its own session (`liveMakerCount`), a trade at a level where the live run rested fills us as it
 * filled the live order (the live run's fills show where it stood in the queue), while our order
 * there is the live one's counterpart: it joined the level after the same public joins did.
 *
 * Deterministic: engine ids from the seed, time from the driver, events in (time, sequence) order.
 * Owns the engine and the pending events; never decides for the OMS (answers only).
 */

import type { BookSide, Count, Price } from '../core/index.ts';
import { PRICE_ONE } from '../core/index.ts';
import type { OrderBook } from '../book/index.ts';
import type { ExecListener, NewOrder, OrderEntry, OrderReads, WireFill, WireOrder, WirePosition } from '../oms/index.ts';
import { ExecError } from '../oms/index.ts';
import { SimEngine, fillToWsMsg, isSimError, parseCatalog, userOrderToWsMsg } from '../sim/engine/index.ts';
import type { CreateOrderParams, Fill, Order, SimError } from '../sim/engine/index.ts';
import { createOrderText } from '../record/index.ts';
import type { RecordedMarket } from '../record/index.ts';
import { REQUEST_VERBS, fixedLatency } from './recorded-latency.ts';
import type { Hops, LatencyModel, RequestVerb } from './recorded-latency.ts';

export type QueueModel = 'risk_averse' | 'optimistic';

export interface ReplayVenueOptions {
  markets: readonly RecordedMarket[];
  /** Unix ms the recording started (engine time = startMs + ns / 1e6). */
  startMs: number;
  orderLatencyUs: number;
  answerLatencyUs: number;
  feedLatencyUs: number;
  queueModel: QueueModel;
  seed: number;
  /** Cash per subaccount, centicents. */
  cashCenticents: number;
  subaccounts: readonly number[];
  /** The runtime's book of a market (the recorded state as of now), for the mirror. */
  book: (ticker: string) => OrderBook | undefined;
  /** Delivers a frame to the feed (the same path as a socket frame). */
  deliverFrame: (text: string) => void;
  /** Per-request delays (recorded-latency.ts); absent: the three fixed latencies above. */
  latency?: LatencyModel;
  /** The live run's own resting count at a level (live-orders.ts), left out of the mirror; absent: none. */
  liveOwnSize?: (ticker: string, side: BookSide, price: Price) => number;
  /**
   * How much of a public trade filled the live run's resting orders (live-fills.ts; -1: unknown).
   * Given, a trade at a level where the live run rested fills the replay's order there as it
   * filled the live one, whatever the queue model guesses (a replay of its own session); absent,
   * the queue model decides every fill (sweeps: other parameters rest elsewhere and at other times).
   */
  liveMakerCount?: (tradeId: string) => number;
  /** When the live run's order groups were answered, ns, in creation order: the replay's are answered then. */
  groupTimesNs?: readonly number[];
}

export interface ReplayVenueStats {
  requests: number;
  creates: number;
  cancels: number;
  amends: number;
  decreases: number;
  rejects: number;
  /** Engine error codes of the rejects, by code. */
  rejectCodes: Map<string, number>;
  fills: number;
  /** Contracts filled, 1/100 contract. */
  filledCount: number;
  mirrorTrades: number;
  /** Mirror trades sized from the live run's own fills (liveMakerCount). */
  tradesAsLive: number;
  /** Trades at a level where both rested but our order joined after other public joins than the live one: the queue model decided. */
  tradesNotCounterpart: number;
  /** Microseconds from a create's send to its ack, per create (recording clock + model). */
  ackLatencyUs: number[];
}

const US = 'replay';
const BOOK_USER = 'mirror-book';
const TAKER_USER = 'mirror-taker';
const MIRROR_CASH = 1e14; // centicents: $10 billion, never the binding limit
const LEVELS_SYNCED_MAX = 64; // levels brought to the recorded size per arrival
const FILL_SID = 0; // replaced by the session's sid for the channel (setSids)

/** One pending event, in (timeNs, seq) order. */
interface VenueEvent {
  timeNs: number;
  seq: number;
  run: () => void;
}

export class ReplayVenue implements OrderEntry, OrderReads {
  readonly engine: SimEngine;
  /** Every request as `<time ns>|<request text>` (docs/recording-format.md's ORDER text): the determinism check hashes it. */
  readonly log: string[] = [];
  readonly stats: ReplayVenueStats = { requests: 0, creates: 0, cancels: 0, amends: 0, decreases: 0, rejects: 0, rejectCodes: new Map(), fills: 0, filledCount: 0, mirrorTrades: 0, tradesAsLive: 0, tradesNotCounterpart: 0, ackLatencyUs: [] };
  readonly #options: ReplayVenueOptions;
  readonly #events: VenueEvent[] = [];
  #seq = 0;
  #nowNs = 0;
  #engineMs: number;
  #listener: ExecListener | null = null;
  /** Mirror orders by `${side}:${price}` of a market, oldest first. */
  readonly #mirror = new Map<string, Map<string, string[]>>();
  /** Our resting orders per market by order id (from the engine's order updates). */
  readonly #restingByMarket = new Map<string, Map<string, Order>>();
  /** Per market, the last recorded decrease of each level (key: YES price, negated for asks), contracts/100. */
  readonly #lastDecrease = new Map<string, Map<number, number>>();
  #fillSid = FILL_SID;
  #userOrderSid = FILL_SID;
  readonly #levels = new Int32Array(LEVELS_SYNCED_MAX);
  readonly #latency: LatencyModel;
  /** Requests of each verb (REQUEST_VERBS order) decided at #rankAtNs so far. */
  readonly #ranks = [0, 0, 0, 0];
  #rankAtNs = -1;
  /** Engine -> our private frames for what happens now (the request being executed, else a recorded trade). */
  #feedNs: number;
  #groupsCreated = 0;
  /** Group creations waiting for the recording's clock to reach the live answer. */
  groupsPending = 0;
  /**
   * With liveMakerCount only. Public joins (recorded size increases not of the live run's orders)
   * by `${ticker}|${side}|${price}`, counted on the recording's clock; the count each live order
   * and each of ours found when it joined its level. Equal counts: the same public size joined
   * ahead of both, so the live fills tell where ours stands; else the live place is not ours.
   */
  readonly #publicJoins = new Map<string, number>();
  readonly #liveJoinMark = new Map<string, number>();
  readonly #ourJoinMark = new Map<string, { side: BookSide; price: Price; remaining: number; mark: number }>();

  constructor(options: ReplayVenueOptions) {
    this.#options = options;
    this.#engineMs = options.startMs;
    this.#latency = options.latency ?? fixedLatency(options.orderLatencyUs, options.answerLatencyUs, options.feedLatencyUs);
    this.#feedNs = this.#latency.feedNs;
    const catalog = parseCatalog(catalogOf(options.markets), 'replay catalog');
    this.engine = new SimEngine({ now: () => this.#engineMs, seed: options.seed, catalog });
    for (const user of [US, BOOK_USER, TAKER_USER]) this.engine.addUser(user, { keepHistory: user === US });
    for (const subaccount of options.subaccounts) this.#check(this.engine.deposit(US, subaccount, 0, options.cashCenticents as never));
    this.#check(this.engine.deposit(BOOK_USER, 0, 0, MIRROR_CASH as never));
    this.#check(this.engine.deposit(TAKER_USER, 0, 0, MIRROR_CASH as never));
    this.engine.subscribe({
      onFill: (userId, fill) => {
        if (userId === US) this.#onOurFill(fill);
      },
      onUserOrder: (userId, order) => {
        if (userId === US) this.#onOurOrder(order);
      },
    });
  }

  /** The sids the replay session gave the fill and user_orders channels (their frames carry them). */
  setSids(fillSid: number, userOrderSid: number): void {
    this.#fillSid = fillSid;
    this.#userOrderSid = userOrderSid;
  }

  /** Pending events (requests in flight, answers, frames). */
  get pendingCount(): number {
    return this.#events.length;
  }

  /** Time of the next pending event, Infinity when none. */
  nextEventNs(): number {
    return this.#events.length === 0 ? Infinity : this.#events[0].timeNs;
  }

  /** Runs every event due at or before `timeNs`, each at its own time; `setTime` moves the runtime's clock. */
  runUntil(timeNs: number, setTime: (ns: number) => void): number {
    let ran = 0;
    // Bounded: each event runs once; events an event adds are later (latencies > 0) or run here in order.
    while (this.#events.length > 0 && this.#events[0].timeNs <= timeNs && ran < 1_000_000) {
      const event = this.#events.shift()!;
      this.#nowNs = event.timeNs;
      this.#engineMs = this.#options.startMs + Math.floor(event.timeNs / 1e6);
      setTime(event.timeNs);
      event.run();
      ran++;
    }
    return ran;
  }

  /** The driver's time: requests sent now are stamped with it. */
  setNow(timeNs: number): void {
    this.#nowNs = timeNs;
  }

  /**
   * A recorded book delta (after the runtime's book applied it) in a market where we rest. At a
   * level where one of our orders rests, the mirror follows at once: size that joins queues
   * behind us, size that leaves goes per the queue model. Synced only when we next met the level,
   * a join and a leave in between would net out and the join would stand ahead of us.
   * A decrease the next frame explains (`tradeNext`: a trade follows) is left to that trade, whose
   * taker then takes it from the front of the queue. A delta of the live run's own order (`own`)
   * moves no mirror: the replay's order stands in for it (liveOwnSize).
   */
  onRecordedDelta(ticker: string, side: BookSide, yesPrice: Price, delta: number, own: boolean, tradeNext: boolean): void {
    if (this.#options.liveMakerCount !== undefined && delta > 0) {
      const key = `${ticker}|${side}|${yesPrice}`;
      const joins = this.#publicJoins.get(key) ?? 0;
      if (own) this.#liveJoinMark.set(key, joins);
      else this.#publicJoins.set(key, joins + 1);
    }
    const resting = this.#restingByMarket.get(ticker);
    if (resting === undefined || resting.size === 0) return;
    const levelKey = side === 'bid' ? yesPrice : -yesPrice;
    let byLevel = this.#lastDecrease.get(ticker);
    if (byLevel === undefined) this.#lastDecrease.set(ticker, (byLevel = new Map()));
    let weRest = false;
    for (const order of resting.values()) if (order.side === side && order.price === yesPrice) weRest = true;
    if (own || (weRest && !(delta < 0 && tradeNext))) {
      byLevel.delete(levelKey);
      if (!own) this.#syncLevel(ticker, side, yesPrice);
      return;
    }
    // Not mirrored yet: a trade of this size at this level finds the level lacking what it took.
    if (delta < 0) byLevel.set(levelKey, -delta);
    else byLevel.delete(levelKey);
  }

  /** A recorded public trade: replayed against our resting orders (see the file comment). */
  onRecordedTrade(ticker: string, yesPrice: Price, count: Count, takerBookSide: BookSide, tradeId = ''): void {
    const resting = this.#restingByMarket.get(ticker);
    if (resting === undefined || resting.size === 0 || count <= 0) return;
    this.#engineMs = this.#options.startMs + Math.floor(this.#nowNs / 1e6);
    // The taker bought YES (bid) -> it consumed asks at or below the price, and the reverse.
    const makerSide: BookSide = takerBookSide === 'bid' ? 'ask' : 'bid';
    // The exchange sends a trade's book decrease before the trade: the recorded level then already
    // lacks the size the trade took. Mirrored at that size, the taker would take it twice, the
    // second time from the orders behind (us). So the level is brought to its size before the
    // trade when its last unmirrored decrease was this trade's size; a trade whose decrease is
    // still to come finds the level as it was.
    const byLevel = this.#lastDecrease.get(ticker);
    const levelKey = makerSide === 'bid' ? yesPrice : -yesPrice;
    const taken = byLevel?.get(levelKey) === count ? count : 0;
    if (taken !== 0) byLevel!.delete(levelKey);
    this.#syncLevels(ticker, makerSide, yesPrice, taken);
    this.stats.mirrorTrades++;
    const takerCount = this.#options.liveMakerCount === undefined ? count : this.#takerAsLive(ticker, makerSide, yesPrice, count, tradeId);
    if (takerCount <= 0) return;
    this.engine.createOrder(TAKER_USER, {
      ticker, side: takerBookSide, price: yesPrice, count: takerCount as Count, timeInForce: 'immediate_or_cancel', selfTradePrevention: 'taker_at_cross', subaccount: 0,
    });
  }

  /**
   * The mirror taker's size when the live run's share of the trade is known and the replay rests
   * at the trade's level: what stands ahead of the replay's order, then what the trade took of the
   * live order (0: the trade did not reach it). It may exceed the trade: the mirror ahead is then
   * thinner than the live queue was, and the next sync brings the level back to its recorded size.
   * Where the live run did not rest at the level, the queue model decides (the recorded size).
   */
  #takerAsLive(ticker: string, makerSide: BookSide, price: Price, count: number, tradeId: string): number {
    const liveFilled = tradeId === '' ? -1 : this.#options.liveMakerCount!(tradeId);
    if (liveFilled < 0) return count;
    if (liveFilled === 0 && (this.#options.liveOwnSize?.(ticker, makerSide, price) ?? 0) <= 0) return count;
    const resting = this.#restingByMarket.get(ticker);
    if (resting === undefined) return count;
    for (const order of resting.values()) {
      if (order.side !== makerSide || order.price !== price) continue;
      const liveMark = this.#liveJoinMark.get(`${ticker}|${makerSide}|${price}`);
      if (liveMark === undefined || this.#ourJoinMark.get(order.orderId)?.mark !== liveMark) {
        this.stats.tradesNotCounterpart++;
        return count;
      }
      const place = this.engine.queuePosition(US, order.orderId, order.subaccount);
      if (isSimError(place)) return count;
      this.stats.tradesAsLive++;
      return liveFilled === 0 ? Math.min(count, place.queuePosition) : place.queuePosition + liveFilled;
    }
    return count;
  }

  // ---- OrderEntry ---------------------------------------------------------------------------------

  setListener(listener: ExecListener): void {
    this.#listener = listener;
  }

  create(order: Readonly<NewOrder>): void {
    this.stats.requests++;
    this.stats.creates++;
    const sentNs = this.#nowNs;
    this.log.push(`${sentNs}|${createOrderText(order)}`);
    // Copied now: the router reuses its record after the call.
    const params: CreateOrderParams = {
      ticker: order.ticker, clientOrderId: order.clientOrderId, side: order.side, price: order.price, count: order.count,
      timeInForce: order.timeInForce, selfTradePrevention: order.selfTradePrevention, postOnly: order.postOnly,
      reduceOnly: order.reduceOnly, subaccount: order.subaccount, orderGroupId: order.orderGroupId,
      expirationTs: order.expirationTs === 0 ? null : order.expirationTs,
    };
    const clientOrderId = order.clientOrderId;
    this.#request('create', (hops) => {
      this.#syncForOrder(params.ticker, params.side, params.price);
      const result = this.engine.createOrder(US, params);
      this.#answer(hops, () => {
        const listener = this.#listener;
        if (listener === null) return;
        if (isSimError(result)) {
          this.#countReject(result);
          listener.onCreateReject(clientOrderId, rejectOf(result));
          return;
        }
        this.stats.ackLatencyUs.push(Math.round((this.#nowNs - sentNs) / 1000));
        listener.onCreateAck(clientOrderId, result.order.orderId, result.fillCount, result.order.remainingCount, this.#engineMs);
      });
    });
  }

  cancel(orderId: string, subaccount: number): void {
    this.stats.requests++;
    this.stats.cancels++;
    this.log.push(`${this.#nowNs}|cancel|${orderId}|${subaccount}`);
    this.#request('cancel', (hops) => {
      const result = this.engine.cancelOrder(US, orderId, subaccount);
      this.#answer(hops, () => {
        if (this.#listener === null) return;
        if (isSimError(result)) {
          this.#countReject(result);
          this.#listener.onCancelReject(orderId, rejectOf(result));
        } else this.#listener.onCancelAck(orderId, result.reducedBy, this.#engineMs);
      });
    });
  }

  amend(orderId: string, ticker: string, side: BookSide, price: Price, count: Count, subaccount: number): void {
    this.stats.requests++;
    this.stats.amends++;
    this.log.push(`${this.#nowNs}|amend|${orderId}|${ticker}|${side}|${price}|${count}|${subaccount}`);
    this.#request('amend', (hops) => {
      this.#syncForOrder(ticker, side, price);
      const result = this.engine.amendOrder(US, orderId, { ticker, side, price, count, subaccount } as never);
      this.#answer(hops, () => {
        if (this.#listener === null) return;
        if (isSimError(result)) {
          this.#countReject(result);
          this.#listener.onAmendReject(orderId, rejectOf(result));
        } else this.#listener.onAmendAck(orderId, result.order.fillCount, result.order.remainingCount, this.#engineMs);
      });
    });
  }

  decrease(orderId: string, reduceBy: Count, subaccount: number): void {
    this.stats.requests++;
    this.stats.decreases++;
    this.log.push(`${this.#nowNs}|decrease|${orderId}|${reduceBy}|${subaccount}`);
    this.#request('decrease', (hops) => {
      const result = this.engine.decreaseOrder(US, orderId, { reduceBy, subaccount } as never);
      this.#answer(hops, () => {
        if (this.#listener === null) return;
        if (isSimError(result)) {
          this.#countReject(result);
          this.#listener.onDecreaseReject(orderId, rejectOf(result));
        } else this.#listener.onDecreaseAck(orderId, result.order.remainingCount, this.#engineMs);
      });
    });
  }

  /**
   * An order group at the engine (the strategy's configured orderGroup). With the live run's
   * answer times (groupTimesNs) it is made when the live one was answered, so the strategy starts
   * quoting when it did live; otherwise at once. Start-up, not the hot path.
   */
  createOrderGroup(contractsLimit: Count, subaccount: number): string | Promise<string> {
    const atNs = this.#options.groupTimesNs?.[this.#groupsCreated++];
    if (atNs === undefined || atNs <= this.#nowNs) return this.#makeGroup(contractsLimit, subaccount);
    this.groupsPending++;
    return new Promise<string>((resolve, reject) => {
      this.#at(atNs, () => {
        this.groupsPending--;
        try {
          resolve(this.#makeGroup(contractsLimit, subaccount));
        } catch (error) {
          reject(error);
        }
      });
    });
  }

  #makeGroup(contractsLimit: Count, subaccount: number): string {
    const group = this.engine.createOrderGroup(US, { subaccount, contractsLimit });
    if (isSimError(group)) throw new ExecError('EXEC_REJECTED', `replay venue: order group refused: ${group.code} ${group.message}`, group.status);
    return group.orderGroupId;
  }

  deleteOrderGroup(orderGroupId: string, subaccount: number): void {
    this.engine.deleteOrderGroup(US, orderGroupId, subaccount);
  }

  cancelAll(subaccount: number | null): Promise<void> {
    this.engine.cancelAllOrders(US, subaccount);
    return Promise.resolve();
  }

  // ---- OrderReads (reconciliation; the replay driver does not reconcile, but a strategy may ask) ----

  listOrders(): Promise<WireOrder[]> {
    const out: WireOrder[] = this.engine.restingOrders(US).map((o) => ({
      orderId: o.orderId, clientOrderId: o.clientOrderId, ticker: o.ticker, side: o.side, price: o.price, status: 'resting',
      fillCount: o.fillCount, remainingCount: o.remainingCount, initialCount: o.initialCount, subaccount: o.subaccount,
      orderGroupId: o.orderGroupId, createdTimeMs: o.createdMs,
    }));
    return Promise.resolve(out);
  }

  listFills(): Promise<WireFill[]> {
    return Promise.reject(new ExecError('EXEC_REJECTED', 'replay venue: fills arrive on the fill channel only'));
  }

  listPositions(): Promise<WirePosition[]> {
    return Promise.reject(new ExecError('EXEC_REJECTED', 'replay venue: positions are the OMS\'s own'));
  }

  // ---- internals ------------------------------------------------------------------------------------

  #at(timeNs: number, run: () => void): void {
    const event: VenueEvent = { timeNs, seq: this.#seq++, run };
    // Insert in (time, seq) order; latencies are constant per kind, so this is near the end.
    const events = this.#events;
    let i = events.length;
    while (i > 0 && events[i - 1].timeNs > timeNs) i--;
    events.splice(i, 0, event);
  }

  /** A request decided now: it meets the engine after its hops' delay; its order's frames follow with its feed delay. */
  #request(verb: RequestVerb, execute: (hops: Hops) => void): void {
    // The how-manyth request of its verb decided at this instant: a decision that sends two amends
    // takes the hops of the live decision's first and second amend, not the first's twice.
    if (this.#rankAtNs !== this.#nowNs) {
      this.#rankAtNs = this.#nowNs;
      this.#ranks.fill(0);
    }
    const verbIndex = REQUEST_VERBS.indexOf(verb);
    const hops = this.#latency.hops(verb, this.#nowNs, this.#ranks[verbIndex]++);
    this.#at(this.#nowNs + hops.engineNs, () => {
      this.#feedNs = hops.feedNs;
      try {
        execute(hops);
      } finally {
        this.#feedNs = this.#latency.feedNs;
      }
    });
  }

  #answer(hops: Hops, run: () => void): void {
    this.#at(this.#nowNs + hops.answerNs, run);
  }

  #countReject(error: SimError): void {
    this.stats.rejects++;
    countCode(this.stats.rejectCodes, error);
  }

  #onOurFill(fill: Fill): void {
    this.stats.fills++;
    this.stats.filledCount += fill.count;
    const text = `{"type":"fill","sid":${this.#fillSid},"msg":${JSON.stringify(fillToWsMsg(fill))}}`;
    this.#at(this.#nowNs + this.#feedNs, () => this.#options.deliverFrame(text));
  }

  #onOurOrder(order: Order): void {
    let resting = this.#restingByMarket.get(order.ticker);
    if (resting === undefined) this.#restingByMarket.set(order.ticker, (resting = new Map()));
    if (order.status === 'resting') resting.set(order.orderId, order);
    else resting.delete(order.orderId);
    if (this.#options.liveMakerCount !== undefined) this.#markJoin(order);
    const text = `{"type":"user_order","sid":${this.#userOrderSid},"msg":${JSON.stringify(userOrderToWsMsg(order))}}`;
    this.#at(this.#nowNs + this.#feedNs, () => this.#options.deliverFrame(text));
  }

  /** Our order's public-join count at its level, taken when it joins the level (created, moved or grown). */
  #markJoin(order: Order): void {
    if (order.status !== 'resting') {
      this.#ourJoinMark.delete(order.orderId);
      return;
    }
    const known = this.#ourJoinMark.get(order.orderId);
    const remaining = order.remainingCount as number;
    // Same level and no larger: it kept its place. Grown (a quote topped up) it went to the back, as a join.
    if (known !== undefined && known.side === order.side && known.price === order.price && remaining <= known.remaining) {
      known.remaining = remaining;
      return;
    }
    const mark = this.#publicJoins.get(`${order.ticker}|${order.side}|${order.price}`) ?? 0;
    this.#ourJoinMark.set(order.orderId, { side: order.side, price: order.price, remaining, mark });
  }

  /** Before our order meets the engine: the levels it may cross, and the level it joins, at their recorded sizes. */
  #syncForOrder(ticker: string, side: BookSide, price: Price): void {
    this.#syncLevels(ticker, side === 'bid' ? 'ask' : 'bid', price);
    this.#syncLevel(ticker, side, price);
  }

  /**
   * The `makerSide` levels a taker at `price` would reach, best first, at most LEVELS_SYNCED_MAX;
   * the level at `price` with `takenAtPrice` more than recorded (onRecordedTrade).
   */
  #syncLevels(ticker: string, makerSide: BookSide, price: Price, takenAtPrice = 0): void {
    const book = this.#options.book(ticker);
    if (book === undefined || !book.synced) return;
    const levels = this.#levels;
    const n = makerSide === 'ask' ? book.topAskLevels(LEVELS_SYNCED_MAX, levels) : book.topBidLevels(LEVELS_SYNCED_MAX, levels);
    for (let i = 0; i < n; i++) {
      const levelPrice = book.grid.priceAt(levels[i]);
      if (makerSide === 'ask' ? levelPrice > price : levelPrice < price) break;
      this.#syncLevel(ticker, makerSide, levelPrice, levelPrice === price ? takenAtPrice : 0);
    }
    // Mirror levels the recorded book no longer has (emptied since they were mirrored) leave too:
    // else a post-only order would cross a ghost and be cancelled.
    const byLevel = this.#mirror.get(ticker);
    if (byLevel === undefined) return;
    const prefix = `${makerSide}:`;
    for (const [key, ids] of byLevel) {
      if (ids.length === 0 || !key.startsWith(prefix)) continue;
      const levelPrice = Number(key.slice(prefix.length)) as Price;
      if (makerSide === 'ask' ? levelPrice > price : levelPrice < price) continue;
      this.#syncLevel(ticker, makerSide, levelPrice, levelPrice === price ? takenAtPrice : 0);
    }
  }

  /** Brings the mirror at one level to the recorded size plus `taken` (book side 'bid' = YES bids, 'ask' = NO bids at 1 - price). */
  #syncLevel(ticker: string, side: BookSide, price: Price, taken = 0): void {
    const book = this.#options.book(ticker);
    if (book === undefined || !book.synced || price <= 0 || price >= PRICE_ONE) return;
    const level = book.grid.levelOf(price);
    if (level < 0) return;
    const inBook = side === 'bid' ? book.bidSizeAtLevel(level) : book.askSizeAtLevel(level);
    // The live run's own orders were in the recorded book; the replay's own stand in their place.
    const liveOwn = this.#options.liveOwnSize === undefined ? 0 : this.#options.liveOwnSize(ticker, side, price);
    const recorded = (inBook > liveOwn ? inBook - liveOwn : 0) + taken;
    let byLevel = this.#mirror.get(ticker);
    if (byLevel === undefined) this.#mirror.set(ticker, (byLevel = new Map()));
    const key = `${side}:${price}`;
    let ids = byLevel.get(key);
    if (ids === undefined) byLevel.set(key, (ids = []));
    // Drop mirror orders the engine no longer rests (filled or cancelled), summing the rest.
    let mirrored = 0;
    let kept = 0;
    for (let i = 0; i < ids.length; i++) {
      const order = this.engine.getOrder(BOOK_USER, ids[i], 0);
      if (isSimError(order) || order.status !== 'resting') continue;
      ids[kept++] = ids[i];
      mirrored += order.remainingCount;
    }
    ids.length = kept;
    if (recorded > mirrored) {
      // New size joins the back of the queue, behind whatever rests there (us included).
      const result = this.engine.createOrder(BOOK_USER, {
        ticker, side, price, count: (recorded - mirrored) as Count, timeInForce: 'good_till_canceled', selfTradePrevention: 'maker', postOnly: true, subaccount: 0,
      });
      if (!isSimError(result) && result.order.status === 'resting') ids.push(result.order.orderId);
      return;
    }
    let excess = mirrored - recorded;
    const fromBack = this.#options.queueModel === 'risk_averse';
    // Bounded by the level's mirror orders: each is reduced or cancelled once.
    for (let step = 0; excess > 0 && step < ids.length; step++) {
      const index = fromBack ? ids.length - 1 - step : step;
      const order = this.engine.getOrder(BOOK_USER, ids[index], 0);
      if (isSimError(order)) continue;
      if (order.remainingCount <= excess) {
        excess -= order.remainingCount;
        this.engine.cancelOrder(BOOK_USER, order.orderId, 0);
      } else {
        this.engine.decreaseOrder(BOOK_USER, order.orderId, { reduceBy: excess as Count, subaccount: 0 } as never);
        excess = 0;
      }
    }
  }

  #check(error: SimError | null): void {
    if (error !== null) throw new Error(`replay venue: engine setup failed: ${error.code} ${error.message}`);
  }
}

function rejectOf(error: SimError): { status: number; code: string; message: string; details: string } {
  return { status: error.status, code: error.code, message: error.message, details: '' };
}

function countCode(codes: Map<string, number>, error: SimError): void {
  codes.set(error.code, (codes.get(error.code) ?? 0) + 1);
}

/** An engine catalog of the recorded markets: one series and event per event ticker, all markets active. */
function catalogOf(markets: readonly RecordedMarket[]): Record<string, unknown> {
  const events = new Map<string, string>();
  for (const market of markets) {
    const event = market.eventTicker !== '' ? market.eventTicker : market.ticker.split('-').slice(0, -1).join('-') || market.ticker;
    events.set(event, event.split('-')[0]);
  }
  const series = [...new Set(events.values())].map((ticker) => ({ ticker, title: ticker, fee_type: 'quadratic', exchange_index: 0 }));
  return {
    series,
    events: [...events].map(([event, seriesTicker]) => ({ event_ticker: event, series_ticker: seriesTicker, title: event })),
    markets: markets.map((market) => {
      const event = market.eventTicker !== '' ? market.eventTicker : market.ticker.split('-').slice(0, -1).join('-') || market.ticker;
      const out: Record<string, unknown> = { ticker: market.ticker, event_ticker: event, status: 'active', close_time: '2099-12-31T23:59:59Z' };
      if (market.priceRanges !== null) out.price_ranges = market.priceRanges;
      else out.price_level_structure = market.priceLevelStructure;
      return out;
    }),
  };
}

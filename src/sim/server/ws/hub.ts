/**
 * The WebSocket fan-out hub: the engine's listener and the registry of live subscriptions. Each
 * engine event is turned into its `msg` text once per message variant and handed to every
 * subscription that covers it; the per-subscriber work is the envelope (type, sid, seq) and a queue
 * push. Queues are flushed once per event-loop turn (microtask), corked per connection. Faults
 * (drop/reorder a delta, overflow a subscription, close the connection) are applied at delivery.
 * Also the faults' actuator for one-off actions. It never parses client commands (commands.ts).
 *
 * Indexes: order book and ticker subscriptions by market; trade and lifecycle subscriptions in
 * flat lists (they usually cover every market); private channels by user id. An order book market
 * joins its index only when its snapshot is sent (steps.ts), so snapshots sent in slices are never
 * preceded by a delta of their market; a closed session leaves the market indexes in slices too.
 * Only markets the engine knows are indexed (a Map of 500,000 made-up tickers rehashes for tens of
 * ms); a subscription keeps the others aside and they join the index if the market is created.
 */

import {
  eventLifecycleToWsMsg,
  fillToWsMsg,
  isSimError,
  marketLifecycleToWsMsg,
  orderGroupEventToWsMsg,
  positionToWsMsg,
  quoteAcceptedToWsMsg,
  quoteCreatedToWsMsg,
  quoteExecutedToWsMsg,
  rfqCreatedToWsMsg,
  rfqDeletedToWsMsg,
  tickerToWsMsg,
  tradeToWsMsg,
  userOrderToWsMsg,
  type EngineListener,
  type EventLifecycleEvent,
  type Fill,
  type Market,
  type MarketLifecycleEvent,
  type Order,
  type OrderGroupEvent,
  type Position,
  type QuoteEvent,
  type RfqEvent,
  type SimEngine,
  type Trade,
  type UpdateReason,
} from '../../engine/index.ts';
import type { Count, Price } from '../../../core/index.ts';
import type { FaultController, WsActionFilter, WsFaultActuator } from '../../faults/index.ts';
import type { Logger } from 'pino';
import type { WireProbe } from '../probe.ts';
import { DeltaTexts, emptySnapshotText, snapshotText, VARIANT_OWN, VARIANT_YES_PRICE } from './book-messages.ts';
import { SEQUENCED_CHANNELS, WS_ERROR_TEXT, WsError, type Channel } from './protocol.ts';
import type { WsSession } from './session.ts';
import { UnindexStep } from './steps.ts';
import type { Subscription } from './subscription.ts';
import { MarginWsFeed } from './margin-feed.ts';
import type { MarginEngine, MarginOrderGroups } from '../../margin/index.ts';
import type { WorkQueue } from './work-queue.ts';

export interface WsHubOptions {
  engine: SimEngine;
  faults: FaultController;
  logger: Logger;
  /** Per-connection uWS buffer above which a subscription overflows (error 25). */
  bufferLimitBytes: number;
  /** Wire-to-wire probe (probe.ts); null or absent when off. */
  probe?: WireProbe | null;
}

interface TickerState {
  bid: number;
  ask: number;
  bidSize: number;
  askSize: number;
  lastTradeSize: number;
}

function addTo<K>(map: Map<K, Subscription[]>, key: K, sub: Subscription): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [sub]);
  else list.push(sub);
}

function removeFrom<K>(map: Map<K, Subscription[]>, key: K, sub: Subscription): void {
  const list = map.get(key);
  if (list === undefined) return;
  const index = list.indexOf(sub);
  if (index >= 0) list.splice(index, 1);
  if (list.length === 0) map.delete(key);
}

function removeFromList(list: Subscription[], sub: Subscription): void {
  const index = list.indexOf(sub);
  if (index >= 0) list.splice(index, 1);
}

export class WsHub implements EngineListener, WsFaultActuator {
  readonly #engine: SimEngine;
  readonly #faults: FaultController;
  readonly #logger: Logger;
  bufferLimitBytes: number;
  readonly sessions = new Set<WsSession>();
  readonly #book = new Map<string, Subscription[]>();
  readonly #ticker = new Map<string, Subscription[]>();
  readonly #tickerAll: Subscription[] = [];
  readonly #tickerState = new Map<string, TickerState>();
  readonly #trade: Subscription[] = [];
  readonly #lifecycle: Subscription[] = [];
  /** multivariate_market_lifecycle: combo markets and their events only (websocket.md §6.9). */
  readonly #mveLifecycle: Subscription[] = [];
  readonly #private = new Map<Channel, Map<string, Subscription[]>>();
  readonly #dirty: WsSession[] = [];
  #flushScheduled = false;
  readonly #delta = new DeltaTexts();
  readonly #flushBound = (): void => this.#flushAll();
  readonly #overflowBound = (sub: Subscription): void => this.overflow(sub);
  readonly #probe: WireProbe | null;
  /** The Margin endpoint's feed (attachMargin); null until attached. */
  #margin: MarginWsFeed | null = null;
  /** Where a closed session's un-indexing runs in slices; null: at once (no server attached). */
  #work: WorkQueue | null = null;

  constructor(options: WsHubOptions) {
    this.#engine = options.engine;
    this.#faults = options.faults;
    this.#logger = options.logger;
    this.bufferLimitBytes = options.bufferLimitBytes;
    this.#probe = options.probe ?? null;
    for (const channel of ['fill', 'user_orders', 'market_positions', 'order_group_updates', 'communications'] as const) {
      this.#private.set(channel, new Map());
    }
  }

  /** The work queue of the WebSocket server (background un-indexing). */
  attachWorkQueue(work: WorkQueue): void {
    this.#work = work;
  }

  // ---- registry -------------------------------------------------------------------------------

  /**
   * Feeds the Margin endpoint's sessions from `margin` (margin-feed.ts). The server wiring calls it
   * once; until then Margin-endpoint subscriptions are accepted but receive no data.
   */
  attachMargin(margin: MarginEngine, groups: MarginOrderGroups | null = null): MarginWsFeed {
    this.#margin?.close();
    this.#margin = new MarginWsFeed(margin, { deliver: (sub, type, msg, ticker) => this.#deliver(sub, type, msg, ticker, false) }, () => margin.now(), groups);
    return this.#margin;
  }

  /** Indexes a subscription; order book markets are indexed one by one as their snapshots go out. */
  register(sub: Subscription): void {
    if (sub.session.exchange === 'margin') {
      this.#margin?.register(sub);
      return;
    }
    switch (sub.channel) {
      case 'orderbook_delta':
        return; // BookSnapshotStep calls indexBookMarket after each snapshot
      case 'ticker':
        if (sub.markets === null) this.#tickerAll.push(sub);
        else for (const ticker of sub.markets) this.#indexTicker(sub, ticker);
        return;
      case 'trade':
        this.#trade.push(sub);
        return;
      case 'market_lifecycle_v2':
        this.#lifecycle.push(sub);
        return;
      case 'multivariate_market_lifecycle':
        this.#mveLifecycle.push(sub);
        return;
      case 'fill':
      case 'user_orders':
      case 'market_positions':
      case 'order_group_updates':
      case 'communications':
        addTo(this.#private.get(sub.channel)!, sub.session.userId, sub);
        return;
      default:
        return; // channels the sim accepts but never feeds (vendor prices)
    }
  }

  #indexTicker(sub: Subscription, ticker: string): void {
    if (this.#engine.getMarket(ticker) === undefined) (sub.unknownMarkets ??= new Set()).add(ticker);
    else addTo(this.#ticker, ticker, sub);
  }

  unregister(sub: Subscription): void {
    sub.alive = false;
    if (sub.session.exchange === 'margin') {
      this.#margin?.unregister(sub);
      return;
    }
    switch (sub.channel) {
      case 'orderbook_delta':
        if (sub.markets !== null) for (const ticker of sub.markets) removeFrom(this.#book, ticker, sub);
        return;
      case 'ticker':
        if (sub.markets === null) removeFromList(this.#tickerAll, sub);
        else for (const ticker of sub.markets) removeFrom(this.#ticker, ticker, sub);
        return;
      case 'trade':
        removeFromList(this.#trade, sub);
        return;
      case 'market_lifecycle_v2':
        removeFromList(this.#lifecycle, sub);
        return;
      case 'multivariate_market_lifecycle':
        removeFromList(this.#mveLifecycle, sub);
        return;
      case 'fill':
      case 'user_orders':
      case 'market_positions':
      case 'order_group_updates':
      case 'communications':
        removeFrom(this.#private.get(sub.channel)!, sub.session.userId, sub);
        return;
      default:
        return;
    }
  }

  /**
   * Adds markets to a live subscription's filter (and the ticker index); returns the tickers newly
   * added. Order book markets are indexed later, each after its snapshot (BookSnapshotStep).
   */
  addMarkets(sub: Subscription, tickers: readonly string[]): string[] {
    const added: string[] = [];
    if (sub.markets === null) return added; // already every market
    for (const ticker of tickers) {
      if (sub.markets.has(ticker)) continue;
      sub.markets.add(ticker);
      added.push(ticker);
      if (sub.channel === 'ticker' && sub.session.exchange === 'predictions') this.#indexTicker(sub, ticker); // the Margin feed filters by market
    }
    if (added.length > 0) sub.marketsText = null;
    return added;
  }

  /** An order book market of `sub` starts receiving deltas (right after its snapshot). */
  indexBookMarket(sub: Subscription, ticker: string): void {
    if (sub.session.exchange === 'margin') {
      this.#margin?.indexBook(sub, ticker);
      return;
    }
    if (this.#engine.getMarket(ticker) === undefined) (sub.unknownMarkets ??= new Set()).add(ticker);
    else addTo(this.#book, ticker, sub);
  }

  /** Drops one market of an ended subscription from the per-market indexes. */
  unindexMarket(sub: Subscription, ticker: string): void {
    if (sub.channel === 'orderbook_delta') removeFrom(this.#book, ticker, sub);
    else if (sub.channel === 'ticker') removeFrom(this.#ticker, ticker, sub);
  }

  /** Removes markets from a subscription's filter; returns the tickers removed. */
  deleteMarkets(sub: Subscription, tickers: readonly string[]): string[] {
    const removed: string[] = [];
    if (sub.markets === null) return removed;
    for (const ticker of tickers) {
      if (!sub.markets.delete(ticker)) continue;
      removed.push(ticker);
      if (sub.unknownMarkets !== null && sub.unknownMarkets.delete(ticker)) continue;
      if (sub.channel === 'orderbook_delta') removeFrom(this.#book, ticker, sub);
      else if (sub.channel === 'ticker') removeFrom(this.#ticker, ticker, sub);
    }
    if (removed.length > 0) sub.marketsText = null;
    return removed;
  }

  // ---- sending --------------------------------------------------------------------------------

  /** Queues a frame on a session and schedules the flush. */
  send(session: WsSession, owner: Subscription | null, text: string): void {
    if (!session.open) return;
    if (session.enqueue(owner, text)) {
      this.#dirty.push(session);
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        queueMicrotask(this.#flushBound);
      }
    }
  }

  /** Command reply (`subscribed`, `ok`, `error` without sid...): never counted against the buffer. */
  reply(session: WsSession, text: string): void {
    this.send(session, null, text);
  }

  /** Sends the orderbook_snapshot of one market on an order book subscription (steps.ts slices these). */
  sendBookSnapshot(sub: Subscription, ticker: string): void {
    if (sub.session.exchange === 'margin') {
      this.#margin?.sendBookSnapshot(sub, ticker);
      return;
    }
    const market = this.#engine.getMarket(ticker);
    let msg: string;
    if (market === undefined) msg = emptySnapshotText(ticker);
    else {
      const view = this.#engine.orderbook(ticker, null);
      msg = isSimError(view) ? emptySnapshotText(ticker) : snapshotText(market, view, sub.useYesPrice);
    }
    this.send(sub.session, sub, `{"type":"orderbook_snapshot","sid":${sub.sid},"seq":${sub.nextSeq()},"msg":${msg}}`);
  }

  /** Sends the current ticker message of one market (send_initial_snapshot); unknown markets get none. */
  sendTickerSnapshot(sub: Subscription, ticker: string, tsMs: number): void {
    if (sub.session.exchange === 'margin') {
      this.#margin?.sendSnapshot(sub, ticker);
      return;
    }
    const market = this.#engine.getMarket(ticker);
    if (market === undefined) return;
    const lastSize = this.#tickerState.get(ticker)?.lastTradeSize ?? 0;
    this.send(sub.session, sub, `{"type":"ticker","sid":${sub.sid},"msg":${JSON.stringify(tickerToWsMsg(market, lastSize as Count, tsMs))}}`);
  }

  /**
   * Delivers one data message to one subscription, applying faults. `msg` is the payload text;
   * `type` the message type; the envelope carries seq when the channel is sequenced.
   */
  #deliver(sub: Subscription, type: string, msg: string, ticker: string, isDelta: boolean): void {
    if (this.#faults.wsActive && this.#applyFault(sub, ticker, isDelta)) return;
    const text = SEQUENCED_CHANNELS.has(sub.channel)
      ? `{"type":"${type}","sid":${sub.sid},"seq":${sub.nextSeq()},"msg":${msg}}`
      : `{"type":"${type}","sid":${sub.sid},"msg":${msg}}`;
    this.send(sub.session, sub, text);
    if (sub.heldMessage !== null) {
      this.send(sub.session, sub, sub.heldMessage);
      sub.heldMessage = null;
    }
  }

  /**
   * Applies a WS fault to a non-delta message about to go to `sub`; true when the message was
   * consumed. (Drop and reorder target deltas only; the controller never returns them here.)
   */
  #applyFault(sub: Subscription, ticker: string, isDelta: boolean): boolean {
    const decision = this.#faults.decideWs(sub.channel, ticker, sub.session.key.keyId, isDelta);
    switch (decision.kind) {
      case 'ws_buffer_overflow':
        this.overflow(sub);
        return true;
      case 'ws_close':
        this.#closeSession(sub.session, decision.closeCode === 0 ? null : decision.closeCode);
        return true;
      default:
        return false;
    }
  }

  /** Ends a subscription with error 25 (terminal, websocket.md §4). */
  overflow(sub: Subscription): void {
    if (!sub.alive) return;
    const session = sub.session;
    this.unregister(sub);
    session.forget(sub);
    this.reply(
      session,
      `{"type":"error","sid":${sub.sid},"seq":${sub.nextSeq()},"msg":{"code":${WsError.BUFFER_OVERFLOW},"msg":"${WS_ERROR_TEXT[WsError.BUFFER_OVERFLOW]}"}}`,
    );
    this.#logger.debug({ sid: sub.sid, channel: sub.channel, session: session.id }, 'subscription buffer overflow');
  }

  #flushAll(): void {
    this.#flushScheduled = false;
    // Probe: the batch's send time, taken before its first frame is handed to uWS (probe.ts).
    if (this.#probe !== null) this.#probe.markFlushed();
    const dirty = this.#dirty;
    // Sessions dirtied during this flush (overflow errors) are appended and flushed in this loop.
    for (let i = 0; i < dirty.length; i++) dirty[i].flush(this.bufferLimitBytes, this.#overflowBound);
    dirty.length = 0;
  }

  // ---- session lifecycle -----------------------------------------------------------------------

  addSession(session: WsSession): void {
    this.sessions.add(session);
  }

  /**
   * Forgets a closed session and all its subscriptions. They stop receiving at once (not alive);
   * their per-market index entries are removed in slices when the work queue is attached (a
   * session may have held 500,000 markets), at once otherwise.
   */
  removeSession(session: WsSession): void {
    session.open = false;
    session.discardQueue();
    const indexed: Subscription[] = [];
    for (const sub of session.subscriptions.values()) {
      if (this.#work !== null && sub.markets !== null && session.exchange === 'predictions' && (sub.channel === 'orderbook_delta' || sub.channel === 'ticker')) {
        sub.alive = false;
        indexed.push(sub);
      } else this.unregister(sub);
    }
    session.subscriptions.clear();
    this.sessions.delete(session);
    if (indexed.length > 0) this.#work!.addBackground(new UnindexStep(this, indexed));
  }

  #closeSession(session: WsSession, closeCode: number | null): void {
    const ws = session.ws;
    if (ws === null || !session.open) return;
    session.open = false;
    session.discardQueue();
    if (closeCode === null) ws.close();
    else ws.end(closeCode, 'closed by fault injection');
  }

  // ---- WsFaultActuator --------------------------------------------------------------------------

  closeConnections(filter: WsActionFilter, closeCode: number | null): number {
    let count = 0;
    for (const session of [...this.sessions]) {
      if (filter.keyId !== undefined && session.key.keyId !== filter.keyId) continue;
      if (filter.channel !== undefined || filter.sid !== undefined) {
        let matches = false;
        for (const sub of session.subscriptions.values()) {
          if ((filter.channel === undefined || sub.channel === filter.channel) && (filter.sid === undefined || sub.sid === filter.sid)) matches = true;
        }
        if (!matches) continue;
      }
      this.#closeSession(session, closeCode);
      count++;
    }
    return count;
  }

  overflowSubscriptions(filter: WsActionFilter): number {
    let count = 0;
    for (const session of this.sessions) {
      if (filter.keyId !== undefined && session.key.keyId !== filter.keyId) continue;
      for (const sub of [...session.subscriptions.values()]) {
        if (filter.channel !== undefined && sub.channel !== filter.channel) continue;
        if (filter.sid !== undefined && sub.sid !== filter.sid) continue;
        this.overflow(sub);
        count++;
      }
    }
    return count;
  }

  // ---- EngineListener ---------------------------------------------------------------------------

  onBookDelta(market: Market, side: 'yes' | 'no', price: Price, delta: Count, order: Order, reason: UpdateReason, tsMs: number): void {
    const subs = this.#book.get(market.ticker);
    if (subs !== undefined) {
      const texts = this.#delta;
      texts.reset(market, side, price, delta, order, reason, tsMs);
      const list = this.#iterable(subs);
      for (let i = 0; i < list.length; i++) {
        const sub = list[i];
        if (!sub.alive) continue;
        const key = sub.session.key;
        const own = order !== null && order.userId === key.userId && (key.subaccount === null || key.subaccount === order.subaccount);
        const variant = (own ? VARIANT_OWN : 0) | (sub.useYesPrice ? VARIANT_YES_PRICE : 0);
        // "subaccount" is shown when the owner uses subaccounts: a restricted key, or a non-primary one.
        const msg = texts.text(variant, own && (key.subaccount !== null || order.subaccount !== 0));
        this.#deliverDelta(sub, msg, market.ticker);
      }
      if (this.#probe !== null) this.#probe.noteDelta(market.ticker);
    }
    if (this.#tickerAll.length > 0 || this.#ticker.has(market.ticker)) this.#maybeTicker(market, tsMs, false);
  }

  #deliverDelta(sub: Subscription, msg: string, ticker: string): void {
    if (this.#faults.wsActive) {
      const decision = this.#faults.decideWs(sub.channel, ticker, sub.session.key.keyId, true);
      switch (decision.kind) {
        case 'ws_drop_delta':
          sub.nextSeq();
          return;
        case 'ws_reorder_delta':
          if (sub.heldMessage === null) {
            sub.heldMessage = `{"type":"orderbook_delta","sid":${sub.sid},"seq":${sub.nextSeq()},"msg":${msg}}`;
            return;
          }
          break;
        case 'ws_buffer_overflow':
          this.overflow(sub);
          return;
        case 'ws_close':
          this.#closeSession(sub.session, decision.closeCode === 0 ? null : decision.closeCode);
          return;
        default:
          break;
      }
    }
    this.send(sub.session, sub, `{"type":"orderbook_delta","sid":${sub.sid},"seq":${sub.nextSeq()},"msg":${msg}}`);
    if (sub.heldMessage !== null) {
      this.send(sub.session, sub, sub.heldMessage);
      sub.heldMessage = null;
    }
  }

  onTrade(market: Market, trade: Trade): void {
    if (this.#tickerAll.length > 0 || this.#ticker.has(market.ticker)) {
      this.#tickerStateOf(market.ticker).lastTradeSize = trade.count;
      this.#maybeTicker(market, trade.tsMs, true);
    }
    if (this.#trade.length === 0) return;
    const subs = this.#iterable(this.#trade);
    let msg: string | null = null;
    for (let i = 0; i < subs.length; i++) {
      const sub = subs[i];
      if (!sub.alive || !sub.covers(market.ticker)) continue;
      msg ??= JSON.stringify(tradeToWsMsg(trade, market));
      this.#deliver(sub, 'trade', msg, market.ticker, false);
    }
  }

  onFill(userId: string, fill: Fill): void {
    this.#privateFanOut('fill', 'fill', userId, fill.subaccount, fill.ticker, fill, fillToWsMsg);
  }

  onUserOrder(userId: string, order: Order): void {
    this.#privateFanOut('user_orders', 'user_order', userId, order.subaccount, order.ticker, order, userOrderToWsMsg);
  }

  onPosition(userId: string, position: Position): void {
    this.#privateFanOut('market_positions', 'market_position', userId, position.subaccount, position.ticker, position, positionToWsMsg);
  }

  /**
   * One private record to the user's subscriptions on `channel` that cover its subaccount and
   * market, rendered once (lazily: nobody listening, nothing rendered).
   */
  #privateFanOut<R>(channel: Channel, type: string, userId: string, subaccount: number, ticker: string, record: R, render: (record: R) => unknown): void {
    const subs = this.#private.get(channel)!.get(userId);
    if (subs === undefined) return;
    let msg: string | null = null;
    for (const sub of this.#iterable(subs)) {
      if (!this.#privateCovers(sub, subaccount, ticker)) continue;
      msg ??= JSON.stringify(render(record));
      this.#deliver(sub, type, msg, ticker, false);
    }
  }

  onOrderGroup(userId: string, event: OrderGroupEvent): void {
    const subs = this.#private.get('order_group_updates')!.get(userId);
    if (subs === undefined) return;
    let msg: string | null = null;
    for (const sub of this.#iterable(subs)) {
      if (!sub.alive) continue;
      const locked = sub.session.key.subaccount;
      if (locked !== null && locked !== event.subaccount) continue;
      msg ??= JSON.stringify(orderGroupEventToWsMsg(event));
      this.#deliver(sub, 'order_group_updates', msg, '', false);
    }
  }

  /** Combo markets go to multivariate_market_lifecycle only, every other market to market_lifecycle_v2 (websocket.md §6.8-6.9). */
  onMarketLifecycle(event: MarketLifecycleEvent): void {
    if (event.eventType === 'created') this.#indexCreated(event.market.ticker);
    const combo = event.market.mveCollectionTicker !== null;
    const subs = combo ? this.#mveLifecycle : this.#lifecycle;
    if (subs.length === 0) return;
    const type = combo ? 'multivariate_market_lifecycle' : 'market_lifecycle_v2';
    const msg = JSON.stringify(marketLifecycleToWsMsg(event));
    for (const sub of this.#iterable(subs)) if (sub.alive) this.#deliver(sub, type, msg, event.market.ticker, false);
  }

  onEventLifecycle(event: EventLifecycleEvent): void {
    const subs = (event.event.spec.mveCollectionTicker ?? null) !== null ? this.#mveLifecycle : this.#lifecycle;
    if (subs.length === 0) return;
    const msg = JSON.stringify(eventLifecycleToWsMsg(event));
    for (const sub of this.#iterable(subs)) if (sub.alive) this.#deliver(sub, 'event_lifecycle', msg, '', false);
  }

  /**
   * RFQs go to every communications subscription (websocket.md §6.11: "every RFQ is broadcast
   * publicly"), except those with user_filter "self" (the creator's own only) and those whose
   * shard is another.
   */
  onRfq(event: RfqEvent): void {
    const rfq = event.rfq;
    const channelSubs = this.#private.get('communications')!;
    if (channelSubs.size === 0) return;
    const msg = JSON.stringify(event.type === 'rfq_created' ? rfqCreatedToWsMsg(rfq) : rfqDeletedToWsMsg(rfq));
    const shardHash = shardHashOf(rfq.rfqId);
    for (const [userId, subs] of channelSubs) {
      for (const sub of this.#iterable(subs)) {
        if (!sub.alive || !inShard(sub, shardHash)) continue;
        if (sub.userFilterSelf) {
          const lock = sub.session.key.subaccount;
          if (userId !== rfq.userId || (lock !== null && lock !== rfq.subaccount)) continue;
        }
        this.#deliver(sub, event.type, msg, rfq.marketTicker, false);
      }
    }
  }

  /**
   * Quote messages go to the quote creator and the RFQ creator only, each rendered with its own
   * side's subaccount (never the counterparty's) and, on quote_executed, its own order ids. A
   * restricted key's session hears only what happens on its subaccount.
   */
  onQuote(event: QuoteEvent): void {
    const quote = event.quote;
    const channelSubs = this.#private.get('communications')!;
    if (channelSubs.size === 0) return;
    const shardHash = shardHashOf(quote.rfqId);
    this.#quoteTo(channelSubs.get(quote.userId), event, true, quote.subaccount, shardHash);
    this.#quoteTo(channelSubs.get(quote.rfqUserId), event, false, quote.rfqSubaccount, shardHash);
  }

  #quoteTo(subs: Subscription[] | undefined, event: QuoteEvent, quoteCreator: boolean, subaccount: number, shardHash: number): void {
    if (subs === undefined) return;
    const quote = event.quote;
    const texts: Array<string | null> = [null, null]; // without / with `subaccount`
    for (const sub of this.#iterable(subs)) {
      if (!sub.alive || !inShard(sub, shardHash)) continue;
      const lock = sub.session.key.subaccount;
      if (lock !== null && lock !== subaccount) continue;
      // "subaccount" appears when the recipient's side used one: a restricted key or a non-primary subaccount.
      const shown = lock !== null || subaccount !== 0 ? 1 : 0;
      let msg = texts[shown];
      if (msg === null) {
        const value = shown === 1 ? subaccount : null;
        const json =
          event.type === 'quote_created'
            ? quoteCreatedToWsMsg(quote, value)
            : event.type === 'quote_accepted'
              ? quoteAcceptedToWsMsg(quote, value)
              : quoteExecutedToWsMsg(quote, quoteCreator, value);
        msg = texts[shown] = JSON.stringify(json);
      }
      this.#deliver(sub, event.type, msg, quote.marketTicker, false);
    }
  }

  /** A market was created: subscriptions that named it while it was unknown start receiving it. */
  #indexCreated(ticker: string): void {
    for (const session of this.sessions) {
      for (const sub of session.subscriptions.values()) {
        if (!sub.alive || sub.unknownMarkets === null || !sub.unknownMarkets.delete(ticker)) continue;
        if (sub.channel === 'orderbook_delta') addTo(this.#book, ticker, sub);
        else if (sub.channel === 'ticker') addTo(this.#ticker, ticker, sub);
      }
    }
  }

  /**
   * The list to iterate for one event: faults may end subscriptions or close sessions mid-loop
   * (which splices the index), so iterate a copy only while WS faults are switched on.
   */
  #iterable(subs: Subscription[]): Subscription[] {
    return this.#faults.wsActive ? subs.slice() : subs;
  }

  /** Private channel filter: alive, the restricted key's subaccount, then the market filter. */
  #privateCovers(sub: Subscription, subaccount: number, ticker: string): boolean {
    if (!sub.alive) return false;
    const locked = sub.session.key.subaccount;
    if (locked !== null && locked !== subaccount) return false;
    return sub.covers(ticker);
  }

  #tickerStateOf(ticker: string): TickerState {
    let state = this.#tickerState.get(ticker);
    if (state === undefined) {
      state = { bid: -1, ask: -1, bidSize: -1, askSize: -1, lastTradeSize: 0 };
      this.#tickerState.set(ticker, state);
    }
    return state;
  }

  /** Sends `ticker` when the top of book changed (or a trade happened). */
  #maybeTicker(market: Market, tsMs: number, force: boolean): void {
    const state = this.#tickerStateOf(market.ticker);
    const bid = market.bestBid();
    const ask = market.bestAsk();
    const bidSize = market.bestBidSize();
    const askSize = market.bestAskSize();
    if (!force && bid === state.bid && ask === state.ask && bidSize === state.bidSize && askSize === state.askSize) return;
    state.bid = bid;
    state.ask = ask;
    state.bidSize = bidSize;
    state.askSize = askSize;
    const msg = JSON.stringify(tickerToWsMsg(market, state.lastTradeSize as Count, tsMs));
    for (const sub of this.#iterable(this.#tickerAll)) if (sub.alive) this.#deliver(sub, 'ticker', msg, market.ticker, false);
    const subs = this.#ticker.get(market.ticker);
    if (subs !== undefined) for (const sub of this.#iterable(subs)) if (sub.alive) this.#deliver(sub, 'ticker', msg, market.ticker, false);
  }
}

/** FNV-1a of an RFQ id: which communications shard its messages belong to. */
function shardHashOf(rfqId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < rfqId.length; i++) {
    hash ^= rfqId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

function inShard(sub: Subscription, shardHash: number): boolean {
  return sub.shardFactor === 0 || shardHash % sub.shardFactor === sub.shardKey;
}

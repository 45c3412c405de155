/**
 * The Margin WebSocket feed: the Margin engine's listener for the sessions of the Margin endpoint
 * (MARGIN_WS_PATH). Channels (websocket.md §7): `orderbook_delta` (an `orderbook_snapshot` per
 * market, then one `orderbook_delta` per level an engine event changed, Margin field names `bid`,
 * `ask`, `price`, `delta`, `side`; the causing order's `client_order_id` and `subaccount` to its own
 * user only), `trade` (every match), `fill` (each party's own, with `post_position`),
 * `order_group_updates` (the Margin order groups' changes, the Predictions shape), `margin_ticker`
 * (also subscribed as `ticker`; websocket.md §7.2, message type `ticker`) with last price, best bid/ask and sizes, volume and open interest with
 * their dollar notional companions, reference / settlement / liquidation marks and the funding
 * estimate, coalesced to at most one message per market per second of the simulator clock (a
 * change inside the second goes out when the second is up, by a timer); and `user_orders` with the
 * Margin fields `exchange_index` 0, `order_source` and, on system orders, `order_reason` (§7.3).
 * Subscriptions are few on this endpoint, so they sit in flat lists and filter by market.
 */

import {
  MarginBookLevels, accountKey, marginRender, ppmToNumber, type MarginEngine, type MarginEngineListener, type MarginFillRecord, type MarginOrderGroupEvent,
  type MarginOrderGroups, type MarginOrderRecord, type MarginTradeRecord, type MarketState,
} from '../../margin/index.ts';
import { orderGroupEventToWsMsg } from '../../engine/index.ts';
import type { Subscription } from './subscription.ts';

/** At most one ticker message per market per this many ms (websocket.md §7.2). */
const TICKER_INTERVAL_MS = 1000;

export interface MarginFeedSink {
  /** Sends one data message to one subscription (the hub's delivery: envelope, faults, buffers). */
  deliver(sub: Subscription, type: string, msg: string, ticker: string): void;
}

export class MarginWsFeed implements MarginEngineListener {
  readonly #engine: MarginEngine;
  readonly #sink: MarginFeedSink;
  readonly #now: () => number;
  readonly #tickers: Subscription[] = [];
  readonly #userOrders = new Map<string, Subscription[]>();
  readonly #trades: Subscription[] = [];
  readonly #fills = new Map<string, Subscription[]>();
  readonly #groups = new Map<string, Subscription[]>();
  /** orderbook_delta subscriptions per market, and the levels of those markets at the last event. */
  readonly #books = new Map<string, Subscription[]>();
  readonly #levels: MarginBookLevels;
  /** The engine's fills already sent on `fill` (an index into engine.fills). */
  #fillsSent: number;
  /** Per market: when its last ticker went out, the text sent (without ts_ms), a pending change, its timer. */
  readonly #sentMs = new Map<string, number>();
  readonly #sentText = new Map<string, string>();
  readonly #pending = new Set<string>();
  readonly #timers = new Map<string, NodeJS.Timeout>();

  constructor(engine: MarginEngine, sink: MarginFeedSink, now: () => number, groups: MarginOrderGroups | null = null) {
    this.#engine = engine;
    this.#sink = sink;
    this.#now = now;
    this.#levels = new MarginBookLevels(engine);
    this.#fillsSent = engine.fills.length;
    engine.listener = this;
    if (groups !== null) groups.listener = (userId, event) => this.#onOrderGroup(userId, event);
  }

  register(sub: Subscription): void {
    switch (sub.channel) {
      case 'orderbook_delta': return; // indexed market by market as each snapshot goes out (indexBook)
      case 'user_orders': return addTo(this.#userOrders, sub.session.userId, sub);
      case 'fill': return addTo(this.#fills, sub.session.userId, sub);
      case 'order_group_updates': return addTo(this.#groups, sub.session.userId, sub);
      case 'trade': return void this.#trades.push(sub);
      default: return void this.#tickers.push(sub);
    }
  }

  unregister(sub: Subscription): void {
    sub.alive = false;
    switch (sub.channel) {
      case 'orderbook_delta':
        for (const ticker of sub.markets ?? []) {
          const list = this.#books.get(ticker);
          if (list === undefined || !removeFrom(list, sub)) continue;
          if (list.length === 0) {
            this.#books.delete(ticker);
            this.#levels.unwatch(ticker);
          }
        }
        return;
      case 'user_orders': return void removeFrom(this.#userOrders.get(sub.session.userId) ?? [], sub);
      case 'fill': return void removeFrom(this.#fills.get(sub.session.userId) ?? [], sub);
      case 'order_group_updates': return void removeFrom(this.#groups.get(sub.session.userId) ?? [], sub);
      case 'trade': return void removeFrom(this.#trades, sub);
      default: return void removeFrom(this.#tickers, sub);
    }
  }

  /** An orderbook_delta subscription starts following one market (after its snapshot is queued). */
  indexBook(sub: Subscription, ticker: string): void {
    let list = this.#books.get(ticker);
    if (list === undefined) {
      if (!this.#levels.watch(ticker)) {
        (sub.unknownMarkets ??= new Set()).add(ticker);
        return;
      }
      this.#books.set(ticker, (list = []));
    }
    list.push(sub);
  }

  /** The orderbook_snapshot of one market: every level each side, best first; an unknown market is empty. */
  sendBookSnapshot(sub: Subscription, ticker: string): void {
    const market = this.#engine.markets.get(ticker);
    const side = (name: 'bid' | 'ask'): string[][] => (market === undefined ? [] : market.book.depth(name, 0).map(([price, size]) => [marginRender.price(price), marginRender.count(size)]));
    this.#sink.deliver(sub, 'orderbook_snapshot', JSON.stringify({ market_ticker: ticker, bid: side('bid'), ask: side('ask') }), ticker);
  }

  /** send_initial_snapshot: the market's current ticker on one subscription. */
  sendSnapshot(sub: Subscription, ticker: string): void {
    const market = this.#engine.markets.get(ticker);
    if (market === undefined) return;
    const nowMs = this.#now();
    this.#sink.deliver(sub, 'ticker', withTs(tickerBody(this.#engine, market), nowMs), ticker);
  }

  onOrder(order: MarginOrderRecord): void {
    this.#marketChanged(order.ticker);
    if (this.#books.has(order.ticker)) this.#sendLevels(order);
    const subs = this.#userOrders.get(order.userId);
    if (subs === undefined || subs.length === 0) return;
    const msg = JSON.stringify(userOrderMsg(order));
    for (const sub of subs) if (sub.alive && sub.covers(order.ticker)) this.#sink.deliver(sub, 'user_order', msg, order.ticker);
  }

  onTrade(market: MarketState, trade: MarginTradeRecord): void {
    this.#marketChanged(market.spec.ticker);
    const ticker = market.spec.ticker;
    if (this.#trades.length > 0) {
      const msg = JSON.stringify({
        trade_id: trade.tradeId, market_ticker: ticker, price: marginRender.price(trade.price), count: marginRender.count(trade.count),
        taker_side: trade.takerSide, ts_ms: trade.createdMs,
      });
      for (const sub of this.#trades) if (sub.alive && sub.covers(ticker)) this.#sink.deliver(sub, 'trade', msg, ticker);
    }
    // The match's fills are in the engine by now (its trade event comes after both).
    const fills = this.#engine.fills;
    for (; this.#fillsSent < fills.length; this.#fillsSent++) this.#sendFill(fills[this.#fillsSent]);
  }

  /** A group's change to its user's subscriptions (a key locked to a subaccount sees that subaccount's only). */
  #onOrderGroup(userId: string, event: MarginOrderGroupEvent): void {
    const subs = this.#groups.get(userId);
    if (subs === undefined || subs.length === 0) return;
    const msg = JSON.stringify(orderGroupEventToWsMsg({ ...event, contractsLimit: event.contractsLimit as never }));
    for (const sub of subs) {
      const locked = sub.session.key.subaccount;
      if (sub.alive && (locked === null || locked === event.subaccount)) this.#sink.deliver(sub, 'order_group_updates', msg, '');
    }
  }

  #sendFill(fill: MarginFillRecord): void {
    const subs = this.#fills.get(fill.userId);
    if (subs === undefined || subs.length === 0) return;
    const order = this.#engine.orders.get(fill.orderId);
    const position = this.#engine.accounts.get(accountKey(fill.userId, fill.subaccount))?.positions.get(fill.ticker)?.count ?? 0;
    const msg = JSON.stringify({
      trade_id: fill.tradeId, order_id: fill.orderId, market_ticker: fill.ticker, is_taker: fill.isTaker, side: fill.side, ts_ms: fill.createdMs,
      price: marginRender.price(fill.price), count: marginRender.count(fill.count), fee_cost: marginRender.dollars(fill.fee),
      post_position: marginRender.count(position), client_order_id: order?.clientOrderId ?? '', subaccount: fill.subaccount,
    });
    for (const sub of subs) if (sub.alive && sub.covers(fill.ticker)) this.#sink.deliver(sub, 'fill', msg, fill.ticker);
  }

  /** One orderbook_delta per level the event changed; the cause's own user also sees its order. */
  #sendLevels(cause: MarginOrderRecord): void {
    const ticker = cause.ticker;
    const subs = this.#books.get(ticker)!;
    const tsMs = this.#now();
    for (const change of this.#levels.diff(ticker)) {
      const base = `{"market_ticker":${JSON.stringify(ticker)},"price":"${marginRender.price(change.price)}","delta":"${marginRender.count(change.size - change.previous)}","side":"${change.side}","ts_ms":${tsMs}`;
      // last_update_reason (websocket.md §7.1, own orders only) when not empty, as the Predictions deltas.
      const reason = cause.lastUpdateReason === '' ? '' : `,"last_update_reason":"${cause.lastUpdateReason}"`;
      const own = `${base},"client_order_id":${JSON.stringify(cause.clientOrderId)},"subaccount":${cause.subaccount}${reason}}`;
      for (const sub of subs) if (sub.alive) this.#sink.deliver(sub, 'orderbook_delta', sub.session.userId === cause.userId ? own : `${base}}`, ticker);
    }
  }

  close(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    if (this.#engine.listener === this) this.#engine.listener = null;
  }

  #marketChanged(ticker: string): void {
    if (this.#tickers.length === 0 || this.#pending.has(ticker)) return;
    this.#pending.add(ticker);
    // After the engine call that changed it (fills, marks and triggers settle first).
    queueMicrotask(() => this.#flush(ticker));
  }

  #flush(ticker: string): void {
    if (!this.#pending.has(ticker)) return;
    const nowMs = this.#now();
    const sentMs = this.#sentMs.get(ticker);
    if (sentMs !== undefined && nowMs - sentMs < TICKER_INTERVAL_MS) {
      if (!this.#timers.has(ticker)) {
        const timer = setTimeout(() => {
          this.#timers.delete(ticker);
          this.#send(ticker, Math.max(this.#now(), sentMs + TICKER_INTERVAL_MS));
        }, TICKER_INTERVAL_MS - (nowMs - sentMs));
        timer.unref();
        this.#timers.set(ticker, timer);
      }
      return;
    }
    this.#send(ticker, nowMs);
  }

  #send(ticker: string, tsMs: number): void {
    this.#pending.delete(ticker);
    const market = this.#engine.markets.get(ticker);
    if (market === undefined) return;
    const body = tickerBody(this.#engine, market);
    if (this.#sentText.get(ticker) === body) return; // nothing the message shows changed
    this.#sentText.set(ticker, body);
    this.#sentMs.set(ticker, tsMs);
    const msg = withTs(body, tsMs);
    for (const sub of this.#tickers) if (sub.alive && sub.covers(ticker)) this.#sink.deliver(sub, 'ticker', msg, ticker);
  }
}

function addTo(map: Map<string, Subscription[]>, key: string, sub: Subscription): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [sub]);
  else list.push(sub);
}

function removeFrom(list: Subscription[], sub: Subscription): boolean {
  const index = list.indexOf(sub);
  if (index < 0) return false;
  list.splice(index, 1);
  return true;
}

/** The ticker message's JSON without its closing brace and ts_ms (so unchanged state is detected). */
function tickerBody(engine: MarginEngine, market: MarketState): string {
  const book = market.book;
  const bidLevel = book.levels('bid')[0];
  const askLevel = book.levels('ask')[0];
  const size = (level: typeof bidLevel | undefined): number => (level === undefined ? 0 : level.orders.reduce((sum, order) => sum + order.remaining, 0));
  const lastTrade = market.trades.length === 0 ? null : market.trades[market.trades.length - 1];
  const full = marginRender.marketToJson(market, engine.now());
  const out = {
    market_ticker: market.spec.ticker,
    price: marginRender.price(market.lastPrice ?? market.mark),
    bid: marginRender.price(bidLevel?.price ?? 0),
    ask: marginRender.price(askLevel?.price ?? 0),
    bid_size_fp: marginRender.count(size(bidLevel)),
    ask_size_fp: marginRender.count(size(askLevel)),
    last_trade_size_fp: marginRender.count(lastTrade?.count ?? 0),
    volume: full.volume,
    volume_notional_value_dollars: full.volume_notional_value_dollars,
    volume_24h: full.volume_24h,
    volume_24h_notional_value_dollars: full.volume_24h_notional_value_dollars,
    open_interest: full.open_interest,
    open_interest_notional_value_dollars: full.open_interest_notional_value_dollars,
    reference_price: { price: marginRender.price(market.reference), ts_ms: market.referenceMs },
    settlement_mark_price: { price: marginRender.price(market.mark), ts_ms: market.markMs },
    liquidation_mark_price: { price: marginRender.price(market.mark), ts_ms: market.markMs },
    funding_rate: { rate: ppmToNumber(engine.fundingEstimatePpm(market)), next_funding_time_ms: market.nextFundingMs, ts_ms: market.markMs },
  };
  const text = JSON.stringify(out);
  return text.slice(0, -1);
}

function withTs(body: string, tsMs: number): string {
  return `${body},"ts_ms":${tsMs}}`;
}

/** user_order on the Margin endpoint (websocket.md §7.3 plus the spec's exchange_index, order_source, order_reason). */
function userOrderMsg(order: MarginOrderRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    order_id: order.orderId,
    user_id: order.userId,
    client_order_id: order.clientOrderId,
    ticker: order.ticker,
    side: order.side,
    price: marginRender.price(order.price),
    fill_count: marginRender.count(order.filled),
    remaining_count: marginRender.count(order.remaining),
    status: order.status,
    created_ts_ms: order.createdMs,
    last_updated_ts_ms: order.lastUpdateMs,
    self_trade_prevention_type: order.selfTradePrevention,
    subaccount_number: order.subaccount,
    exchange_index: 0,
    order_source: order.source,
  };
  if (order.expirationTs !== null) out.expiration_ts_ms = order.expirationTs * 1000;
  if (order.lastUpdateReason !== '') out.last_update_reason = order.lastUpdateReason; // as the Predictions user_order (ExpiryCancel, …)
  if (order.reason !== null) out.order_reason = order.reason; // system orders only (interface-spec)
  return out;
}

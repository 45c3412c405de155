/**
 * The subscription manager: what the session should be subscribed to, and the commands that get it
 * there (spec/websocket.md §3). Callers say which markets they want on which channel; the manager
 * groups markets into subscriptions of at most `maxMarketsPerSubscription` (a terminal error then
 * costs one subscription, not the whole book set), batches market lists into commands of at most
 * `maxMarketsPerCommand`, coalesces requests made before the next flush, and paces every command
 * through one token bucket set under the exchange's 10,000 commands/s session limit.
 *
 * It numbers commands with increasing ids (never reused, across reconnects too), keeps id ->
 * pending command until the reply, keeps sid -> subscription from `subscribed`, and re-creates
 * every subscription after a reconnect or a terminal error (new sids; the caller is told each old
 * sid through `onLost` so it can reset sequence state). It never decodes frames (the feed hands it
 * decoded control records), never touches books and never reads a socket; it writes through a
 * CommandSink.
 */

import { ERROR_UNKNOWN_SID, TERMINAL_ERROR_CODES, isMarketFiltered, isTransientError } from './channels.ts';
import type { ControlRecord, SubscriptionListing } from './decoders/control.ts';
import type { FeedLogger } from './feed-logger.ts';
import { TokenBucket } from '../core/index.ts';

/** Where commands go: the WebSocket session, or a fake in tests. */
export interface CommandSink {
  readonly isOpen: boolean;
  /** Writes one text frame; false when the connection is not open. */
  send(text: string): boolean;
}

export const SubscriptionState = {
  /** Not subscribed on the server (new, after a reconnect, or waiting to retry). */
  IDLE: 0,
  SUBSCRIBING: 1,
  ACTIVE: 2,
  UNSUBSCRIBING: 3,
  /** The exchange refused the subscribe with a client error: not retried until asked again. */
  FAILED: 4,
} as const;
export type SubscriptionState = (typeof SubscriptionState)[keyof typeof SubscriptionState];

/** Why a sid stopped being valid. */
export const LostReason = { RECONNECT: 'reconnect', TERMINAL: 'terminal', UNSUBSCRIBED: 'unsubscribed', UNKNOWN_SID: 'unknown_sid' } as const;
export type LostReason = (typeof LostReason)[keyof typeof LostReason];

export const CommandKind = {
  SUBSCRIBE: 'subscribe',
  UNSUBSCRIBE: 'unsubscribe',
  ADD_MARKETS: 'add_markets',
  DELETE_MARKETS: 'delete_markets',
  GET_SNAPSHOT: 'get_snapshot',
  LIST: 'list_subscriptions',
} as const;
export type CommandKind = (typeof CommandKind)[keyof typeof CommandKind];

export class Subscription {
  readonly key: number;
  readonly channel: string;
  /** Takes a market filter (false: the whole channel). */
  readonly filtered: boolean;
  /** Every market wanted on this subscription. */
  readonly markets = new Set<string>();
  /** Wanted but not yet sent to the server (subscribe chunks beyond the first, or added later). */
  readonly toAdd = new Set<string>();
  /** Sent earlier, no longer wanted. */
  readonly toRemove = new Set<string>();
  /** Markets to re-snapshot on the current sid (get_snapshot). */
  readonly toSnapshot = new Set<string>();
  sid = -1;
  state: SubscriptionState = SubscriptionState.IDLE;
  /** The subscription should go away (unsubscribe once active; dropped when idle). */
  closing = false;
  /** Earliest time of the next subscribe attempt, ms. */
  retryAtMs = 0;
  retryDelayMs = 0;
  /** In the manager's work list. */
  queued = false;
  constructor(key: number, channel: string, filtered: boolean) {
    this.key = key;
    this.channel = channel;
    this.filtered = filtered;
  }
}

export interface SubscriptionHooks {
  /** A subscription got a sid (after subscribe, or a resubscribe). */
  onActive(subscription: Subscription, sid: number): void;
  /** A sid is no longer valid: reset its sequence state; data for its markets comes again on a new sid. */
  onLost(subscription: Subscription, sid: number, reason: LostReason): void;
  /**
   * The exchange sent an error: for a command (kind) or, kind null, for a live subscription (a
   * terminal 10/25 on its sid). Called also when the manager retries or re-creates by itself.
   */
  onCommandError(kind: CommandKind | null, subscription: Subscription | null, code: number, message: string): void;
}

export interface SubscriptionManagerOptions {
  sink: CommandSink;
  hooks: SubscriptionHooks;
  /** Monotonic-enough clock, ms. */
  nowMs: () => number;
  logger: FeedLogger;
  /** Sustained commands per second; keep under the exchange's 10,000 (default 2,000). */
  commandsPerSec?: number;
  /** Commands sendable at once (default 100). */
  commandBurst?: number;
  /** Markets per subscribe / update_subscription command (default 500). */
  maxMarketsPerCommand?: number;
  /** Markets per subscription (default 2,000): a terminal error re-creates at most this many books. */
  maxMarketsPerSubscription?: number;
  /** A command without a reply after this long is given up (subscribe is retried), ms (default 10,000). */
  commandTimeoutMs?: number;
  /** First retry delay of a failed subscribe, doubled up to 30 s (default 500 ms). */
  retryDelayMs?: number;
  /** Extra params per channel for subscribe (e.g. { use_yes_price: true }). */
  channelParams?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

class PendingCommand {
  constructor(
    readonly id: number,
    readonly kind: CommandKind,
    readonly subscription: Subscription | null,
    readonly markets: readonly string[] | null,
    readonly sentAtMs: number,
    readonly listCallback: ((error: Error | null, list: readonly SubscriptionListing[]) => void) | null,
  ) {}
}

/** Error passed to list callbacks; `code` is the exchange's error code or FEED_COMMAND_TIMEOUT / FEED_DISCONNECTED. */
export class SubscriptionCommandError extends Error {
  readonly code: number | 'FEED_COMMAND_TIMEOUT' | 'FEED_DISCONNECTED';
  constructor(code: number | 'FEED_COMMAND_TIMEOUT' | 'FEED_DISCONNECTED', message: string) {
    super(message);
    this.name = 'SubscriptionCommandError';
    this.code = code;
  }
}

class ChannelSubscriptions {
  readonly subscriptions: Subscription[] = [];
  /** market -> its subscription (filtered channels). */
  readonly byMarket = new Map<string, Subscription>();
}

const RETRY_DELAY_MAX_MS = 30_000;

export class SubscriptionManager {
  readonly #sink: CommandSink;
  readonly #hooks: SubscriptionHooks;
  readonly #nowMs: () => number;
  readonly #logger: FeedLogger;
  readonly #bucket: TokenBucket;
  readonly #maxMarketsPerCommand: number;
  readonly #maxMarketsPerSubscription: number;
  readonly #commandTimeoutMs: number;
  readonly #retryDelayMs: number;
  readonly #channelParams: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly #channels = new Map<string, ChannelSubscriptions>();
  readonly #bySid = new Map<number, Subscription>();
  readonly #pending = new Map<number, PendingCommand>();
  readonly #work: Subscription[] = [];
  readonly #listRequests: ((error: Error | null, list: readonly SubscriptionListing[]) => void)[] = [];
  readonly #orphanSids: number[] = [];
  #nextId = 1;
  #nextKey = 1;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #flushScheduled = false;
  /** Commands written since construction. */
  commandsSent = 0;

  constructor(options: SubscriptionManagerOptions) {
    this.#sink = options.sink;
    this.#hooks = options.hooks;
    this.#nowMs = options.nowMs;
    this.#logger = options.logger;
    this.#bucket = new TokenBucket(options.commandsPerSec ?? 2_000, options.commandBurst ?? 100, options.nowMs());
    this.#maxMarketsPerCommand = options.maxMarketsPerCommand ?? 500;
    this.#maxMarketsPerSubscription = options.maxMarketsPerSubscription ?? 2_000;
    this.#commandTimeoutMs = options.commandTimeoutMs ?? 10_000;
    this.#retryDelayMs = options.retryDelayMs ?? 500;
    this.#channelParams = options.channelParams ?? {};
    if (!(this.#maxMarketsPerCommand >= 1) || !(this.#maxMarketsPerSubscription >= 1)) {
      throw new RangeError('SubscriptionManager: maxMarketsPerCommand and maxMarketsPerSubscription must be >= 1');
    }
  }

  // ---- what the caller wants ----------------------------------------------------------------

  /** Subscribes `markets` on a market-filtered channel (markets already there are left alone). */
  addMarkets(channel: string, markets: Iterable<string>): void {
    if (!isMarketFiltered(channel)) throw new RangeError(`channel ${channel} takes no market filter`);
    const state = this.#channel(channel);
    for (const market of markets) {
      if (state.byMarket.has(market)) continue;
      let subscription = this.#openSubscription(state, channel);
      if (subscription.markets.size >= this.#maxMarketsPerSubscription) {
        subscription = this.#newSubscription(state, channel, true);
      }
      subscription.markets.add(market);
      state.byMarket.set(market, subscription);
      if (subscription.state === SubscriptionState.ACTIVE || subscription.state === SubscriptionState.SUBSCRIBING) {
        subscription.toAdd.add(market);
      }
      if (subscription.state === SubscriptionState.FAILED) subscription.state = SubscriptionState.IDLE;
      this.#enqueue(subscription);
    }
    this.#scheduleFlush();
  }

  /** Removes `markets` from their subscriptions on `channel`; a subscription left empty is unsubscribed. */
  removeMarkets(channel: string, markets: Iterable<string>): void {
    const state = this.#channels.get(channel);
    if (state === undefined) return;
    for (const market of markets) {
      const subscription = state.byMarket.get(market);
      if (subscription === undefined) continue;
      state.byMarket.delete(market);
      subscription.markets.delete(market);
      subscription.toSnapshot.delete(market);
      // Never sent: just forget it. Sent: delete_markets (or unsubscribe when nothing is left).
      if (!subscription.toAdd.delete(market) && subscription.state !== SubscriptionState.IDLE) subscription.toRemove.add(market);
      if (subscription.markets.size === 0) subscription.closing = true;
      this.#enqueue(subscription);
    }
    this.#scheduleFlush();
  }

  /** Subscribes a whole channel (no market filter): lifecycle, order groups, or all own fills. */
  addChannel(channel: string): void {
    const state = this.#channel(channel);
    for (const subscription of state.subscriptions) {
      if (!subscription.filtered && !subscription.closing) return;
    }
    this.#enqueue(this.#newSubscription(state, channel, false));
    this.#scheduleFlush();
  }

  /** Unsubscribes every subscription of a channel. */
  removeChannel(channel: string): void {
    const state = this.#channels.get(channel);
    if (state === undefined) return;
    for (const subscription of state.subscriptions) {
      subscription.closing = true;
      subscription.markets.clear();
      subscription.toAdd.clear();
      this.#enqueue(subscription);
    }
    state.byMarket.clear();
    this.#scheduleFlush();
  }

  /** Asks for fresh snapshots of `markets` on their current orderbook sids (get_snapshot), batched. Returns how many were queued. */
  requestSnapshots(channel: string, markets: Iterable<string>): number {
    const state = this.#channels.get(channel);
    if (state === undefined) return 0;
    let queued = 0;
    for (const market of markets) {
      const subscription = state.byMarket.get(market);
      if (subscription === undefined || subscription.state !== SubscriptionState.ACTIVE || subscription.toAdd.has(market)) continue;
      subscription.toSnapshot.add(market);
      this.#enqueue(subscription);
      queued++;
    }
    if (queued > 0) this.#scheduleFlush();
    return queued;
  }

  /** Drops a subscription's sid and subscribes it again (a terminal error, or a stream the caller no longer trusts). */
  resubscribe(subscription: Subscription, reason: LostReason): void {
    if (subscription.state === SubscriptionState.ACTIVE || subscription.state === SubscriptionState.SUBSCRIBING) {
      this.#lose(subscription, reason);
      subscription.retryAtMs = 0;
      this.#enqueue(subscription);
      this.#scheduleFlush();
    }
  }

  /** list_subscriptions; the callback gets the server's {channel, sid} list or an error. */
  listSubscriptions(callback: (error: Error | null, list: readonly SubscriptionListing[]) => void): void {
    this.#listRequests.push(callback);
    this.#scheduleFlush();
  }

  // ---- lookups --------------------------------------------------------------------------------

  /** The subscription holding a sid (hot path: one Map lookup). */
  subscriptionOfSid(sid: number): Subscription | undefined {
    return this.#bySid.get(sid);
  }

  subscriptionOfMarket(channel: string, market: string): Subscription | undefined {
    return this.#channels.get(channel)?.byMarket.get(market);
  }

  subscriptions(channel: string): readonly Subscription[] {
    return this.#channels.get(channel)?.subscriptions ?? [];
  }

  /** channel -> sids of active subscriptions (a fresh object, for status and tests). */
  sidsByChannel(): Record<string, number[]> {
    const out: Record<string, number[]> = {};
    for (const [channel, state] of this.#channels) {
      out[channel] = state.subscriptions.filter((s) => s.state === SubscriptionState.ACTIVE).map((s) => s.sid);
    }
    return out;
  }

  get pendingCommandCount(): number {
    return this.#pending.size;
  }

  // ---- connection events ---------------------------------------------------------------------

  /** The connection (re)opened: every subscription is subscribed again. */
  onOpen(): void {
    for (const state of this.#channels.values()) {
      for (const subscription of state.subscriptions) {
        subscription.retryAtMs = 0;
        subscription.retryDelayMs = 0;
        this.#enqueue(subscription);
      }
    }
    this.flush();
  }

  /** The connection is gone: every sid is void, pending commands will never be answered. */
  onClose(): void {
    for (const pending of this.#pending.values()) {
      if (pending.listCallback !== null) pending.listCallback(new SubscriptionCommandError('FEED_DISCONNECTED', 'connection closed before the reply'), []);
    }
    this.#pending.clear();
    this.#orphanSids.length = 0;
    for (const state of this.#channels.values()) {
      for (const subscription of state.subscriptions) {
        if (subscription.state === SubscriptionState.ACTIVE || subscription.state === SubscriptionState.SUBSCRIBING || subscription.state === SubscriptionState.UNSUBSCRIBING) {
          this.#lose(subscription, LostReason.RECONNECT);
        }
        if (subscription.state === SubscriptionState.FAILED) subscription.state = SubscriptionState.IDLE;
      }
    }
    this.#prune();
  }

  // ---- replies ------------------------------------------------------------------------------

  handleSubscribed(record: ControlRecord): void {
    const pending = record.id === -1 ? undefined : this.#pending.get(record.id);
    const subscription = pending?.subscription ?? null;
    if (pending === undefined || pending.kind !== CommandKind.SUBSCRIBE || subscription === null || subscription.channel !== record.channel) {
      // A late reply to a subscribe we gave up on (or someone else's): drop that server subscription.
      if (!this.#bySid.has(record.sid)) {
        this.#logger.warn({ id: record.id, sid: record.sid, channel: record.channel }, 'feed: subscribed for no pending subscribe; unsubscribing it');
        this.#orphanSids.push(record.sid);
        this.#scheduleFlush();
      }
      return;
    }
    this.#pending.delete(record.id);
    if (subscription.state !== SubscriptionState.SUBSCRIBING) return;
    subscription.sid = record.sid;
    subscription.state = SubscriptionState.ACTIVE;
    subscription.retryDelayMs = 0;
    this.#bySid.set(record.sid, subscription);
    this.#hooks.onActive(subscription, record.sid);
    this.#enqueue(subscription); // markets queued while subscribing, or a close requested meanwhile
    this.#scheduleFlush();
  }

  handleUnsubscribed(record: ControlRecord): void {
    if (record.id !== -1) this.#pending.delete(record.id);
    const subscription = this.#bySid.get(record.sid);
    if (subscription === undefined) return;
    this.#lose(subscription, LostReason.UNSUBSCRIBED);
    this.#prune();
  }

  handleOk(record: ControlRecord): void {
    const pending = record.id === -1 ? undefined : this.#pending.get(record.id);
    if (pending === undefined) return;
    this.#pending.delete(record.id);
    if (pending.kind === CommandKind.LIST && pending.listCallback !== null) pending.listCallback(null, record.subscriptions ?? []);
  }

  /** An `error` frame: terminal errors re-create their subscription; command errors are retried or reported. */
  handleError(record: ControlRecord): void {
    const pending = record.id === -1 ? undefined : this.#pending.get(record.id);
    if (pending !== undefined) this.#pending.delete(record.id);
    const bySid = record.sid === -1 ? undefined : this.#bySid.get(record.sid);
    const subscription = bySid ?? pending?.subscription ?? null;
    this.#hooks.onCommandError(pending?.kind ?? null, subscription, record.code, record.message);

    if (TERMINAL_ERROR_CODES.includes(record.code) && bySid !== undefined) {
      this.resubscribe(bySid, LostReason.TERMINAL);
      return;
    }
    if (pending === undefined) return;
    if (pending.listCallback !== null) {
      pending.listCallback(new SubscriptionCommandError(record.code, record.message), []);
      return;
    }
    if (subscription === null) return;
    switch (pending.kind) {
      case CommandKind.SUBSCRIBE:
        if (subscription.state !== SubscriptionState.SUBSCRIBING) return;
        subscription.state = isTransientError(record.code) ? SubscriptionState.IDLE : SubscriptionState.FAILED;
        this.#restoreAfterFailedSubscribe(subscription);
        if (subscription.state === SubscriptionState.IDLE) this.#scheduleRetry(subscription);
        return;
      case CommandKind.GET_SNAPSHOT:
      case CommandKind.ADD_MARKETS:
      case CommandKind.DELETE_MARKETS:
        if (record.code === ERROR_UNKNOWN_SID && subscription.state === SubscriptionState.ACTIVE) {
          // The server no longer knows the sid: the stream is dead, re-create it.
          this.resubscribe(subscription, LostReason.UNKNOWN_SID);
          return;
        }
        if (isTransientError(record.code) && pending.markets !== null) {
          const target = pending.kind === CommandKind.ADD_MARKETS ? subscription.toAdd : pending.kind === CommandKind.DELETE_MARKETS ? subscription.toRemove : subscription.toSnapshot;
          for (const market of pending.markets) if (pending.kind === CommandKind.DELETE_MARKETS || subscription.markets.has(market)) target.add(market);
          this.#scheduleRetry(subscription);
        }
        return;
      case CommandKind.UNSUBSCRIBE:
        // Unknown sid: it is gone anyway.
        if (record.code === ERROR_UNKNOWN_SID) {
          this.#lose(subscription, LostReason.UNSUBSCRIBED);
          this.#prune();
        }
        return;
      case CommandKind.LIST:
        return;
    }
  }

  // ---- time ---------------------------------------------------------------------------------

  /** Coarse tick: expires pending commands and releases retries that are due. */
  onTick(nowMs: number): void {
    for (const pending of this.#pending.values()) {
      if (nowMs - pending.sentAtMs < this.#commandTimeoutMs) continue;
      this.#pending.delete(pending.id);
      this.#expire(pending);
    }
    for (const state of this.#channels.values()) {
      for (const subscription of state.subscriptions) {
        if (!subscription.queued && this.#hasWork(subscription, nowMs)) this.#enqueue(subscription);
      }
    }
    if (this.#work.length > 0 || this.#listRequests.length > 0 || this.#orphanSids.length > 0) this.flush();
  }

  /** Releases timers (the feed is stopping). */
  dispose(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** Sends queued commands while the token bucket allows; schedules one timer for the rest. */
  flush(): void {
    this.#flushScheduled = false;
    if (!this.#sink.isOpen) return;
    const nowMs = this.#nowMs();
    while (this.#orphanSids.length > 0) {
      if (!this.#take(nowMs)) return;
      this.#send(CommandKind.UNSUBSCRIBE, null, null, { sids: [this.#orphanSids.shift()] }, nowMs, null);
    }
    while (this.#listRequests.length > 0) {
      if (!this.#take(nowMs)) return;
      const callback = this.#listRequests.shift()!;
      this.#sendList(nowMs, callback);
    }
    const work = this.#work;
    while (work.length > 0) {
      const subscription = work[0];
      if (!this.#hasWork(subscription, nowMs)) {
        work.shift();
        subscription.queued = false;
        continue;
      }
      if (!this.#take(nowMs)) return;
      this.#sendNext(subscription, nowMs);
    }
    this.#prune();
  }

  // ---- internals ----------------------------------------------------------------------------

  #take(nowMs: number): boolean {
    if (this.#bucket.tryTake(1, nowMs)) return true;
    if (this.#timer === null) {
      this.#timer = setTimeout(() => {
        this.#timer = null;
        this.flush();
      }, Math.max(1, this.#bucket.waitMs(1, nowMs)));
      this.#timer.unref?.();
    }
    return false;
  }

  #scheduleFlush(): void {
    // Coalesce every request made in the same turn of the event loop into one flush.
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    queueMicrotask(() => {
      if (this.#flushScheduled) this.flush();
    });
  }

  #channel(channel: string): ChannelSubscriptions {
    let state = this.#channels.get(channel);
    if (state === undefined) {
      state = new ChannelSubscriptions();
      this.#channels.set(channel, state);
    }
    return state;
  }

  #openSubscription(state: ChannelSubscriptions, channel: string): Subscription {
    const list = state.subscriptions;
    for (let i = list.length - 1; i >= 0; i--) {
      const subscription = list[i];
      if (subscription.filtered && !subscription.closing) return subscription;
    }
    return this.#newSubscription(state, channel, true);
  }

  #newSubscription(state: ChannelSubscriptions, channel: string, filtered: boolean): Subscription {
    const subscription = new Subscription(this.#nextKey++, channel, filtered);
    state.subscriptions.push(subscription);
    return subscription;
  }

  #enqueue(subscription: Subscription): void {
    if (subscription.queued) return;
    subscription.queued = true;
    this.#work.push(subscription);
  }

  #hasWork(subscription: Subscription, nowMs: number): boolean {
    switch (subscription.state) {
      case SubscriptionState.IDLE:
        if (subscription.closing) return false; // never on the server: nothing to undo
        if (subscription.filtered && subscription.markets.size === 0) return false;
        return subscription.retryAtMs <= nowMs;
      case SubscriptionState.ACTIVE:
        if (subscription.closing) return true;
        if (subscription.retryAtMs > nowMs) return false; // after a transient error: the tick re-queues it
        return subscription.toRemove.size > 0 || subscription.toAdd.size > 0 || subscription.toSnapshot.size > 0;
      default:
        return false; // waiting for a reply, or failed
    }
  }

  /** Sends the subscription's next command (one token's worth). */
  #sendNext(subscription: Subscription, nowMs: number): void {
    if (subscription.state === SubscriptionState.IDLE) {
      const params: Record<string, unknown> = { channels: [subscription.channel] };
      let markets: string[] | null = null;
      subscription.toAdd.clear();
      subscription.toRemove.clear();
      subscription.toSnapshot.clear();
      if (subscription.filtered) {
        markets = [];
        for (const market of subscription.markets) {
          if (markets.length < this.#maxMarketsPerCommand) markets.push(market);
          else subscription.toAdd.add(market); // sent by add_markets once the sid is known
        }
        params.market_tickers = markets;
      }
      const extra = this.#channelParams[subscription.channel];
      if (extra !== undefined) Object.assign(params, extra);
      subscription.state = SubscriptionState.SUBSCRIBING;
      this.#send(CommandKind.SUBSCRIBE, subscription, markets, params, nowMs, null);
      return;
    }
    // ACTIVE (the order matches #hasWork)
    if (subscription.closing) {
      subscription.state = SubscriptionState.UNSUBSCRIBING;
      this.#send(CommandKind.UNSUBSCRIBE, subscription, null, { sids: [subscription.sid] }, nowMs, null);
      return;
    }
    if (subscription.toRemove.size > 0) {
      const markets = this.#takeChunk(subscription.toRemove);
      this.#send(CommandKind.DELETE_MARKETS, subscription, markets, { sids: [subscription.sid], market_tickers: markets, action: 'delete_markets' }, nowMs, null);
      return;
    }
    if (subscription.toAdd.size > 0) {
      const markets = this.#takeChunk(subscription.toAdd);
      this.#send(CommandKind.ADD_MARKETS, subscription, markets, { sids: [subscription.sid], market_tickers: markets, action: 'add_markets' }, nowMs, null);
      return;
    }
    if (subscription.toSnapshot.size > 0) {
      const markets = this.#takeChunk(subscription.toSnapshot);
      this.#send(CommandKind.GET_SNAPSHOT, subscription, markets, { sids: [subscription.sid], market_tickers: markets, action: 'get_snapshot' }, nowMs, null);
    }
  }

  #takeChunk(set: Set<string>): string[] {
    const chunk: string[] = [];
    for (const market of set) {
      chunk.push(market);
      set.delete(market);
      if (chunk.length === this.#maxMarketsPerCommand) break;
    }
    return chunk;
  }

  #send(
    kind: CommandKind,
    subscription: Subscription | null,
    markets: string[] | null,
    params: Record<string, unknown>,
    nowMs: number,
    listCallback: PendingCommand['listCallback'],
  ): void {
    const id = this.#nextId++;
    const cmd = kind === CommandKind.SUBSCRIBE || kind === CommandKind.UNSUBSCRIBE ? kind : 'update_subscription';
    this.#pending.set(id, new PendingCommand(id, kind, subscription, markets, nowMs, listCallback));
    this.commandsSent++;
    if (!this.#sink.send(JSON.stringify({ id, cmd, params }))) {
      // The socket closed under us: onClose will reset everything; nothing else to do here.
      this.#logger.debug({ id, cmd }, 'feed: command not written, connection closed');
    }
  }

  #sendList(nowMs: number, callback: NonNullable<PendingCommand['listCallback']>): void {
    const id = this.#nextId++;
    this.#pending.set(id, new PendingCommand(id, CommandKind.LIST, null, null, nowMs, callback));
    this.commandsSent++;
    this.#sink.send(JSON.stringify({ id, cmd: 'list_subscriptions' }));
  }

  /** The sid is void: back to IDLE with every market to send again. */
  #lose(subscription: Subscription, reason: LostReason): void {
    const sid = subscription.sid;
    if (sid !== -1) this.#bySid.delete(sid);
    subscription.sid = -1;
    subscription.state = SubscriptionState.IDLE;
    subscription.toAdd.clear();
    subscription.toRemove.clear();
    subscription.toSnapshot.clear();
    if (sid !== -1) this.#hooks.onLost(subscription, sid, reason);
  }

  #restoreAfterFailedSubscribe(subscription: Subscription): void {
    subscription.toAdd.clear();
    subscription.toRemove.clear();
    subscription.toSnapshot.clear();
  }

  #scheduleRetry(subscription: Subscription): void {
    subscription.retryDelayMs = subscription.retryDelayMs === 0 ? this.#retryDelayMs : Math.min(RETRY_DELAY_MAX_MS, subscription.retryDelayMs * 2);
    subscription.retryAtMs = this.#nowMs() + subscription.retryDelayMs;
  }

  #expire(pending: PendingCommand): void {
    const subscription = pending.subscription;
    this.#logger.warn({ id: pending.id, kind: pending.kind, channel: subscription?.channel }, 'feed: command timed out');
    if (pending.listCallback !== null) {
      pending.listCallback(new SubscriptionCommandError('FEED_COMMAND_TIMEOUT', 'list_subscriptions: no reply'), []);
      return;
    }
    if (subscription === null) return;
    switch (pending.kind) {
      case CommandKind.SUBSCRIBE:
        if (subscription.state === SubscriptionState.SUBSCRIBING) {
          // A late `subscribed` for this id will be treated as an orphan and unsubscribed.
          subscription.state = SubscriptionState.IDLE;
          this.#scheduleRetry(subscription);
        }
        return;
      case CommandKind.UNSUBSCRIBE:
        if (subscription.state === SubscriptionState.UNSUBSCRIBING) {
          this.#lose(subscription, LostReason.UNSUBSCRIBED);
          this.#prune();
        }
        return;
      case CommandKind.ADD_MARKETS:
      case CommandKind.DELETE_MARKETS:
        // Both are idempotent on the server: send again what is still wanted (or still unwanted).
        if (subscription.state === SubscriptionState.ACTIVE && pending.markets !== null) {
          for (const market of pending.markets) {
            if (pending.kind === CommandKind.ADD_MARKETS ? subscription.markets.has(market) : !subscription.markets.has(market)) {
              (pending.kind === CommandKind.ADD_MARKETS ? subscription.toAdd : subscription.toRemove).add(market);
            }
          }
          this.#enqueue(subscription);
        }
        return;
      default:
        // get_snapshot may legitimately get no reply (spec/websocket.md §3.4): the resync layer
        // re-requests books that are still out of sync.
        return;
    }
  }

  /** Drops closed subscriptions that are no longer on the server. */
  #prune(): void {
    for (const [channel, state] of this.#channels) {
      const list = state.subscriptions;
      for (let i = list.length - 1; i >= 0; i--) {
        const subscription = list[i];
        if (subscription.closing && (subscription.state === SubscriptionState.IDLE || subscription.state === SubscriptionState.FAILED)) {
          list.splice(i, 1);
          for (const market of subscription.markets) if (state.byMarket.get(market) === subscription) state.byMarket.delete(market);
        }
      }
      if (list.length === 0) this.#channels.delete(channel);
    }
  }
}

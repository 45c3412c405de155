/**
 * Client commands on the WebSocket (websocket.md §3): subscribe, unsubscribe, update_subscription
 * (add_markets, delete_markets, get_snapshot) and list_subscriptions, with the error codes of §4.
 * Replies echo the command `id` (0 or absent: no id). Choices where the docs are silent (README):
 *   - a subscribe naming any unknown channel fails whole with code 8 (nothing subscribed);
 *   - subscribing to the same channel twice makes a second subscription (code 6 is retired);
 *   - unknown market tickers are accepted (code 16 is retired); their snapshot has no levels;
 *   - a channel named twice in one subscribe is subscribed once;
 *   - update_subscription replies `ok` (with seq) before any snapshot it sends;
 *   - add_markets on orderbook_delta sends a snapshot for each added market.
 * Bounds (protocol.ts says why each value): markets per command and per subscription, market
 * subscriptions per session (order book, and the other channels), subscriptions per session, more
 * than 4 subscriptions of a channel covering the same market: error 26; a ticker longer than 200
 * characters or more sids than a session can hold: error 11.
 * Commands are admitted by the per-session rate on arrival, then run through the work queue
 * (work-queue.ts), which runs them at once unless the session already used its time slice; what a
 * command sends after a possibly long snapshot batch goes through queue steps (steps.ts) so the
 * order of replies and snapshots never changes. This file never formats engine data (hub.ts does).
 */

import type { Logger } from 'pino';
import { scopesAllow } from '../../auth/index.ts';
import {
  COMMAND_MARKET_LIMIT,
  isChannel,
  MARGIN_CHANNELS,
  MARGIN_ID_ACTIONS,
  MARKET_FILTERED_CHANNELS,
  PRIVATE_CHANNELS,
  SESSION_COMMANDS_PER_SECOND,
  SESSION_MARKET_LIMIT,
  SESSION_OTHER_MARKET_LIMIT,
  SESSION_SUBSCRIPTION_LIMIT,
  SUBSCRIPTION_MARKET_LIMIT,
  TICKER_CHARS_MAX,
  WS_ERROR_TEXT,
  WsError,
  type Channel,
} from './protocol.ts';
import type { WsHub } from './hub.ts';
import type { WsSession } from './session.ts';
import { BookSnapshotStep, RegisterStep, TickerSnapshotStep } from './steps.ts';
import { Subscription } from './subscription.ts';
import { WORK_SLICE_MS, WorkQueue } from './work-queue.ts';

const REMOVED_CHANNELS: ReadonlySet<string> = new Set(['multivariate', 'ticker_v2']);

type Params = Record<string, unknown>;

/** Thrown inside command handling to answer with an error code; caught in `handleCommand`. */
class CommandError extends Error {
  readonly wsCode: WsError;
  constructor(wsCode: WsError) {
    super(WS_ERROR_TEXT[wsCode]);
    this.wsCode = wsCode;
  }
}

function idPart(id: number): string {
  return id > 0 ? `"id":${id},` : '';
}

export function errorText(id: number, code: WsError): string {
  return `{${idPart(id)}"type":"error","msg":{"code":${code},"msg":"${WS_ERROR_TEXT[code]}"}}`;
}

export class CommandHandler {
  readonly #hub: WsHub;
  readonly #now: () => number;
  readonly #logger: Logger;
  /** Runs commands in time slices; its steps carry the output that must follow a snapshot batch. */
  readonly work: WorkQueue;

  constructor(hub: WsHub, now: () => number, logger: Logger) {
    this.#hub = hub;
    this.#now = now;
    this.#logger = logger;
    this.work = new WorkQueue({
      runCommand: (session, text) => this.#run(session, text),
      refuse: (session) => hub.reply(session, errorText(0, WsError.TOO_MANY_REQUESTS)),
      sliceMs: WORK_SLICE_MS,
    });
    hub.attachWorkQueue(this.work);
  }

  /** One text frame from the client: admitted by the session's command rate, then run or queued. */
  receive(session: WsSession, text: string): void {
    if (!this.#admitCommand(session)) {
      this.#hub.reply(session, errorText(0, WsError.TOO_MANY_REQUESTS));
      return;
    }
    this.work.receive(session, text);
  }

  /** Runs one command (called by the work queue); never throws. */
  #run(session: WsSession, text: string): void {
    try {
      this.#handle(session, text);
    } catch (error) {
      this.#logger.error({ err: error, session: session.id }, 'websocket command failed');
      this.#hub.reply(session, errorText(0, WsError.UNABLE_TO_PROCESS));
    }
  }

  #handle(session: WsSession, text: string): void {
    let id = 0;
    try {
      let command: unknown;
      try {
        command = JSON.parse(text);
      } catch {
        throw new CommandError(WsError.UNABLE_TO_PROCESS);
      }
      if (typeof command !== 'object' || command === null || Array.isArray(command)) throw new CommandError(WsError.UNABLE_TO_PROCESS);
      const body = command as Record<string, unknown>;
      if (body.id !== undefined && body.id !== null) {
        if (typeof body.id !== 'number' || !Number.isSafeInteger(body.id) || body.id < 0) throw new CommandError(WsError.UNABLE_TO_PROCESS);
        id = body.id;
      }
      const params = body.params;
      if (params !== undefined && params !== null && (typeof params !== 'object' || Array.isArray(params))) throw new CommandError(WsError.UNABLE_TO_PROCESS);
      switch (body.cmd) {
        case 'subscribe':
          this.#subscribe(session, id, requireParams(params));
          return;
        case 'unsubscribe':
          this.#unsubscribe(session, id, requireParams(params));
          return;
        case 'update_subscription':
          this.#update(session, id, requireParams(params));
          return;
        case 'list_subscriptions':
          this.#list(session, id);
          return;
        default:
          throw new CommandError(WsError.UNKNOWN_COMMAND);
      }
    } catch (error) {
      if (!(error instanceof CommandError)) throw error;
      this.#hub.reply(session, errorText(id, error.wsCode));
    }
  }

  /** 10,000 commands per second per session (fixed one-second windows of the injected clock). */
  #admitCommand(session: WsSession): boolean {
    const second = Math.floor(this.#now() / 1000);
    if (second !== session.commandWindowSecond) {
      session.commandWindowSecond = second;
      session.commandsInWindow = 0;
    }
    session.commandsInWindow++;
    return session.commandsInWindow <= SESSION_COMMANDS_PER_SECOND;
  }

  #subscribe(session: WsSession, id: number, params: Params): void {
    const channelsValue = params.channels;
    if (channelsValue === undefined || channelsValue === null) throw new CommandError(WsError.CHANNELS_REQUIRED);
    if (!Array.isArray(channelsValue)) throw new CommandError(WsError.UNABLE_TO_PROCESS);
    if (channelsValue.length === 0) throw new CommandError(WsError.CHANNELS_REQUIRED);
    // A channel named twice is subscribed once (first position kept): no sid per repetition.
    const unique = new Set<Channel>();
    for (const value of channelsValue) {
      if (typeof value !== 'string') throw new CommandError(WsError.UNABLE_TO_PROCESS);
      if (!isChannel(value) || REMOVED_CHANNELS.has(value)) throw new CommandError(WsError.UNKNOWN_CHANNEL);
      if (session.exchange === 'margin' ? !MARGIN_CHANNELS.has(value) : value === 'margin_ticker') throw new CommandError(WsError.UNKNOWN_CHANNEL);
      unique.add(value);
    }
    const channels = [...unique];
    for (const channel of channels) {
      if (PRIVATE_CHANNELS.has(channel) && !scopesAllow(session.key.scopes, 'read')) throw new CommandError(WsError.AUTH_REQUIRED);
    }
    const tickers = marketTickers(params);
    const hasIds = params.market_id !== undefined || params.market_ids !== undefined;
    if (hasIds && (tickers !== null || channels.some((c) => c !== 'ticker'))) throw new CommandError(WsError.INVALID_PARAMETER);
    if (channels.includes('orderbook_delta') && (tickers === null || tickers.length === 0)) throw new CommandError(WsError.MARKET_TICKER_REQUIRED);
    const communications = channels.includes('communications') ? communicationsParams(params) : { self: false, shardFactor: 0, shardKey: 0 };
    const useYesPrice = optionalBoolean(params.use_yes_price);
    const skipTickerAck = optionalBoolean(params.skip_ticker_ack);
    const sendInitialSnapshot = optionalBoolean(params.send_initial_snapshot);
    const markets = tickers === null ? null : new Set(tickers);
    let bookMarkets = 0;
    let otherMarkets = 0;
    if (markets !== null) {
      for (const channel of channels) {
        if (channel === 'orderbook_delta') bookMarkets += markets.size;
        else if (MARKET_FILTERED_CHANNELS.has(channel)) otherMarkets += markets.size;
      }
    }
    if (session.subscriptions.size + channels.length > SESSION_SUBSCRIPTION_LIMIT) throw new CommandError(WsError.MARKET_LIMIT);
    if (session.marketCount + bookMarkets > SESSION_MARKET_LIMIT) throw new CommandError(WsError.MARKET_LIMIT);
    if (session.otherMarketCount + otherMarkets > SESSION_OTHER_MARKET_LIMIT) throw new CommandError(WsError.MARKET_LIMIT);
    for (const channel of channels) {
      const coverage = session.coverage(channel);
      const filtered = MARKET_FILTERED_CHANNELS.has(channel) && markets !== null;
      if (!(filtered ? coverage.canAdd(markets) : coverage.canAddAll())) throw new CommandError(WsError.MARKET_LIMIT);
    }

    // Everything is checked: create the subscriptions now (later commands see them), and leave
    // their replies, indexing and snapshots to queue steps, in the order the client will see them.
    const work = this.work;
    let filtersLeft = markets === null ? 0 : channels.filter((channel) => MARKET_FILTERED_CHANNELS.has(channel)).length;
    for (const channel of channels) {
      // Each subscription owns its filter; the last one takes `markets` itself (one copy fewer).
      const filter = MARKET_FILTERED_CHANNELS.has(channel) && markets !== null ? (--filtersLeft === 0 ? markets : new Set(markets)) : null;
      const sub =
        channel === 'communications'
          ? new Subscription(session.nextSid++, channel, session, filter, useYesPrice, skipTickerAck, communications.self, communications.shardFactor, communications.shardKey)
          : new Subscription(session.nextSid++, channel, session, filter, useYesPrice, skipTickerAck);
      session.subscriptions.set(sub.sid, sub);
      if (filter !== null) {
        session.coverage(channel).add(filter);
        if (channel === 'orderbook_delta') session.marketCount += filter.size;
        else session.otherMarketCount += filter.size;
      } else session.coverage(channel).addAll();
      work.addStep(session, new RegisterStep(this.#hub, sub, `{${idPart(id)}"type":"subscribed","msg":{"channel":"${channel}","sid":${sub.sid}}}`));
      if (channel === 'orderbook_delta') work.addStep(session, new BookSnapshotStep(this.#hub, sub, [...filter!], true));
      else if ((channel === 'ticker' || channel === 'margin_ticker') && sendInitialSnapshot && filter !== null) work.addStep(session, new TickerSnapshotStep(this.#hub, sub, [...filter], this.#now()));
    }
  }

  #unsubscribe(session: WsSession, id: number, params: Params): void {
    const sids = params.sids;
    if (sids === undefined || sids === null) throw new CommandError(WsError.SIDS_REQUIRED);
    if (!Array.isArray(sids)) throw new CommandError(WsError.UNABLE_TO_PROCESS);
    if (sids.length === 0) throw new CommandError(WsError.SIDS_REQUIRED);
    // More sids than a session can hold subscriptions cannot all be live (each unknown one answers 7).
    if (sids.length > SESSION_SUBSCRIPTION_LIMIT) throw new CommandError(WsError.INVALID_PARAMETER);
    for (const sid of sids) {
      if (typeof sid !== 'number' || !Number.isSafeInteger(sid)) throw new CommandError(WsError.UNABLE_TO_PROCESS);
    }
    for (const sid of sids as number[]) {
      const sub = session.subscriptions.get(sid);
      if (sub === undefined) {
        this.#hub.reply(session, errorText(id, WsError.UNKNOWN_SID));
        continue;
      }
      this.#hub.unregister(sub);
      session.forget(sub);
      this.#hub.reply(session, `{${idPart(id)}"type":"unsubscribed","sid":${sid},"seq":${sub.nextSeq()}}`);
    }
  }

  #update(session: WsSession, id: number, params: Params): void {
    const action = params.action;
    if (action === undefined || action === null) throw new CommandError(WsError.ACTION_REQUIRED);
    if (typeof action !== 'string') throw new CommandError(WsError.UNABLE_TO_PROCESS);
    const sub = this.#targetOf(session, params);
    const idAction = session.exchange === 'margin' && Object.hasOwn(MARGIN_ID_ACTIONS, action) ? MARGIN_ID_ACTIONS[action] : undefined;
    if (idAction !== undefined) {
      const ids = params[idAction.field];
      if (ids === undefined || ids === null || (Array.isArray(ids) && ids.length === 0)) throw new CommandError(idAction.code);
      throw new CommandError(WsError.UNSUPPORTED_ACTION); // public Margin channels take no such ids
    }
    if (action !== 'add_markets' && action !== 'delete_markets' && action !== 'get_snapshot') throw new CommandError(WsError.UNSUPPORTED_ACTION);
    if (action === 'get_snapshot') {
      if (sub.channel !== 'orderbook_delta') throw new CommandError(WsError.UNSUPPORTED_ACTION);
      if (params.market_ticker !== undefined) throw new CommandError(WsError.INVALID_PARAMETER);
      const tickers = marketTickers(params);
      if (tickers === null || tickers.length === 0) throw new CommandError(WsError.MARKET_TICKER_REQUIRED);
      this.#hub.reply(session, this.#okText(id, sub));
      this.work.addStep(session, new BookSnapshotStep(this.#hub, sub, tickers.filter((ticker) => sub.covers(ticker)), false));
      return;
    }
    if (!MARKET_FILTERED_CHANNELS.has(sub.channel)) throw new CommandError(WsError.UNSUPPORTED_ACTION);
    const tickers = marketTickers(params);
    if (tickers === null || tickers.length === 0) throw new CommandError(WsError.MARKET_TICKER_REQUIRED);
    if (action === 'add_markets') {
      const sendInitialSnapshot = optionalBoolean(params.send_initial_snapshot);
      if (sub.markets !== null) {
        const fresh = new Set(tickers.filter((ticker) => !sub.markets!.has(ticker)));
        if (sub.markets.size + fresh.size > SUBSCRIPTION_MARKET_LIMIT) throw new CommandError(WsError.MARKET_LIMIT);
        if (sub.channel === 'orderbook_delta' ? session.marketCount + fresh.size > SESSION_MARKET_LIMIT : session.otherMarketCount + fresh.size > SESSION_OTHER_MARKET_LIMIT) {
          throw new CommandError(WsError.MARKET_LIMIT);
        }
        if (!session.coverage(sub.channel).canAdd(fresh)) throw new CommandError(WsError.MARKET_LIMIT);
      }
      const added = this.#hub.addMarkets(sub, tickers);
      session.coverage(sub.channel).add(added);
      if (sub.channel === 'orderbook_delta') session.marketCount += added.length;
      else session.otherMarketCount += added.length;
      this.#hub.reply(session, this.#okText(id, sub));
      if (sub.channel === 'orderbook_delta') this.work.addStep(session, new BookSnapshotStep(this.#hub, sub, added, true));
      else if ((sub.channel === 'ticker' || sub.channel === 'margin_ticker') && sendInitialSnapshot) this.work.addStep(session, new TickerSnapshotStep(this.#hub, sub, added, this.#now()));
      return;
    }
    const removed = this.#hub.deleteMarkets(sub, tickers);
    session.coverage(sub.channel).remove(removed);
    if (sub.channel === 'orderbook_delta') session.marketCount -= removed.length;
    else session.otherMarketCount -= removed.length;
    this.#hub.reply(session, this.#okText(id, sub));
  }

  #targetOf(session: WsSession, params: Params): Subscription {
    const hasSid = params.sid !== undefined && params.sid !== null;
    const hasSids = params.sids !== undefined && params.sids !== null;
    if (hasSid === hasSids) throw new CommandError(WsError.EXACTLY_ONE_SID);
    let sid: unknown;
    if (hasSid) sid = params.sid;
    else {
      if (!Array.isArray(params.sids)) throw new CommandError(WsError.UNABLE_TO_PROCESS);
      if (params.sids.length !== 1) throw new CommandError(WsError.EXACTLY_ONE_SID);
      sid = params.sids[0];
    }
    if (typeof sid !== 'number' || !Number.isSafeInteger(sid)) throw new CommandError(WsError.UNABLE_TO_PROCESS);
    const sub = session.subscriptions.get(sid);
    if (sub === undefined) throw new CommandError(WsError.UNKNOWN_SID);
    return sub;
  }

  #okText(id: number, sub: Subscription): string {
    let msg = '{}';
    if (!sub.skipTickerAck && sub.markets !== null) {
      sub.marketsText ??= JSON.stringify([...sub.markets]);
      msg = `{"market_tickers":${sub.marketsText}}`;
    }
    return `{${idPart(id)}"type":"ok","sid":${sub.sid},"seq":${sub.nextSeq()},"msg":${msg}}`;
  }

  #list(session: WsSession, id: number): void {
    const items = [...session.subscriptions.values()].map((sub) => `{"channel":"${sub.channel}","sid":${sub.sid}}`);
    this.#hub.reply(session, `{${idPart(id)}"type":"ok","msg":[${items.join(',')}]}`);
  }
}

function requireParams(params: unknown): Params {
  if (params === undefined || params === null) throw new CommandError(WsError.PARAMS_REQUIRED);
  return params as Params;
}

/**
 * communications parameters (websocket.md §3.2, §4): user_filter "self" (empty or absent: all
 * RFQs; anything else 11); shard_factor 1..100 (<= 0: 19, > 100: 22), shard_key with it only (20),
 * 0 <= key < factor (21). Non-integers are 11.
 */
function communicationsParams(params: Params): { self: boolean; shardFactor: number; shardKey: number } {
  const filter = params.user_filter;
  if (filter !== undefined && filter !== null && filter !== '' && filter !== 'self') throw new CommandError(WsError.INVALID_PARAMETER);
  const factor = params.shard_factor;
  const key = params.shard_key;
  const hasFactor = factor !== undefined && factor !== null;
  const hasKey = key !== undefined && key !== null;
  if (hasFactor && (typeof factor !== 'number' || !Number.isSafeInteger(factor))) throw new CommandError(WsError.INVALID_PARAMETER);
  if (hasKey && (typeof key !== 'number' || !Number.isSafeInteger(key))) throw new CommandError(WsError.INVALID_PARAMETER);
  if (hasKey && !hasFactor) throw new CommandError(WsError.SHARD_FACTOR_REQUIRED);
  if (hasFactor && (factor as number) <= 0) throw new CommandError(WsError.SHARD_FACTOR_POSITIVE);
  if (hasFactor && (factor as number) > 100) throw new CommandError(WsError.SHARD_FACTOR_MAX);
  const shardKey = hasKey ? (key as number) : 0;
  if (hasFactor && (shardKey < 0 || shardKey >= (factor as number))) throw new CommandError(WsError.SHARD_KEY_RANGE);
  return { self: filter === 'self', shardFactor: hasFactor ? (factor as number) : 0, shardKey };
}

function optionalBoolean(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new CommandError(WsError.INVALID_PARAMETER);
  return value;
}

/**
 * market_ticker / market_tickers (mutually exclusive); null when neither is given. More than
 * COMMAND_MARKET_LIMIT entries: 26; an empty or over-long ticker: 11.
 */
function marketTickers(params: Params): string[] | null {
  const one = params.market_ticker;
  const many = params.market_tickers;
  const hasOne = one !== undefined && one !== null;
  const hasMany = many !== undefined && many !== null;
  if (hasOne && hasMany) throw new CommandError(WsError.INVALID_PARAMETER);
  if (hasOne) {
    if (!isTicker(one)) throw new CommandError(WsError.INVALID_PARAMETER);
    return [one];
  }
  if (!hasMany) return null;
  if (!Array.isArray(many)) throw new CommandError(WsError.INVALID_PARAMETER);
  if (many.length > COMMAND_MARKET_LIMIT) throw new CommandError(WsError.MARKET_LIMIT);
  for (const ticker of many) if (!isTicker(ticker)) throw new CommandError(WsError.INVALID_PARAMETER);
  return many as string[];
}

function isTicker(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= TICKER_CHARS_MAX;
}

/**
 * Client commands on the WebSocket (websocket.md §3): subscribe, unsubscribe, update_subscription
 * (add_markets, delete_markets, get_snapshot) and list_subscriptions, with the error codes of §4.
 * Replies echo the command `id` (0 or absent: no id). Choices where the docs are silent (README):
 *   - a subscribe naming any unknown channel fails whole with code 8 (nothing subscribed);
 *   - subscribing to the same channel twice makes a second subscription (code 6 is retired);
 *   - unknown market tickers are accepted (code 16 is retired); their snapshot has no levels;
 *   - update_subscription replies `ok` (with seq) before any snapshot it sends;
 *   - add_markets on orderbook_delta sends a snapshot for each added market.
 * This file never formats engine data (hub.ts does).
 */

import { scopesAllow } from '../../auth/index.ts';
import { isChannel, MARKET_FILTERED_CHANNELS, PRIVATE_CHANNELS, SESSION_COMMANDS_PER_SECOND, SESSION_MARKET_LIMIT, WS_ERROR_TEXT, WsError, type Channel } from './protocol.ts';
import type { WsHub } from './hub.ts';
import type { WsSession } from './session.ts';
import { Subscription } from './subscription.ts';

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

  constructor(hub: WsHub, now: () => number) {
    this.#hub = hub;
    this.#now = now;
  }

  /** Handles one text frame from the client. */
  handle(session: WsSession, text: string): void {
    let id = 0;
    try {
      if (!this.#admitCommand(session)) {
        this.#hub.reply(session, errorText(0, WsError.TOO_MANY_REQUESTS));
        return;
      }
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
    const channels: Channel[] = [];
    for (const value of channelsValue) {
      if (typeof value !== 'string') throw new CommandError(WsError.UNABLE_TO_PROCESS);
      if (!isChannel(value) || REMOVED_CHANNELS.has(value)) throw new CommandError(WsError.UNKNOWN_CHANNEL);
      channels.push(value);
    }
    for (const channel of channels) {
      if (PRIVATE_CHANNELS.has(channel) && !scopesAllow(session.key.scopes, 'read')) throw new CommandError(WsError.AUTH_REQUIRED);
    }
    const tickers = marketTickers(params);
    const hasIds = params.market_id !== undefined || params.market_ids !== undefined;
    if (hasIds && (tickers !== null || channels.some((c) => c !== 'ticker'))) throw new CommandError(WsError.INVALID_PARAMETER);
    if (channels.includes('orderbook_delta') && (tickers === null || tickers.length === 0)) throw new CommandError(WsError.MARKET_TICKER_REQUIRED);
    const useYesPrice = optionalBoolean(params.use_yes_price);
    const skipTickerAck = optionalBoolean(params.skip_ticker_ack);
    const sendInitialSnapshot = optionalBoolean(params.send_initial_snapshot);
    const bookMarkets = channels.filter((c) => c === 'orderbook_delta').length * (tickers === null ? 0 : new Set(tickers).size);
    if (session.marketCount + bookMarkets > SESSION_MARKET_LIMIT) throw new CommandError(WsError.MARKET_LIMIT);

    for (const channel of channels) {
      const markets = MARKET_FILTERED_CHANNELS.has(channel) && tickers !== null ? new Set(tickers) : null;
      const sub = new Subscription(session.nextSid++, channel, session, markets, useYesPrice, skipTickerAck);
      session.subscriptions.set(sub.sid, sub);
      if (channel === 'orderbook_delta') session.marketCount += markets!.size;
      this.#hub.register(sub);
      this.#hub.reply(session, `{${idPart(id)}"type":"subscribed","msg":{"channel":"${channel}","sid":${sub.sid}}}`);
      if (channel === 'orderbook_delta') this.#hub.sendSnapshots(sub, markets!);
      else if (channel === 'ticker' && sendInitialSnapshot && markets !== null) this.#hub.sendTickerSnapshots(sub, markets, this.#now());
    }
  }

  #unsubscribe(session: WsSession, id: number, params: Params): void {
    const sids = params.sids;
    if (sids === undefined || sids === null) throw new CommandError(WsError.SIDS_REQUIRED);
    if (!Array.isArray(sids)) throw new CommandError(WsError.UNABLE_TO_PROCESS);
    if (sids.length === 0) throw new CommandError(WsError.SIDS_REQUIRED);
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
      session.subscriptions.delete(sid);
      if (sub.channel === 'orderbook_delta' && sub.markets !== null) session.marketCount -= sub.markets.size;
      this.#hub.reply(session, `{${idPart(id)}"type":"unsubscribed","sid":${sid},"seq":${sub.nextSeq()}}`);
    }
  }

  #update(session: WsSession, id: number, params: Params): void {
    const action = params.action;
    if (action === undefined || action === null) throw new CommandError(WsError.ACTION_REQUIRED);
    if (typeof action !== 'string') throw new CommandError(WsError.UNABLE_TO_PROCESS);
    const sub = this.#targetOf(session, params);
    if (action !== 'add_markets' && action !== 'delete_markets' && action !== 'get_snapshot') throw new CommandError(WsError.UNSUPPORTED_ACTION);
    if (action === 'get_snapshot') {
      if (sub.channel !== 'orderbook_delta') throw new CommandError(WsError.UNSUPPORTED_ACTION);
      if (params.market_ticker !== undefined) throw new CommandError(WsError.INVALID_PARAMETER);
      const tickers = marketTickers(params);
      if (tickers === null || tickers.length === 0) throw new CommandError(WsError.MARKET_TICKER_REQUIRED);
      this.#hub.reply(session, this.#okText(id, sub));
      this.#hub.sendSnapshots(sub, tickers.filter((ticker) => sub.covers(ticker)));
      return;
    }
    if (!MARKET_FILTERED_CHANNELS.has(sub.channel)) throw new CommandError(WsError.UNSUPPORTED_ACTION);
    const tickers = marketTickers(params);
    if (tickers === null || tickers.length === 0) throw new CommandError(WsError.MARKET_TICKER_REQUIRED);
    if (action === 'add_markets') {
      if (sub.channel === 'orderbook_delta') {
        const fresh = new Set(tickers.filter((ticker) => !sub.markets!.has(ticker))).size;
        if (session.marketCount + fresh > SESSION_MARKET_LIMIT) throw new CommandError(WsError.MARKET_LIMIT);
      }
      const added = this.#hub.addMarkets(sub, tickers);
      if (sub.channel === 'orderbook_delta') session.marketCount += added.length;
      this.#hub.reply(session, this.#okText(id, sub));
      if (sub.channel === 'orderbook_delta') this.#hub.sendSnapshots(sub, added);
      else if (sub.channel === 'ticker' && optionalBoolean(params.send_initial_snapshot)) this.#hub.sendTickerSnapshots(sub, added, this.#now());
      return;
    }
    const removed = this.#hub.deleteMarkets(sub, tickers);
    if (sub.channel === 'orderbook_delta') session.marketCount -= removed;
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
    const msg = sub.skipTickerAck || sub.markets === null ? '{}' : `{"market_tickers":${JSON.stringify([...sub.markets])}}`;
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

function optionalBoolean(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new CommandError(WsError.INVALID_PARAMETER);
  return value;
}

/** market_ticker / market_tickers (mutually exclusive); null when neither is given. */
function marketTickers(params: Params): string[] | null {
  const one = params.market_ticker;
  const many = params.market_tickers;
  const hasOne = one !== undefined && one !== null;
  const hasMany = many !== undefined && many !== null;
  if (hasOne && hasMany) throw new CommandError(WsError.INVALID_PARAMETER);
  if (hasOne) {
    if (typeof one !== 'string' || one === '') throw new CommandError(WsError.INVALID_PARAMETER);
    return [one];
  }
  if (!hasMany) return null;
  if (!Array.isArray(many)) throw new CommandError(WsError.INVALID_PARAMETER);
  for (const ticker of many) if (typeof ticker !== 'string' || ticker === '') throw new CommandError(WsError.INVALID_PARAMETER);
  return many as string[];
}

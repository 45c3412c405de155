/**
 * One subscription of a WebSocket session: its sid, channel, per-sid `seq` counter (starts at 1 on
 * the first sequenced message, websocket.md §5), market filter and options. `heldMessage` is the
 * delta a reorder fault holds back until the next message on the same sid. Plain state: the hub
 * and session decide what goes out. Every field is assigned in the constructor (stable shape).
 */

import type { Channel } from './protocol.ts';
import type { WsSession } from './session.ts';

export class Subscription {
  readonly sid: number;
  readonly channel: Channel;
  readonly session: WsSession;
  /** Last seq used on this sid; the next sequenced message takes seq + 1. */
  seq: number;
  /** Market tickers the subscription covers; null = every market. */
  markets: Set<string> | null;
  /**
   * `markets` as the JSON array the `ok` reply lists, kept until the set changes (null: render on
   * next use), so repeating an update that changes nothing does not re-render 10,000 tickers.
   */
  marketsText: string | null;
  /**
   * Markets of the filter the engine does not know (unknown tickers are accepted, websocket.md §4
   * code 16 retired): kept out of the hub's per-market indexes, so a session naming 500,000 made-up
   * tickers costs the indexes nothing; indexed if the market is created later. Null when none.
   */
  unknownMarkets: Set<string> | null;
  readonly useYesPrice: boolean;
  readonly skipTickerAck: boolean;
  /** False once unsubscribed, overflowed (error 25) or the session closed. */
  alive: boolean;
  /** A fully enveloped message a reorder fault delays past the next one. */
  heldMessage: string | null;
  /** communications: user_filter "self" (only the session user's RFQs). */
  userFilterSelf: boolean;
  /** communications: shard_factor (0 = no sharding) and shard_key; an RFQ's messages go to shard hash(rfq id) % factor. */
  shardFactor: number;
  shardKey: number;

  constructor(sid: number, channel: Channel, session: WsSession, markets: Set<string> | null, useYesPrice: boolean, skipTickerAck: boolean, userFilterSelf = false, shardFactor = 0, shardKey = 0) {
    this.sid = sid;
    this.channel = channel;
    this.session = session;
    this.seq = 0;
    this.markets = markets;
    this.marketsText = null;
    this.unknownMarkets = null;
    this.useYesPrice = useYesPrice;
    this.skipTickerAck = skipTickerAck;
    this.alive = true;
    this.heldMessage = null;
    this.userFilterSelf = userFilterSelf;
    this.shardFactor = shardFactor;
    this.shardKey = shardKey;
  }

  covers(ticker: string): boolean {
    return this.markets === null || this.markets.has(ticker);
  }

  nextSeq(): number {
    return ++this.seq;
  }
}

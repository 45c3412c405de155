/**
 * Replies to our commands (spec/websocket.md §3): `subscribed`, `unsubscribed`, `ok` (update and
 * list replies) and `error`, each in its own reused record. The subscription manager consumes them;
 * `error` is also forwarded to listeners.
 */

import { isIndex, isObject } from './field-reader.ts';

export interface SubscriptionListing {
  channel: string;
  sid: number;
}

export class ControlRecord {
  readonly type: 'subscribed' | 'unsubscribed' | 'ok' | 'error';
  /** Command id echoed; -1 when absent (0 on the wire also means no id). */
  id = -1;
  sid = -1;
  seq = -1;
  /** `subscribed`: the channel. */
  channel = '';
  /** `error`: msg.code; 0 otherwise. */
  code = 0;
  /** `error`: msg.msg. */
  message = '';
  /** `error`: msg.market_ticker when present (older wire); '' otherwise. */
  marketTicker = '';
  /** `ok` to add/delete_markets: the subscription's markets after the update; null when omitted. */
  marketTickers: readonly string[] | null = null;
  /** `ok` to list_subscriptions: msg as sent; null otherwise. */
  subscriptions: readonly SubscriptionListing[] | null = null;

  constructor(type: 'subscribed' | 'unsubscribed' | 'ok' | 'error') {
    this.type = type;
  }
}

export let controlRejectReason = '';

function isStringArray(value: unknown): value is string[] {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (typeof item !== 'string') return false;
  return true;
}

function isListing(value: unknown): value is SubscriptionListing[] {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (!isObject(item) || typeof item.channel !== 'string' || !isIndex(item.sid)) return false;
  return true;
}

/** Fills `out` (of the frame's type) from a parsed frame; false when malformed. */
export function readControl(frame: Record<string, unknown>, out: ControlRecord): boolean {
  const id = frame.id;
  const sid = frame.sid;
  const seq = frame.seq;
  if (id !== undefined && id !== null && !isIndex(id)) return fail('id');
  if (sid !== undefined && sid !== null && !isIndex(sid)) return fail('sid');
  if (seq !== undefined && seq !== null && !isIndex(seq)) return fail('seq');
  out.id = typeof id === 'number' && id !== 0 ? id : -1;
  out.sid = typeof sid === 'number' ? sid : -1;
  out.seq = typeof seq === 'number' ? seq : -1;
  out.channel = '';
  out.code = 0;
  out.message = '';
  out.marketTicker = '';
  out.marketTickers = null;
  out.subscriptions = null;
  const msg = frame.msg;
  switch (out.type) {
    case 'subscribed':
      if (!isObject(msg) || typeof msg.channel !== 'string' || !isIndex(msg.sid)) return fail('msg');
      out.channel = msg.channel;
      out.sid = msg.sid;
      return true;
    case 'unsubscribed':
      if (out.sid === -1) return fail('sid');
      return true;
    case 'ok':
      if (msg === undefined || msg === null) return true;
      if (Array.isArray(msg)) {
        if (!isListing(msg)) return fail('msg');
        out.subscriptions = msg;
        return true;
      }
      if (!isObject(msg)) return fail('msg');
      if (msg.market_tickers !== undefined) {
        if (!isStringArray(msg.market_tickers)) return fail('msg.market_tickers');
        out.marketTickers = msg.market_tickers;
      }
      return true;
    case 'error':
      if (!isObject(msg) || !isIndex(msg.code)) return fail('msg.code');
      out.code = msg.code;
      out.message = typeof msg.msg === 'string' ? msg.msg : '';
      out.marketTicker = typeof msg.market_ticker === 'string' ? msg.market_ticker : '';
      return true;
  }
}

function fail(reason: string): boolean {
  controlRejectReason = reason;
  return false;
}

/**
 * Test helper (not a test): generates user_order and fill frames (spec/websocket.md §6.4, §6.5)
 * and orderbook_delta frames in the exchange's exact layout, for the byte-scanner property tests:
 * keys in the simulator's order or shuffled, optional fields absent / null / present, deprecated
 * fields, extra keys of every JSON type, non-ASCII and escaped strings, random whitespace, and
 * values the reference refuses now and then. Deterministic from a seed; `plain` says whether the
 * frame should take the byte scanners' path (no whitespace, escapes, shuffling or oddities).
 */

import { KNOWN_TICKERS, Raw, pick, quote, type Rng } from './delta-frames.ts';

const UNKNOWN_TICKERS = ['KXUNKNOWN-1', 'OTHER-MARKET-26DEC31'];

function int(rng: Rng, below: number): number {
  return Math.floor(rng() * below);
}

export interface PrivateFrame {
  text: string;
  plain: boolean;
}

interface Style {
  shuffle: boolean;
  spaces: boolean;
  escapeRate: number;
}

/** Serialises like JSON.stringify, with the style's key order, whitespace and escapes. */
function serialize(rng: Rng, value: unknown, style: Style): string {
  const gap = (): string => (style.spaces && rng() < 0.3 ? pick(rng, [' ', '\n', '\t ']) : '');
  if (value instanceof Raw) return value.text;
  if (typeof value === 'string') return style.escapeRate > 0 ? quote(rng, value, style.escapeRate) : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => serialize(rng, item, style)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (style.shuffle) {
      for (let i = entries.length - 1; i > 0; i--) {
        const j = int(rng, i + 1);
        [entries[i], entries[j]] = [entries[j], entries[i]];
      }
    }
    const members = entries.map(([key, item]) => `${gap()}${serialize(rng, key, style)}${gap()}:${gap()}${serialize(rng, item, style)}${gap()}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

function priceText(rng: Rng): string {
  if (rng() < 0.05) return pick(rng, ['0', '1', '0.5', '0.0001', '1.0000', '00.5']);
  const value = 1 + int(rng, 9_999);
  return `0.${String(value).padStart(4, '0')}`;
}

function countText(rng: Rng, signed: boolean): string {
  if (rng() < 0.05) return pick(rng, signed ? ['0', '-0.00', '12', '-1', '99999999.99'] : ['0', '0.00', '12', '1.5', '99999999.99']);
  const value = int(rng, 1_000_000);
  const sign = signed && rng() < 0.5 ? '-' : '';
  return `${sign}${Math.floor(value / 100)}.${String(value % 100).padStart(2, '0')}`;
}

function dollarsText(rng: Rng): string {
  if (rng() < 0.1) return pick(rng, ['0', '0.010000', '-12.5', '0.0175', '1.123400', '-0.000000']);
  const value = int(rng, 10_000_000);
  const text = `${Math.floor(value / 10_000)}.${String(value % 10_000).padStart(4, '0')}`;
  return rng() < 0.3 ? `${text}00` : text;
}

/** A value the reference refuses for a unit field, now and then (the frame must then be MALFORMED either way). */
function sometimesBad(rng: Rng, good: string): unknown {
  if (rng() >= 0.03) return good;
  return pick(rng, [5, '1.00001', 'x', '', '+1', '1e2', null, true]);
}

/** An optional member: absent (undefined), null, or the value. */
function optional(rng: Rng, value: () => unknown, presentRate = 0.7): unknown {
  const roll = rng();
  if (roll < presentRate) return value();
  return roll < presentRate + (1 - presentRate) / 2 ? null : undefined;
}

const STRINGS = ['', 'c-17', 'id"with\\escapes', 'caf\u00e9', 'line\nbreak', 'plain-id-00042'];

function idText(rng: Rng): string {
  return rng() < 0.85 ? `${int(rng, 1e8).toString(16)}-${int(rng, 1e6)}` : pick(rng, STRINGS.filter((s) => s !== ''));
}

function envelope(rng: Rng, type: string, msg: Record<string, unknown>): Record<string, unknown> {
  const frame: Record<string, unknown> = { type, sid: 1 + int(rng, 500) };
  if (rng() < 0.2) frame.seq = rng() < 0.5 ? null : 1 + int(rng, 1e6);
  frame.msg = msg;
  if (rng() < 0.1) frame.sending_ts_ms = 1_800_000_000_000 + int(rng, 1e6);
  return frame;
}

function finish(rng: Rng, frame: Record<string, unknown>, plainSoFar: boolean): PrivateFrame {
  const style: Style = { shuffle: rng() < 0.25, spaces: rng() < 0.15, escapeRate: rng() < 0.1 ? 0.2 : 0 };
  const plain = plainSoFar && !style.shuffle && !style.spaces && style.escapeRate === 0;
  return { text: serialize(rng, dropUndefined(frame), style), plain };
}

function dropUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropUndefined);
  if (value === null || typeof value !== 'object' || value instanceof Raw) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) if (item !== undefined) out[key] = dropUndefined(item);
  return out;
}

/** A user_order frame, keys in the simulator's order unless shuffled. */
export function generateUserOrderFrame(rng: Rng): PrivateFrame {
  const outcome = pick(rng, ['yes', 'no']);
  const outcomeSide = optional(rng, () => outcome, 0.85);
  const side = outcomeSide === null || outcomeSide === undefined ? outcome : optional(rng, () => pick(rng, ['yes', 'no', 7, 'maybe']), 0.8);
  const orderId = idText(rng);
  const ticker = rng() < 0.85 ? pick(rng, KNOWN_TICKERS) : pick(rng, UNKNOWN_TICKERS);
  const msg: Record<string, unknown> = {
    order_id: orderId,
    user_id: optional(rng, () => `user-${int(rng, 100)}`, 0.9),
    ticker,
    status: rng() < 0.02 ? 'pending' : pick(rng, ['resting', 'canceled', 'executed']),
    outcome_side: outcomeSide,
    book_side: optional(rng, () => pick(rng, ['bid', 'ask']), 0.8),
    side,
    is_yes: outcome === 'yes',
    yes_price_dollars: sometimesBad(rng, priceText(rng)),
    fill_count_fp: sometimesBad(rng, countText(rng, false)),
    remaining_count_fp: countText(rng, false),
    initial_count_fp: optional(rng, () => countText(rng, false)),
    taker_fill_cost_dollars: optional(rng, () => sometimesBad(rng, dollarsText(rng))),
    maker_fill_cost_dollars: optional(rng, () => dollarsText(rng)),
    taker_fees_dollars: optional(rng, () => dollarsText(rng)),
    maker_fees_dollars: optional(rng, () => dollarsText(rng)),
    client_order_id: optional(rng, () => pick(rng, STRINGS), 0.8),
    self_trade_prevention_type: optional(rng, () => pick(rng, ['maker', 'taker_at_cross', 'other'])),
    created_ts_ms: optional(rng, () => 1_800_000_000_000 + int(rng, 1e9)),
    created_time: '2027-01-15T08:00:00.000Z',
    last_updated_ts_ms: optional(rng, () => 1_800_000_000_000 + int(rng, 1e9)),
    last_update_time: '2027-01-15T08:00:00.000Z',
    subaccount_number: optional(rng, () => int(rng, 64)),
    exchange_index: optional(rng, () => (rng() < 0.05 ? new Raw('1.0') : int(rng, 4))),
    last_update_reason: optional(rng, () => pick(rng, ['Trade', 'Amend', 'PostOnlyCrossCancel', ''])),
    order_group_id: optional(rng, () => `g-${int(rng, 10)}`, 0.3),
    expiration_ts_ms: optional(rng, () => 1_800_000_000_000 + int(rng, 1e9), 0.3),
  };
  if (rng() < 0.15) msg.extra = pick(rng, [1, 'x', [1, { a: null }], { nested: true }, false]);
  const plain = !String(orderId + (msg.client_order_id ?? '')).match(/[^\x20-\x7e]|["\\]/) && typeof msg.exchange_index !== 'object';
  return finish(rng, envelope(rng, 'user_order', msg), plain);
}

/** A fill frame, keys in the simulator's order unless shuffled. */
export function generateFillFrame(rng: Rng): PrivateFrame {
  const outcome = pick(rng, ['yes', 'no']);
  const outcomeSide = optional(rng, () => outcome, 0.85);
  const side = outcomeSide === null || outcomeSide === undefined ? outcome : optional(rng, () => pick(rng, ['yes', 'no', null]), 0.8);
  const tradeId = idText(rng);
  const msg: Record<string, unknown> = {
    trade_id: tradeId,
    order_id: idText(rng),
    market_ticker: rng() < 0.85 ? pick(rng, KNOWN_TICKERS) : pick(rng, UNKNOWN_TICKERS),
    exchange_index: optional(rng, () => int(rng, 4)),
    is_taker: rng() < 0.02 ? 'yes' : rng() < 0.5,
    outcome_side: outcomeSide,
    book_side: optional(rng, () => (rng() < 0.02 ? 'middle' : pick(rng, ['bid', 'ask'])), 0.8),
    side,
    action: optional(rng, () => pick(rng, ['buy', 'sell', 'sell_to_close', ''])),
    purchased_side: outcome,
    yes_price_dollars: sometimesBad(rng, priceText(rng)),
    count_fp: countText(rng, false),
    fee_cost: optional(rng, () => sometimesBad(rng, dollarsText(rng))),
    post_position_fp: optional(rng, () => countText(rng, true)),
    subaccount: optional(rng, () => int(rng, 64)),
    ts_ms: optional(rng, () => 1_800_000_000_000 + int(rng, 1e9)),
    ts: 1_800_000_000,
    client_order_id: optional(rng, () => pick(rng, STRINGS), 0.6),
  };
  if (rng() < 0.15) msg.extra = pick(rng, [1, 'x', [1, { a: null }], { nested: true }, false]);
  const plain = !String(tradeId + msg.order_id + (msg.client_order_id ?? '')).match(/[^\x20-\x7e]|["\\]/);
  return finish(rng, envelope(rng, 'fill', msg), plain);
}

/**
 * An orderbook_delta frame exactly as the exchange (and the simulator) writes it: fixed key order,
 * no whitespace, optional own-order fields in their place. `plain` is false only when a string
 * needs escapes or holds non-ASCII (the ticker aside).
 */
export function generateExactDeltaFrame(rng: Rng): PrivateFrame {
  const ticker = rng() < 0.9 ? pick(rng, KNOWN_TICKERS) : pick(rng, UNKNOWN_TICKERS);
  let text = `{"type":"orderbook_delta","sid":${1 + int(rng, 99)},"seq":${1 + int(rng, 1e9)},"msg":{"market_ticker":${JSON.stringify(ticker)},"market_id":"3f1c2d4e-0a1b-4c5d-8e9f-102132435465"`;
  text += `,"price_dollars":"${priceText(rng)}","delta_fp":"${countText(rng, true)}","side":"${pick(rng, ['yes', 'no'])}"`;
  let plain = !/["\\]/.test(ticker);
  if (rng() < 0.3) {
    const id = rng() < 0.9 ? `c-${int(rng, 1e6)}` : pick(rng, STRINGS);
    if (/[^\x20-\x7e]|["\\]/.test(id)) plain = false;
    text += `,"client_order_id":${JSON.stringify(id)}`;
    if (rng() < 0.5) text += `,"subaccount":${int(rng, 64)}`;
    if (rng() < 0.5) text += `,"last_update_reason":"${pick(rng, ['Trade', 'PostOnlyCrossCancel', 'Decrease'])}"`;
  }
  if (rng() < 0.5) text += ',"ts":"2027-01-15T08:00:00.123Z"';
  if (rng() < 0.9) text += `,"ts_ms":${1_800_000_000_000 + int(rng, 1e9)}`;
  return { text: `${text}}}`, plain };
}

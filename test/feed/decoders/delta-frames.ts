/**
 * Test helper (not a test): generates orderbook_delta frames for the decoder property tests —
 * shuffled key order, random whitespace, optional fields absent / null / present, extra keys of
 * every JSON type, tickers needing escapes, and strings randomly written with \u escapes — plus
 * byte-level mutations of them. Deterministic from a seed.
 */

export type Rng = () => number;

export function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)];
}

function int(rng: Rng, below: number): number {
  return Math.floor(rng() * below);
}

const WHITESPACE = ['', '', '', ' ', '\n', '\t', '\r\n  '];

function ws(rng: Rng): string {
  return rng() < 0.7 ? '' : pick(rng, WHITESPACE);
}

/** A JSON string literal; with `escapeRate` > 0 some characters are written as \uXXXX. */
export function quote(rng: Rng, text: string, escapeRate: number): string {
  if (escapeRate === 0) return JSON.stringify(text);
  let out = '"';
  for (const char of text) {
    const code = char.charCodeAt(0);
    if (char === '"' || char === '\\' || code < 0x20 || rng() < escapeRate) {
      if (rng() < 0.5 && char === '"') out += '\\"';
      else if (rng() < 0.5 && char === '\\') out += '\\\\';
      else if (char.length === 1) out += '\\u' + code.toString(16).padStart(4, '0');
      else out += JSON.stringify(char).slice(1, -1);
    } else out += char;
  }
  return out + '"';
}

/** A value as raw JSON text with random whitespace (keys and strings escaped at `escapeRate`). */
export function write(rng: Rng, value: unknown, escapeRate: number): string {
  if (value instanceof Raw) return value.text;
  if (typeof value === 'string') return quote(rng, value, escapeRate);
  if (Array.isArray(value)) return '[' + ws(rng) + value.map((v) => write(rng, v, escapeRate)).join(ws(rng) + ',' + ws(rng)) + ws(rng) + ']';
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    for (let i = entries.length - 1; i > 0; i--) {
      const j = int(rng, i + 1);
      [entries[i], entries[j]] = [entries[j], entries[i]];
    }
    return (
      '{' + ws(rng) +
      entries.map(([k, v]) => quote(rng, k, escapeRate) + ws(rng) + ':' + ws(rng) + write(rng, v, escapeRate)).join(ws(rng) + ',' + ws(rng)) +
      ws(rng) + '}'
    );
  }
  return JSON.stringify(value);
}

/** Raw JSON text inserted as is (numbers like 4.0 or 1e3 that JSON.stringify would normalise). */
export class Raw {
  constructor(readonly text: string) {}
}

export const KNOWN_TICKERS = ['KXEXAMPLE-26DEC31-T100', 'KXBTC-26JAN01-B95000', 'INXD-26MAR14-T5000', 'A', 'QUOTE"AND\\SLASH', 'UNI-\u00e9\u4e2d-\ud83d\ude00'];
const UNKNOWN_TICKERS = ['KXUNKNOWN-1', 'OTHER"Q', 'z'];

function priceText(rng: Rng): string {
  const roll = rng();
  if (roll < 0.05) return pick(rng, ['0', '1', '00.5', '0.0001', '0.9999', '000000000000000000000000000000000000001', '0000000000000000000000000000000000000000.1']);
  const value = 1 + int(rng, 9_999);
  const decimals = 1 + int(rng, 4);
  const whole = Math.floor(value / 10_000);
  const fraction = String(value % 10_000).padStart(4, '0').slice(0, decimals);
  return `${whole}.${fraction}`;
}

function countText(rng: Rng): string {
  const roll = rng();
  if (roll < 0.05) return pick(rng, ['0', '-0', '-0.00', '123456789', '-1', '0.5', '99999999999999.99']);
  const value = int(rng, 5_000_000);
  const sign = rng() < 0.5 ? '-' : '';
  const decimals = int(rng, 3);
  if (decimals === 0) return sign + String(Math.floor(value / 100));
  const fraction = String(value % 100).padStart(2, '0').slice(0, decimals);
  return `${sign}${Math.floor(value / 100)}.${fraction}`;
}

const EXTRA_VALUES: readonly unknown[] = [
  'x', '', 'a\\b"c', 0, -1, 3.25, new Raw('1e-7'), new Raw('-0.0E+2'), true, false, null, [], {}, [1, 'two', [null, {}]],
  { nested: { deeper: [1, 2, { x: 'y' }] } },
];

export interface GeneratedFrame {
  text: string;
  /** True when the frame should take the scanner's fast path (no escapes in scanned keys/values, plain numbers). */
  plain: boolean;
}

/** A valid orderbook_delta frame (or, with `otherType`, a frame of another type). */
export function generateDeltaFrame(rng: Rng, otherType = false): GeneratedFrame {
  const tickerPool = rng() < 0.85 ? KNOWN_TICKERS : UNKNOWN_TICKERS;
  const msg: Record<string, unknown> = {
    market_ticker: pick(rng, tickerPool),
    market_id: '3f1c2d4e-0a1b-4c5d-8e9f-102132435465',
    price_dollars: priceText(rng),
    delta_fp: countText(rng),
    side: pick(rng, ['yes', 'no']),
  };
  if (rng() < 0.5) msg.client_order_id = rng() < 0.2 ? null : pick(rng, ['my-order-17', '', 'id"with\\escapes', 'c-' + int(rng, 1e6)]);
  if (rng() < 0.4) msg.subaccount = rng() < 0.2 ? null : int(rng, 64);
  if (rng() < 0.6) msg.ts_ms = rng() < 0.1 ? null : 1_798_761_600_000 + int(rng, 1e9);
  if (rng() < 0.3) msg.ts = '2026-12-31T00:00:00.123Z';
  if (rng() < 0.3) msg.last_update_reason = 'Trade';
  if (rng() < 0.3) msg.extra = pick(rng, EXTRA_VALUES);
  const frame: Record<string, unknown> = {
    type: otherType ? pick(rng, ['trade', 'orderbook_snapshot', 'orderbook_deltas', 'Orderbook_delta', 'ok']) : 'orderbook_delta',
    sid: rng() < 0.05 ? 0 : 1 + int(rng, 1000),
    seq: 1 + int(rng, 1e9),
    msg,
  };
  if (rng() < 0.3) frame.sending_ts_ms = 1_798_761_600_000 + int(rng, 1e6);
  if (rng() < 0.2) frame.id = pick(rng, EXTRA_VALUES);
  const escapeRate = rng() < 0.25 ? 0.2 : 0;
  let plain = escapeRate === 0;
  // Escapes inside the ticker or client order id also take the (correct) slow path; count those as plain too.
  let text = write(rng, frame, escapeRate);
  if (rng() < 0.1) {
    // Integers written as 4.0 / 4e0: valid JSON the scanner leaves to JSON.parse.
    text = text.replace(/"seq":(\d+)/, '"seq":$1.0');
    if (text.includes('.0')) plain = false;
  }
  return { text, plain };
}

const MUTATION_CHARS = ['"', '\\', '{', '}', '[', ']', ',', ':', '-', '.', '0', '9', 'e', 'n', ' ', '\u0001', 'x'];

/** A random byte-level mutation of `text`: delete, insert, replace, truncate, duplicate a key. */
export function mutate(rng: Rng, text: string): string {
  const at = int(rng, text.length);
  switch (int(rng, 6)) {
    case 0:
      return text.slice(0, at) + text.slice(at + 1);
    case 1:
      return text.slice(0, at) + pick(rng, MUTATION_CHARS) + text.slice(at);
    case 2:
      return text.slice(0, at) + pick(rng, MUTATION_CHARS) + text.slice(at + 1);
    case 3:
      return text.slice(0, at);
    case 4: {
      // Duplicate a scanned key with another value: JSON.parse keeps the last one.
      const key = pick(rng, ['"sid":', '"seq":', '"side":', '"price_dollars":', '"type":', '"market_ticker":', '"delta_fp":']);
      const value = pick(rng, ['7', '"no"', '"0.5"', '"trade"', '"OTHER"', '"-1.00"', 'null']);
      const brace = text.lastIndexOf('}');
      return brace <= 0 ? text : text.slice(0, brace) + ',' + key + value + text.slice(brace);
    }
    default:
      return text + pick(rng, ['x', ' ', '}', ',', '\n']);
  }
}

/**
 * Goal: decoding a frame from the socket's bytes (FrameDecoder.decode: the byte scanners for
 * orderbook_delta, user_order and fill, the JSON path for the rest and for whatever they defer)
 * gives exactly what the JSON path gives for the same frame as text (FrameDecoder.decodeText, the
 * reference): the same MessageKind and the same record, field by field. Plain frames, as the
 * exchange writes them, take the scanners' path; malformed, truncated and garbage bytes give
 * MALFORMED (or UNKNOWN) and never throw; bytes that are not UTF-8 give INVALID_UTF8 and are never
 * accepted; a frame decodes the same wherever it lies in a buffer.
 * Method: bounded property tests over frames generated from the project's seeded PRNG
 * (delta-frames.ts, private-frames.ts) - shuffled keys, whitespace, escapes, nulls, extra keys,
 * deprecated fields, non-ASCII - plus text- and byte-level mutations of them, random bytes, every
 * truncation of sample frames, invalid UTF-8 sequences spliced in, and hand-written cases.
 */

import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/core/index.ts';
import { MessageKind } from '../../../src/feed/decoders/decode-status.ts';
import { FrameDecoder } from '../../../src/feed/decoders/frame-decoder.ts';
import { OrderbookDeltaRecord } from '../../../src/feed/decoders/orderbook-delta.ts';
import { MarketRegistry } from '../../../src/market/index.ts';
import { KNOWN_TICKERS, generateDeltaFrame, mutate, pick, type Rng } from './delta-frames.ts';
import { generateExactDeltaFrame, generateFillFrame, generateUserOrderFrame, type PrivateFrame } from './private-frames.ts';

function table(): MarketRegistry {
  const tickers = new MarketRegistry();
  for (const ticker of KNOWN_TICKERS) tickers.add(ticker);
  return tickers;
}

/** The record's fields as data (a delta's client order id is a getter). */
function fields(record: object): Record<string, unknown> {
  const out: Record<string, unknown> = { ...record };
  if (record instanceof OrderbookDeltaRecord) out.clientOrderId = record.clientOrderId;
  return out;
}

function recordOf(decoder: FrameDecoder, kind: MessageKind): Record<string, unknown> | null {
  switch (kind) {
    case MessageKind.ORDERBOOK_DELTA:
      return fields(decoder.delta);
    case MessageKind.USER_ORDER:
      return fields(decoder.userOrder);
    case MessageKind.FILL:
      return fields(decoder.fill);
    case MessageKind.ORDERBOOK_SNAPSHOT:
      return { sid: decoder.snapshot.sid, seq: decoder.snapshot.seq, ticker: decoder.snapshot.marketTicker };
    default:
      return null;
  }
}

/** Bytes decoder and text (reference) decoder over one ticker table. */
class Pair {
  readonly tickers = table();
  readonly bytes = new FrameDecoder(this.tickers);
  readonly text = new FrameDecoder(this.tickers);
  #pad = 0;

  /** Decodes `frame` both ways (the bytes at a varying offset inside a larger buffer) and checks they agree. */
  check(frame: Buffer, label: string): { kind: MessageKind; scanned: boolean } {
    const offset = this.#pad++ % 7;
    const buffer = Buffer.alloc(offset + frame.length + 5, 0x7b); // '{' around it: nothing outside [start, end) may be read
    frame.copy(buffer, offset);
    const scannedBefore = this.bytes.framesScanned;
    let kind: MessageKind = MessageKind.MALFORMED;
    expect(() => (kind = this.bytes.decode(buffer, offset, offset + frame.length)), label).not.toThrow();
    const scanned = this.bytes.framesScanned !== scannedBefore;
    if (!isUtf8(frame)) {
      expect(kind, label).toBe(MessageKind.INVALID_UTF8);
      expect(scanned, label).toBe(false);
      return { kind, scanned };
    }
    const reference = this.text.decodeText(frame.toString('utf8'));
    expect(kind, label).toBe(reference);
    if (kind === MessageKind.MALFORMED) expect(this.bytes.rejectReason, label).toBe(this.text.rejectReason);
    const got = recordOf(this.bytes, kind);
    if (got !== null) expect(got, label).toEqual(recordOf(this.text, reference));
    return { kind, scanned };
  }
}

const FRAMES = 3000;
const MUTATIONS = 4000;

function generators(): [string, (rng: Rng) => PrivateFrame, MessageKind][] {
  return [
    ['orderbook_delta (exact layout)', generateExactDeltaFrame, MessageKind.ORDERBOOK_DELTA],
    ['orderbook_delta (any layout)', (rng) => generateDeltaFrame(rng), MessageKind.ORDERBOOK_DELTA],
    ['user_order', generateUserOrderFrame, MessageKind.USER_ORDER],
    ['fill', generateFillFrame, MessageKind.FILL],
  ];
}

describe('byte scanners agree with the JSON path', () => {
  it.each(generators())('on generated valid %s frames, and plain ones are scanned in place', (name, generate, expected) => {
    const pair = new Pair();
    const rng = seededRandom(name.length * 7919);
    let scanned = 0;
    let accepted = 0;
    for (let i = 0; i < FRAMES; i++) {
      const { text, plain } = generate(rng);
      const result = pair.check(Buffer.from(text, 'utf8'), text);
      if (result.kind === expected) accepted++;
      if (result.scanned) scanned++;
      if (plain && result.kind === expected) expect(result.scanned, `plain frame not scanned: ${text}`).toBe(true);
    }
    expect(accepted).toBeGreaterThan(FRAMES * 0.7);
    expect(scanned).toBeGreaterThan(FRAMES / 2);
  });

  it.each(generators())('on mutated %s frames (text and byte mutations)', (name, generate) => {
    const pair = new Pair();
    const rng = seededRandom(name.length * 104729);
    let malformed = 0;
    for (let i = 0; i < MUTATIONS; i++) {
      let text = generate(rng).text;
      const rounds = 1 + Math.floor(rng() * 3);
      for (let r = 0; r < rounds; r++) text = mutate(rng, text);
      let bytes: Buffer = Buffer.from(text, 'utf8');
      if (rng() < 0.3) bytes = mutateBytes(rng, bytes);
      const { kind } = pair.check(bytes, bytes.toString('latin1'));
      if (kind === MessageKind.MALFORMED || kind === MessageKind.INVALID_UTF8) malformed++;
    }
    expect(malformed).toBeGreaterThan(MUTATIONS / 5);
  });

  it('gives MALFORMED, never an exception, for every truncation and random garbage', () => {
    const pair = new Pair();
    const rng = seededRandom(11);
    const samples = [generateExactDeltaFrame(rng).text, generateUserOrderFrame(rng).text, generateFillFrame(rng).text, generateDeltaFrame(rng).text];
    for (const text of samples) {
      const bytes = Buffer.from(text, 'utf8');
      for (let length = 0; length < bytes.length; length++) {
        const { kind } = pair.check(bytes.subarray(0, length), `${length}: ${text.slice(0, length)}`);
        expect([MessageKind.MALFORMED, MessageKind.INVALID_UTF8]).toContain(kind);
      }
    }
    for (let i = 0; i < 3000; i++) {
      const garbage = Buffer.alloc(Math.floor(rng() * 80));
      for (let k = 0; k < garbage.length; k++) garbage[k] = rng() < 0.5 ? Math.floor(rng() * 256) : pick(rng, [0x7b, 0x7d, 0x22, 0x3a, 0x2c, 0x5b, 0x5d, 0x5c, 0x30]);
      pair.check(garbage, garbage.toString('hex'));
    }
  });

  it('never accepts bytes that are not UTF-8: INVALID_UTF8 wherever the bad sequence lies', () => {
    const pair = new Pair();
    const rng = seededRandom(12);
    const bad = [[0xff], [0xc3, 0x28], [0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98], [0xe2, 0x82], [0xf5, 0x80, 0x80, 0x80]];
    const generate = [generateExactDeltaFrame, generateUserOrderFrame, generateFillFrame];
    for (let i = 0; i < 2000; i++) {
      const frame = Buffer.from(pick(rng, generate)(rng).text, 'utf8');
      const at = Math.floor(rng() * (frame.length + 1));
      const spliced = Buffer.concat([frame.subarray(0, at), Buffer.from(pick(rng, bad)), frame.subarray(at)]);
      if (isUtf8(spliced)) continue; // a sequence completed by what follows it
      const { kind } = pair.check(spliced, `${at}`);
      expect(kind).toBe(MessageKind.INVALID_UTF8);
    }
    // A known non-ASCII ticker's bytes are accepted in place; the same bytes broken are not.
    const ticker = KNOWN_TICKERS.find((t) => /[^\x00-\x7f]/.test(t))!;
    const good = Buffer.from(`{"type":"orderbook_delta","sid":1,"seq":2,"msg":{"market_ticker":${JSON.stringify(ticker)},"price_dollars":"0.5","delta_fp":"1","side":"no"}}`, 'utf8');
    expect(pair.check(good, 'non-ASCII ticker')).toEqual({ kind: MessageKind.ORDERBOOK_DELTA, scanned: true });
    expect(pair.bytes.delta.marketTicker).toBe(ticker);
    const broken = Buffer.from(good);
    broken[good.indexOf(0xc3)] = 0xff;
    expect(pair.check(broken, 'broken ticker').kind).toBe(MessageKind.INVALID_UTF8);
  });

  it('hands a known market back as the table\'s interned ticker, and a delta\'s client order id on demand', () => {
    const pair = new Pair();
    const text = '{"type":"orderbook_delta","sid":4,"seq":2,"msg":{"market_ticker":"KXEXAMPLE-26DEC31-T100","market_id":"3f1c2d4e-0a1b-4c5d-8e9f-102132435465","price_dollars":"0.4200","delta_fp":"-40.00","side":"yes","client_order_id":"my-order-17","subaccount":3,"ts_ms":1798761600123}}';
    expect(pair.check(Buffer.from(text), text)).toEqual({ kind: MessageKind.ORDERBOOK_DELTA, scanned: true });
    const delta = pair.bytes.delta;
    expect(delta.marketTicker).toBe(pair.tickers.tickerAt(0));
    expect(fields(delta)).toEqual({
      sid: 4, seq: 2, marketTicker: 'KXEXAMPLE-26DEC31-T100', marketIndex: 0, price: 4200, delta: -4000, side: 0,
      subaccount: 3, tsMs: 1798761600123, clientOrderId: 'my-order-17',
    });
    // The next frame without one resets it.
    const plain = text.replace(',"client_order_id":"my-order-17","subaccount":3', '');
    expect(pair.check(Buffer.from(plain), plain).scanned).toBe(true);
    expect([delta.clientOrderId, delta.subaccount]).toEqual(['', -1]);
    // A market added after the decoder was made is found by its bytes too.
    const index = pair.tickers.add('KXLATE-27JAN01-T1').index;
    const late = plain.replace('KXEXAMPLE-26DEC31-T100', 'KXLATE-27JAN01-T1');
    expect(pair.check(Buffer.from(late), late).scanned).toBe(true);
    expect([delta.marketIndex, delta.marketTicker]).toEqual([index, 'KXLATE-27JAN01-T1']);
  });

  it('defers frames outside the fast path to the JSON path, which decides', () => {
    const pair = new Pair();
    const body = '"market_ticker":"A","price_dollars":"0.5","delta_fp":"1.00","side":"yes"';
    const deferred = [
      `{"type":"orderbook_delta","sid":1,"seq":4.0,"msg":{${body}}}`, // 4.0 is an integer to JSON.parse
      `{"type":"orderbook_delta","sid":1,"seq":4,"msg":{${body},"side":"no"}}`, // duplicate: the last wins
      `{"\\u0074ype":"orderbook_delta","sid":1,"seq":4,"msg":{${body}}}`, // escaped key
      `{"type":"orderbook_delta","sid":1,"seq":4,"msg":{${body.replace('0.5', '0.5\\u0030')}}}`, // escaped digits
      `{"type":"orderbook_delta","sid":1,"seq":4,"msg":{${body},"x":"caf\u00e9"}}`, // non-ASCII
      `{"type":"fill","sid":1,"msg":{"trade_id":"t","order_id":"o","market_ticker":"A","is_taker":true,"outcome_side":"yes","yes_price_dollars":"0.5","count_fp":"1","exchange_index":2e0}}`,
      `{"type":"user_order","sid":1,"msg":{"order_id":"o","ticker":"A","status":"resting","side":"yes","yes_price_dollars":"0.5","fill_count_fp":"0","remaining_count_fp":"1","client_order_id":"\u00e9"}}`,
    ];
    for (const text of deferred) {
      const result = pair.check(Buffer.from(text, 'utf8'), text);
      expect(result.scanned, text).toBe(false);
      expect([MessageKind.ORDERBOOK_DELTA, MessageKind.FILL, MessageKind.USER_ORDER], text).toContain(result.kind);
    }
    // Other types always take the JSON path.
    expect(pair.check(Buffer.from('{"type":"orderbook_snapshot","sid":1,"seq":1,"msg":{"market_ticker":"A"}}'), 'snapshot')).toEqual({ kind: MessageKind.ORDERBOOK_SNAPSHOT, scanned: false });
    expect(pair.check(Buffer.from('{"type":"ticker","sid":1,"msg":{}}'), 'ticker')).toEqual({ kind: MessageKind.UNKNOWN, scanned: false });
  });

  it('rejects hand-written malformed frames with the JSON path\'s reason', () => {
    const pair = new Pair();
    const body = '"market_ticker":"A","price_dollars":"0.5","delta_fp":"1.00","side":"yes"';
    const fill = '"trade_id":"t","order_id":"o","market_ticker":"A","is_taker":true,"outcome_side":"yes","yes_price_dollars":"0.5","count_fp":"1"';
    const order = '"order_id":"o","ticker":"A","status":"resting","outcome_side":"no","yes_price_dollars":"0.5","fill_count_fp":"0","remaining_count_fp":"1"';
    const malformed = [
      '', ' ', '{', 'null', '[]', '{}', '{"type":"orderbook_delta"}',
      `{"type":"orderbook_delta","sid":1,"msg":{${body}}}`,
      `{"type":"orderbook_delta","sid":-1,"seq":1,"msg":{${body}}}`,
      `{"type":"orderbook_delta","sid":1,"seq":null,"msg":{${body}}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body}}} x`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body.replace('0.5', '0.12345')}}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body.replace('1.00', '1e2')}}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body.replace('"A"', '""')}}}`,
      `{"type":"orderbook_delta","sid":1,"seq":99999999999999999999,"msg":{${body}}}`,
      `{"type":"fill","sid":1,"msg":{${fill.replace('true', '"true"')}}}`,
      `{"type":"fill","sid":1,"msg":{${fill.replace('"outcome_side":"yes"', '"side":null')}}}`,
      `{"type":"fill","sid":1,"msg":{${fill},"fee_cost":"0.0100001"}}`,
      `{"type":"fill","sid":1,"msg":{${fill.replace('"t"', '""')}}}`,
      `{"type":"fill","sid":"1","msg":{${fill}}}`,
      `{"type":"user_order","sid":1,"msg":{${order.replace('resting', 'pending')}}}`,
      `{"type":"user_order","sid":1,"msg":{${order},"book_side":"middle"}}`,
      `{"type":"user_order","sid":1,"msg":{${order},"user_id":5}}`,
      `{"type":"user_order","sid":1,"seq":-2,"msg":{${order}}}`,
      `{"type":"user_order","sid":1,"msg":{${order.replace('"remaining_count_fp":"1"', '"remaining_count_fp":"-1"')}}}`,
    ];
    for (const text of malformed) expect(pair.check(Buffer.from(text), text).kind, text).toBe(MessageKind.MALFORMED);
  });
});

/** Byte-level damage: flip, insert (often >= 0x80), delete, or cut. */
function mutateBytes(rng: Rng, bytes: Buffer): Buffer {
  const at = Math.floor(rng() * bytes.length);
  const value = rng() < 0.5 ? 0x80 + Math.floor(rng() * 0x80) : Math.floor(rng() * 0x80);
  switch (Math.floor(rng() * 4)) {
    case 0: {
      const copy = Buffer.from(bytes);
      if (copy.length > 0) copy[at] = value;
      return copy;
    }
    case 1:
      return Buffer.concat([bytes.subarray(0, at), Buffer.from([value]), bytes.subarray(at)]);
    case 2:
      return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
    default:
      return bytes.subarray(0, at);
  }
}

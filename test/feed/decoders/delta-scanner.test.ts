/**
 * Goal: the hand scanner for orderbook_delta frames (src/feed/decoders/delta-scanner.ts) and the
 * JSON.parse reference decoder (orderbook-delta.ts) agree on every frame: whenever the scanner
 * accepts a frame, the reference accepts it too and fills an identical record; plain frames take
 * the scanner's fast path; malformed frames are rejected by both without throwing.
 * Method: bounded property tests over seeded generated frames (shuffled keys, whitespace, escapes,
 * optional fields absent/null, extra keys), byte-level mutations of them, and a table of
 * hand-written malformed frames; plus the FrameDecoder with and without the scanner.
 */

import { describe, expect, it } from 'vitest';
import { DecodeStatus, MessageKind } from '../../../src/feed/decoders/decode-status.ts';
import { scanDelta } from '../../../src/feed/decoders/delta-scanner.ts';
import { FrameDecoder } from '../../../src/feed/decoders/frame-decoder.ts';
import { OrderbookDeltaRecord, decodeDeltaJson } from '../../../src/feed/decoders/orderbook-delta.ts';
import { seededRandom } from '../../../src/core/index.ts';
import { TickerTable } from '../../../src/feed/ticker-table.ts';
import { KNOWN_TICKERS, generateDeltaFrame, mutate } from './delta-frames.ts';

function table(): TickerTable {
  const tickers = new TickerTable(4);
  for (const ticker of KNOWN_TICKERS) tickers.add(ticker);
  return tickers;
}

function copy(record: OrderbookDeltaRecord): Record<string, unknown> {
  return { ...record };
}

const FRAMES = 4000;
const MUTATIONS = 6000;

describe('orderbook_delta decoders agree', () => {
  const tickers = table();
  const scanned = new OrderbookDeltaRecord();
  const parsed = new OrderbookDeltaRecord();

  it('decodes a documented example identically', () => {
    const text =
      '{"type": "orderbook_delta", "sid": 4, "seq": 2, "msg": {"market_ticker": "KXEXAMPLE-26DEC31-T100", "market_id": "3f1c2d4e-0a1b-4c5d-8e9f-102132435465", "price_dollars": "0.4200", "delta_fp": "-40.00", "side": "yes", "client_order_id": "my-order-17", "ts_ms": 1798761600123}}';
    expect(scanDelta(text, scanned, tickers)).toBe(DecodeStatus.OK);
    expect(decodeDeltaJson(text, parsed, tickers)).toBe(DecodeStatus.OK);
    expect(copy(scanned)).toEqual(copy(parsed));
    expect(copy(scanned)).toEqual({
      sid: 4, seq: 2, marketTicker: 'KXEXAMPLE-26DEC31-T100', marketIndex: 0, price: 4200, delta: -4000, side: 0,
      clientOrderId: 'my-order-17', subaccount: -1, tsMs: 1798761600123,
    });
    // The interned string, not a copy.
    expect(scanned.marketTicker).toBe(tickers.tickerAt(0));
  });

  it('agrees on generated valid frames, and plain ones take the fast path', () => {
    const rng = seededRandom(1);
    let fast = 0;
    for (let i = 0; i < FRAMES; i++) {
      const { text, plain } = generateDeltaFrame(rng);
      const reference = decodeDeltaJson(text, parsed, tickers);
      const status = scanDelta(text, scanned, tickers);
      if (status === DecodeStatus.OK) {
        fast++;
        expect(reference, text).toBe(DecodeStatus.OK);
        expect(copy(scanned), text).toEqual(copy(parsed));
      } else {
        expect(status, text).toBe(DecodeStatus.FALLBACK);
      }
      if (plain && reference === DecodeStatus.OK) expect(status, text).toBe(DecodeStatus.OK);
    }
    expect(fast).toBeGreaterThan(FRAMES / 2);
  });

  it('says NOT_DELTA only for frames of another type', () => {
    const rng = seededRandom(2);
    for (let i = 0; i < 500; i++) {
      const { text } = generateDeltaFrame(rng, true);
      const status = scanDelta(text, scanned, tickers);
      expect(decodeDeltaJson(text, parsed, tickers), text).toBe(DecodeStatus.NOT_DELTA);
      expect([DecodeStatus.NOT_DELTA, DecodeStatus.FALLBACK], text).toContain(status);
    }
  });

  it('never accepts what the reference rejects, on mutated frames', () => {
    const rng = seededRandom(3);
    let rejected = 0;
    for (let i = 0; i < MUTATIONS; i++) {
      let text = generateDeltaFrame(rng).text;
      const rounds = 1 + Math.floor(rng() * 3);
      for (let r = 0; r < rounds; r++) text = mutate(rng, text);
      const reference = decodeDeltaJson(text, parsed, tickers);
      const status = scanDelta(text, scanned, tickers);
      if (reference === DecodeStatus.MALFORMED) rejected++;
      if (status === DecodeStatus.OK) {
        expect(reference, text).toBe(DecodeStatus.OK);
        expect(copy(scanned), text).toEqual(copy(parsed));
      }
    }
    expect(rejected).toBeGreaterThan(MUTATIONS / 4);
  });

  it('rejects hand-written malformed frames cleanly', () => {
    const body = '"market_ticker":"A","price_dollars":"0.5","delta_fp":"1.00","side":"yes"';
    const malformed = [
      '',
      ' ',
      '{',
      'null',
      '[]',
      '"orderbook_delta"',
      '{}',
      '{"type":"orderbook_delta"}',
      `{"type":"orderbook_delta","sid":1,"seq":1}`,
      `{"type":"orderbook_delta","sid":1,"msg":{${body}}}`,
      `{"type":"orderbook_delta","sid":-1,"seq":1,"msg":{${body}}}`,
      `{"type":"orderbook_delta","sid":1.5,"seq":1,"msg":{${body}}}`,
      `{"type":"orderbook_delta","sid":"1","seq":1,"msg":{${body}}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body}}} x`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body}},}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":[${body}]}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body.replace('0.5', '0.12345')}}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body.replace('0.5', '-0.5')}}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body.replace('"0.5"', '0.5')}}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body.replace('0.5', '.5')}}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body.replace('0.5', '1.')}}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body.replace('1.00', '1.001')}}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body.replace('1.00', '+1.00')}}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body.replace('1.00', '1e2')}}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body.replace('yes', 'bid')}}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body.replace('"A"', '""')}}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body.replace('"A"', '7')}}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body},"subaccount":"3"}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body},"subaccount":-3}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body},"ts_ms":1.5}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body},"client_order_id":5}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body},"x":"bad \\q escape"}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body},"x":"raw \u0001 control"}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body},"x":tru}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body},"x":01}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body},"x":[1,]}}`,
      `{"type":"orderbook_delta","sid":1,"seq":99999999999999999999,"msg":{${body}}}`,
      `{"type":"orderbook_delta" "sid":1,"seq":1,"msg":{${body}}}`,
      `{"type":"orderbook_delta","sid":1,"seq":1,"msg":{${body}}`,
      `{"type":orderbook_delta,"sid":1,"seq":1,"msg":{${body}}}`,
    ];
    for (const text of malformed) {
      expect(decodeDeltaJson(text, parsed, tickers), text).toBe(DecodeStatus.MALFORMED);
      expect(scanDelta(text, scanned, tickers), text).toBe(DecodeStatus.FALLBACK);
    }
  });

  it('handles escapes, reordered keys, nulls and duplicates like JSON.parse', () => {
    const cases = [
      '{"msg":{"side":"no","delta_fp":"-0.00","price_dollars":"0.0001","market_ticker":"\\u0041"},"seq":9,"sid":3,"type":"orderbook_delta"}',
      '{"type":"orderbook_delta","sid":3,"seq":9,"msg":{"market_ticker":"QUOTE\\"AND\\\\SLASH","price_dollars":"0.3","delta_fp":"5","side":"yes","client_order_id":null,"subaccount":null,"ts_ms":null}}',
      '{"type":"orderbook_delta","sid":3,"seq":9,"msg":{"market_ticker":"A","price_dollars":"0.3","delta_fp":"5","side":"yes","side":"no"}}',
      '{"\\u0074ype":"orderbook_delta","sid":3,"seq":9,"msg":{"market_ticker":"A","price_dollars":"0.3","delta_fp":"5","side":"yes"}}',
      '{"type":"orderbook_delta","sid":3,"seq":9.0,"msg":{"market_ticker":"A","price_dollars":"0.3","delta_fp":"5","side":"yes"}}',
      '{"type":"orderbook_delta","sid":3,"seq":9,"msg":{"market_ticker":"A","price_dollars":"0.3","delta_fp":"5","side":"\\u0079es"}}',
      '{"type":"orderbook_delta","sid":3,"seq":9,"msg":{"market_ticker":"NEW-MARKET","price_dollars":"0.3","delta_fp":"5","side":"yes","client_order_id":"a\\nb"}}',
    ];
    for (const text of cases) {
      expect(decodeDeltaJson(text, parsed, tickers), text).toBe(DecodeStatus.OK);
      const status = scanDelta(text, scanned, tickers);
      if (status === DecodeStatus.OK) expect(copy(scanned), text).toEqual(copy(parsed));
      else expect(status, text).toBe(DecodeStatus.FALLBACK);
    }
    // The escaped ticker resolves to the interned market; -0.00 is 0, not -0.
    expect(scanDelta(cases[0], scanned, tickers)).toBe(DecodeStatus.OK);
    expect(scanned.marketIndex).toBe(tickers.indexOf('A'));
    expect(Object.is(scanned.delta, 0)).toBe(true);
  });
});

describe('FrameDecoder with and without the scanner', () => {
  it('gives the same kind and delta record for generated and mutated frames', () => {
    const tickers = table();
    const fast = new FrameDecoder(tickers, { useScanner: true });
    const slow = new FrameDecoder(tickers, { useScanner: false });
    const rng = seededRandom(4);
    for (let i = 0; i < 3000; i++) {
      let text = generateDeltaFrame(rng, rng() < 0.1).text;
      if (rng() < 0.5) text = mutate(rng, text);
      const kind = fast.decode(text);
      expect(slow.decode(text), text).toBe(kind);
      if (kind === MessageKind.ORDERBOOK_DELTA) expect(copy(fast.delta), text).toEqual(copy(slow.delta));
    }
  });
});

/**
 * Goal: Margin `orderbook_snapshot` and `orderbook_delta` frames (websocket.md §7.1: `bid`/`ask`
 * level arrays, `price`/`delta`/`side: bid|ask`) decode into the Predictions records with side 0 =
 * bid and side 1 = ask at their own prices, perpetual prices above $1 and $214,748 kept exactly,
 * counts as fixed-point units; every missing or malformed field gives MALFORMED naming it; the
 * Predictions field names are refused on the Margin venue and vice versa.
 * Method: frames built as the simulator sends them (src/sim/server/ws/margin-feed.ts) through a
 * FrameDecoder with venue 'margin', as the socket hands them over (UTF-8 bytes inside a chunk).
 */

import { describe, expect, it } from 'vitest';
import { MessageKind } from '../../../src/feed/decoders/decode-status.ts';
import { FrameDecoder } from '../../../src/feed/decoders/frame-decoder.ts';
import { MarketRegistry } from '../../../src/market/index.ts';

const TICKER = 'KXBTCPERP';

function decoder(venue: 'margin' | 'predictions' = 'margin'): FrameDecoder {
  const tickers = new MarketRegistry();
  tickers.add(TICKER);
  return new FrameDecoder(tickers, venue);
}

function decode(d: FrameDecoder, text: string): MessageKind {
  const bytes = Buffer.concat([Buffer.from([0x81, 0x7e]), Buffer.from(text, 'utf8'), Buffer.from('{"type":"next"}')]);
  return d.decode(bytes, 2, bytes.length - 15);
}

const snapshot = (msg: Record<string, unknown>, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ type: 'orderbook_snapshot', sid: 2, seq: 1, msg, ...extra });
const delta = (msg: Record<string, unknown>, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ type: 'orderbook_delta', sid: 2, seq: 7, msg, ...extra });

const SNAPSHOT = { market_ticker: TICKER, bid: [['99.9900', '3.00'], ['99.9800', '12.00']], ask: [['100.0100', '5.00']] };
const DELTA = { market_ticker: TICKER, price: '100.0100', delta: '-2.00', side: 'ask', ts_ms: 1_700_000_000_123 };

function without(object: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...object };
  delete copy[key];
  return copy;
}

describe('Margin orderbook_snapshot', () => {
  it('decodes bid levels to side 0 and ask levels to side 1 at their own prices', () => {
    const d = decoder();
    expect(decode(d, snapshot(SNAPSHOT))).toBe(MessageKind.ORDERBOOK_SNAPSHOT);
    const s = d.snapshot;
    expect([s.sid, s.seq, s.marketTicker, s.marketIndex, s.yesLevelCount, s.noLevelCount]).toEqual([2, 1, TICKER, 0, 2, 1]);
    expect([s.yesPrice(0), s.yesSize(0), s.yesPrice(1), s.yesSize(1)]).toEqual([999_900, 300, 999_800, 1_200]);
    expect([s.noPrice(0), s.noSize(0)]).toEqual([1_000_100, 500]);
    expect(d.framesScanned).toBe(0); // the byte scanners are bypassed on Margin
  });

  it('keeps prices past $214,748 (2^31 units) exactly, and empty or absent sides as 0 levels', () => {
    const d = decoder();
    expect(decode(d, snapshot({ market_ticker: TICKER, bid: [['250000.0000', '1.00']], ask: [] }))).toBe(MessageKind.ORDERBOOK_SNAPSHOT);
    expect([d.snapshot.yesPrice(0), d.snapshot.yesLevelCount, d.snapshot.noLevelCount]).toEqual([2_500_000_000, 1, 0]);
    expect(decode(d, snapshot({ market_ticker: 'KXOTHERPERP' }))).toBe(MessageKind.ORDERBOOK_SNAPSHOT);
    expect([d.snapshot.marketTicker, d.snapshot.marketIndex, d.snapshot.yesLevelCount, d.snapshot.noLevelCount]).toEqual(['KXOTHERPERP', -1, 0, 0]);
  });

  it.each([
    ['sid', snapshot(SNAPSHOT, { sid: 'x' })],
    ['seq', snapshot(SNAPSHOT, { seq: -1 })],
    ['msg', JSON.stringify({ type: 'orderbook_snapshot', sid: 2, seq: 1, msg: [] })],
    ['market_ticker', snapshot(without(SNAPSHOT, 'market_ticker'))],
    ['market_ticker', snapshot({ ...SNAPSHOT, market_ticker: '' })],
    ['bid', snapshot({ ...SNAPSHOT, bid: 'levels' })],
    ['bid', snapshot({ ...SNAPSHOT, bid: [['99.99', '1.00', 'x']] })],
    ['bid', snapshot({ ...SNAPSHOT, bid: [[99.99, '1.00']] })],
    ['bid', snapshot({ ...SNAPSHOT, bid: [['99.99001', '1.00']] })], // 5 decimals: not a Price
    ['bid', snapshot({ ...SNAPSHOT, bid: [['-1.00', '1.00']] })],
    ['ask', snapshot({ ...SNAPSHOT, ask: [['100.01', '1.001']] })], // 3 decimals: not a Count
    ['ask', snapshot({ ...SNAPSHOT, ask: [['100.01', '-1.00']] })],
    ['ask', snapshot({ ...SNAPSHOT, ask: [['100.01', 1]] })],
  ])('MALFORMED (%s) for a bad field', (reason, text) => {
    const d = decoder();
    expect(decode(d, text)).toBe(MessageKind.MALFORMED);
    expect(d.rejectReason).toBe(reason);
  });

  it('refuses the Predictions field names on Margin, and Margin names on Predictions', () => {
    const margin = decoder();
    expect(decode(margin, delta({ market_ticker: TICKER, price_dollars: '0.5000', delta_fp: '1.00', side: 'yes' }))).toBe(MessageKind.MALFORMED);
    expect(margin.rejectReason).toBe('price');
    const predictions = decoder('predictions');
    expect(decode(predictions, delta(DELTA))).toBe(MessageKind.MALFORMED);
    expect(predictions.rejectReason).toBe('price_dollars');
  });
});

describe('Margin orderbook_delta', () => {
  it('decodes side ask to 1 and bid to 0, signed count delta, optional fields to sentinels', () => {
    const d = decoder();
    expect(decode(d, delta(DELTA))).toBe(MessageKind.ORDERBOOK_DELTA);
    const r = d.delta;
    expect([r.sid, r.seq, r.marketTicker, r.marketIndex, r.price, r.delta, r.side, r.subaccount, r.tsMs, r.clientOrderId]).toEqual([
      2, 7, TICKER, 0, 1_000_100, -200, 1, -1, 1_700_000_000_123, '',
    ]);
    expect(decode(d, delta({ ...DELTA, side: 'bid', price: '100000.01', delta: '4.00', client_order_id: 'c-1', subaccount: 3, last_update_reason: 'Trade' }))).toBe(
      MessageKind.ORDERBOOK_DELTA,
    );
    expect([r.price, r.delta, r.side, r.subaccount, r.clientOrderId]).toEqual([1_000_000_100, 400, 0, 3, 'c-1']);
    expect(decode(d, delta(without(DELTA, 'ts_ms')))).toBe(MessageKind.ORDERBOOK_DELTA);
    expect([r.tsMs, r.clientOrderId, r.subaccount]).toEqual([-1, '', -1]); // nothing leaks from the previous frame
  });

  it.each([
    ['sid', delta(DELTA, { sid: null })],
    ['seq', delta(DELTA, { seq: 1.5 })],
    ['msg', JSON.stringify({ type: 'orderbook_delta', sid: 2, seq: 7 })],
    ['market_ticker', delta(without(DELTA, 'market_ticker'))],
    ['price', delta(without(DELTA, 'price'))],
    ['price', delta({ ...DELTA, price: 100.01 })],
    ['price', delta({ ...DELTA, price: '100.00001' })],
    ['price', delta({ ...DELTA, price: '1e2' })],
    ['delta', delta(without(DELTA, 'delta'))],
    ['delta', delta({ ...DELTA, delta: '-2.001' })],
    ['delta', delta({ ...DELTA, delta: -2 })],
    ['side', delta(without(DELTA, 'side'))],
    ['side', delta({ ...DELTA, side: 'yes' })],
    ['client_order_id', delta({ ...DELTA, client_order_id: 5 })],
    ['subaccount', delta({ ...DELTA, subaccount: -1 })],
    ['ts_ms', delta({ ...DELTA, ts_ms: '123' })],
    ['last_update_reason', delta({ ...DELTA, last_update_reason: 1 })],
  ])('MALFORMED (%s) for a bad field', (reason, text) => {
    const d = decoder();
    expect(decode(d, text)).toBe(MessageKind.MALFORMED);
    expect(d.rejectReason).toBe(reason);
  });
});

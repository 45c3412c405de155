/**
 * Goal: on the Margin endpoint, an orderbook_delta read in place from the socket's bytes (the exact
 * layout, delta-scanner.ts's MARGIN_EXACT) gives exactly the record the JSON path gives for the same
 * frame (the reference, FrameDecoder.decodeText with venue 'margin'); frames outside the layout,
 * mutated, truncated or not UTF-8 defer to the JSON path and decode as it says, never throwing.
 * Method: bounded property tests over seeded frames in the layout the simulator writes (optional
 * fields present or not, in the orders the layout allows, prices beyond 2^31 units), text and byte
 * mutations of them, and every truncation of a sample.
 */

import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/core/index.ts';
import { MessageKind } from '../../../src/feed/decoders/decode-status.ts';
import { FrameDecoder } from '../../../src/feed/decoders/frame-decoder.ts';
import { MarketRegistry } from '../../../src/market/index.ts';
import { mutate, pick, type Rng } from './delta-frames.ts';

const KNOWN = ['KXBTCPERP', 'KXETHPERP', 'KXGOLDPERP'];
const FRAMES = 3_000;
const MUTATIONS = 4_000;

function registry(): MarketRegistry {
  const markets = new MarketRegistry();
  for (const ticker of KNOWN) markets.setMargin(markets.add(ticker).index, 100);
  return markets;
}

function record(decoder: FrameDecoder): Record<string, unknown> {
  const d = decoder.delta;
  return { sid: d.sid, seq: d.seq, ticker: d.marketTicker, index: d.marketIndex, price: d.price, delta: d.delta, side: d.side, coid: d.clientOrderId, sub: d.subaccount, ts: d.tsMs };
}

/** A frame as the simulator writes it (margin-feed.ts), optional fields drawn at random. */
function exactFrame(rng: Rng): string {
  const dollars = pick(rng, ['0', '1', '99', '100', '250000', '1000000']);
  const price = `${dollars}.${String(Math.floor(rng() * 10_000)).padStart(4, '0')}`;
  const delta = `${rng() < 0.5 ? '-' : ''}${Math.floor(rng() * 1000)}.${pick(rng, ['00', '50', '01'])}`;
  const ticker = rng() < 0.9 ? pick(rng, KNOWN) : 'KXNEWPERP';
  let msg = `{"market_ticker":"${ticker}","price":"${price}","delta":"${delta}","side":"${pick(rng, ['bid', 'ask'])}"`;
  const tsFirst = rng() < 0.7;
  if (tsFirst) msg += `,"ts_ms":${1_800_000_000_000 + Math.floor(rng() * 1e6)}`;
  if (rng() < 0.2) msg += `,"last_update_reason":"${pick(rng, ['Trade', 'Decrease', 'MarginCancel'])}"`;
  if (rng() < 0.3) msg += `,"client_order_id":"rt-${Math.floor(rng() * 1e6)}"`;
  if (rng() < 0.3) msg += `,"subaccount":${Math.floor(rng() * 64)}`;
  if (!tsFirst && rng() < 0.5) msg += `,"ts_ms":${1_800_000_000_000 + Math.floor(rng() * 1e6)}`;
  return `{"type":"orderbook_delta","sid":${1 + Math.floor(rng() * 9)},"seq":${Math.floor(rng() * 1e6)},"msg":${msg}}}`;
}

class Pair {
  readonly markets = registry();
  readonly bytes = new FrameDecoder(this.markets, 'margin');
  readonly text = new FrameDecoder(this.markets, 'margin');

  check(frame: Buffer, label: string): { kind: MessageKind; scanned: boolean } {
    const scannedBefore = this.bytes.framesScanned;
    let kind = MessageKind.MALFORMED as MessageKind;
    expect(() => (kind = this.bytes.decode(frame, 0, frame.length)), label).not.toThrow();
    const scanned = this.bytes.framesScanned !== scannedBefore;
    if (!isUtf8(frame)) {
      expect(kind, label).toBe(MessageKind.INVALID_UTF8);
      return { kind, scanned };
    }
    const reference = this.text.decodeText(frame.toString('utf8'));
    expect(kind, label).toBe(reference);
    if (kind === MessageKind.ORDERBOOK_DELTA) expect(record(this.bytes), label).toEqual(record(this.text));
    if (kind === MessageKind.MALFORMED) expect(this.bytes.rejectReason, label).toBe(this.text.rejectReason);
    return { kind, scanned };
  }
}

describe('the Margin delta scanner agrees with the JSON path', () => {
  it('reads every frame in the exact layout in place, as the JSON path would', () => {
    const pair = new Pair();
    const rng = seededRandom(4242);
    for (let i = 0; i < FRAMES; i++) {
      const text = exactFrame(rng);
      const result = pair.check(Buffer.from(text, 'utf8'), text);
      expect(result.kind, text).toBe(MessageKind.ORDERBOOK_DELTA);
      expect(result.scanned, `not scanned: ${text}`).toBe(true);
    }
  });

  it('on mutated frames: the same kind and record (or reject reason) both ways, never an exception', () => {
    const pair = new Pair();
    const rng = seededRandom(777);
    let deferred = 0;
    for (let i = 0; i < MUTATIONS; i++) {
      let text = exactFrame(rng);
      for (let r = 0, rounds = 1 + Math.floor(rng() * 3); r < rounds; r++) text = mutate(rng, text);
      let bytes = Buffer.from(text, 'utf8');
      if (rng() < 0.3) {
        const at = Math.floor(rng() * bytes.length);
        bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from([0x80 + Math.floor(rng() * 0x80)]), bytes.subarray(at + 1)]);
      }
      if (!pair.check(bytes, bytes.toString('latin1')).scanned) deferred++;
    }
    expect(deferred).toBeGreaterThan(MUTATIONS / 5);
  });

  it('every truncation of a frame is decided by the JSON path (MALFORMED), not read in place', () => {
    const pair = new Pair();
    const text = '{"type":"orderbook_delta","sid":3,"seq":17,"msg":{"market_ticker":"KXBTCPERP","price":"100.0100","delta":"-3.00","side":"ask","ts_ms":1800000000000,"client_order_id":"rt-1","subaccount":2}}';
    expect(pair.check(Buffer.from(text), text)).toEqual({ kind: MessageKind.ORDERBOOK_DELTA, scanned: true });
    expect(record(pair.bytes)).toMatchObject({ price: 1_000_100, delta: -300, side: 1, coid: 'rt-1', sub: 2, ts: 1_800_000_000_000 });
    for (let cut = 1; cut < text.length; cut++) {
      const { kind, scanned } = pair.check(Buffer.from(text.slice(0, cut)), text.slice(0, cut));
      expect(kind).toBe(MessageKind.MALFORMED);
      expect(scanned).toBe(false);
    }
  });
});

/**
 * Goal: what a replay reads of the live run's own session (its fills by trade, its fill totals, its
 * resting orders) is read through the feed's decoder, and equals what the frames say read as plain
 * JSON: LiveFills' maker share of each trade, compareLive's live fills and contracts, and the
 * resting size LiveOrders keeps at each level as each user_order frame arrives.
 * Method: the recorded sim market-maker session in test/fixtures; a reference reading of every
 * private frame with JSON.parse, compared trade by trade and frame by frame.
 */

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCount, parsePrice } from '../../src/core/index.ts';
import type { BookSide, Price } from '../../src/core/index.ts';
import { FrameDecoder, MessageKind } from '../../src/feed/index.ts';
import { MarketRegistry } from '../../src/market/index.ts';
import { RecordKind, readRecordingFile, recordText } from '../../src/record/index.ts';
import { liveRun } from '../../src/replay/compare-live.ts';
import { LiveFills } from '../../src/replay/live-fills.ts';
import { LiveOrders } from '../../src/replay/live-orders.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const recording = readRecordingFile(path.join(ROOT, 'test', 'fixtures', 'recordings', 'sim-market-maker.prrc'));

interface Msg {
  type: string;
  msg: Record<string, unknown>;
}

/** Every private frame of the fixture, parsed as JSON, with its record index. */
function privateFrames(): { index: number; frame: Msg }[] {
  const out: { index: number; frame: Msg }[] = [];
  for (let i = 0; i < recording.count; i++) {
    if (recording.kinds[i] !== RecordKind.FRAME) continue;
    const frame = JSON.parse(recordText(recording, i)) as Msg;
    if (frame.type === 'fill' || frame.type === 'user_order') out.push({ index: i, frame });
  }
  return out;
}

describe('the live run\'s own records, read by the feed\'s decoder', () => {
  const frames = privateFrames();
  const fills = frames.filter(({ frame }) => frame.type === 'fill').map(({ frame }) => frame.msg);

  it('the fixture has fills, maker and taker, and resting orders to compare', () => {
    expect(fills.filter((fill) => fill.is_taker === false).length).toBeGreaterThan(2);
    expect(frames.filter(({ frame }) => frame.type === 'user_order' && frame.msg.status === 'resting').length).toBeGreaterThan(2);
  });

  it('LiveFills: the maker share of every trade equals the fill frames\' sum', () => {
    const live = LiveFills.fromRecording(recording, true);
    const reference = new Map<string, number>();
    for (const fill of fills) if (fill.is_taker === false) reference.set(String(fill.trade_id), (reference.get(String(fill.trade_id)) ?? 0) + parseCount(String(fill.count_fp)));
    for (const fill of fills) expect(live.makerCountOf(String(fill.trade_id))).toBe(reference.get(String(fill.trade_id)) ?? 0);
    expect(live.makerCountOf('no-such-trade')).toBe(0);
  });

  it('compareLive: the live fills and contracts equal the fill frames\'', () => {
    const { numbers } = liveRun(recording);
    expect(numbers.fills).toBe(fills.length);
    expect(numbers.filledContracts).toBe(fills.reduce((sum, fill) => sum + parseCount(String(fill.count_fp)), 0));
  });

  it('LiveOrders: the resting size at each level follows the user_order frames', () => {
    const orders = new LiveOrders();
    const decoder = new FrameDecoder(new MarketRegistry());
    const resting = new Map<string, { ticker: string; side: BookSide; price: Price; count: number }>();
    let checked = 0;
    for (const { index, frame } of frames) {
      if (frame.type !== 'user_order') continue;
      const start = recording.bodyStarts[index];
      expect(decoder.decode(recording.bytes, start, start + recording.bodyLengths[index])).toBe(MessageKind.USER_ORDER);
      orders.onUserOrder(decoder.userOrder);
      const msg = frame.msg;
      resting.delete(String(msg.order_id));
      if (msg.status === 'resting') resting.set(String(msg.order_id), { ticker: String(msg.ticker), side: msg.book_side as BookSide, price: parsePrice(String(msg.yes_price_dollars)), count: parseCount(String(msg.remaining_count_fp)) });
      expect(orders.count).toBe(resting.size);
      for (const order of resting.values()) {
        let atLevel = 0;
        for (const other of resting.values()) if (other.ticker === order.ticker && other.side === order.side && other.price === order.price) atLevel += other.count;
        expect(orders.sizeAt(order.ticker, order.side, order.price)).toBe(atLevel);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(2);
  });
});

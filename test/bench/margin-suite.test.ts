// Goal: the margin bench suite (bench/margin) measures what it says: Margin orderbook_delta frames
// driven through the Margin feed of a graph built by the runtime's graph builder come out as Margin
// orders on the Margin route (POST /margin/orders, a CreateMarginOrderRequest body for the
// perpetual), none on the Predictions route, while the Predictions lane in the same run produces
// its orders; the generated Margin stream is the §7.1 shape, on the tick and bounded around the
// mark; the decode comparison reads every frame as a delta.
// Method: the suite's own wiring and driver for a few hundred frames (tiny phase, bounded in frames
// and time); no timing asserted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeMarginStream, MARGIN_MARK, MARGIN_TICK, MARGIN_TICKER } from '../../bench/margin/margin-frames.ts';
import { buildLanes, drive, measureDecode, type MarginLanes } from '../../bench/margin/suite.ts';

const FRAMES = 400;

describe('bench/margin wiring', () => {
  let work = '';
  let lanes: MarginLanes;
  let timed = 0;

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'test-bench-margin-'));
    lanes = await buildLanes(FRAMES, work);
    timed = await drive([lanes.margin, lanes.predictions], { warmup: 100, samples: FRAMES - 100, budgetMs: 10_000 });
  }, 30_000);

  afterAll(async () => {
    await lanes?.stop();
    if (work !== '') rmSync(work, { recursive: true, force: true });
  });

  it('drives every frame of both lanes', () => {
    expect(timed).toBe(FRAMES - 100);
    expect(lanes.margin.histogram.totalCount).toBe(FRAMES - 100);
    expect(lanes.predictions.histogram.totalCount).toBe(FRAMES - 100);
  });

  it('sends Margin orders on the Margin route, with /margin/orders bodies, and none on the Predictions route', () => {
    const sink = lanes.marginSink;
    expect(sink.creates).toBeGreaterThan(0);
    // Acks come between frames, so (replace mode, trigger 'every') nearly every frame places an order: none denied by the gate's Margin checks.
    expect(sink.creates).toBeGreaterThan(FRAMES * 0.9);
    expect(sink.refused).toBe(0);
    expect(lanes.margin.ordersSent()).toBe(sink.creates);
    expect(sink.lastCreatePath).toBe('/trade-api/v2/margin/orders');
    const body = JSON.parse(sink.lastCreateBody) as Record<string, unknown>;
    // CreateMarginOrderRequest: the perpetual, a bid, whole contracts, a dollar price on the $0.01 tick near $100.
    expect(body.ticker).toBe(MARGIN_TICKER);
    expect(body.side).toBe('bid');
    expect(body.count).toBe('1.00');
    expect(typeof body.client_order_id).toBe('string');
    expect(body.time_in_force).toBe('good_till_canceled');
    expect(body.post_only).toBe(true);
    const price = Math.round(Number(body.price) * 10_000);
    expect(price % MARGIN_TICK).toBe(0);
    expect(Math.abs(price - MARGIN_MARK)).toBeLessThan(10_000); // within $1 of the mark
    expect(lanes.marginDefaultSink.requests).toBe(0);
    // The probe saw the orders go out on this lane.
    expect(lanes.margin.probe.framesWithOrder).toBeGreaterThan(0);
  });

  it('has the Predictions lane produce orders in the same run', () => {
    expect(lanes.predictionsSink.requests).toBeGreaterThan(0);
    expect(lanes.predictions.ordersSent()).toBeGreaterThan(0);
    expect(lanes.predictions.probe.framesWithOrder).toBeGreaterThan(0);
  });

  it('decodes every frame of both streams as a delta in the decode comparison', () => {
    const result = measureDecode(lanes, { warmup: 10, samples: 200, budgetMs: 5_000 }, 64);
    expect(result.samples).toBe(200);
    expect(result.marginMisses).toBe(0);
    expect(result.predictionsMisses).toBe(0);
    expect(result.margin.totalCount).toBe(200);
  });
});

describe('bench/margin stream', () => {
  it('writes §7.1 Margin deltas on the tick, bounded around the mark, with non-negative levels', () => {
    const stream = makeMarginStream(5_000, 3);
    expect(stream.deltas).toHaveLength(5_000);
    const levels = new Map<string, number>();
    const snapshot = JSON.parse(stream.snapshot) as { type: string; msg: { market_ticker: string; bid: [string, string][]; ask: [string, string][] } };
    expect(snapshot.type).toBe('orderbook_snapshot');
    for (const [price, count] of snapshot.msg.bid) levels.set(`bid ${price}`, Number(count));
    for (const [price, count] of snapshot.msg.ask) levels.set(`ask ${price}`, Number(count));
    let seq = 1;
    for (const text of stream.deltas) {
      const frame = JSON.parse(text) as { type: string; sid: number; seq: number; msg: { market_ticker: string; price: string; delta: string; side: string; ts_ms: number } };
      expect(frame.type).toBe('orderbook_delta');
      expect(frame.sid).toBe(1);
      expect(frame.seq).toBe(++seq);
      expect(frame.msg.market_ticker).toBe(MARGIN_TICKER);
      expect(frame.msg.price).toMatch(/^\d+\.\d{4}$/);
      expect(frame.msg.delta).toMatch(/^-?\d+\.\d{2}$/);
      expect(['bid', 'ask']).toContain(frame.msg.side);
      const price = Math.round(Number(frame.msg.price) * 10_000);
      expect(price % MARGIN_TICK).toBe(0);
      expect(Math.abs(price - MARGIN_MARK)).toBeLessThanOrEqual(75 * MARGIN_TICK);
      const key = `${frame.msg.side} ${frame.msg.price}`;
      const size = Math.round(((levels.get(key) ?? 0) + Number(frame.msg.delta)) * 100);
      expect(size).toBeGreaterThanOrEqual(0);
      levels.set(key, size / 100);
    }
  });
});

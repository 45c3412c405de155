// Goal: the simulator's history records what the engine does (trades with their ids and taker
// sides, book tops after each delta that moved them, open interest after each trade's fills and
// at settlement), and a tape that has wrapped many times still answers exactly for what it holds:
// its candles for a window after its oldest row equal those of a tape that never dropped a row
// (the evicted rows' state carries over), and its trade walk returns the kept trades in order.
// Method: one engine (test fixtures, manual clock) with two SimHistory listeners, a 64-row tape and
// a 65,536-row tape; a seeded walk of bounded length.

import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../../src/core/index.ts';
import { isSimError } from '../../../src/sim/engine/index.ts';
import { SimHistory } from '../../../src/sim/history/index.ts';
import { LINEAR, makeEngine, ok, order } from '../engine/fixtures.ts';

function setup() {
  const { engine, clock } = makeEngine();
  const small = new SimHistory(engine, { rowsPerMarket: 64 });
  const medium = new SimHistory(engine, { rowsPerMarket: 1500 }); // grows from 1,024 rows, then wraps
  const large = new SimHistory(engine, { rowsPerMarket: 65_536 });
  small.attach();
  medium.attach();
  large.attach();
  return { engine, clock, small, medium, large };
}

describe('SimHistory', () => {
  it('records trades, tops and open interest as the engine reports them', () => {
    const { engine, clock, large } = setup();
    ok(engine.createOrder('a', order(LINEAR, 'bid', '0.40', '10')));
    clock.ms += 1000;
    ok(engine.createOrder('a', order(LINEAR, 'ask', '0.60', '10')));
    clock.ms += 1000;
    const taken = ok(engine.createOrder('b', order(LINEAR, 'bid', '0.60', '3', { timeInForce: 'immediate_or_cancel' })));
    expect(taken.fillCount).toBe(300);
    const tape = large.tape(LINEAR)!;
    const rows = Array.from({ length: tape.size }, (_, i) => tape.rowAt(i)).map((row) => ({
      ts: tape.batch.tsMs[row],
      count: tape.batch.count[row],
      price: tape.batch.price[row],
      bid: tape.batch.yesBid[row],
      ask: tape.batch.yesAsk[row],
      oi: tape.batch.openInterest[row],
    }));
    expect(rows[0]).toMatchObject({ bid: 4000, ask: -1, count: 0 });
    expect(rows[1]).toMatchObject({ bid: -1, ask: 6000, count: 0 });
    // The maker's ask shrinks (top unchanged: no row), then the trade with the fills' open interest.
    expect(rows[2]).toMatchObject({ count: 300, price: 6000, oi: 300 });
    expect(rows.length).toBe(3);
    const walk = large.trades({ ticker: LINEAR, minTs: null, maxTs: null, beforeMs: Infinity, limit: 10, beforeSeq: -1 });
    expect(walk.items.map((t) => [t.price, t.count, t.takerSide])).toEqual([[6000, 300, 'bid']]);
    const listed = engine.listTrades({ ticker: LINEAR });
    if (isSimError(listed)) throw new Error(listed.message);
    expect(walk.items[0].tradeId).toBe(listed.items[0].tradeId);
    engine.settleMarket(LINEAR, 'no');
    expect(tape.batch.openInterest[tape.rowAt(tape.size - 1)]).toBe(0);
  });

  it('a wrapped tape answers exactly for the periods it still holds', () => {
    const { engine, clock, small, medium, large } = setup();
    const random = new SeededRandom(4);
    for (let step = 0; step < 3000; step++) {
      clock.ms += random.nextInt(40_000);
      if (step % 25 === 24) engine.cancelAllOrders('a', null); // frees collateral; the book empties
      const mid = 30 + random.nextInt(40);
      ok(engine.createOrder('a', order(LINEAR, 'bid', `0.${mid - 1 - random.nextInt(2)}`, String(1 + random.nextInt(9)))));
      ok(engine.createOrder('a', order(LINEAR, 'ask', `0.${mid + 1 + random.nextInt(2)}`, String(1 + random.nextInt(9)))));
      if (random.chance(1, 2)) engine.createOrder('b', order(LINEAR, random.chance(1, 2) ? 'bid' : 'ask', random.chance(1, 2) ? '0.99' : '0.01', '2', { timeInForce: 'immediate_or_cancel' }));
    }
    expect(small.tape(LINEAR)!.size).toBe(64);
    expect(medium.tape(LINEAR)!.size).toBe(1500);
    expect(large.tape(LINEAR)!.size).toBeGreaterThan(2000);
    for (const history of [small, medium]) {
      const tape = history.tape(LINEAR)!;
      const oldestMs = tape.batch.tsMs[tape.rowAt(0)];
      const endTs = Math.ceil(clock.ms / 1000) + 7200;
      for (const interval of [1, 60]) {
        const P = interval * 60;
        const startTs = Math.ceil(oldestMs / (P * 1000)) * P + P; // periods wholly after the oldest kept row
        const a = history.candles([LINEAR], interval, startTs, endTs, clock.ms);
        const b = large.candles([LINEAR], interval, startTs, endTs, clock.ms);
        if (interval === 1) expect(a.tables[0].length).toBeGreaterThan(0);
        expect(a.tables[0].candles()).toEqual(b.tables[0].candles());
      }
      const kept = history.trades({ ticker: null, minTs: null, maxTs: null, beforeMs: Infinity, limit: 1000, beforeSeq: -1 });
      const all = large.trades({ ticker: null, minTs: null, maxTs: null, beforeMs: Infinity, limit: 1000, beforeSeq: -1 });
      expect(kept.items.length).toBeGreaterThan(0);
      expect(kept.items).toEqual(all.items.slice(0, kept.items.length));
    }
  });
});

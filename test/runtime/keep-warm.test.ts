/**
 * Goal: the keep-warm dry run goes the whole decision path (frame decoded and applied to a shadow
 * book, a strategy context, gate, OMS, request encoding; the order placed, acknowledged, amended
 * and cancelled) every time, is never denied by its own budget at its pace,
 * keeps no order alive, and stays bounded however long it runs; with the RFQ leg it also decodes
 * an RFQ, quotes it through the gate and closes the quote each run; a restricted key's dry run
 * trades in its own subaccount (never denied SUBACCOUNT_LOCKED).
 * While the event loop is busy with other work, its timer thins the runs out to one per 100 ms;
 * once the loop is idle again it runs at its interval.
 * Method: a KeepWarm on a manual clock advanced like a 10 ms timer would, runs driven directly;
 * for the thinning, its real timer while this test keeps the loop busy (bounded spins), then idle.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.ts';
import { DEFAULT_RISK_LIMITS, Deny, RiskGate, riskLimits } from '../../src/risk/index.ts';
import type { BookView } from '../../src/risk/index.ts';
import { IntentKind, PriceGrid, createIntent } from '../../src/core/index.ts';
import type { BookSide, Count, OrderIntent, Price } from '../../src/core/index.ts';
import type { NewOrder } from '../../src/oms/index.ts';
import { KeepWarm } from '../../src/runtime/keep-warm.ts';

describe('KeepWarm', () => {
  it('thins its runs to one per 100 ms while the loop is busy, and runs at its interval when idle', async () => {
    const warm = new KeepWarm({ intervalMs: 2, limits: DEFAULT_RISK_LIMITS, clock: new ManualClock(1_800_000_000_000) });
    warm.start();
    try {
      // Busy: 4 ms spins with a turn between (timers run there), for 600 ms.
      const busyUntil = performance.now() + 600;
      for (let turn = 0; turn < 1_000 && performance.now() < busyUntil; turn++) {
        const spinUntil = performance.now() + 4;
        while (performance.now() < spinUntil);
        await new Promise((resolve) => setImmediate(resolve));
      }
      const busyRuns = warm.stats.runs;
      expect(warm.stats.thinned).toBeGreaterThan(20);
      expect(busyRuns).toBeLessThanOrEqual(8); // 600 ms / 100 ms, and the first tick
      await sleep(300);
      expect(warm.stats.runs - busyRuns).toBeGreaterThan(20);
    } finally {
      warm.stop();
    }
  });

  it('runs the whole dry path each time, closes every shadow order and stays bounded', () => {
    const clock = new ManualClock(1_800_000_000_000);
    const warm = new KeepWarm({ intervalMs: 10, limits: DEFAULT_RISK_LIMITS, clock });
    const runs = 2_000;
    let bytesPerRun = 0;
    for (let i = 0; i < runs; i++) {
      clock.advance(10);
      const before = warm.stats.sentBytes;
      warm.runOnce();
      if (i === 0) bytesPerRun = warm.stats.sentBytes - before;
      expect(warm.trackedOrders).toBe(0);
    }
    expect(warm.stats.runs).toBe(runs);
    expect(warm.stats.denied).toBe(0);
    // Each run's order lives as a quote does: acknowledged resting, amended, cancelled.
    expect([warm.shadowAmends, warm.shadowCancels]).toEqual([runs, runs]);
    // Each run's frame (written as bytes into a reused buffer) is a delta the shadow feed reads and applies.
    expect(warm.shadowFeed).toMatchObject({ deltasApplied: runs, malformedFrames: 0, unknownTypes: 0 });
    expect(bytesPerRun).toBeGreaterThan(3 * 500); // a create, an amend and a cancel request were assembled (each head, signature and body)
    expect(warm.stats.sentBytes).toBeGreaterThanOrEqual(bytesPerRun * runs); // ids grow a digit now and then
    expect(warm.stats.busyUsTotal).toBeGreaterThan(0);
    warm.stop();
  });

  it('with the RFQ leg: an RFQ decoded, quoted through the gate and closed every run, bounded; a restricted key in its own subaccount', () => {
    for (const [limits, route] of [[DEFAULT_RISK_LIMITS, 'rest'], [riskLimits({ restrictedSubaccount: 5 }), 'fix']] as const) {
      const clock = new ManualClock(1_800_000_000_000);
      const plain = new KeepWarm({ intervalMs: 10, limits, clock });
      const warm = new KeepWarm({ intervalMs: 10, limits, clock, rfq: route });
      expect(plain.openQuotes).toBe(-1);
      for (let i = 0; i < 1_500; i++) {
        clock.advance(10);
        plain.runOnce();
        warm.runOnce();
        expect(warm.openQuotes).toBe(0);
        expect(warm.trackedOrders).toBe(0);
      }
      expect([plain.stats.denied, warm.stats.denied]).toEqual([0, 0]);
      // the quote (REST body or FIX 35=S) adds to what each run encodes
      expect(warm.stats.sentBytes - plain.stats.sentBytes).toBeGreaterThan(1_500 * 50);
      plain.stop();
      warm.stop();
    }
  });

  it('with the Margin leg: a perpetual delta decoded, then an order placed, amended and cancelled on the Margin route through the margin checks every run, each rehearsed on the real Margin route', () => {
    for (const limits of [DEFAULT_RISK_LIMITS, riskLimits({ restrictedSubaccount: 3 })]) {
      const clock = new ManualClock(1_800_000_000_000);
      const calls: string[] = [];
      const realMarginRoute = {
        rehearseCreate(order: Readonly<NewOrder>): number {
          calls.push(`create ${order.ticker} ${order.price} ${order.count} ${order.subaccount}`);
          return 600;
        },
        rehearseAmend(ticker: string, side: BookSide, price: Price, count: Count, subaccount: number): number {
          calls.push(`amend ${ticker} ${side} ${price} ${count} ${subaccount}`);
          return 600;
        },
      };
      const plain = new KeepWarm({ intervalMs: 10, limits, clock });
      const warm = new KeepWarm({ intervalMs: 10, limits, clock, margin: true, realMarginRoute });
      const runs = 1_000;
      for (let i = 0; i < runs; i++) {
        clock.advance(10);
        const before = [plain.stats.sentBytes, warm.stats.sentBytes];
        plain.runOnce();
        warm.runOnce();
        // Both legs each run: more bytes than the Predictions leg alone (a Margin create, amend and cancel request).
        expect(warm.stats.sentBytes - before[1]!).toBeGreaterThan(plain.stats.sentBytes - before[0]! + 3 * 400);
        expect(warm.trackedOrders).toBe(0);
      }
      expect(warm.stats.denied).toBe(0);
      // Each run's two orders (the market's and the perpetual's) were amended and cancelled.
      expect([warm.shadowAmends, warm.shadowCancels]).toEqual([2 * runs, 2 * runs]);
      // The real Margin route saw the perpetual's order only: a bid at the shadow touch ($99.99), a level lower ($99.98) amended, 1 contract.
      const subaccount = limits.restrictedSubaccount >= 0 ? limits.restrictedSubaccount : 0;
      expect(new Set(calls)).toEqual(new Set([`create KEEPWARM-PERP 999900 100 ${subaccount}`, `amend KEEPWARM-PERP bid 999800 100 ${subaccount}`]));
      expect(calls).toHaveLength(2 * runs);
      expect([warm.realCreates, warm.realAmends]).toEqual([runs, runs]);
      plain.stop();
      warm.stop();
    }
  });

  it('with the real gate: one quiet check a run on its markets in turn (synced books only), nothing taken from its budget, its last deny kept', () => {
    const clock = new ManualClock(1_800_000_000_000);
    const gate = new RiskGate({ limits: riskLimits({ rateTier: 'basic' }), clock });
    const book = (synced: boolean): BookView => ({ synced, updatedAtMs: clock.nowMs(), bestBid: () => 4_000 as Price, bestAsk: () => 6_000 as Price });
    const grid = PriceGrid.fromStructure('linear_cent');
    const markets = [gate.addMarket('KX-A', grid, book(true)), gate.addMarket('KX-B', grid, book(false)), gate.addMarket('KX-C', grid, book(true))];
    // The real gate's state the dry runs must leave alone: a deny on record, tokens partly spent.
    const intent = createIntent();
    intent.kind = IntentKind.NEW;
    intent.market = markets[0]!;
    intent.side = 'bid';
    intent.price = 4_050 as Price; // $0.405: off the cent grid
    intent.count = 100 as Count;
    expect(gate.check(intent)).toBe(Deny.PRICE_OFF_GRID); // a deny on record
    const lastDeny = gate.lastDeny;
    const detail = { ...gate.detail };
    const tokens = gate.budget.writeTokens(clock.nowMs());
    const checked: number[] = [];
    const rehearse = gate.rehearse.bind(gate);
    gate.rehearse = (one: Readonly<OrderIntent>): Deny => {
      checked.push(one.market);
      const verdict = rehearse(one);
      expect(verdict).toBe(Deny.NONE); // a post-only bid at the touch, within every limit
      return verdict;
    };
    const warm = new KeepWarm({ intervalMs: 10, limits: DEFAULT_RISK_LIMITS, clock, realGate: { gate, marginRoute: -1 } });
    for (let i = 0; i < 300; i++) warm.runOnce(); // the clock stands: no token refills hide a spend
    expect(warm.stats.realChecks).toBe(200); // KX-B's book is not synced: skipped
    expect(new Set(checked)).toEqual(new Set([markets[0], markets[2]]));
    expect(checked.slice(0, 4)).toEqual([markets[0], markets[2], markets[0], markets[2]]);
    expect(gate.budget.writeTokens(clock.nowMs())).toBe(tokens);
    expect(gate.lastDeny).toBe(lastDeny);
    expect({ ...gate.detail }).toEqual(detail);
    expect(gate.exposure.openOrders).toBe(0);
    expect(warm.stats.denied).toBe(0);
    warm.stop();
  });

  it('with the real route: each run\'s shadow create and amend are rehearsed on it (counted when they assembled), the same order the shadow route encodes', () => {
    const clock = new ManualClock(1_800_000_000_000);
    const seen: { ticker: string; clientOrderId: string; postOnly: boolean }[] = [];
    const amends: { ticker: string; side: string; price: number; count: number }[] = [];
    let answer = 700;
    const realRoute = {
      rehearseCreate(order: Readonly<NewOrder>): number {
        seen.push({ ticker: order.ticker, clientOrderId: order.clientOrderId, postOnly: order.postOnly });
        return answer;
      },
      rehearseAmend(ticker: string, side: BookSide, price: Price, count: Count): number {
        amends.push({ ticker, side, price, count });
        return answer;
      },
    };
    const warm = new KeepWarm({ intervalMs: 10, limits: DEFAULT_RISK_LIMITS, clock, realRoutes: [realRoute] });
    for (let i = 0; i < 100; i++) {
      clock.advance(10);
      warm.runOnce();
    }
    answer = -1; // no idle connection or no signature ready: not counted
    for (let i = 0; i < 20; i++) {
      clock.advance(10);
      warm.runOnce();
    }
    expect(seen).toHaveLength(120);
    expect(warm.realCreates).toBe(100);
    expect(amends).toHaveLength(120);
    expect(warm.realAmends).toBe(100);
    // The shadow order's amend: a level under the shadow book's best bid ($0.41), the same size.
    expect(new Set(amends.map((one) => `${one.ticker} ${one.side} ${one.price} ${one.count}`))).toEqual(new Set(['KEEPWARM-SHADOW bid 4000 100']));
    expect(new Set(seen.map((one) => one.ticker))).toEqual(new Set(['KEEPWARM-SHADOW'])); // never a real market
    expect(new Set(seen.map((one) => one.clientOrderId)).size).toBe(120); // each run's own shadow order
    expect(seen.every((one) => one.postOnly)).toBe(true);
    expect(warm.trackedOrders).toBe(0);
    expect(warm.stats.denied).toBe(0);
    warm.stop();
  });

  it('with two real routes (REST and FIX): every run rehearses its create and amend on each, counted per route that assembled', () => {
    const clock = new ManualClock(1_800_000_000_000);
    const calls: string[] = [];
    const route = (name: string, createLength: number, amendLength: number) => ({
      rehearseCreate(order: Readonly<NewOrder>): number {
        calls.push(`${name} create ${order.ticker}`);
        return createLength;
      },
      rehearseAmend(ticker: string): number {
        calls.push(`${name} amend ${ticker}`);
        return amendLength;
      },
    });
    // The REST route tracks no order of its own (a strategy on FIX): its amend rehearsal answers -1.
    const warm = new KeepWarm({ intervalMs: 10, limits: DEFAULT_RISK_LIMITS, clock, realRoutes: [route('rest', 700, -1), route('fix', 250, 230)] });
    for (let i = 0; i < 50; i++) {
      clock.advance(10);
      warm.runOnce();
    }
    // Per run, in order: both creates, then both amends (the shadow order's life), never a real market.
    expect(calls.slice(0, 4)).toEqual(['rest create KEEPWARM-SHADOW', 'fix create KEEPWARM-SHADOW', 'rest amend KEEPWARM-SHADOW', 'fix amend KEEPWARM-SHADOW']);
    expect(calls).toHaveLength(200);
    expect(warm.realCreates).toBe(100);
    expect(warm.realAmends).toBe(50);
    expect(warm.trackedOrders).toBe(0);
    expect(warm.stats.denied).toBe(0);
    warm.stop();
  });
});

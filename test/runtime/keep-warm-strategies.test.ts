/**
 * Goal: the keep-warm's strategy leg (plugin rehearse: true) runs one rehearsed strategy's onBook a
 * run, in turn, on a shadow market whose best bid moves between two calls of each, through a shadow context, and the shadow
 * venue answers what it sent: the sample market maker quotes a bid and an ask once, then amends its
 * bid as the touch moves (the amends refused, so the quote stays where it was), with nothing
 * denied and its orders bounded; a strategy that throws is reported once and never called again;
 * a strategy that places on every run and never cancels leaves the shadow OMS bounded (creates
 * rejected past the resting bound, the leg paused past the tracked bound, the OMS's tick pruning).
 * With the real OMS beside the real gate, every other run checks an amend of one of its resting
 * orders on the real gate instead of a new bid, quietly (accepted, no token taken, nothing booked).
 * Method: KeepWarm on a manual clock, runs driven directly, strategies handed in as the host's
 * rehearsal list would be; for the amend, the hot-path bench's wiring (the runtime's graph
 * builder, no sockets) with resting orders of its strategy.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeFeedStream } from '../../bench/feed/delta-frames.ts';
import { SinkOrderEntry } from '../../bench/hot-path/sink-order-entry.ts';
import { FRAME_MS, buildHotPath } from '../../bench/hot-path/wiring.ts';
import { IntentKind, ManualClock, type OrderIntent } from '../../src/core/index.ts';
import { OrderState } from '../../src/oms/index.ts';
import { DEFAULT_RISK_LIMITS, Deny } from '../../src/risk/index.ts';
import { KeepWarm, type StrategyRehearsals } from '../../src/runtime/keep-warm.ts';
import { OrderFlags, type Strategy, type StrategyBook, type StrategyContext } from '../../src/strategy/index.ts';
import marketMaker, { paramsSchema } from '../../strategies/market-maker.ts';

/** The rehearsal list as StrategyHost keeps it: replaced when one fails. */
class Rehearsals implements StrategyRehearsals {
  rehearsals: readonly Strategy[];
  readonly failed: [Strategy, unknown][] = [];
  constructor(list: Strategy[]) {
    this.rehearsals = list;
  }
  rehearsalFailed(rehearsal: Strategy, error: unknown): void {
    this.failed.push([rehearsal, error]);
    this.rehearsals = this.rehearsals.filter((r) => r !== rehearsal);
  }
}

function defaults(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(paramsSchema.properties)) out[name] = (spec as { default: unknown }).default;
  return out;
}

describe('KeepWarm strategy leg', () => {
  it("runs the market maker's onBook every run on a moving touch: it quotes once, then amends its bid, nothing denied, its orders bounded", () => {
    const clock = new ManualClock(1_800_000_000_000);
    const maker = marketMaker.create(defaults() as never);
    const books: number[] = [];
    const spy: Strategy = { onBook: (book: StrategyBook, ctx: StrategyContext) => { books.push(book.bestBid()); maker.onBook(book, ctx); } };
    const rehearsals = new Rehearsals([spy]);
    const warm = new KeepWarm({ intervalMs: 1, limits: DEFAULT_RISK_LIMITS, clock, strategies: rehearsals });
    const runs = 1_000;
    for (let i = 0; i < runs; i++) {
      clock.advance(1);
      warm.runOnce();
      expect(warm.trackedOrders).toBeLessThanOrEqual(3); // the maker's bid and ask, and the own leg's order until pruned
    }
    expect(warm.stats.strategyCalls).toBe(runs);
    expect(warm.stats.strategyPauses).toBe(0);
    expect(warm.stats.denied).toBe(0);
    expect(rehearsals.failed).toEqual([]);
    // The touch alternates 0.42 / 0.41 (1/10,000 $), starting with the bid that comes.
    expect(books.slice(0, 4)).toEqual([4200, 4100, 4200, 4100]);
    expect(warm.shadowFeed.malformedFrames).toBe(0);
    expect(warm.strategyBook!.synced).toBe(true);
    // A bid and an ask created once; then the bid's target moves a level on every other run and the
    // refused amend leaves the quote where it was: one amend every other run.
    const { answered, dropped } = warm.strategyRequests;
    expect(dropped).toBe(0);
    expect(answered).toBeGreaterThanOrEqual(2 + runs / 2 - 1);
    expect(answered).toBeLessThanOrEqual(2 + runs);
    const ids = (maker as unknown as { quoteIds(ticker: string): { bid: unknown; ask: unknown } }).quoteIds('KEEPWARM-STRATEGY');
    expect(ids.bid).not.toBe(0);
    expect(ids.ask).not.toBe(0);
  });

  it('calls one strategy a run, in turn, each seeing the touch move between two of its own calls', () => {
    const clock = new ManualClock(1_800_000_000_000);
    const seen: number[][] = [[], [], []];
    const rehearsals = new Rehearsals(seen.map((bids) => ({ onBook: (book: StrategyBook) => { bids.push(book.bestBid()); } })));
    const warm = new KeepWarm({ intervalMs: 1, limits: DEFAULT_RISK_LIMITS, clock, strategies: rehearsals });
    for (let i = 0; i < 300; i++) {
      clock.advance(1);
      warm.runOnce();
    }
    expect(warm.stats.strategyCalls).toBe(300);
    for (const bids of seen) {
      expect(bids).toHaveLength(100);
      expect(bids.slice(0, 4)).toEqual([4200, 4100, 4200, 4100]);
    }
    expect(warm.shadowFeed.malformedFrames).toBe(0);
  });

  it('drops a strategy that throws after one report, and goes on with the others', () => {
    const clock = new ManualClock(1_800_000_000_000);
    let calls = 0;
    const thrower: Strategy = { onBook: () => { calls++; throw new Error('boom in rehearsal'); } };
    let quietCalls = 0;
    const quiet: Strategy = { onBook: () => { quietCalls++; } };
    const rehearsals = new Rehearsals([thrower, quiet]);
    const warm = new KeepWarm({ intervalMs: 1, limits: DEFAULT_RISK_LIMITS, clock, strategies: rehearsals });
    for (let i = 0; i < 50; i++) {
      clock.advance(1);
      warm.runOnce();
    }
    expect(calls).toBe(1);
    expect(rehearsals.failed.map(([strategy, error]) => [strategy, (error as Error).message])).toEqual([[thrower, 'boom in rehearsal']]);
    expect(quietCalls).toBe(49); // the run the thrower failed in ended the leg; every later run called it
    expect(warm.stats.denied).toBe(0);
  });

  it('stays bounded with a strategy that places on every run and never cancels: creates rejected past the resting bound', () => {
    const clock = new ManualClock(1_800_000_000_000);
    const placer: Strategy = { onBook: (book, ctx) => { ctx.place(book.ticker, 'bid', book.bestBid(), 100 as never, OrderFlags.POST_ONLY); } };
    const warm = new KeepWarm({ intervalMs: 1, limits: DEFAULT_RISK_LIMITS, clock, strategies: new Rehearsals([placer]) });
    let most = 0;
    for (let i = 0; i < 5_000; i++) {
      clock.advance(1);
      warm.runOnce();
      most = Math.max(most, warm.trackedOrders);
    }
    expect(most).toBeLessThanOrEqual(16); // SHADOW_RESTING_MAX: later creates are answered with a reject, and the tick prunes them
    expect(warm.strategyRequests).toEqual({ answered: 5_000, dropped: 0 });
  });

  it('drops a strategy that sends more requests than a run answers, leaving few pending', () => {
    const clock = new ManualClock(1_800_000_000_000);
    const flood: Strategy = {
      onBook: (book, ctx) => {
        for (let i = 0; i < 40; i++) ctx.place(book.ticker, 'bid', book.bestBid(), 100 as never, OrderFlags.POST_ONLY);
      },
    };
    let quietCalls = 0;
    const quiet: Strategy = { onBook: () => { quietCalls++; } };
    const rehearsals = new Rehearsals([flood, quiet]);
    const warm = new KeepWarm({ intervalMs: 1, limits: DEFAULT_RISK_LIMITS, clock, strategies: rehearsals });
    for (let i = 0; i < 200; i++) {
      clock.advance(1);
      warm.runOnce();
    }
    expect(rehearsals.failed.map(([strategy, error]) => [strategy, (error as Error).message])).toEqual([[flood, 'sent more than 32 requests in one keep-warm run']]);
    expect(warm.strategyRequests).toEqual({ answered: 32, dropped: 8 });
    expect(warm.trackedOrders).toBeLessThanOrEqual(8 + 16); // its 8 unanswered, and at most the resting bound
    expect(warm.stats.strategyPauses).toBe(0);
    expect(quietCalls).toBe(199);
  });

  it('pauses the leg while the shadow OMS tracks too many orders (floods of many dropped strategies)', () => {
    const clock = new ManualClock(1_800_000_000_000);
    const flood = (): Strategy => ({
      onBook: (book, ctx) => {
        for (let i = 0; i < 40; i++) ctx.place(book.ticker, 'bid', book.bestBid(), 100 as never, OrderFlags.POST_ONLY);
      },
    });
    let quietCalls = 0;
    const quiet: Strategy = { onBook: () => { quietCalls++; } };
    const rehearsals = new Rehearsals([...Array.from({ length: 40 }, flood), quiet]);
    const warm = new KeepWarm({ intervalMs: 1, limits: DEFAULT_RISK_LIMITS, clock, strategies: rehearsals });
    for (let i = 0; i < 100; i++) {
      clock.advance(1);
      warm.runOnce();
    }
    expect(warm.trackedOrders).toBeGreaterThan(256);
    expect(rehearsals.failed.length).toBeLessThan(40); // paused before every flood had its run
    expect(warm.stats.strategyPauses).toBeGreaterThan(0);
    // Paused: no strategy is called while the orders stay tracked; the own leg goes on.
    const calls = warm.stats.strategyCalls + rehearsals.failed.length;
    const quietBefore = quietCalls;
    const pauses = warm.stats.strategyPauses;
    for (let i = 0; i < 50; i++) {
      clock.advance(1);
      warm.runOnce();
    }
    expect(warm.stats.strategyCalls + rehearsals.failed.length).toBe(calls);
    expect(quietCalls).toBe(quietBefore);
    expect(warm.stats.strategyPauses).toBe(pauses + 50);
    expect(warm.stats.denied).toBe(0);
  });
});

describe('KeepWarm real-gate amend', () => {
  it("checks, every other run, an amend of one of the real OMS's resting orders on the real gate, quietly: accepted, nothing taken or booked", async () => {
    await checkRealAmends(false);
  });

  it("with the real router, the amend goes through the router's own reads (OMS lookup by handle, hold and saturation checks) to the gate's quiet check: nothing sent, held, taken or booked", async () => {
    await checkRealAmends(true);
  });
});

/** 40 dry runs with the real gate and OMS (and the real router with `viaRouter`) after 20 frames of resting bids. */
async function checkRealAmends(viaRouter: boolean): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'keep-warm-amend-'));
  const stream = makeFeedStream(1, 64, 11);
  const sink = new SinkOrderEntry();
  const hp = await buildHotPath({
    ticker: stream.tickers[0], grid: stream.grid, snapshotFrame: stream.snapshots[0], entry: sink,
    journalPath: path.join(work, 'journal.jsonl'), mode: 'replace', clockSteps: 64,
  });
  try {
    // The bench's strategy rests a bid per frame (replace: the previous one cancelled on its ack).
    for (let i = 0; i < 20; i++) {
      sink.deliverAnswers(hp.clock.nowMs());
      hp.clock.advance(FRAME_MS);
      const bytes = Buffer.from(stream.deltas[i]!, 'utf8');
      hp.feed.handleBytes(bytes, 0, bytes.length);
    }
    sink.deliverAnswers(hp.clock.nowMs());
    const resting = new Set<number>();
    for (let order = hp.oms.oldestLiveOrder; order !== null; order = order.liveNext) if (order.state === OrderState.RESTING) resting.add(order.handle);
    expect(resting.size).toBeGreaterThan(0);
    const gate = hp.gate;
    const kinds: number[] = [];
    const handles: number[] = [];
    const rehearse = gate.rehearse.bind(gate);
    gate.rehearse = (intent: Readonly<OrderIntent>): Deny => {
      kinds.push(intent.kind);
      if (intent.kind === IntentKind.AMEND) handles.push(intent.orderHandle);
      const verdict = rehearse(intent);
      expect(verdict).toBe(Deny.NONE);
      return verdict;
    };
    const router = hp.graph.router;
    let viaRouterCalls = 0;
    const rehearseAmend = router.rehearseAmend.bind(router);
    router.rehearseAmend = (intent: OrderIntent, handle: number): boolean => {
      viaRouterCalls++;
      return rehearseAmend(intent, handle);
    };
    const tokens = gate.budget.writeTokens(hp.clock.nowMs());
    const openOrders = gate.exposure.openOrders;
    const lastDeny = gate.lastDeny;
    const requests = sink.requests;
    const ordersSent = hp.oms.stats.ordersSent;
    const warm = new KeepWarm({ intervalMs: 1, limits: gate.limits, clock: hp.clock, realGate: { gate, marginRoute: -1, oms: hp.oms, router: viaRouter ? router : null } });
    for (let i = 0; i < 40; i++) warm.runOnce();
    expect(kinds.filter((kind) => kind === IntentKind.AMEND)).toHaveLength(20);
    expect(kinds.filter((kind) => kind === IntentKind.NEW)).toHaveLength(20);
    expect(kinds.slice(0, 4)).toEqual([IntentKind.NEW, IntentKind.AMEND, IntentKind.NEW, IntentKind.AMEND]);
    for (const handle of handles) expect(resting.has(handle)).toBe(true);
    expect(viaRouterCalls).toBe(viaRouter ? 20 : 0);
    expect(gate.budget.writeTokens(hp.clock.nowMs())).toBe(tokens);
    expect(gate.exposure.openOrders).toBe(openOrders);
    expect(gate.lastDeny).toBe(lastDeny);
    expect(sink.requests).toBe(requests); // nothing sent
    expect(hp.oms.stats.ordersSent).toBe(ordersSent);
    expect(router.held.size).toBe(0); // nothing held
    for (const handle of resting) expect(hp.oms.orderByHandle(handle)?.state).toBe(OrderState.RESTING);
    expect(warm.stats.realChecks).toBe(40);
    warm.stop();
  } finally {
    await hp.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

// Goal: the OMS exit-trigger table's state rules (src/oms/exit-triggers.ts): states follow the
// venue's status and pending_on_entry is not monotonic; only a filled trigger without an anchor is
// done; the gate runs first and a deny sends nothing; a client_trigger_id replay and a whole-position
// upsert never make a second record; a rejected create leaves none, an unknown outcome stays live
// (UNCERTAIN) until reconcile; reconcile replaces the position's view; the live-trigger view the gate
// reads; triggerOfOrder / linkOrder; the size bound evicts finished records first.
// Method: the table over a scripted fake venue (no I/O): each call pops the next scripted answer
// (a WireExitTrigger, a list, or an ExitTriggerError to throw) and records what was asked.

import { describe, expect, it } from 'vitest';
import { PRICE_INVALID, TriggerAction, createTriggerIntent, type Count, type ExitTriggerIntent, type LiveTriggersView, type Price } from '../../src/core/index.ts';
import {
  ExitTriggerError,
  ExitTriggerTable,
  TriggerState,
  type ExitTriggerVenue,
  type TriggerGate,
  type WireExitTrigger,
} from '../../src/oms/index.ts';

const TICKERS = ['KXBTCPERP', 'KXETHPERP'];
const markets = { tickerAt: (index: number): string => TICKERS[index]!, indexOf: (ticker: string): number => TICKERS.indexOf(ticker) };

function wire(overrides: Partial<WireExitTrigger> = {}): WireExitTrigger {
  return {
    triggerId: 'et-1', ticker: 'KXBTCPERP', kind: 'bracket', status: 'active', statusReason: '', triggeredLeg: null, triggeredOrderId: '',
    anchorOrderId: '', clientTriggerId: '', stopLossPrice: 950_000 as Price, takeProfitPrice: PRICE_INVALID, trailAmount: PRICE_INVALID, trailBps: 0,
    watermarkPrice: PRICE_INVALID, effectiveStopPrice: PRICE_INVALID, count: 0 as Count, filledCount: 0 as Count, createdTimeMs: 1, updatedTimeMs: 1,
    ...overrides,
  };
}

type Answer = WireExitTrigger | WireExitTrigger[] | ExitTriggerError | null;

class FakeVenue implements ExitTriggerVenue {
  readonly calls: string[] = [];
  readonly answers: Answer[] = [];
  /** Resolves the next call only when released (to hold a write in flight). */
  hold: Promise<void> | null = null;

  async #next<T>(call: string): Promise<T> {
    this.calls.push(call);
    if (this.hold !== null) await this.hold;
    expect(this.answers.length, `no scripted answer for ${call}`).toBeGreaterThan(0);
    const answer = this.answers.shift()!;
    if (answer instanceof ExitTriggerError) throw answer;
    return answer as T;
  }

  set(ticker: string, intent: Readonly<ExitTriggerIntent>): Promise<WireExitTrigger> {
    return this.#next(`set ${ticker} ${intent.isolated ? 'isolated' : 'cross'} ${intent.kind} ${intent.clientTriggerId}`);
  }
  update(ticker: string, _subaccount: number, triggerId: string): Promise<WireExitTrigger> {
    return this.#next(`update ${ticker} ${triggerId}`);
  }
  cancel(ticker: string, _subaccount: number, isolated: boolean, kind: string | null): Promise<void> {
    return this.#next(`cancel ${ticker} ${isolated ? 'isolated' : 'cross'} ${kind}`);
  }
  cancelById(ticker: string, _subaccount: number, triggerId: string): Promise<void> {
    return this.#next(`cancelById ${ticker} ${triggerId}`);
  }
  list(ticker: string, _subaccount: number, isolated: boolean): Promise<WireExitTrigger[]> {
    return this.#next(`list ${ticker} ${isolated ? 'isolated' : 'cross'}`);
  }
}

function intent(overrides: Partial<ExitTriggerIntent> = {}): ExitTriggerIntent {
  return { ...createTriggerIntent(), market: 0, stopLossPrice: 950_000 as Price, ...overrides };
}

function table(options: { gate?: TriggerGate; capacity?: number; position?: number } = {}): { venue: FakeVenue; triggers: ExitTriggerTable; views: LiveTriggersView[] } {
  const venue = new FakeVenue();
  const views: LiveTriggersView[] = [];
  const gate: TriggerGate = options.gate ?? ((_intent, live) => {
    views.push(live);
    return 0;
  });
  const triggers = new ExitTriggerTable({ venue, gate, markets, positionOf: () => options.position ?? 1_000, capacity: options.capacity ?? 64 });
  return { venue, triggers, views };
}

const rejected = (code: string, status = 409): ExitTriggerError => new ExitTriggerError('rejected', code, code, status);

describe('ExitTriggerTable: submit', () => {
  it('a gate deny sends nothing and records nothing; the gate sees the table as its live view', async () => {
    const { venue, triggers } = table({ gate: () => 51 });
    const result = await triggers.submit(intent());
    expect(result).toEqual({ deny: 51, record: null, error: null });
    expect(venue.calls).toEqual([]);
    expect(triggers.size).toBe(0);
    expect(triggers.stats.denied).toBe(1);
    const allowed = table();
    allowed.venue.answers.push(wire());
    await allowed.triggers.submit(intent());
    expect(allowed.views[0]).toBe(allowed.triggers);
  });

  it('a whole-position SET upserts one record per (position, kind); a new venue id moves the key', async () => {
    const { venue, triggers } = table();
    venue.answers.push(wire({ triggerId: 'et-1' }), wire({ triggerId: 'et-1', stopLossPrice: 940_000 as Price }));
    const first = await triggers.submit(intent());
    const second = await triggers.submit(intent({ stopLossPrice: 940_000 as Price }));
    expect(second.record).toBe(first.record);
    expect(triggers.size).toBe(1);
    expect(first.record).toMatchObject({ triggerId: 'et-1', state: TriggerState.ACTIVE, stopLossPrice: 940_000, whole: true });
    // the venue replaced it (position flipped): the old record is gone, the key names the new one
    venue.answers.push(wire({ triggerId: 'et-2' }));
    const third = await triggers.submit(intent());
    expect(third.record).not.toBe(first.record);
    expect(first.record!.state).toBe(TriggerState.GONE);
    expect(triggers.wholeOf('KXBTCPERP', 0, false, 'bracket')).toBe(third.record);
    expect(triggers.bracketCount(0, 0, false)).toBe(1);
  });

  it('a client_trigger_id replay returns the first record, never a duplicate; a replay error leaves it as it was', async () => {
    const { venue, triggers } = table();
    const append = intent({ count: 300 as Count, clientTriggerId: 'k-1' });
    venue.answers.push(wire({ triggerId: 'et-9', clientTriggerId: 'k-1', count: 300 as Count }));
    venue.answers.push(wire({ triggerId: 'et-9', clientTriggerId: 'k-1', count: 300 as Count, status: 'canceled', statusReason: 'user_canceled' }));
    const first = await triggers.submit(append);
    const replay = await triggers.submit(append);
    expect(replay.record).toBe(first.record);
    expect(triggers.size).toBe(1);
    expect(first.record!.state).toBe(TriggerState.CANCELED); // "in whatever state it has since reached"
    venue.answers.push(rejected('idempotency_key_already_used'));
    const elsewhere = await triggers.submit(intent({ market: 1, count: 300 as Count, clientTriggerId: 'k-1' }));
    expect(elsewhere.record).toBeNull();
    expect(elsewhere.error).toMatchObject({ outcome: 'rejected', code: 'idempotency_key_already_used', status: 409 });
    expect(triggers.size).toBe(1);
    expect(triggers.byClientTriggerId('k-1')).toMatchObject({ ticker: 'KXBTCPERP', triggerId: 'et-9' });
  });

  it('a rejected create leaves no record; an unknown outcome stays live (UNCERTAIN) until reconcile', async () => {
    const { venue, triggers } = table();
    venue.answers.push(rejected('anchor_order_unavailable'));
    const anchored = await triggers.submit(intent({ anchorOrderId: 'o-1', clientTriggerId: 'a-1' }));
    expect(anchored).toMatchObject({ record: null, error: { outcome: 'rejected', code: 'anchor_order_unavailable' } });
    expect(triggers.size).toBe(0);
    expect(triggers.byClientTriggerId('a-1')).toBeNull();

    venue.answers.push(new ExitTriggerError('unknown', 'EXEC_TIMEOUT', 'timeout'));
    const lost = await triggers.submit(intent({ count: 200 as Count, clientTriggerId: 'u-1' }));
    expect(lost.record).toMatchObject({ state: TriggerState.UNCERTAIN, triggerId: '' });
    expect(triggers.bracketCount(0, 0, false)).toBe(1); // the gate counts it: it may exist
    expect(triggers.bracketCountSum(0, 0, false)).toBe(0); // count 0 until the venue says
    // reconcile: the venue did write it
    venue.answers.push([wire({ triggerId: 'et-5', clientTriggerId: 'u-1', count: 200 as Count })]);
    await triggers.reconcile('KXBTCPERP', 0, false);
    expect(lost.record).toMatchObject({ state: TriggerState.ACTIVE, triggerId: 'et-5' });
    expect(triggers.byTriggerId('et-5')).toBe(lost.record);
    expect(triggers.size).toBe(1);

    // another lost write the venue never saw: gone after reconcile
    venue.answers.push(new ExitTriggerError('unknown', 'EXEC_HTTP_5XX', '502', 502));
    const never = await triggers.submit(intent({ count: 100 as Count, clientTriggerId: 'u-2' }));
    venue.answers.push([wire({ triggerId: 'et-5', clientTriggerId: 'u-1', count: 200 as Count })]);
    await triggers.reconcile('KXBTCPERP', 0, false);
    expect(never.record!.state).toBe(TriggerState.GONE);
    expect(triggers.bracketCount(0, 0, false)).toBe(1);
  });

  it('UPDATE and DELETE: by id cancels one, by kind the position\'s live triggers of that kind', async () => {
    const { venue, triggers } = table();
    venue.answers.push(
      wire({ triggerId: 'et-1', clientTriggerId: 'b-1', count: 300 as Count }),
      wire({ triggerId: 'et-2', clientTriggerId: 'b-2', count: 300 as Count }),
      wire({ triggerId: 'et-3', kind: 'trailing', stopLossPrice: PRICE_INVALID, trailAmount: 20_000 as Price }),
    );
    const one = (await triggers.submit(intent({ count: 300 as Count, clientTriggerId: 'b-1' }))).record!;
    const two = (await triggers.submit(intent({ count: 300 as Count, clientTriggerId: 'b-2' }))).record!;
    const trail = (await triggers.submit(intent({ kind: 'trailing', stopLossPrice: PRICE_INVALID, trailAmount: 20_000 as Price }))).record!;
    expect([triggers.bracketCount(0, 0, false), triggers.bracketCountSum(0, 0, false), triggers.trailingCount(0, 0, false)]).toEqual([2, 600, 1]);

    venue.answers.push(wire({ triggerId: 'et-1', clientTriggerId: 'b-1', count: 300 as Count, stopLossPrice: 900_000 as Price, takeProfitPrice: 1_100_000 as Price }));
    const updated = await triggers.submit(intent({ action: TriggerAction.UPDATE, triggerId: 'et-1', takeProfitPrice: 1_100_000 as Price }));
    expect(updated.record).toBe(one);
    expect(one).toMatchObject({ stopLossPrice: 900_000, takeProfitPrice: 1_100_000 });

    venue.answers.push(null);
    await triggers.submit(intent({ action: TriggerAction.DELETE, triggerId: 'et-2' }));
    expect(venue.calls.at(-1)).toBe('cancelById KXBTCPERP et-2');
    expect(two).toMatchObject({ state: TriggerState.CANCELED, statusReason: 'user_canceled', live: false });
    expect(one.live).toBe(true);

    venue.answers.push(null);
    await triggers.submit(intent({ action: TriggerAction.DELETE, kind: 'trailing' }));
    expect(venue.calls.at(-1)).toBe('cancel KXBTCPERP cross trailing');
    expect(trail.state).toBe(TriggerState.CANCELED);
    expect([triggers.bracketCount(0, 0, false), triggers.trailingCount(0, 0, false)]).toEqual([1, 0]);

    venue.answers.push(rejected('not_found', 404));
    const missing = await triggers.submit(intent({ action: TriggerAction.DELETE, triggerId: 'et-404' }));
    expect(missing.error).toMatchObject({ outcome: 'rejected', code: 'not_found', status: 404 });
  });
});

describe('ExitTriggerTable: states follow the venue', () => {
  it('an anchored trigger: pending_on_entry -> active -> pending_on_entry (fired) -> filled once the anchor is cleared', async () => {
    const { venue, triggers } = table();
    const base = { triggerId: 'et-7', clientTriggerId: 'anc', anchorOrderId: 'o-1', takeProfitPrice: 1_050_000 as Price };
    venue.answers.push(wire({ ...base, status: 'pending_on_entry' }));
    const record = (await triggers.submit(intent({ anchorOrderId: 'o-1', clientTriggerId: 'anc', takeProfitPrice: 1_050_000 as Price }))).record!;
    expect(record).toMatchObject({ state: TriggerState.PENDING_ON_ENTRY, anchored: true, live: true });
    expect(triggers.bracketCountSum(0, 0, false)).toBe(0); // anchored: outside the venue's count-fit rule

    const steps: [Partial<WireExitTrigger>, TriggerState, boolean][] = [
      [{ status: 'active', count: 400 as Count }, TriggerState.ACTIVE, true],
      [{ status: 'pending_on_entry', count: 400 as Count, filledCount: 400 as Count, triggeredLeg: 'take_profit', triggeredOrderId: 'sys-1' }, TriggerState.PENDING_ON_ENTRY, true],
      [{ status: 'active', count: 1_000 as Count, filledCount: 400 as Count, triggeredOrderId: 'sys-1' }, TriggerState.ACTIVE, true],
      // filled while the anchor is still named: not done (it may re-arm)
      [{ status: 'filled', count: 1_000 as Count, filledCount: 1_000 as Count, triggeredOrderId: 'sys-2' }, TriggerState.FILLED, true],
      [{ status: 'filled', anchorOrderId: '', count: 1_000 as Count, filledCount: 1_000 as Count, triggeredOrderId: 'sys-2' }, TriggerState.FILLED, false],
    ];
    for (const [change, state, live] of steps) {
      venue.answers.push([wire({ ...base, ...change })]);
      await triggers.reconcile('KXBTCPERP', 0, false);
      expect(record.state).toBe(state);
      expect(record.live).toBe(live);
    }
    expect(record.done).toBe(true);
    expect(record.anchored).toBe(true); // kept after the venue cleared anchor_order_id
    // every order it fired stays linked
    expect(triggers.triggerOfOrder('sys-1')).toBe(record);
    expect(triggers.triggerOfOrder('sys-2')).toBe(record);
    expect(triggers.triggerOfOrder('other')).toBeNull();
  });

  it("a status this build does not know reads as 'unknown' and stays live; failed and canceled end it", async () => {
    const { venue, triggers } = table();
    venue.answers.push(wire({ status: 'unknown' }));
    const record = (await triggers.submit(intent())).record!;
    expect(record).toMatchObject({ state: TriggerState.UNKNOWN, live: true });
    venue.answers.push([wire({ status: 'failed', statusReason: 'order_rejected' })]);
    await triggers.reconcile('KXBTCPERP', 0, false);
    expect(record).toMatchObject({ state: TriggerState.FAILED, statusReason: 'order_rejected', live: false, done: false });
  });

  it('reconcile adopts venue triggers it did not know and marks unlisted live ones gone; a write in flight is left to its answer', async () => {
    const { venue, triggers } = table();
    venue.answers.push(wire({ triggerId: 'et-1' }));
    const ours = (await triggers.submit(intent())).record!;
    let release!: () => void;
    venue.hold = new Promise<void>((resolve) => (release = resolve));
    venue.answers.push(wire({ triggerId: 'et-3', clientTriggerId: 'late', count: 100 as Count }));
    const inFlight = triggers.submit(intent({ count: 100 as Count, clientTriggerId: 'late' }));
    await Promise.resolve();
    const sending = triggers.byClientTriggerId('late')!;
    expect(sending.state).toBe(TriggerState.SENDING);
    expect(triggers.bracketCount(0, 0, false)).toBe(2); // in flight: counted by the gate
    venue.hold = null;
    release();
    await inFlight;
    // the list no longer has et-1 but has one set elsewhere (another session)
    venue.answers.push([wire({ triggerId: 'et-3', clientTriggerId: 'late', count: 100 as Count }), wire({ triggerId: 'et-8', kind: 'trailing', trailBps: 50, stopLossPrice: PRICE_INVALID })]);
    const listed = await triggers.reconcile('KXBTCPERP', 0, false);
    expect(listed.map((r) => r.triggerId)).toEqual(['et-3', 'et-8']);
    expect(ours.state).toBe(TriggerState.GONE);
    expect(triggers.byTriggerId('et-8')).toMatchObject({ kind: 'trailing', trailBps: 50, strategyId: -1, market: 0, state: TriggerState.ACTIVE });
    expect([triggers.bracketCount(0, 0, false), triggers.trailingCount(0, 0, false)]).toEqual([1, 1]);
  });

  it('a whole-position bracket counts as the position in bracketCountSum; other positions are apart', async () => {
    const { venue, triggers } = table({ position: -700 });
    venue.answers.push(wire());
    await triggers.submit(intent());
    expect(triggers.bracketCountSum(0, 0, false)).toBe(700);
    expect([triggers.bracketCount(0, 0, true), triggers.bracketCount(1, 0, false), triggers.bracketCount(0, 1, false), triggers.bracketCount(-1, 0, false)]).toEqual([0, 0, 0, 0]);
  });
});

describe('ExitTriggerTable: orders and bounds', () => {
  it('linkOrder: exact when the venue shows the order, inferred when one trigger left the list, null when ambiguous', async () => {
    const { venue, triggers } = table();
    venue.answers.push(wire({ triggerId: 'et-1', triggeredOrderId: '' }));
    const bracket = (await triggers.submit(intent())).record!;
    venue.answers.push([], []); // cross then isolated: the filled bracket is no longer listed
    expect(await triggers.linkOrder('sys-1', 'KXBTCPERP', 0)).toBe(bracket);
    expect(bracket).toMatchObject({ state: TriggerState.GONE, orderLinkInferred: true, triggeredOrderId: 'sys-1' });
    expect(triggers.triggerOfOrder('sys-1')).toBe(bracket);
    expect(await triggers.linkOrder('sys-1', 'KXBTCPERP', 0)).toBe(bracket); // no second reconcile
    expect(venue.calls.filter((c) => c.startsWith('list'))).toHaveLength(2);

    venue.answers.push(wire({ triggerId: 'et-2' }), wire({ triggerId: 'et-3', kind: 'trailing', stopLossPrice: PRICE_INVALID, trailBps: 100 }));
    await triggers.submit(intent());
    await triggers.submit(intent({ kind: 'trailing', stopLossPrice: PRICE_INVALID, trailBps: 100 }));
    venue.answers.push([], []);
    expect(await triggers.linkOrder('sys-2', 'KXBTCPERP', 0)).toBeNull(); // two ended unclaimed
  });

  it('bounded: finished records are evicted first; a table full of live ones refuses a submit, a reconcile evicts the oldest', async () => {
    const { venue, triggers } = table({ capacity: 3 });
    for (let i = 1; i <= 3; i++) venue.answers.push(wire({ triggerId: `et-${i}`, clientTriggerId: `k-${i}`, count: 100 as Count }));
    const records = [];
    for (let i = 1; i <= 3; i++) records.push((await triggers.submit(intent({ count: 100 as Count, clientTriggerId: `k-${i}` }))).record!);
    venue.answers.push(null);
    await triggers.submit(intent({ action: TriggerAction.DELETE, triggerId: 'et-2' }));
    venue.answers.push(wire({ triggerId: 'et-4', clientTriggerId: 'k-4', count: 100 as Count }));
    await triggers.submit(intent({ count: 100 as Count, clientTriggerId: 'k-4' }));
    expect(triggers.size).toBe(3);
    expect(triggers.byTriggerId('et-2')).toBeNull(); // the cancelled one went first
    expect(triggers.stats.evictedFinished).toBe(1);

    const callsBefore = venue.calls.length;
    const full = await triggers.submit(intent({ count: 100 as Count, clientTriggerId: 'k-5' }));
    expect(full.error).toMatchObject({ outcome: 'refused', code: 'trigger_table_full' });
    expect(venue.calls.length).toBe(callsBefore);

    venue.answers.push([wire({ triggerId: 'et-1', clientTriggerId: 'k-1', count: 100 as Count }), wire({ triggerId: 'et-3', clientTriggerId: 'k-3', count: 100 as Count }), wire({ triggerId: 'et-4', clientTriggerId: 'k-4', count: 100 as Count }), wire({ triggerId: 'et-9', clientTriggerId: 'k-9', count: 100 as Count })]);
    await triggers.reconcile('KXBTCPERP', 0, false);
    expect(triggers.size).toBe(3);
    expect(triggers.stats.evictedLive).toBe(1);
    expect(triggers.byTriggerId('et-9')).not.toBeNull();
  });

});

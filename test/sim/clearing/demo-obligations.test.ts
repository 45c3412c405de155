// Goal: a fresh simulator started as `npm run sim` starts it (demoObligations) gives the demo
// clearing member outstanding obligations to show: DEMO_CYCLES earlier settlement cycles for every
// asset class, every detail array populated, sums that reconcile, the oldest cycle's funding rows
// past the 1,000-row inline cap (flagged *_truncated) and reachable by paging, the same on every
// start with the same seed; and none without the option. Method: startSim in process on
// 127.0.0.1:0 with a fixed clock, fetch over real sockets with the demo clearing credential.

import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/index.ts';
import { DEMO_CYCLES, DEMO_WIDE_SUBTRADERS, INLINE_DETAIL_ROWS_MAX } from '../../../src/sim/clearing/index.ts';
import { startTestSim } from '../helpers/test-sim.ts';

type Sim = Awaited<ReturnType<typeof startTestSim>>;
const sims: Sim[] = [];
afterEach(async () => {
  for (const sim of sims.splice(0)) await sim.close();
});

async function start(demoObligations: boolean): Promise<Sim> {
  const sim = await startTestSim({ demoObligations, clock: new ManualClock(Date.UTC(2026, 2, 4, 15)) });
  sims.push(sim);
  return sim;
}

async function get(sim: Sim, path: string): Promise<any> {
  const response = await fetch(`${sim.demoClearing.url}${path}`, { headers: { Authorization: `Bearer ${sim.demoClearing.adminUserId}:${sim.demoClearing.accessToken}` } });
  const text = await response.text();
  expect(response.status, text.slice(0, 300)).toBe(200);
  return JSON.parse(text);
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

describe('demo clearing member obligations', () => {
  it('answers several cycles, every detail array populated, reconciling, one past the inline cap and paged', async () => {
    const sim = await start(true);
    const { obligations } = await get(sim, '/margin/active_obligations');
    const classes = new Set(obligations.map((o: any) => o.asset_class));
    expect(obligations.length).toBe(DEMO_CYCLES * classes.size);
    expect(new Set(obligations.map((o: any) => o.execution_time)).size).toBe(DEMO_CYCLES);
    for (const o of obligations) {
      expect(o.user_id).toBe(sim.userId);
      for (const array of ['settlement_details', 'maintenance_margin_details', 'funding_payments']) expect(o[array].length, `${o.id} ${array}`).toBeGreaterThan(0);
      expect(o.pnl_centicents).toBe(sum(o.settlement_details.map((d: any) => d.pnl_centicents)));
      expect(o.fees_centicents).toBe(sum(o.settlement_details.map((d: any) => d.total_fees_centicents)));
      for (const d of o.settlement_details) expect(d.total_amount_centicents).toBe(d.pnl_centicents - d.total_fees_centicents);
      expect(o.maintenance_margin_centicents).toBe(sum(o.maintenance_margin_details.map((d: any) => d.maintenance_margin_centicents)));
      expect(o.amount_centicents).toBe(o.pnl_centicents - o.fees_centicents - sum(o.maintenance_margin_details.map((d: any) => d.maintenance_margin_delta_centicents)));
    }
    const wide = obligations.filter((o: any) => o.funding_payments_truncated === true);
    expect(wide).toHaveLength(1);
    expect(wide[0].funding_payments).toHaveLength(INLINE_DETAIL_ROWS_MAX);
    const rows: any[] = [];
    let cursor = '';
    for (let page = 0; page < 20; page++) {
      const reply = await get(sim, `/margin/obligations/${encodeURIComponent(wide[0].id)}/funding_payments?limit=${INLINE_DETAIL_ROWS_MAX}${cursor === '' ? '' : `&cursor=${cursor}`}`);
      rows.push(...reply.funding_payments);
      cursor = reply.cursor;
      if (cursor === '') break;
    }
    expect(cursor).toBe('');
    expect(rows.length).toBeGreaterThan(INLINE_DETAIL_ROWS_MAX);
    expect(rows.length % (DEMO_WIDE_SUBTRADERS * 24)).toBe(0); // 50 subtraders x 24 hourly times per market
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    expect(rows.slice(0, INLINE_DETAIL_ROWS_MAX)).toEqual(wide[0].funding_payments);
    // The rows past 1,000 are the ones the inline answer left out.
    expect(rows.slice(INLINE_DETAIL_ROWS_MAX).some((r) => wide[0].funding_payments.some((f: any) => f.id === r.id))).toBe(false);
  });

  it('is the same on every start with the same seed, and absent without the option', async () => {
    const first = await get(await start(true), '/margin/active_obligations');
    const second = await get(await start(true), '/margin/active_obligations');
    expect(second).toEqual(first);
    expect(await get(await start(false), '/margin/active_obligations')).toEqual({ obligations: [] });
  });
});

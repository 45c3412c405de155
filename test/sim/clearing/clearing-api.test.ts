// Goal: the clearing-member API served by the simulator from the Margin exchange: bearer auth
// (401 / 403), obligations whose sums reconcile with the member's own fills and funding, the
// funding estimate by asset class, and the 1,000-row inline cap with *_truncated and the detail
// paging routes. Method: an in-process sim (../margin/margin-sim.ts) on 127.0.0.1:0, a manual
// clock for funding, plain fetch with `Authorization: Bearer admin_user_id:access_token`.

import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { CLEARING_PREFIX } from '../../../src/sim/clearing/index.ts';
import { marginOrder, startMarginSim, type MarginSim } from '../margin/margin-sim.ts';

let sim: MarginSim | null = null;
afterEach(() => {
  sim?.close();
  sim = null;
});

async function clearing(path: string, authorization: string | null): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = authorization === null ? {} : { Authorization: authorization };
  const response = await fetch(`${sim!.httpUrl}${CLEARING_PREFIX}${path}`, { headers });
  return { status: response.status, body: JSON.parse(await response.text()) };
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

describe('clearing-member API', () => {
  it('authenticates with bearer admin_user_id:access_token and answers 401 / 403 with the error body', async () => {
    sim = await startMarginSim();
    const full = sim.services.clearing.issue('alice');
    const obligationsOnly = sim.services.clearing.issue('alice', ['obligations']);
    for (const header of [null, 'Basic abc', `Bearer ${full.adminUserId}:wrong-token`, `Bearer ${full.adminUserId}`, 'Bearer nobody:x']) {
      const reply = await clearing('/margin/active_obligations', header);
      expect(reply.status).toBe(401);
      expect(typeof reply.body.code).toBe('string');
      expect(typeof reply.body.message).toBe('string');
    }
    const forbidden = await clearing('/margin/funding_estimate_by_asset_class', `Bearer ${obligationsOnly.adminUserId}:${obligationsOnly.accessToken}`);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('forbidden');
    const empty = await clearing('/margin/active_obligations', `Bearer ${full.adminUserId}:${full.accessToken}`);
    expect(empty).toEqual({ status: 200, body: { obligations: [] } });
  });

  it('derives obligations from the member fills and funding so the sums reconcile', async () => {
    sim = await startMarginSim();
    const alice = sim.user('alice');
    const bob = sim.user('bob');
    const auth = (() => {
      const c = sim!.services.clearing.issue('alice');
      return `Bearer ${c.adminUserId}:${c.accessToken}`;
    })();
    await bob.post('/margin/orders', marginOrder({ side: 'ask', count: '7', price: '99.50' }));
    await alice.post('/margin/orders', marginOrder({ side: 'bid', count: '7', price: '99.50' }));
    await bob.post('/margin/orders', marginOrder({ side: 'bid', count: '2', price: '99.00' }));
    await alice.post('/margin/orders', marginOrder({ side: 'ask', count: '2', price: '99.00' })); // closes 2 at a $1.00 loss
    const estimate = await clearing('/margin/funding_estimate_by_asset_class', auth);
    expect(estimate.status).toBe(200);
    // 5 long at mark 99.00, reference 100: premium -1%, capped at -0.75% -> +$495 x 0.0075 = 37,125 centicents
    expect(estimate.body.estimates.Crypto).toEqual({ estimated_funding_centicents: 37_125, next_funding_time: '2026-01-01T01:00:00.000Z' });
    sim.clock.advance(3_600_000);
    const reply = await clearing('/margin/active_obligations', auth);
    expect(reply.status).toBe(200);
    const [obligation] = reply.body.obligations;
    expect(reply.body.obligations).toHaveLength(1);
    expect(obligation).toMatchObject({ user_id: 'alice', asset_class: 'Crypto', receives: [], execution_time: '2026-01-02T00:00:00.000Z' });
    // realized 2 x -$0.50 = -10,000; funding +37,125; unrealized 5 x (99.00 - 99.50) = -25,000
    // fees (alice takes both times): $696.50 x 0.0005 = 3,483 (rounded up) + $198 x 0.0005 = 990
    expect(obligation.settlement_details).toEqual([
      { id: expect.any(String), market_ticker: 'KXBTCPERP', subtrader_id: '0', position_quantity_fp: '5.00', pnl_centicents: 2_125, total_fees_centicents: 4_473, total_amount_centicents: -2_348 },
    ]);
    expect(obligation.funding_payments).toEqual([
      { id: expect.any(String), market_ticker: 'KXBTCPERP', subtrader_id: '0', funding_time: '2026-01-01T01:00:00.000Z', position_quantity_fp: '5.00', notional_value_centicents: 4_950_000, funding_amount_centicents: 37_125 },
    ]);
    const fills = sim.margin.fills.filter((f) => f.userId === 'alice');
    expect(obligation.fees_centicents).toBe(sum(fills.map((f) => f.fee)));
    expect(obligation.pnl_centicents).toBe(sum(obligation.settlement_details.map((d: any) => d.pnl_centicents)));
    expect(obligation.maintenance_margin_centicents).toBe(sum(obligation.maintenance_margin_details.map((d: any) => d.maintenance_margin_centicents)));
    expect(obligation.maintenance_margin_centicents).toBe(247_500); // 5 x $99 x 5%
    expect(obligation.amount_centicents).toBe(obligation.pnl_centicents - obligation.fees_centicents - sum(obligation.maintenance_margin_details.map((d: any) => d.maintenance_margin_delta_centicents)));
    for (const field of ['settlement_details_truncated', 'maintenance_margin_details_truncated', 'funding_payments_truncated']) expect(field in obligation).toBe(false);
    expect((await clearing(`/margin/obligations/nope/settlement_details`, auth)).status).toBe(404);
  });

  it('caps inline funding payments at 1000 rows and pages the full set', async () => {
    const catalog = JSON.parse(readFileSync('config/margin-markets.json', 'utf8'));
    catalog.markets[0].funding_interval_seconds = 1;
    sim = await startMarginSim({ catalog });
    const alice = sim.user('alice');
    const bob = sim.user('bob');
    const c = sim.services.clearing.issue('alice');
    const auth = `Bearer ${c.adminUserId}:${c.accessToken}`;
    await bob.post('/margin/orders', marginOrder({ side: 'ask', count: '1', price: '101.00' }));
    await alice.post('/margin/orders', marginOrder({ side: 'bid', count: '1', price: '101.00' }));
    sim.clock.advance(1_500_000); // 1,500 funding times of one second
    const [obligation] = (await clearing('/margin/active_obligations', auth)).body.obligations;
    expect(obligation.funding_payments).toHaveLength(1000);
    expect(obligation.funding_payments_truncated).toBe(true);
    const pages: any[] = [];
    let cursor = '';
    for (let page = 0; page < 10; page++) {
      const reply = await clearing(`/margin/obligations/${encodeURIComponent(obligation.id)}/funding_payments?limit=400${cursor === '' ? '' : `&cursor=${cursor}`}`, auth);
      expect(reply.status).toBe(200);
      pages.push(...reply.body.funding_payments);
      cursor = reply.body.cursor;
      if (cursor === '') break;
    }
    expect(pages).toHaveLength(1500);
    expect(new Set(pages.map((p) => p.id)).size).toBe(1500);
    // the settlement detail's pnl includes all 1,500 payments (rate capped at +0.75%: the long pays)
    const funding = sum(pages.map((p) => p.funding_amount_centicents));
    expect(funding).toBe(-1500 * 7575);
  });
});

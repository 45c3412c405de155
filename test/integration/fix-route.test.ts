/**
 * Goal: a strategy whose config entry says route "fix" trades over the FIX route end to end, with
 * nothing upstream knowing it: its orders go out as FIX messages (none on REST), rest at the
 * venue, fill against a counterparty into the same position the venue reports, and the stop
 * cancels them (the stop's cancel-all on REST reaches orders placed over FIX). A strategy on the
 * REST route in the same runtime keeps using REST. The keep-warm rehearses its orders on the FIX
 * route all along (encoded, never sent), and the session keeps working: nothing refused or unsent.
 * Method: an in-process simulator with its FIX acceptor, the Runtime built as the main job builds
 * it (createRuntime) with the acceptor's KalshiNR endpoint as venue.fix; real sockets throughout.
 */

import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OrderState } from '../../src/oms/index.ts';
import type { Runtime } from '../../src/runtime/runtime.ts';
import { MARKET, counterpartyKey, createRuntime, demoKey, entry, orderBody, rest, startTestSim, waitUntil } from './helpers.ts';
import type { TestSim } from './helpers.ts';

let sim: TestSim;
let runtime: Runtime | null = null;

beforeAll(async () => {
  sim = await startTestSim({ fix: { enabled: true } });
});

afterEach(async () => {
  await runtime?.stop('test done');
  runtime = null;
});

afterAll(async () => {
  await sim.close();
});

const resting = (rt: Runtime, subaccount: number) => rt.oms.liveOrders().filter((o) => o.state === OrderState.RESTING && o.subaccount === subaccount);

describe('the FIX route chosen in config', () => {
  it('quotes over FIX, fills, and the stop leaves nothing resting at the venue', async () => {
    const key = demoKey(sim);
    const fix = sim.fix!;
    const rt = createRuntime(sim, {
      strategies: [
        { ...entry('mm-fix', 'strategies/market-maker.ts', { fairValue: '0.5000', halfSpreadTicks: 2, size: '3.00', maxPosition: '10.00', timerIntervalMs: 100 }, 1), route: 'fix' },
        entry('mm-rest', 'strategies/market-maker.ts', { fairValue: '0.5000', halfSpreadTicks: 6, size: '1.00', maxPosition: '10.00', timerIntervalMs: 100 }, 2),
      ],
      journalPath: join(sim.workDir, 'fix-route.jsonl'),
      options: { venue: { restUrl: `${sim.httpUrl}/trade-api/v2`, wsUrl: sim.wsUrl, keyId: key.keyId, privateKey: key.privateKey, fix: { host: fix.host, port: fix.ports.KalshiNR, tls: false } } },
    });
    runtime = rt;
    await rt.start();
    await waitUntil(() => resting(rt, 1).length === 2 && resting(rt, 2).length === 2, 8_000, 'two quotes on each route');
    expect(rt.fix).not.toBeNull();
    expect(rt.fix!.stats.requests).toBeGreaterThanOrEqual(2);
    expect(resting(rt, 1).every((o) => o.route === 1)).toBe(true);
    expect(resting(rt, 2).every((o) => o.route === 0)).toBe(true);
    // The keep-warm (every 1 ms by default) rehearses on the FIX route too.
    await waitUntil(() => rt.fix!.stats.rehearsals >= 100, 8_000, 'keep-warm rehearsals on the FIX route');

    const atVenue = await rest(sim, key, 'GET', `/portfolio/orders?ticker=${MARKET}&status=resting&subaccount=1`);
    expect((atVenue.body.orders as { client_order_id: string }[]).map((o) => o.client_order_id).sort()).toEqual(resting(rt, 1).map((o) => o.clientOrderId).sort());

    // A counterparty sells 2 into the FIX strategy's bid at 0.48.
    const fill = await rest(sim, counterpartyKey(sim), 'POST', '/portfolio/events/orders', orderBody('ask', '0.4800', '2.00', 'immediate_or_cancel'));
    expect(fill.status).toBe(201);
    await waitUntil(() => rt.router.position(1, MARKET) === 200, 8_000, 'position +2.00 from the FIX fill');
    const positions = await rest(sim, key, 'GET', `/portfolio/positions?subaccount=1&ticker=${MARKET}`);
    expect((positions.body.market_positions as { ticker: string; position_fp: string }[]).find((p) => p.ticker === MARKET)?.position_fp).toBe('2.00');

    // Hundreds of rehearsals in, the session took every real request: none refused, unsent or unanswered.
    expect({ notSent: rt.fix!.stats.notSent, rejects: rt.fix!.stats.rejects, unknowns: rt.fix!.stats.unknowns }).toEqual({ notSent: 0, rejects: 0, unknowns: 0 });
    expect(rt.fix!.stats.acks).toBeGreaterThanOrEqual(2);
    await rt.stop('test done');
    runtime = null;
    for (const subaccount of [1, 2]) {
      const left = await rest(sim, key, 'GET', `/portfolio/orders?ticker=${MARKET}&status=resting&subaccount=${subaccount}`);
      expect(left.body.orders).toEqual([]);
    }
  });
});

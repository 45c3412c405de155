// Goal: the clearing API survives hostile requests and slows credential guessing. A malformed
// query (a bare %, a bad %-escape, over 32 KiB) on any clearing path is the API's flat 400
// {code, message} and the simulator keeps serving other clients (it used to exit: the query was
// decoded outside the handler's try, inside the uWS callback). The bearer scheme is
// case-insensitive (RFC 7235). An address that fails authentication AUTH_FAILURES_MAX times in a
// window gets 429 (even with a good credential) until the window ends, while other addresses are
// served. Method: an in-process sim (../margin/margin-sim.ts) on 127.0.0.1:0 with a manual clock;
// raw HTTP over sockets, the throttled client bound to 127.0.0.2.

import { afterEach, describe, expect, it } from 'vitest';
import { CLEARING_PREFIX } from '../../../src/sim/clearing/index.ts';
import { AUTH_FAILURE_WINDOW_MS, AUTH_FAILURES_MAX, AuthThrottle, AUTH_THROTTLE_ADDRESSES_MAX } from '../../../src/sim/clearing/auth-throttle.ts';
import { rawGet } from '../helpers/raw-http.ts';
import { startMarginSim, type MarginSim } from '../margin/margin-sim.ts';

let sim: MarginSim | null = null;
afterEach(() => {
  sim?.close();
  sim = null;
});

function portOf(s: MarginSim): number {
  return Number(new URL(s.httpUrl).port);
}

describe('clearing API hardening', () => {
  it('answers malformed queries with the flat 400 and keeps serving another client', async () => {
    sim = await startMarginSim();
    const c = sim.services.clearing.issue('alice');
    const auth = { Authorization: `Bearer ${c.adminUserId}:${c.accessToken}` };
    const targets = [
      `${CLEARING_PREFIX}/x?%`,
      `${CLEARING_PREFIX}/x?x=%zz`,
      `${CLEARING_PREFIX}/margin/active_obligations?%`,
      `${CLEARING_PREFIX}/margin/active_obligations?${'a'.repeat(33 * 1024)}`,
      `${CLEARING_PREFIX}/margin/obligations/o/funding_payments?limit=%E0%A4%A`,
    ];
    for (const target of targets) {
      const answer = await rawGet(portOf(sim), target, auth);
      expect(answer.status, target.slice(0, 80)).toBe(400);
      const body = JSON.parse(answer.body);
      expect(body.code).toBe('bad_request');
      expect(typeof body.message).toBe('string');
      expect('msg' in body).toBe(false);
    }
    const after = await fetch(`${sim.httpUrl}${CLEARING_PREFIX}/margin/active_obligations`, { headers: auth });
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual({ obligations: [] });
    // And the trading API beside it.
    expect((await rawGet(portOf(sim), '/trade-api/v2/markets?%')).status).toBe(400);
    expect((await fetch(`${sim.httpUrl}/trade-api/v2/markets?limit=1`)).status).toBe(200);
  });

  it('accepts the bearer scheme in any case', async () => {
    sim = await startMarginSim();
    const c = sim.services.clearing.issue('alice');
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      const answer = await rawGet(portOf(sim), `${CLEARING_PREFIX}/margin/active_obligations`, { Authorization: `${scheme} ${c.adminUserId}:${c.accessToken}` });
      expect(answer.status, scheme).toBe(200);
    }
    for (const header of ['Bearerx a:b', 'bearer', 'Basic a:b']) {
      expect((await rawGet(portOf(sim), `${CLEARING_PREFIX}/margin/active_obligations`, { Authorization: header })).status, header).toBe(401);
    }
  });

  it('throttles an address after repeated failed authentications, not other addresses, until the window ends', async () => {
    sim = await startMarginSim();
    const port = portOf(sim);
    const c = sim.services.clearing.issue('alice');
    const good = { Authorization: `Bearer ${c.adminUserId}:${c.accessToken}` };
    const bad = { Authorization: `Bearer ${c.adminUserId}:wrong-token` };
    const path = `${CLEARING_PREFIX}/margin/active_obligations`;
    for (let i = 0; i < AUTH_FAILURES_MAX; i++) expect((await rawGet(port, path, bad, '127.0.0.2')).status).toBe(401);
    const refused = await rawGet(port, path, bad, '127.0.0.2');
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'too_many_requests', message: expect.any(String) });
    // Even the right token is not checked while throttled: guessing gains nothing.
    expect((await rawGet(port, path, good, '127.0.0.2')).status).toBe(429);
    // Another address is served meanwhile, and its own failures are counted apart.
    expect((await rawGet(port, path, good, '127.0.0.1')).status).toBe(200);
    expect((await rawGet(port, path, bad, '127.0.0.1')).status).toBe(401);
    sim.clock.advance(AUTH_FAILURE_WINDOW_MS);
    expect((await rawGet(port, path, good, '127.0.0.2')).status).toBe(200);
  });

  it('keeps the throttle bounded in memory and counts per window', () => {
    let nowMs = 0;
    const throttle = new AuthThrottle(() => nowMs);
    for (let i = 0; i < AUTH_THROTTLE_ADDRESSES_MAX + 500; i++) throttle.noteFailure(`10.0.${i >> 8}.${i & 255}`);
    expect(throttle.size).toBe(AUTH_THROTTLE_ADDRESSES_MAX);
    for (let i = 0; i < AUTH_FAILURES_MAX - 1; i++) throttle.noteFailure('a');
    expect(throttle.retryAfterMs('a')).toBe(0);
    throttle.noteFailure('a');
    expect(throttle.retryAfterMs('a')).toBe(AUTH_FAILURE_WINDOW_MS);
    nowMs = AUTH_FAILURE_WINDOW_MS - 1;
    expect(throttle.retryAfterMs('a')).toBe(1);
    nowMs = AUTH_FAILURE_WINDOW_MS;
    expect(throttle.retryAfterMs('a')).toBe(0);
    throttle.noteFailure('a'); // a new window: one failure
    expect(throttle.retryAfterMs('a')).toBe(0);
  });
});

// Goal: fault rules fire exactly as targeted (next N, skip, method/path, key, channel, market) and
// probabilistic rules replay identically under the same seed. Method: query the controller the
// way the servers do, with no sockets.

import { describe, expect, it } from 'vitest';
import { FAULT_PROFILES, FaultController, FaultRuleError } from '../../../src/sim/faults/index.ts';

const CREATE = { method: 'POST', routeTemplate: '/portfolio/events/orders', relativePath: '/portfolio/events/orders', keyId: 'k1', orderEntry: true };
const MARKETS = { method: 'GET', routeTemplate: '/markets', relativePath: '/markets', keyId: null, orderEntry: false };

describe('FaultController', () => {
  it('fires on the next N matching requests only', () => {
    const faults = new FaultController(7);
    expect(faults.restActive).toBe(false);
    const id = faults.add({ kind: 'rest_error', status: 502, target: { times: 2, path: '/markets' } });
    expect(faults.decideRest(CREATE).kind).toBeNull();
    expect(faults.decideRest(MARKETS)).toMatchObject({ kind: 'rest_error', status: 502 });
    expect(faults.decideRest(MARKETS).kind).toBe('rest_error');
    expect(faults.decideRest(MARKETS).kind).toBeNull();
    expect(faults.firedCount(id)).toBe(2);
    expect(faults.remove(id)).toBe(true);
    expect(faults.restActive).toBe(false);
  });

  it('ambiguous_order targets order entry only; skip lets matches through', () => {
    const faults = new FaultController(7);
    faults.add({ kind: 'ambiguous_order', mode: 'hang', target: { skip: 1, times: 1 } });
    expect(faults.decideRest(MARKETS).kind).toBeNull();
    expect(faults.decideRest(CREATE).kind).toBeNull(); // skipped
    expect(faults.decideRest(CREATE)).toMatchObject({ kind: 'ambiguous_order', mode: 'hang', status: 500 });
    expect(faults.decideRest(CREATE).kind).toBeNull();
  });

  it('regexp paths, methods and key ids narrow the match', () => {
    const faults = new FaultController(7);
    faults.add({ kind: 'rest_hang', target: { path: /^\/portfolio\//, method: 'post', keyId: 'k1' } });
    expect(faults.decideRest(CREATE).kind).toBe('rest_hang');
    expect(faults.decideRest({ ...CREATE, keyId: 'k2' }).kind).toBeNull();
    expect(faults.decideRest({ ...CREATE, method: 'GET' }).kind).toBeNull();
  });

  it('probabilistic rules replay identically under one seed and differ under another', () => {
    const run = (seed: number): boolean[] => {
      const faults = new FaultController(seed);
      faults.add({ kind: 'ws_drop_delta', target: { probability: 0.3 } });
      return Array.from({ length: 200 }, () => faults.decideWs('orderbook_delta', 'M', 'k', true).kind !== null);
    };
    expect(run(42)).toEqual(run(42));
    expect(run(42)).not.toEqual(run(43));
    const hits = run(42).filter(Boolean).length;
    expect(hits).toBeGreaterThan(30);
    expect(hits).toBeLessThan(90);
  });

  it('drop and reorder touch only deltas; channel and market filters apply', () => {
    const faults = new FaultController(1);
    faults.add({ kind: 'ws_drop_delta' });
    faults.add({ kind: 'ws_close', target: { channel: 'fill', marketTicker: 'A' } });
    expect(faults.decideWs('trade', 'A', 'k', false).kind).toBeNull();
    expect(faults.decideWs('orderbook_delta', 'A', 'k', true).kind).toBe('ws_drop_delta');
    expect(faults.decideWs('fill', 'B', 'k', false).kind).toBeNull();
    expect(faults.decideWs('fill', 'A', 'k', false).kind).toBe('ws_close');
  });

  it('profiles load by name; unknown names and bad rules are coded errors', () => {
    const faults = new FaultController(1, 'gappy-feed');
    expect(faults.list()).toHaveLength(FAULT_PROFILES['gappy-feed'].length);
    expect(faults.wsActive).toBe(true);
    expect(() => faults.useProfile('nope')).toThrow(FaultRuleError);
    expect(() => faults.add({ kind: 'rest_delay' })).toThrow(/delayMs/);
    expect(() => faults.add({ kind: 'rest_error', status: 404 })).toThrow(/500-599/);
    faults.clear();
    expect(faults.wsActive).toBe(false);
  });

  it('one-off actions reach attached actuators', () => {
    const faults = new FaultController(1);
    const calls: string[] = [];
    const detach = faults.attachWs({
      closeConnections: (filter, code) => (calls.push(`close ${filter.keyId ?? '*'} ${code}`), 2),
      overflowSubscriptions: (filter) => (calls.push(`overflow ${filter.channel ?? '*'}`), 1),
    });
    expect(faults.closeConnections({ keyId: 'k' }, 1011)).toBe(2);
    expect(faults.overflowSubscriptions({ channel: 'trade' })).toBe(1);
    detach();
    expect(faults.closeConnections()).toBe(0);
    expect(calls).toEqual(['close k 1011', 'overflow trade']);
  });
});

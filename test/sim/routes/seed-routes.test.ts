// Goal: every REST method+path the seed (interface-spec.md, part Endpoints) names is served by the
// simulator. Method: the list lives as data in seed-routes.json (92 entries; how they were counted
// is recorded there). Each trade-API entry must be in the simulator's route table (ALL_ROUTES,
// path parameters compared by position) and each entry of either API must answer over HTTP with
// something other than the server's "no such route" 404 or a 405; entries the seed marks removed
// must answer 410. Placeholder path parameters are fine: a 404 for an unknown resource is a served
// route (its message never starts with "no route").

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_ROUTES } from '../../../src/sim/server/rest/routes/index.ts';
import { CLEARING_PREFIX } from '../../../src/sim/clearing/index.ts';
import { RestClient } from '../helpers/clients.ts';
import { startTestSim } from '../helpers/test-sim.ts';

interface SeedRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  base: 'trade' | 'clearing';
  section: string;
  removed?: string;
  note?: string;
}

const SEED = JSON.parse(readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), 'seed-routes.json'), 'utf8')) as { routes: SeedRoute[] };
const SEED_ROUTE_COUNT = 92;

/** `/a/{x}/b` -> `/a/{}/b`: templates match whatever their parameters are called. */
function shape(path: string): string {
  return path.replace(/\{[^}]+\}/g, '{}');
}

/** A concrete path: every parameter becomes a placeholder id. */
function concrete(path: string): string {
  return path.replace(/\{[^}]+\}/g, 'SEEDCHECK1');
}

describe('seed route list', () => {
  it('holds 92 distinct method+paths', () => {
    expect(SEED.routes).toHaveLength(SEED_ROUTE_COUNT);
    const keys = new Set(SEED.routes.map((r) => `${r.base} ${r.method} ${r.path}`));
    expect(keys.size).toBe(SEED_ROUTE_COUNT);
  });

  it('finds every trade-API route in the route table', () => {
    const table = new Set(ALL_ROUTES.map((r) => `${r.method} ${shape(r.path)}`));
    const missing = SEED.routes.filter((r) => r.base === 'trade' && !table.has(`${r.method} ${shape(r.path)}`)).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
  });
});

describe('seed routes over HTTP', () => {
  let sim: Awaited<ReturnType<typeof startTestSim>>;
  let client: RestClient;

  beforeAll(async () => {
    sim = await startTestSim({ rateLimits: false });
    client = new RestClient(sim.httpUrl, sim.demoKey);
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('answers every seed route with something other than "no such route"', async () => {
    const unserved: string[] = [];
    for (const seed of SEED.routes) {
      // Bodies: `{}` on writes, so JSON decoding passes and the handler's own validation answers.
      const body = seed.method === 'GET' ? undefined : {};
      let status: number;
      let message: string;
      if (seed.base === 'clearing') {
        const response = await fetch(`${sim.httpUrl}${CLEARING_PREFIX}${concrete(seed.path)}`, { method: seed.method });
        const parsed = (await response.json()) as { message?: string };
        status = response.status;
        message = parsed.message ?? '';
      } else {
        const result = await client.request(seed.method, concrete(seed.path), body);
        status = result.status;
        message = String(result.body?.error?.message ?? result.body?.message ?? '');
      }
      const noRoute = (status === 404 && message.startsWith('no route')) || status === 405;
      if (seed.removed !== undefined) {
        if (status !== 410) unserved.push(`${seed.method} ${seed.path}: removed route answered ${status}, want 410`);
      } else if (noRoute) unserved.push(`${seed.method} ${seed.path}: ${status} ${message}`);
    }
    expect(unserved).toEqual([]);
  });

  it('tells a missing route apart (the check can fail)', async () => {
    const result = await client.request('GET', '/no/such/route');
    expect(result.status).toBe(404);
    expect(String(result.body.error.message)).toMatch(/^no route/);
  });
});

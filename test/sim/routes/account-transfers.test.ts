// Goal: the seed's account, key and money-moving routes behave as interface-spec and the OpenAPI
// say: API keys (generate and create with an optional subaccount lock, list with
// api_key_region_expiration_ts, delete), the Perps limits, volume progress and the Advanced
// self-upgrade; intra-exchange-instance transfers in three non-atomic steps (a failed step leaves
// the earlier ones done), their history; subaccount creation and transfers (idempotent); the target
// balance allocation (max / sum). Method: an in-process simulator on 127.0.0.1 port 0, the official
// client `kalshi-typescript` where it has the method, raw signed requests for errors; every request
// body sent and every response body read is validated against the published OpenAPI (read from
// ../shared/spec/schemas); balances are read from the engine in centicents.

import { createRequire } from 'node:module';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountApi, ApiKeysApi, Configuration, PortfolioApi } from 'kalshi-typescript';
import { isSimError } from '../../../src/sim/engine/index.ts';
import { RestClient } from '../helpers/clients.ts';
import { errorsOf, OpenApiValidator } from '../helpers/schemas.ts';
import { MARKET, order, startTestSim } from '../helpers/test-sim.ts';

const clientRequire = createRequire(createRequire(import.meta.url).resolve('kalshi-typescript'));
const axios = clientRequire('axios') as { create(): any };
const openapi = new OpenApiValidator();
const FUNDING = 1_000_000 * 10_000; // startSim's default fundingDollars, centicents

function checkResponse(method: string, path: string, status: number, body: unknown): void {
  const validate = openapi.response(method, path, status);
  expect(validate(body), `${method} ${path} ${status}: ${errorsOf(validate)}\n${JSON.stringify(body).slice(0, 600)}`).toBe(true);
}

function checkRequest(method: string, path: string, body: unknown): void {
  const validate = openapi.request(method, path);
  expect(validate(body), `${method} ${path} request: ${errorsOf(validate)}`).toBe(true);
}

describe('seed account, keys and transfers', () => {
  let sim: Awaited<ReturnType<typeof startTestSim>>;
  let userCounter = 0;

  beforeAll(async () => {
    sim = await startTestSim({ rateLimits: false });
  });
  afterAll(async () => {
    await sim?.close();
  });

  /** A fresh user with a full key: its REST client, official-client configuration and id. */
  function newUser(tier: 'basic' | 'premier' = 'basic', subaccount?: number) {
    const userId = `acct-user-${++userCounter}`;
    const key = sim.createApiKey({ scopes: ['read', 'write'], tier, userId, ...(subaccount === undefined ? {} : { subaccount }) });
    const configuration = new Configuration({ basePath: `${sim.httpUrl}/trade-api/v2`, apiKey: key.keyId, privateKeyPem: key.privateKeyPem });
    return { userId, key, rest: new RestClient(sim.httpUrl, key), configuration };
  }

  /** Free cash on (subaccount, exchange index), centicents, from the engine. */
  function cash(userId: string, subaccount: number, exchangeIndex: number): number {
    const balances = sim.engine.listSubaccountBalances(userId);
    if (isSimError(balances)) throw new Error(balances.message);
    const entry = balances.find((b) => b.subaccount === subaccount && b.exchangeIndex === exchangeIndex);
    if (entry === undefined) throw new Error(`no balance for subaccount ${subaccount} index ${exchangeIndex}`);
    return entry.balance;
  }

  describe('API keys', () => {
    it('generates a subaccount-restricted key that only acts on its subaccount, and lists it', async () => {
      const owner = newUser();
      const api = new ApiKeysApi(owner.configuration, undefined, axios.create());
      const request = { name: 'bot on 4', scopes: ['read', 'write'] as never, subaccount: 4 };
      checkRequest('POST', '/api_keys/generate', request);
      const generated = await api.generateApiKey(request);
      expect(generated.status).toBe(201);
      checkResponse('POST', '/api_keys/generate', 201, generated.data);
      const restricted = new RestClient(sim.httpUrl, { keyId: generated.data.api_key_id, privateKeyPem: generated.data.private_key });
      expect((await restricted.get('/portfolio/balance?subaccount=4')).status).toBe(200);
      const foreign = await restricted.get('/portfolio/balance?subaccount=5');
      expect(foreign.status).toBe(403);
      // A restricted key cannot mint a wider key.
      expect((await restricted.post('/api_keys/generate', { name: 'escape' })).status).toBe(403);

      const listed = await api.getApiKeys();
      checkResponse('GET', '/api_keys', 200, listed.data);
      const entry = listed.data.api_keys.find((k) => k.api_key_id === generated.data.api_key_id);
      expect(entry).toMatchObject({ name: 'bot on 4', subaccount: 4, scopes: ['read', 'write'] });
      const full = listed.data.api_keys.find((k) => k.api_key_id === owner.key.keyId);
      expect(full?.subaccount).toBeUndefined(); // absent when unrestricted
      expect(listed.data.api_key_region_expiration_ts).toBeUndefined(); // never attested

      sim.services.keys.setRegionExpiration(owner.userId, 1_900_000_000);
      const attested = await api.getApiKeys();
      checkResponse('GET', '/api_keys', 200, attested.data);
      expect(attested.data.api_key_region_expiration_ts).toBe(1_900_000_000);
    });

    it('creates a key from a public key at Premier and above, refuses Basic, and deletes keys', async () => {
      const premier = newUser('premier');
      const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const request = { name: 'own pair', public_key: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
      checkRequest('POST', '/api_keys', request);
      const created = await new ApiKeysApi(premier.configuration, undefined, axios.create()).createApiKey(request);
      expect(created.status).toBe(201);
      checkResponse('POST', '/api_keys', 201, created.data);
      const own = new RestClient(sim.httpUrl, { keyId: created.data.api_key_id, privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() });
      expect((await own.get('/portfolio/balance')).status).toBe(200);

      const basic = newUser('basic');
      const refused = await basic.rest.post('/api_keys', request);
      expect(refused.status).toBe(403);

      const deleted = await new ApiKeysApi(premier.configuration, undefined, axios.create()).deleteApiKey(created.data.api_key_id);
      expect(deleted.status).toBe(204);
      expect((await own.get('/portfolio/balance')).status).toBe(401);
      expect((await premier.rest.delete(`/api_keys/${created.data.api_key_id}`)).status).toBe(404);
    });

    it('refuses Sports and Elections orders once the region attestation lapsed', async () => {
      const user = newUser();
      const nba = 'KXNBAGAME-26DEC25BOSLAL-BOS';
      const senate = 'KXSENATE-26NOV03-R';
      sim.services.keys.setRegionExpiration(user.userId, Math.floor(Date.now() / 1000) + 3600);
      expect((await user.rest.post('/portfolio/events/orders', order({ ticker: nba, price: '0.0500', count: '1' }))).status).toBe(201);
      sim.services.keys.setRegionExpiration(user.userId, Math.floor(Date.now() / 1000) - 1);
      const refused = await user.rest.post('/portfolio/events/orders', order({ ticker: nba, price: '0.0500', count: '1' }));
      expect(refused.status).toBe(403);
      expect(refused.body.error.details).toBe('api_key_region_expired');
      expect((await user.rest.post('/portfolio/events/orders', order({ ticker: senate, price: '0.0500', count: '1' }))).status).toBe(403);
      expect((await user.rest.post('/portfolio/events/orders', order({ ticker: MARKET, price: '0.0500', count: '1' }))).status).toBe(201);
      const batch = await user.rest.post('/portfolio/events/orders/batched', {
        orders: [order({ ticker: nba, price: '0.0500', count: '1' }), order({ ticker: MARKET, price: '0.0600', count: '1' })],
      });
      expect(batch.status).toBe(201);
      expect(batch.body.orders[0].error.details).toBe('api_key_region_expired');
      expect(batch.body.orders[1].order_id).toEqual(expect.any(String));
    });

    it('rejects invalid key requests with the exchange error shape', async () => {
      const user = newUser('premier');
      const writeWithoutRead = await user.rest.post('/api_keys/generate', { name: 'x', scopes: ['write'] });
      expect(writeWithoutRead.status).toBe(400);
      expect(writeWithoutRead.body.error.code).toBe('bad_request');
      expect((await user.rest.post('/api_keys/generate', { name: 'x'.repeat(101) })).status).toBe(400);
      expect((await user.rest.post('/api_keys/generate', { name: 'x', subaccount: 64 })).status).toBe(400);
      expect((await user.rest.post('/api_keys/generate', { name: 'x', scopes: ['admin'] })).status).toBe(400);
      expect((await user.rest.post('/api_keys/generate', {})).status).toBe(400);
      expect((await user.rest.post('/api_keys', { name: 'x', public_key: 'not a key' })).status).toBe(400);
    });
  });

  describe('usage levels', () => {
    it('reports the Perps lane limits with margined grants', async () => {
      const premier = newUser('premier');
      const limits = await premier.rest.get('/account/limits/perps');
      expect(limits.status).toBe(200);
      checkResponse('GET', '/account/limits/perps', 200, limits.body);
      expect(limits.body).toMatchObject({ usage_tier: 'premier', read: { refill_rate: 1000 }, grants: [{ exchange_instance: 'margined', level: 'premier' }] });
      const basic = await newUser('basic').rest.get('/account/limits/perps');
      expect(basic.body).toMatchObject({ usage_tier: 'basic', read: { refill_rate: 400, bucket_capacity: 400 }, write: { refill_rate: 100 }, grants: [] });
    });

    it('counts trailing 30-day volume from real fills', async () => {
      const maker = newUser();
      const taker = newUser();
      expect((await maker.rest.post('/portfolio/events/orders', order({ ticker: MARKET, side: 'bid', price: '0.4100', count: '7' }))).status).toBe(201);
      const crossed = await taker.rest.post('/portfolio/events/orders', order({ ticker: MARKET, side: 'ask', price: '0.4100', count: '7', time_in_force: 'immediate_or_cancel' }));
      expect(crossed.body.fill_count).toBe('7.00');
      const progress = await new AccountApi(taker.configuration, undefined, axios.create()).getAccountApiUsageLevelVolumeProgress();
      checkResponse('GET', '/account/api_usage_level/volume_progress', 200, progress.data);
      expect(progress.data.volume_progress[0].trailing_30d_volume_fp).toBe('7.00');
      expect(progress.data.volume_progress[0].goals.map((g) => g.level)).toEqual(['expert', 'premier', 'paragon', 'prime', 'prestige']);
      const idle = await newUser().rest.get('/account/api_usage_level/volume_progress');
      expect(idle.body.volume_progress[0].trailing_30d_volume_fp).toBe('0.00');
    });

    it('self-promotes to Advanced only after an API-created order', async () => {
      const user = newUser('basic');
      const api = new AccountApi(user.configuration, undefined, axios.create());
      const before = await user.rest.post('/account/api_usage_level/upgrade');
      expect(before.status).toBe(403);
      expect((await user.rest.post('/portfolio/events/orders', order({ price: '0.0500', count: '1' }))).status).toBe(201);
      const upgraded = await api.upgradeAccountApiUsageLevel();
      expect(upgraded.status).toBe(201);
      const limits = await api.getAccountApiLimits();
      checkResponse('GET', '/account/limits', 200, limits.data);
      expect(limits.data.usage_tier).toBe('advanced');
      expect(limits.data.write.refill_rate).toBe(300);
    });
  });

  describe('intra-exchange-instance transfers', () => {
    it('moves money between shards and subaccounts in three steps and records it', async () => {
      const user = newUser();
      const api = new PortfolioApi(user.configuration, undefined, axios.create());
      const request = { source: 'event_contract', destination: 'event_contract', amount: 50_000, source_exchange_shard: 0, destination_exchange_shard: 2, source_subaccount: 3, destination_subaccount: 5 } as const;
      checkRequest('POST', '/portfolio/intra_exchange_instance_transfer', request);
      const done = await api.intraExchangeInstanceTransfer(request as never);
      expect(done.status).toBe(200);
      checkResponse('POST', '/portfolio/intra_exchange_instance_transfer', 200, done.data);
      expect(cash(user.userId, 3, 0)).toBe(FUNDING - 50_000);
      expect(cash(user.userId, 5, 2)).toBe(FUNDING + 50_000);
      expect(cash(user.userId, 0, 0)).toBe(FUNDING); // passed through the primary and on
      expect(cash(user.userId, 0, 2)).toBe(FUNDING);
      const one = await api.getIntraExchangeInstanceTransfer(done.data.transfer_id);
      checkResponse('GET', '/portfolio/intra_exchange_instance_transfers/{transfer_id}', 200, one.data);
      expect(one.data.transfer).toMatchObject({ status: 'complete', amount: '5.0000', source_exchange_shard: 0, destination_exchange_shard: 2 });
    });

    it('keeps completed steps when a later step fails (transfers inactive on the destination shard)', async () => {
      const user = newUser();
      const amount = 120_000; // $12
      sim.engine.setExchangeIndexStatus(2, { intraExchangeTransfersActive: false });
      try {
        const failed = await user.rest.post('/portfolio/intra_exchange_instance_transfer', {
          source: 'event_contract', destination: 'event_contract', amount, source_exchange_shard: 0, destination_exchange_shard: 2, source_subaccount: 3, destination_subaccount: 5,
        });
        expect(failed.status).toBe(503);
        expect(failed.body.error.code).toBe('intra_exchange_transfers_inactive');
        expect(failed.body.error.details).toMatch(/failed_step=2; completed_steps=1 /);
        // Step 1 stands: the money left subaccount 3 for the primary; nothing reached shard 2.
        expect(cash(user.userId, 3, 0)).toBe(FUNDING - amount);
        expect(cash(user.userId, 0, 0)).toBe(FUNDING + amount);
        expect(cash(user.userId, 5, 2)).toBe(FUNDING);
        expect(cash(user.userId, 0, 2)).toBe(FUNDING);
        const transferId = /transfer_id=([^;]+);/.exec(failed.body.error.details)![1];
        const list = await new PortfolioApi(user.configuration, undefined, axios.create()).getIntraExchangeInstanceTransfers();
        checkResponse('GET', '/portfolio/intra_exchange_instance_transfers', 200, list.data);
        expect(list.data.transfers.map((t) => [t.transfer_id, t.status])).toEqual([[transferId, 'pending']]);
      } finally {
        sim.engine.setExchangeIndexStatus(2, { intraExchangeTransfersActive: true });
      }
    });

    it('moves nothing and records nothing when the first step fails', async () => {
      const user = newUser();
      const failed = await user.rest.post('/portfolio/intra_exchange_instance_transfer', {
        source: 'event_contract', destination: 'event_contract', amount: FUNDING + 1, destination_exchange_shard: 3, source_subaccount: 2,
      });
      expect(failed.status).toBe(400);
      expect(failed.body.error.code).toBe('insufficient_balance');
      expect(failed.body.error.details).toMatch(/failed_step=1; completed_steps=none/);
      expect(cash(user.userId, 2, 0)).toBe(FUNDING);
      expect((await user.rest.get('/portfolio/intra_exchange_instance_transfers')).body.transfers).toEqual([]);
    });

    it('moves cash to the Margin exchange and validates its input', async () => {
      const user = newUser();
      const moved = await user.rest.post('/portfolio/intra_exchange_instance_transfer', { source: 'event_contract', destination: 'margined', amount: 10_000 });
      expect(moved.status).toBe(200);
      expect(sim.services.margin.account(user.userId, 0)!.cash).toBe(FUNDING + 10_000);
      expect(cash(user.userId, 0, 0)).toBe(FUNDING - 10_000);
      const bad = [
        { source: 'event_contract', destination: 'event_contract', amount: 1 }, // same place
        { source: 'event_contract', destination: 'margined', amount: 1, destination_subaccount: 2 },
        { source: 'event_contract', destination: 'event_contract', amount: 1, destination_exchange_shard: 1 },
        { source: 'event_contract', destination: 'event_contract', amount: 0, destination_exchange_shard: 2 },
        { source: 'cash', destination: 'margined', amount: 1 },
        { source: 'event_contract', destination: 'margined', amount: '1' }, // money never as text or float
      ];
      for (const body of bad) expect((await user.rest.post('/portfolio/intra_exchange_instance_transfer', body)).status, JSON.stringify(body)).toBe(400);
      const restricted = newUser('basic', 3);
      expect((await restricted.rest.post('/portfolio/intra_exchange_instance_transfer', { source: 'event_contract', destination: 'margined', amount: 1 })).status).toBe(403);
    });
  });

  describe('subaccounts', () => {
    it('creates subaccounts and moves cash between them idempotently', async () => {
      const user = newUser();
      const api = new PortfolioApi(user.configuration, undefined, axios.create());
      const first = await api.createSubaccount({});
      expect(first.status).toBe(201);
      checkResponse('POST', '/portfolio/subaccounts', 201, first.data);
      expect(first.data.subaccount_number).toBe(1);
      expect((await api.createSubaccount({})).data.subaccount_number).toBe(2);

      const request = { client_transfer_id: randomUUID(), from_subaccount: 0, to_subaccount: 2, amount_cents: 1234 };
      checkRequest('POST', '/portfolio/subaccounts/transfer', request);
      const applied = await api.applySubaccountTransfer(request);
      expect(applied.status).toBe(200);
      checkResponse('POST', '/portfolio/subaccounts/transfer', 200, applied.data);
      expect(cash(user.userId, 0, 0)).toBe(FUNDING - 123_400);
      expect(cash(user.userId, 2, 0)).toBe(FUNDING + 123_400);
      expect((await api.applySubaccountTransfer(request)).status).toBe(200); // replay: no second move
      expect(cash(user.userId, 2, 0)).toBe(FUNDING + 123_400);
      const reused = await user.rest.post('/portfolio/subaccounts/transfer', { ...request, amount_cents: 1 });
      expect(reused.status).toBe(409);
      const list = await api.getSubaccountTransfers();
      checkResponse('GET', '/portfolio/subaccounts/transfers', 200, list.data);
      expect(list.data.transfers).toMatchObject([{ from_subaccount: 0, to_subaccount: 2, amount_cents: 1234, exchange_index: 0 }]);
      expect((await user.rest.post('/portfolio/subaccounts/transfer', { ...request, client_transfer_id: 'not-a-uuid' })).status).toBe(400);
      expect((await user.rest.post('/portfolio/subaccounts/transfer', { ...request, client_transfer_id: randomUUID(), amount_cents: FUNDING })).status).toBe(400);
      const restricted = newUser('basic', 1);
      expect((await restricted.rest.post('/portfolio/subaccounts', {})).status).toBe(403);
    });
  });

  describe('target balance allocation', () => {
    it('defaults to all on shard 0 with sum, stores max, and validates', async () => {
      const user = newUser();
      const api = new PortfolioApi(user.configuration, undefined, axios.create());
      const initial = await api.getTargetBalanceAllocation();
      checkResponse('GET', '/portfolio/target_balance_allocation', 200, initial.data);
      expect(initial.data).toEqual({ allocations: [{ exchange_index: 0, percent: 100 }], resting_margin_reservation: 'sum' });
      const request = { allocations: [{ exchange_index: 0, percent: 60 }, { exchange_index: 2, percent: 40 }], resting_margin_reservation: 'max' as const };
      checkRequest('POST', '/portfolio/target_balance_allocation', request);
      const set = await api.setTargetBalanceAllocation(request);
      expect(set.status).toBe(200);
      checkResponse('POST', '/portfolio/target_balance_allocation', 200, set.data);
      expect((await api.getTargetBalanceAllocation()).data).toEqual({ allocations: request.allocations, resting_margin_reservation: 'max' });
      const invalid = [
        { allocations: [{ exchange_index: 0, percent: 90 }] },
        { allocations: [{ exchange_index: 1, percent: 100 }] },
        { allocations: [{ exchange_index: 0, percent: 50 }, { exchange_index: 0, percent: 50 }] },
        { allocations: [{ exchange_index: 0, percent: 100 }], resting_margin_reservation: 'all' },
        { allocations: [] },
        { allocations: Array.from({ length: 102 }, () => ({ exchange_index: 0, percent: 0 })) },
      ];
      for (const body of invalid) expect((await user.rest.post('/portfolio/target_balance_allocation', body)).status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect((await api.getTargetBalanceAllocation()).data.resting_margin_reservation).toBe('max');
    });
  });
});

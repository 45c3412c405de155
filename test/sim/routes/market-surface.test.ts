// Goal: the rest of the seed's REST surface behaves as interface-spec and the OpenAPI say: GET
// /fcm/orders (client_order_ids up to 100, subtrader_id, both together, the 24-hour window),
// block-trade proposals (scopes, restricted keys, two acceptances execute a real trade), incentive
// programs (margin_maker_volume, event-only fields omitted), live data (weather index window,
// detailed points, calibrations, event-keyed data), margin candlesticks (with the volume-notional
// field), margin order groups bound to exchange_index 0, the removed routes (410), and the resting
// liquidity a simulator can start with. Method: in-process simulators on 127.0.0.1 port 0 (a
// manual clock where time matters), the official client `kalshi-typescript` where it has the
// method, raw signed requests otherwise; responses and request bodies validated with ajv against the
// published OpenAPI documents read from ../shared/spec/schemas.

import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommunicationsApi, Configuration, FcmApi, IncentiveProgramsApi, LiveDataApi, MarketApi } from 'kalshi-typescript';
import { ManualClock } from '../../../src/core/index.ts';
import { RestClient, type RestResult } from '../helpers/clients.ts';
import { errorsOf, OpenApiValidator } from '../helpers/schemas.ts';
import { MARKET, order, startTestSim } from '../helpers/test-sim.ts';
import { marginOrder, startMarginSim } from '../margin/margin-sim.ts';

const clientRequire = createRequire(createRequire(import.meta.url).resolve('kalshi-typescript'));
const axios = clientRequire('axios') as { create(): any };
// GET /fcm/orders: the document still requires subtrader_id; the seed and the official client
// (3.30.0, newer) make it optional beside client_order_ids.
const openapi = new OpenApiValidator((doc) => {
  const op = (doc.paths as any)['/fcm/orders'].get;
  for (const p of op.parameters) if (p.name === 'subtrader_id') p.required = false;
});
const marginSpec = new OpenApiValidator(() => {}, 'margin-api.openapi.yaml');

function check(method: string, path: string, status: number, body: unknown, spec = openapi): void {
  const validate = spec.response(method, path, status);
  expect(validate(body), `${method} ${path} ${status}: ${errorsOf(validate)}\n${JSON.stringify(body).slice(0, 600)}`).toBe(true);
}

function configurationOf(sim: { httpUrl: string }, key: { keyId: string; privateKeyPem: string }): Configuration {
  return new Configuration({ basePath: `${sim.httpUrl}/trade-api/v2`, apiKey: key.keyId, privateKeyPem: key.privateKeyPem });
}

const HOUR_MS = 3600 * 1000;

describe('GET /fcm/orders', () => {
  let sim: Awaited<ReturnType<typeof startTestSim>>;
  const clock = new ManualClock(Date.now());
  const fcmKey = { keyId: '', privateKeyPem: '' };
  let subtraderRest: RestClient;
  let otherRest: RestClient;

  beforeAll(async () => {
    // The clock moves a day ahead of the signatures' wall time: widen the accepted past.
    sim = await startTestSim({ rateLimits: false, clock, timestampWindow: { pastMs: 3 * 24 * HOUR_MS, futureMs: 30_000 } });
    Object.assign(fcmKey, sim.createApiKey({ scopes: ['read', 'write'], userId: 'fcm-member' }));
    subtraderRest = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read', 'write'], userId: 'fcm-sub-a' }));
    otherRest = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read', 'write'], userId: 'fcm-sub-b' }));
    sim.services.fcm.addSubtrader('fcm-member', 'sub-a', 'fcm-sub-a');
    sim.services.fcm.addSubtrader('fcm-member', 'sub-b', 'fcm-sub-b');
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('finds orders by subtrader, by client order ids, and by both; bounds the id list', async () => {
    expect((await subtraderRest.post('/portfolio/events/orders', order({ client_order_id: 'fcm-coid-1', price: '0.1000', count: '1' }))).status).toBe(201);
    expect((await subtraderRest.post('/portfolio/events/orders', order({ client_order_id: 'fcm-coid-2', price: '0.1100', count: '1' }))).status).toBe(201);
    expect((await otherRest.post('/portfolio/events/orders', order({ client_order_id: 'fcm-coid-3', price: '0.1200', count: '1' }))).status).toBe(201);
    const api = new FcmApi(configurationOf(sim, fcmKey), undefined, axios.create());
    const bySubtrader = await api.getFCMOrders('sub-a');
    check('GET', '/fcm/orders', 200, bySubtrader.data);
    expect(bySubtrader.data.orders.map((o) => o.client_order_id).sort()).toEqual(['fcm-coid-1', 'fcm-coid-2']);
    const byIds = await api.getFCMOrders(undefined, 'fcm-coid-2,fcm-coid-3');
    check('GET', '/fcm/orders', 200, byIds.data);
    expect(byIds.data.orders.map((o) => o.client_order_id).sort()).toEqual(['fcm-coid-2', 'fcm-coid-3']);
    const both = await api.getFCMOrders('sub-b', 'fcm-coid-1,fcm-coid-3');
    expect(both.data.orders.map((o) => o.client_order_id)).toEqual(['fcm-coid-3']);

    const rest = new RestClient(sim.httpUrl, fcmKey);
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `id-${i}`).join(',');
    expect((await rest.get(`/fcm/orders?client_order_ids=${ids(100)}`)).status).toBe(200);
    const tooMany = await rest.get(`/fcm/orders?client_order_ids=${ids(101)}`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.msg).toMatch(/at most 100/);
    expect((await rest.get('/fcm/orders')).status).toBe(400);
    expect((await rest.get(`/fcm/orders?client_order_ids=${'x'.repeat(65)}`)).status).toBe(400);
    expect((await rest.get('/fcm/orders?subtrader_id=nobody')).status).toBe(404);
    expect((await subtraderRest.get('/fcm/orders?subtrader_id=sub-a')).status).toBe(403); // not an FCM
  });

  it('searches client order ids in the last 24 hours only, raising an earlier min_ts', async () => {
    expect((await subtraderRest.post('/portfolio/events/orders', order({ client_order_id: 'fcm-old-1', price: '0.1300', count: '1' }))).status).toBe(201);
    const rest = new RestClient(sim.httpUrl, fcmKey);
    expect((await rest.get('/fcm/orders?client_order_ids=fcm-old-1')).body.orders).toHaveLength(1);
    clock.advance(23 * HOUR_MS);
    expect((await rest.get('/fcm/orders?client_order_ids=fcm-old-1')).body.orders).toHaveLength(1);
    clock.advance(2 * HOUR_MS); // 25 hours old now
    expect((await rest.get('/fcm/orders?client_order_ids=fcm-old-1')).body.orders).toHaveLength(0);
    expect((await rest.get('/fcm/orders?client_order_ids=fcm-old-1&min_ts=0')).body.orders).toHaveLength(0);
    // The subtrader lookup has no such window.
    const bySubtrader = await rest.get('/fcm/orders?subtrader_id=sub-a');
    expect(bySubtrader.body.orders.map((o: any) => o.client_order_id)).toContain('fcm-old-1');
  });
});

describe('public and account reads', () => {
  let sim: Awaited<ReturnType<typeof startTestSim>>;

  beforeAll(async () => {
    sim = await startTestSim({ rateLimits: false });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('executes a block trade when buyer and seller both accept, with the block-trade scopes', async () => {
    const buyerKey = sim.createApiKey({ scopes: ['read', 'write'], userId: 'block-buyer' });
    const sellerKey = sim.createApiKey({ scopes: ['read::block_trade_accept', 'write::block_trade_accept'], userId: 'block-seller' });
    const proposal = await new CommunicationsApi(configurationOf(sim, buyerKey), undefined, axios.create()).proposeBlockTrade({
      buyer_user_id: 'block-buyer', seller_user_id: 'block-seller', market_ticker: MARKET, price_centi_cents: 4500, centicount: 2500,
      maker_side: 'yes', expiration_ts: new Date(Date.now() + HOUR_MS).toISOString(),
    });
    expect(proposal.status).toBe(201);
    const id = proposal.data.block_trade_proposal_id;
    const sellerApi = new CommunicationsApi(configurationOf(sim, sellerKey), undefined, axios.create());
    const listed = await sellerApi.getBlockTradeProposals();
    check('GET', '/communications/block-trade-proposals', 200, listed.data);
    expect(listed.data.block_trade_proposals).toMatchObject([{ id, status: 'pending', buyer_accepted: false, seller_accepted: false, price_centi_cents: 4500, centicount: 2500 }]);

    const acceptBody = { subaccount: 0 };
    const acceptValidate = openapi.request('POST', '/communications/block-trade-proposals/{block_trade_proposal_id}/accept');
    expect(acceptValidate(acceptBody), errorsOf(acceptValidate)).toBe(true);
    expect((await new CommunicationsApi(configurationOf(sim, buyerKey), undefined, axios.create()).acceptBlockTradeProposal(id, acceptBody)).status).toBe(204);
    expect((await sellerApi.getBlockTradeProposals()).data.block_trade_proposals[0]).toMatchObject({ status: 'pending', buyer_accepted: true });
    expect((await sellerApi.acceptBlockTradeProposal(id, acceptBody)).status).toBe(204);
    const executed = (await sellerApi.getBlockTradeProposals()).data.block_trade_proposals[0];
    check('GET', '/communications/block-trade-proposals', 200, { block_trade_proposals: [executed] });
    expect(executed.status).toBe('executed');
    expect(sim.engine.getPosition('block-buyer', MARKET)?.position).toBe(2500);
    expect(sim.engine.getPosition('block-seller', MARKET)?.position).toBe(-2500);
    expect((await new RestClient(sim.httpUrl, sellerKey).post(`/communications/block-trade-proposals/${id}/accept`, {})).status).toBe(409);

    // Scopes: write::trade alone cannot read proposals; a restricted key cannot use them at all.
    const tradeOnly = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['write::trade'], userId: 'block-buyer' }));
    expect((await tradeOnly.get('/communications/block-trade-proposals')).status).toBe(403);
    const restricted = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read', 'write'], userId: 'block-buyer', subaccount: 2 }));
    expect((await restricted.get('/communications/block-trade-proposals')).status).toBe(403);
    expect((await new RestClient(sim.httpUrl, sellerKey).post('/communications/block-trade-proposals/btp-none/accept', {})).status).toBe(404);
  });

  it('lists incentive programs for real markets, with margin programs carrying max_reward_per_account', async () => {
    const api = new IncentiveProgramsApi(new Configuration({ basePath: `${sim.httpUrl}/trade-api/v2` }), undefined, axios.create());
    const all = await api.getIncentivePrograms(undefined, undefined, undefined, 10_000);
    check('GET', '/incentive_programs', 200, all.data);
    const predictions = sim.engine.markets().length;
    const margin = sim.services.margin.catalog.markets.length;
    expect(all.data.incentive_programs).toHaveLength(3 * (predictions + margin)); // last, this and next week
    const marginOnly = await api.getIncentivePrograms('active', 'margin_maker_volume');
    check('GET', '/incentive_programs', 200, marginOnly.data);
    expect(marginOnly.data.incentive_programs).toHaveLength(margin);
    for (const program of marginOnly.data.incentive_programs) {
      expect(program.max_reward_per_account).toBeGreaterThan(0);
      expect(program.discount_factor_bps).toBeUndefined(); // event-only field omitted
      expect(Date.parse(program.start_date)).toBeLessThanOrEqual(Date.now());
      expect(Date.parse(program.end_date)).toBeGreaterThan(Date.now());
    }
    const paged = await api.getIncentivePrograms(undefined, undefined, undefined, 2);
    expect(paged.data.incentive_programs).toHaveLength(2);
    const next = await api.getIncentivePrograms(undefined, undefined, undefined, 2, paged.data.next_cursor);
    expect(next.data.incentive_programs[0].id).toBe(all.data.incentive_programs[2].id);
    const rest = new RestClient(sim.httpUrl, null);
    expect((await rest.get('/incentive_programs?status=bogus')).status).toBe(400);
    expect((await rest.get('/incentive_programs?limit=10001')).status).toBe(400);
  });

  it('serves the weather index over a window, detailed points, and the calibration timeline', async () => {
    const api = new LiveDataApi(new Configuration({ basePath: `${sim.httpUrl}/trade-api/v2` }), undefined, axios.create());
    const to = Date.now() - 10 * 60_000;
    const from = to - HOUR_MS;
    const index = await api.getWeatherIndex('NY', from, to);
    check('GET', '/live_data/weather/{city}', 200, index.data);
    const points = index.data.timeseries;
    expect(points.length).toBeGreaterThan(50); // 60 minutes, a few without quorum
    expect(points.length).toBeLessThanOrEqual(60);
    for (const p of points) {
      expect(p.t % 60_000).toBe(0);
      expect(p.status).toBe('final');
      expect(Number(p.v!.toFixed(2))).toBe(p.v!); // rounded to 0.01 (64.04 * 100 is 6404.000000000001 in binary floating point: compare the decimal form)
      expect(p.v!).toBeGreaterThan(30);
      expect(p.v!).toBeLessThan(80);
    }
    expect((await api.getWeatherIndex('NY', from, to)).data).toEqual(index.data); // deterministic
    const detailed = await api.getWeatherIndex('NY', undefined, undefined, 600, true);
    check('GET', '/live_data/weather/{city}', 200, detailed.data);
    const incomplete = detailed.data.timeseries.filter((p) => p.status === 'incomplete');
    expect(incomplete.length).toBeGreaterThan(0); // minutes inside the receipt deadline
    for (const p of incomplete) expect(p.v).toBeUndefined();
    expect(detailed.data.timeseries.every((p) => Array.isArray(p.stations))).toBe(true);

    const rest = new RestClient(sim.httpUrl, null);
    expect((await rest.get(`/live_data/weather/NY?from=${to - 8 * 24 * HOUR_MS}&to=${to}`)).status).toBe(400);
    expect((await rest.get('/live_data/weather/ATLANTIS')).status).toBe(400);
    expect((await rest.get(`/live_data/weather/NY?from=${to}&to=${from}`)).status).toBe(400);

    const calibrations = await api.getWeatherIndexCalibrations('NY');
    expect(calibrations.data.city).toBe('NY');
    const effective = calibrations.data.calibrations.map((c) => c.effective_at_ms);
    expect(effective).toEqual([...effective].sort((a, b) => a - b));
    for (const c of calibrations.data.calibrations) expect(c.stations.reduce((sum, s) => sum + Math.round(s.weight * 1e6), 0)).toBe(1_000_000);
    expect(calibrations.data.calibrations.map((c) => c.config_version)).toContain(index.data.config_version);
  });

  it('serves event-keyed live data whose type names the details shape', async () => {
    const api = new LiveDataApi(new Configuration({ basePath: `${sim.httpUrl}/trade-api/v2` }), undefined, axios.create());
    const weather = await api.getEventLiveData('KXHIGHNY-26DEC31', '1h');
    check('GET', '/live_data/events/{event_ticker}', 200, weather.data);
    expect(weather.data.live_data.type).toBe('weather_index');
    expect(weather.data.live_data.details.city).toBe('NY');
    expect(weather.data.live_data.details.points.length).toBeGreaterThan(40);
    const fed = await api.getEventLiveData('KXFEDDECISION-26DEC');
    check('GET', '/live_data/events/{event_ticker}', 200, fed.data);
    expect(fed.data.live_data.type).toBe('market_prices');
    expect(fed.data.live_data.details.markets).toHaveLength(4);
    const rest = new RestClient(sim.httpUrl, null);
    expect((await rest.get('/live_data/events/NOPE-1')).status).toBe(404);
    expect((await rest.get('/live_data/events/KXHIGHNY-26DEC31?range=1y')).status).toBe(400);
  });

  it('translates market responses by Accept-Language, falling back to English', async () => {
    const ticker = 'KXHIGHNY-26DEC31-T40';
    const api = new MarketApi(new Configuration({ basePath: `${sim.httpUrl}/trade-api/v2` }), undefined, axios.create());
    const spanish = await api.getMarket(ticker, { headers: { 'Accept-Language': 'es-MX,es;q=0.9,en;q=0.5' } });
    check('GET', '/markets/{ticker}', 200, spanish.data);
    expect(spanish.data.market.title).toBe('¿La temperatura máxima en NYC será >40°?');
    expect(spanish.data.market.rules_primary).toBe('Si la temperatura más alta registrada en Central Park supera los 40°, Sí.');
    expect(spanish.data.market.yes_sub_title).toBe('41° o más');
    const rest = new RestClient(sim.httpUrl, null);
    const titleIn = async (language: string) => (await rest.request('GET', `/markets/${ticker}`, undefined, { 'Accept-Language': language })).body.market;
    expect((await titleIn('pt-BR')).rules_primary).toBe('Se a temperatura mais alta registrada no Central Park for acima de 40°, Sim.');
    expect((await titleIn('pt-PT')).rules_primary).toBe('Se a temperatura mais alta registada no Central Park for acima de 40°, Sim.'); // regional variant
    expect((await titleIn('fr-FR')).title).toBe('Will the high temp in NYC be >40°?'); // unsupported: English
    expect((await titleIn('fr, pt;q=0.5')).title).toBe('A temperatura máxima em NYC será >40°?');
    expect((await titleIn('en, es;q=0.8')).title).toBe('Will the high temp in NYC be >40°?');
    expect((await titleIn('es;q=0.2, pt;q=0.9')).yes_sub_title).toBe('41° ou mais');
    const list = await rest.request('GET', '/markets?tickers=KXFEDDECISION-26DEC-H0', undefined, { 'Accept-Language': 'es' });
    check('GET', '/markets', 200, list.body);
    expect(list.body.markets[0]).toMatchObject({ title: 'La Fed mantiene las tasas', yes_sub_title: 'Mantiene', ticker: 'KXFEDDECISION-26DEC-H0' });
    expect(list.body.markets[0].yes_bid_dollars).toBe((await rest.get('/markets?tickers=KXFEDDECISION-26DEC-H0')).body.markets[0].yes_bid_dollars);
  });

  it('answers 410 on the routes the seed removed', async () => {
    const rest = new RestClient(sim.httpUrl, sim.demoKey);
    const lookup = await rest.put('/multivariate_event_collections/KXMVECROSSCATEGORY-R/lookup', { selected_markets: [] });
    expect(lookup.status).toBe(410);
    expect(lookup.body.error.code).toBe('endpoint_removed');
    expect((await rest.get('/exchange/announcements')).status).toBe(410);
  });
});

describe('margin candlesticks and order groups', () => {
  it('builds candlesticks from margin trades and tops, with the period volume notional', async () => {
    const sim = await startMarginSim();
    try {
      const alice = sim.user('candle-alice');
      const bob = sim.user('candle-bob');
      const before = (await alice.get('/margin/markets/KXBTCPERP')).body.market.volume_notional_value_dollars;
      expect((await alice.post('/margin/orders', marginOrder({ side: 'bid', price: '99.50', count: '3' }))).status).toBe(201);
      sim.clock.advance(30_000);
      expect((await bob.post('/margin/orders', marginOrder({ side: 'ask', price: '99.50', count: '3', time_in_force: 'immediate_or_cancel' }))).status).toBe(201);
      const after = (await alice.get('/margin/markets/KXBTCPERP')).body.market.volume_notional_value_dollars;
      sim.clock.advance(60_000);
      const startTs = Math.floor(sim.clock.nowMs() / 1000) - 600;
      const endTs = Math.floor(sim.clock.nowMs() / 1000);
      const result = await alice.get(`/margin/markets/KXBTCPERP/candlesticks?start_ts=${startTs}&end_ts=${endTs}&period_interval=1`);
      expect(result.status, result.text).toBe(200);
      check('GET', '/margin/markets/{ticker}/candlesticks', 200, result.body, marginSpec);
      const traded = result.body.candlesticks.filter((c: any) => c.volume !== '0.00');
      expect(traded).toHaveLength(1);
      expect(traded[0]).toMatchObject({ volume: '3.00', price: { open: '99.5000', close: '99.5000', mean: '99.5000' }, open_interest: '3.00' });
      // The period's notional is the lifetime notional's change over the trade, computed apart.
      const delta = Math.round(Number(after) * 10_000) - Math.round(Number(before) * 10_000);
      expect(Math.round(Number(traded[0].volume_notional_value_dollars) * 10_000)).toBe(delta);
      expect(delta).toBeGreaterThan(0);
      // Before the trade the bid side showed alice's 99.50 quote from when it rested.
      const ends = result.body.candlesticks.map((c: any) => c.end_period_ts);
      expect(ends).toEqual([...ends].sort((a: number, b: number) => a - b));
      expect(result.body.candlesticks.some((c: any) => c.bid.high === '99.5000')).toBe(true);
      expect((await alice.get(`/margin/markets/KXBTCPERP/candlesticks?start_ts=${startTs}&end_ts=${endTs}&period_interval=5`)).status).toBe(400);
      expect((await alice.get(`/margin/markets/KXBTCPERP/candlesticks?start_ts=0&end_ts=${endTs}&period_interval=1`)).status).toBe(400);
      expect((await alice.get(`/margin/markets/NOPE/candlesticks?start_ts=${startTs}&end_ts=${endTs}&period_interval=1`)).status).toBe(404);
    } finally {
      sim.close();
    }
  });

  it('binds margin order groups to exchange_index 0 and enforces trigger, reset and limit', async () => {
    const sim = await startMarginSim();
    try {
      const alice = sim.user('group-alice');
      const bob = sim.user('group-bob');
      const createBody = { contracts_limit: 2 };
      const createValidate = marginSpec.request('POST', '/margin/order_groups/create');
      expect(createValidate(createBody), errorsOf(createValidate)).toBe(true);
      const created: RestResult = await alice.post('/margin/order_groups/create', createBody);
      expect(created.status, created.text).toBe(201);
      check('POST', '/margin/order_groups/create', 201, created.body, marginSpec);
      expect(created.body).toMatchObject({ subaccount: 0, exchange_index: 0 });
      const groupId = created.body.order_group_id;
      expect((await alice.post('/margin/order_groups/create', { exchange_index: 2 })).status).toBe(400);

      const resting = await alice.post('/margin/orders', marginOrder({ side: 'bid', price: '99.00', count: '1', order_group_id: groupId }));
      expect(resting.status, resting.text).toBe(201);
      const group = await alice.get(`/margin/order_groups/${groupId}`);
      check('GET', '/margin/order_groups/{order_group_id}', 200, group.body, marginSpec);
      expect(group.body).toMatchObject({ orders: [resting.body.order_id], contracts_limit_fp: '2.00', exchange_index: 0 });
      check('GET', '/margin/order_groups', 200, (await alice.get('/margin/order_groups')).body, marginSpec);
      expect((await alice.post('/margin/orders', marginOrder({ subaccount: 1, order_group_id: groupId }))).status).toBe(400);
      expect((await bob.post('/margin/orders', marginOrder({ order_group_id: groupId }))).status).toBe(404);

      expect((await alice.put(`/margin/order_groups/${groupId}/trigger`)).status).toBe(200);
      expect(sim.margin.orders.get(resting.body.order_id)!.status).toBe('canceled');
      expect((await alice.get(`/margin/orders/${resting.body.order_id}`)).body.order.remaining_count).toBe('0.00');
      const blocked = await alice.post('/margin/orders', marginOrder({ price: '98.00', count: '1', order_group_id: groupId }));
      expect(blocked.status).toBe(400);
      expect(blocked.body.error.code).toBe('order_group_triggered');
      expect((await alice.put(`/margin/order_groups/${groupId}/reset`)).status).toBe(200);

      // The limit: alice takes 2 contracts through the group, which triggers it and cancels her quote.
      expect((await bob.post('/margin/orders', marginOrder({ side: 'ask', price: '101.00', count: '5' }))).status).toBe(201);
      const quote = await alice.post('/margin/orders', marginOrder({ side: 'bid', price: '97.00', count: '1', order_group_id: groupId }));
      const take = await alice.post('/margin/orders', marginOrder({ side: 'bid', price: '101.00', count: '2', time_in_force: 'immediate_or_cancel', order_group_id: groupId }));
      expect(take.body.fill_count).toBe('2.00');
      expect(sim.margin.orders.get(quote.body.order_id)!.status).toBe('canceled');
      expect((await alice.post('/margin/orders', marginOrder({ order_group_id: groupId }))).body.error.code).toBe('order_group_triggered');
      expect((await alice.delete(`/margin/order_groups/${groupId}`)).status).toBe(200);
      expect((await alice.get(`/margin/order_groups/${groupId}`)).status).toBe(404);
    } finally {
      sim.close();
    }
  });
});

describe('resting liquidity at start', () => {
  it('seeds every active book when asked, so a crossing order fills; stays empty otherwise', async () => {
    const seeded = await startTestSim({ rateLimits: false, seedLiquidity: true });
    const empty = await startTestSim({ rateLimits: false });
    try {
      const rest = new RestClient(seeded.httpUrl, seeded.demoKey);
      const levels = (await rest.get(`/markets/${MARKET}/orderbook`)).body.orderbook_fp;
      expect(levels.yes_dollars).toHaveLength(5);
      expect(levels.no_dollars).toHaveLength(5);
      const crossing = await rest.post('/portfolio/events/orders', order({ side: 'bid', price: '0.9900', count: '10', time_in_force: 'immediate_or_cancel' }));
      expect(crossing.body.fill_count).toBe('10.00');
      for (const spec of seeded.services.margin.catalog.markets) {
        const market = seeded.services.margin.markets.get(spec.ticker)!;
        expect(market.book.best('bid')).not.toBeNull();
        expect(market.book.best('ask')).not.toBeNull();
      }
      const emptyBook = (await new RestClient(empty.httpUrl, empty.demoKey).get(`/markets/${MARKET}/orderbook`)).body.orderbook_fp;
      expect(emptyBook.yes_dollars ?? []).toHaveLength(0);
    } finally {
      await seeded.close();
      await empty.close();
    }
  });
});

// Goal: combo (multivariate) markets in the simulator as interface-spec, the OpenAPI multivariate
// operations and websocket.md §6.8-6.9 describe them: the collections (list with filters, one,
// exchange_index), combo creation and resolution (the same legs give the same market), its errors
// (conflicting_leg_outcomes, duplicated_legs, invalid_market_combination with `details` listing the
// tickers), GET /events/multivariate (and GET /events without combos, GET /markets mve_filter),
// the multivariate_market_lifecycle messages (created with exchange_index; nothing for combos on
// market_lifecycle_v2), the combo price grid, and the combo fee rule (a quoter executing against an
// order that rested under five seconds pays the maker fee at multiplier 0.5, the resting party the
// taker fee; after five seconds the usual roles). Responses are validated against the OpenAPI,
// messages against the AsyncAPI; the official client reads the routes.
// Method: in-process simulators over real sockets; the five-second rule on an injected clock.

import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Configuration, EventsApi, MultivariateApi } from 'kalshi-typescript';
import { RestClient, WsClient, type RestResult } from '../helpers/clients.ts';
import { AsyncApiValidator, errorsOf, OpenApiValidator, unrequire } from '../helpers/schemas.ts';
import { order, startTestSim } from '../helpers/test-sim.ts';

const COLLECTION = 'KXMVECROSSCATEGORY-R';
const FED = 'KXFEDDECISION-26DEC';
const BTC = 'KXBTCY-26DEC31';
const NY = 'KXHIGHNY-26DEC31';
const SENATE = 'KXSENATE-26NOV03';
const leg = (event: string, market: string, side: 'yes' | 'no' = 'yes') => ({ event_ticker: event, market_ticker: market, side });
const MAKER_USER = 'c0ffee00-0000-4000-8000-00000000b001';

const clientRequire = createRequire(createRequire(import.meta.url).resolve('kalshi-typescript'));
const axios = clientRequire('axios') as { create(): any };

// EventData.available_on_brokers: removed from the wire (interface-spec Removals), as in schema-conformance.
const openapi = new OpenApiValidator((doc) => unrequire(doc, 'EventData', 'available_on_brokers'));
const asyncapi = new AsyncApiValidator();

function check(method: string, path: string, status: number, body: unknown): void {
  const validate = openapi.response(method, path, status);
  expect(validate(body), `${method} ${path} ${status}: ${errorsOf(validate)}\n${JSON.stringify(body).slice(0, 600)}`).toBe(true);
}

function checkError(result: RestResult, code: string, details?: string): void {
  expect(result.status, result.text).toBe(400);
  expect(result.body.error.code).toBe(code);
  if (details !== undefined) expect(result.body.error.details).toBe(details);
  const validate = openapi.component('ErrorResponse');
  expect(validate(result.body.error), errorsOf(validate)).toBe(true);
}

describe('combo markets', () => {
  let sim: Awaited<ReturnType<typeof startTestSim>>;
  let demo: RestClient;
  let maker: RestClient;
  const create = (legs: unknown[], extra: Record<string, unknown> = {}): Promise<RestResult> =>
    demo.post(`/multivariate_event_collections/${COLLECTION}`, { selected_markets: legs, ...extra });

  beforeAll(async () => {
    sim = await startTestSim();
    demo = new RestClient(sim.httpUrl, sim.demoKey);
    maker = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read', 'write'], tier: 'prime', userId: MAKER_USER }));
  });
  afterAll(async () => {
    await sim.close();
  });

  it('collections: list with filters, one by ticker with exchange_index, 404 for an unknown one', async () => {
    const list = await demo.get('/multivariate_event_collections');
    check('GET', '/multivariate_event_collections', 200, list.body);
    expect(list.body.multivariate_contracts.map((c: any) => c.collection_ticker)).toEqual([COLLECTION]);
    expect((await demo.get('/multivariate_event_collections?status=open')).body.multivariate_contracts).toHaveLength(1);
    expect((await demo.get('/multivariate_event_collections?status=closed')).body.multivariate_contracts).toHaveLength(0);
    expect((await demo.get(`/multivariate_event_collections?associated_event_ticker=${BTC}`)).body.multivariate_contracts).toHaveLength(1);
    expect((await demo.get('/multivariate_event_collections?associated_event_ticker=KXGOLD-26DEC31')).body.multivariate_contracts).toHaveLength(0);
    expect((await demo.get('/multivariate_event_collections?limit=201')).body).toEqual({ msg: expect.any(String) });
    const one = await new RestClient(sim.httpUrl, null).get(`/multivariate_event_collections/${COLLECTION}`);
    check('GET', '/multivariate_event_collections/{collection_ticker}', 200, one.body);
    expect(one.body.multivariate_contract).toMatchObject({ collection_ticker: COLLECTION, series_ticker: 'KXMVECROSSCATEGORY', exchange_index: 0, size_min: 2, size_max: 4 });
    expect(one.body.multivariate_contract.associated_events.find((e: any) => e.ticker === NY)).toMatchObject({ is_yes_only: true, size_max: 1 });
    const missing = await demo.get('/multivariate_event_collections/KXNOPE');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });

  it('creates a combo once, resolves it again for the same legs in any order, and lists it as a combo', async () => {
    const ws = await WsClient.open(sim.wsUrl, sim.demoKey);
    try {
      const [mve] = await ws.subscribe({ channels: ['multivariate_market_lifecycle'] });
      const [plain] = await ws.subscribe({ channels: ['market_lifecycle_v2'] });
      const legs = [leg(FED, `${FED}-H0`), leg(BTC, `${BTC}-T100000`, 'no')];
      const created = await create(legs, { with_market_payload: true });
      check('POST', '/multivariate_event_collections/{collection_ticker}', 200, created.body);
      const { market_ticker: ticker, event_ticker: eventTicker } = created.body;
      expect(ticker.startsWith(`${eventTicker}-`)).toBe(true);
      expect(created.body.market).toMatchObject({
        ticker,
        status: 'active',
        price_level_structure: 'center_deci_edge_centi_cent',
        mve_collection_ticker: COLLECTION,
        mve_selected_legs: [
          { event_ticker: BTC, market_ticker: `${BTC}-T100000`, side: 'no' },
          { event_ticker: FED, market_ticker: `${FED}-H0`, side: 'yes' },
        ],
        exchange_index: 0,
      });
      expect(created.body.market.price_ranges).toEqual([
        { start: '0.0000', end: '0.0100', step: '0.0001' },
        { start: '0.0100', end: '0.9900', step: '0.0010' },
        { start: '0.9900', end: '1.0000', step: '0.0001' },
      ]);
      const again = await create([...legs].reverse());
      expect(again.body).toEqual({ event_ticker: eventTicker, market_ticker: ticker }); // no payload unless asked

      // Lifecycle: event_lifecycle and created (with exchange_index) on the combo channel only.
      const createdMessage = await ws.waitFor((m) => m.type === 'multivariate_market_lifecycle' && m.msg.market_ticker === ticker);
      expect(createdMessage.sid).toBe(mve.msg.sid);
      expect(createdMessage.msg).toMatchObject({ event_type: 'created', exchange_index: 0, price_level_structure: 'center_deci_edge_centi_cent' });
      const eventMessage = await ws.waitFor((m) => m.type === 'event_lifecycle' && m.msg.event_ticker === eventTicker);
      expect(eventMessage.sid).toBe(mve.msg.sid);
      await demo.get('/exchange/status'); // a round trip: anything for market_lifecycle_v2 would be queued by now
      expect(ws.messages.filter((m) => m.sid === plain.msg.sid && m.type !== 'subscribed')).toEqual([]);
      // The AsyncAPI multivariate payload is allOf(marketLifecycleV2Payload, type const
      // multivariate_market_lifecycle), and the first part pins type to market_lifecycle_v2, so no
      // message can satisfy both: the body is validated against the first part and the type checked here.
      const lifecycle = asyncapi.payload('marketLifecycleV2Payload');
      expect(lifecycle({ ...createdMessage, type: 'market_lifecycle_v2' }), errorsOf(lifecycle)).toBe(true);
      expect(Number.isInteger(createdMessage.seq)).toBe(true);
      const eventLifecycle = asyncapi.payload('eventLifecyclePayload');
      expect(eventLifecycle(eventMessage), errorsOf(eventLifecycle)).toBe(true);

      // Listings: /events/multivariate has it, /events does not; mve_filter on /markets.
      const combos = await demo.get(`/events/multivariate?collection_ticker=${COLLECTION}&with_nested_markets=true`);
      check('GET', '/events/multivariate', 200, combos.body);
      expect(combos.body.events.map((e: any) => e.event_ticker)).toEqual([eventTicker]);
      expect(combos.body.events[0].markets[0].ticker).toBe(ticker);
      expect((await demo.get('/events/multivariate?series_ticker=KXMVECROSSCATEGORY&collection_ticker=X')).status).toBe(400);
      expect((await demo.get('/events?limit=200')).body.events.map((e: any) => e.event_ticker)).not.toContain(eventTicker);
      expect((await demo.get('/markets?mve_filter=only')).body.markets.map((m: any) => m.ticker)).toEqual([ticker]);
      expect((await demo.get('/markets?mve_filter=exclude&limit=1000')).body.markets.map((m: any) => m.ticker)).not.toContain(ticker);
    } finally {
      ws.close();
    }
  });

  it('creation errors: duplicated_legs, conflicting_leg_outcomes, invalid_market_combination with the tickers in details', async () => {
    checkError(await create([leg(FED, `${FED}-H0`), leg(FED, `${FED}-H0`), leg(BTC, `${BTC}-T100000`)]), 'duplicated_legs', `${FED}-H0`);
    checkError(await create([leg(FED, `${FED}-H0`), leg(FED, `${FED}-H0`, 'no')]), 'conflicting_leg_outcomes', `${FED}-H0`);
    // Two YES legs of a mutually exclusive event cannot both happen.
    checkError(await create([leg(FED, `${FED}-H0`), leg(FED, `${FED}-C25`)]), 'conflicting_leg_outcomes', `${FED}-H0,${FED}-C25`);
    // A market outside the collection's events, an is_yes_only event on NO, a market not active, a market of another event.
    checkError(await create([leg(FED, `${FED}-H0`), leg('KXGOLD-26DEC31', 'KXGOLD-26DEC31-T3000')]), 'invalid_market_combination', 'KXGOLD-26DEC31-T3000');
    checkError(await create([leg(FED, `${FED}-H0`), leg(NY, `${NY}-T40`, 'no')]), 'invalid_market_combination', `${NY}-T40`);
    checkError(await create([leg(FED, `${FED}-H0`), leg(SENATE, `${SENATE}-R`)]), 'invalid_market_combination', `${SENATE}-R`);
    checkError(await create([leg(FED, `${FED}-H0`), leg(BTC, `${FED}-C25`)]), 'invalid_market_combination', `${FED}-C25`);
    // Sizes: one leg is below size_min (no tickers to blame); size_max 1 per event.
    checkError(await create([leg(FED, `${FED}-H0`)]), 'invalid_market_combination');
    checkError(await create([leg(FED, `${FED}-H0`, 'no'), leg(FED, `${FED}-C25`, 'no'), leg(FED, `${FED}-C50`, 'no'), leg(FED, `${FED}-H25`, 'no'), leg(BTC, `${BTC}-T100000`)]), 'invalid_market_combination');
    // Request shape.
    checkError(await create([]), 'bad_request');
    checkError(await create([{ event_ticker: FED, market_ticker: `${FED}-H0`, side: 'maybe' }, leg(BTC, `${BTC}-T100000`)]), 'bad_request');
    const unknown = await demo.post('/multivariate_event_collections/KXNOPE', { selected_markets: [leg(FED, `${FED}-H0`), leg(BTC, `${BTC}-T100000`)] });
    expect(unknown.status).toBe(404);
    const unsigned = await new RestClient(sim.httpUrl, null).post(`/multivariate_event_collections/${COLLECTION}`, { selected_markets: [] });
    expect(unsigned.status).toBe(401);
  });

  it('the combo price grid: $0.0001 ticks at the edges, $0.001 in the center', async () => {
    const created = await create([leg(FED, `${FED}-C25`), leg(BTC, `${BTC}-T100000`)]);
    const ticker = created.body.market_ticker;
    for (const [price, status] of [['0.0005', 201], ['0.4510', 201], ['0.9905', 201], ['0.4515', 400], ['0.0105', 400]] as const) {
      const placed = await demo.post('/portfolio/events/orders', order({ ticker, price, count: '1' }));
      expect(placed.status, `${price}: ${placed.text}`).toBe(status);
      if (status === 400) expect(placed.body.error.code).toBe('invalid_price');
    }
  });

  it('combo fee rule: the quoter pays the maker fee at multiplier 0.5 and the resting requester the taker fee', async () => {
    const created = await create([leg(FED, `${FED}-C50`), leg(BTC, `${BTC}-T100000`, 'no')]);
    const ticker = created.body.market_ticker;
    const rfq = await demo.post('/communications/rfqs', { market_ticker: ticker, contracts_fp: '10', rest_remainder: false });
    expect(rfq.status, rfq.text).toBe(201);
    expect((await demo.get(`/communications/rfqs/${rfq.body.id}`)).body.rfq).toMatchObject({ mve_collection_ticker: COLLECTION, mve_selected_legs: expect.any(Array) });
    const quote = await maker.post('/communications/quotes', { rfq_id: rfq.body.id, yes_bid: '0.100', no_bid: '0.800', rest_remainder: false });
    expect(quote.status, quote.text).toBe(201);
    expect((await demo.put(`/communications/rfqs/${rfq.body.id}/quotes/${quote.body.id}/accept`, { accepted_side: 'yes' })).status).toBe(204);
    expect((await maker.put(`/communications/rfqs/${rfq.body.id}/quotes/${quote.body.id}/confirm`)).status).toBe(204);
    const executed = (await maker.get(`/communications/rfqs/${rfq.body.id}/quotes/${quote.body.id}`)).body.quote;
    expect(executed.status).toBe('executed');
    // 10 contracts at YES 0.20: P(1-P) = 0.16. Quoter (taker): 0.07 x 0.5 x 10 x 0.16 = 0.056;
    // requester (resting): taker fee 0.07 x 10 x 0.16 = 0.112.
    const quoterFill = (await maker.get(`/portfolio/fills?order_id=${executed.creator_order_id}`)).body.fills[0];
    expect(quoterFill).toMatchObject({ is_taker: true, yes_price_dollars: '0.2000', count_fp: '10.00', fee_cost: '0.056000' });
    const requesterOrder = (await demo.get(`/communications/rfqs/${rfq.body.id}/quotes/${quote.body.id}`)).body.quote.rfq_creator_order_id;
    const requesterFill = (await demo.get(`/portfolio/fills?order_id=${requesterOrder}`)).body.fills[0];
    expect(requesterFill).toMatchObject({ is_taker: false, fee_cost: '0.112000' });
  });

  it('the official client reads collections, creates a combo and lists combo events', async () => {
    const configuration = new Configuration({ basePath: `${sim.httpUrl}/trade-api/v2`, apiKey: sim.demoKey.keyId, privateKeyPem: sim.demoKey.privateKeyPem });
    const api = new MultivariateApi(configuration, undefined, axios.create());
    const list = await api.getMultivariateEventCollections();
    expect(list.data.multivariate_contracts[0].collection_ticker).toBe(COLLECTION);
    expect((await api.getMultivariateEventCollection(COLLECTION)).data.multivariate_contract.exchange_index).toBe(0);
    const created = await api.createMarketInMultivariateEventCollection(COLLECTION, {
      selected_markets: [leg(FED, `${FED}-H25`), leg(NY, `${NY}-T40`)],
      with_market_payload: true,
    });
    expect(created.data.market?.mve_collection_ticker).toBe(COLLECTION);
    const events = await new EventsApi(configuration, undefined, axios.create()).getMultivariateEvents(200, undefined, undefined, COLLECTION);
    expect(events.data.events.map((e) => e.event_ticker)).toContain(created.data.event_ticker);
    let caught: any;
    try {
      await api.createMarketInMultivariateEventCollection(COLLECTION, { selected_markets: [leg(FED, `${FED}-H25`), leg(FED, `${FED}-H25`)] });
    } catch (error) {
      caught = error;
    }
    expect(caught?.response?.status).toBe(400);
    expect(caught.response.data.error).toMatchObject({ code: 'duplicated_legs', details: `${FED}-H25` });
  });
});

describe('combo fee rule after five seconds (injected clock)', () => {
  it('a quoter hitting an order that rested five seconds or more pays the taker fee and the resting party the maker fee', async () => {
    const clock = { ms: Date.now() };
    const sim = await startTestSim({ clock: { nowMs: () => clock.ms } });
    try {
      const engine = sim.engine;
      for (const user of ['requester', 'quoter', 'resting']) {
        engine.addUser(user);
        engine.deposit(user, 0, 0, 100_000_000 as never);
      }
      const combo = engine.createComboMarket(COLLECTION, [
        { eventTicker: FED, marketTicker: `${FED}-C25`, side: 'yes' },
        { eventTicker: NY, marketTicker: `${NY}-T40`, side: 'yes' },
      ]);
      if ('isError' in combo) throw new Error(combo.message);
      const ticker = combo.market.ticker;
      // An old YES bid at 0.30 by a third party; the quote executes at 0.20 (accepted yes: the
      // requester bids 0.20, the quoter sells YES at 0.20 and first meets the better, older bid).
      const old = engine.createOrder('resting', { ticker, side: 'bid', price: 3_000 as never, count: 400 as never, timeInForce: 'good_till_canceled', selfTradePrevention: 'taker_at_cross' });
      if (old.isError) throw new Error(old.message);
      clock.ms += 5_000;
      const rfq = engine.createRfq('requester', { marketTicker: ticker, contracts: 1_000 as never, restRemainder: false });
      if ('isError' in rfq) throw new Error(rfq.message);
      const quote = engine.createQuote('quoter', { rfqId: rfq.rfqId, yesBid: 1_000 as never, noBid: 8_000 as never, restRemainder: false });
      if ('isError' in quote) throw new Error(quote.message);
      expect('isError' in engine.acceptQuote('requester', quote.quoteId, rfq.rfqId, 'yes', null)).toBe(false);
      expect('isError' in engine.confirmQuote('quoter', quote.quoteId, rfq.rfqId, null)).toBe(false);
      const page = engine.listFills('quoter', {});
      if ('isError' in page) throw new Error(page.message);
      const fills = [...page.items].sort((a, b) => a.seq - b.seq);
      expect(fills.map((f) => [f.price, f.count, f.fee])).toEqual([
        // Fees in centicents ($0.0001).
        [3_000, 400, 588], // 4 at 0.30 against the 5-second-old bid: taker 0.07 x 4 x 0.21 = $0.0588
        [2_000, 600, 336], // 6 at 0.20 against the fresh requester bid: 0.035 x 6 x 0.16 = $0.0336
      ]);
      const resting = engine.listFills('resting', {});
      if ('isError' in resting) throw new Error(resting.message);
      expect(resting.items.map((f) => f.fee)).toEqual([0]); // maker fee 0 on this series
      const requester = engine.listFills('requester', {});
      if ('isError' in requester) throw new Error(requester.message);
      expect(requester.items.map((f) => [f.count, f.fee, f.isTaker])).toEqual([[600, 672, false]]); // taker fee 0.07 x 6 x 0.16 = $0.0672
    } finally {
      await sim.close();
    }
  });
});

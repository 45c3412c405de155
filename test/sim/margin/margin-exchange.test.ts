// Goal: the simulator's Margin exchange over real sockets: order lifecycle and matching between
// users, amend/decrease/cancel/cancel-all semantics, hand-computed positions and margin, the
// is_portfolio omission rules, fee rates, funding on the injected clock, and a liquidation when
// the mark moves against a leveraged position. Method: an in-process sim (margin-sim.ts) on
// 127.0.0.1:0, signed requests, every 2xx body validated against margin-api.openapi.yaml.

import { afterEach, describe, expect, it } from 'vitest';
import { errorsOf, OpenApiValidator } from '../helpers/schemas.ts';
import type { RestClient, RestResult } from '../helpers/clients.ts';
import { marginOrder, startMarginSim, type MarginSim } from './margin-sim.ts';

const spec = new OpenApiValidator(() => {}, 'margin-api.openapi.yaml');

function valid(method: string, path: string, result: RestResult, status = 200): any {
  expect(result.status, result.text).toBe(status);
  const validate = spec.response(method, path, status);
  expect(validate(result.body), errorsOf(validate)).toBe(true);
  return result.body;
}

let sim: MarginSim | null = null;
afterEach(() => {
  sim?.close();
  sim = null;
});

async function create(client: RestClient, overrides: Record<string, unknown>): Promise<any> {
  return valid('POST', '/margin/orders', await client.post('/margin/orders', marginOrder(overrides)), 201);
}

describe('margin order lifecycle', () => {
  it('matches two users, amends with immediate fills, decreases, cancels, and renders positions', async () => {
    sim = await startMarginSim({ fundingDollars: 1000 });
    const alice = sim.user('alice');
    const bob = sim.user('bob');
    const ask = await create(bob, { side: 'ask', count: '10', price: '100.00' });
    expect(ask).toMatchObject({ fill_count: '0.00', remaining_count: '10.00' });
    const buy = await create(alice, { side: 'bid', count: '4', price: '100.00' });
    // taker fee: $400 x 0.0005 = $0.20, i.e. $0.05 a contract
    expect(buy).toMatchObject({ fill_count: '4.00', remaining_count: '0.00', average_fill_price: '100.0000', average_fee_paid: '0.0500' });

    // amend: price only, no fill, same size -> counts null
    const amend1 = valid('POST', '/margin/orders/{order_id}/amend', await bob.post(`/margin/orders/${ask.order_id}/amend`, { ticker: 'KXBTCPERP', side: 'ask', price: '101.00', count: '10' }));
    expect(amend1).toMatchObject({ order_id: ask.order_id, remaining_count: null, fill_count: null });
    await create(alice, { side: 'bid', count: '3', price: '99.50' });
    // amend crossing alice's bid: 3 fill at 99.50, remaining after fills = 10 - 4 - 3
    const amend2 = valid('POST', '/margin/orders/{order_id}/amend', await bob.post(`/margin/orders/${ask.order_id}/amend`, { ticker: 'KXBTCPERP', side: 'ask', price: '99.00', count: '10' }));
    expect(amend2).toMatchObject({ remaining_count: '3.00', fill_count: '3.00', average_fill_price: '99.5000' });

    expect((await alice.post('/margin/orders', marginOrder({ count: '1.5' }))).status).toBe(400);
    const decreased = valid('POST', '/margin/orders/{order_id}/decrease', await bob.post(`/margin/orders/${ask.order_id}/decrease`, { reduce_by: '1' }));
    expect(decreased.remaining_count).toBe('2.00');
    expect((await bob.post(`/margin/orders/${ask.order_id}/decrease`, { reduce_by: '1', reduce_to: '1' })).status).toBe(400);
    const cancelled = valid('DELETE', '/margin/orders/{order_id}', await bob.delete(`/margin/orders/${ask.order_id}`));
    expect(cancelled.reduced_by).toBe('2.00');
    expect((await bob.delete(`/margin/orders/${ask.order_id}`)).status).toBe(404);
    const order = valid('GET', '/margin/orders/{order_id}', await bob.get(`/margin/orders/${ask.order_id}`)).order;
    expect(order).toMatchObject({ fill_count: '7.00', remaining_count: '0.00', last_update_reason: 'MarginCancel', order_source: 'user' });
    expect(order.order_reason).toBeUndefined();

    // alice: +4 @ 100 and +3 @ 99.50 -> 7 long, cost $698.50, entry 99.7857; mark = last trade 99.50
    const positions = valid('GET', '/margin/positions', await alice.get('/margin/positions')).positions;
    expect(positions).toHaveLength(1);
    const margin = 7 * 99.5 * 0.05; // 34.825
    expect(positions[0]).toMatchObject({
      subaccount: 0, market_ticker: 'KXBTCPERP', position: '7.00', entry_price: '99.7857', unrealized_pnl: '-2.0000',
      fees: '0.2597', // taker $0.20 + maker $298.50 x 0.0002 = $0.0597
      margin_used: '34.8250', is_portfolio: false,
    });
    expect(positions[0].roe).toBeCloseTo((-2 / margin) * 100, 4);
    const risk = valid('GET', '/margin/risk', await alice.get('/margin/risk'));
    expect(risk).toMatchObject({ total_position_notional: '696.5000', total_maintenance_margin: '34.8250' });
    expect(risk.positions[0]).toMatchObject({ mark_price: '99.5000', maintenance_margin_required: '34.8250', is_portfolio: false });
    const balance = valid('GET', '/margin/balance', await alice.get('/margin/balance'));
    // cash $1000 - $0.2597 fees; equity adds -$2.00 unrealized
    expect(balance.settled_funds).toBe('999.7403');
    expect(balance.subaccount_balances[0]).toMatchObject({ account_equity: '997.7403', maintenance_margin: '34.8250', initial_margin: '69.6500' });
    const fills = valid('GET', '/margin/fills', await alice.get('/margin/fills')).fills;
    expect(fills.map((f: any) => [f.count, f.price, f.is_taker, f.fees])).toEqual([['3.00', '99.5000', false, '0.0597'], ['4.00', '100.0000', true, '0.2000']]);
    const bobFills = valid('GET', '/margin/fills', await bob.get('/margin/fills')).fills;
    // bob's second fill closes nothing (short grows); his first fill opened at 100
    expect(bobFills[0]).toMatchObject({ side: 'ask', count: '3.00', entry_price: '100.0000', realized_pnl: '0.0000' });
    const trades = valid('GET', '/margin/trades', await alice.get('/margin/trades?ticker=KXBTCPERP&limit=1'));
    expect(trades.trades).toHaveLength(1);
    expect(trades.trades[0]).toMatchObject({ count: '3.00', price: '99.5000', taker_side: 'ask' });
    expect(trades.cursor).not.toBe('');
    const market = valid('GET', '/margin/markets/{ticker}', await alice.get('/margin/markets/KXBTCPERP')).market;
    expect(market).toMatchObject({ tick_size: '0.0100', volume: '7.00', volume_notional_value_dollars: '698.5000', open_interest: '7.00', open_interest_notional_value_dollars: '696.5000', asset_class: 'Crypto', exchange_index: 0 });
    expect(market.leverage_estimates).toEqual({ '1000': 20, '10000': 20, '100000': 10, '1000000': 5 });
    const gold = valid('GET', '/margin/markets', await alice.get('/margin/markets')).markets.find((m: any) => m.ticker === 'KXGOLDPERP');
    expect('asset_class' in gold).toBe(false); // omitted when unassigned

    // cancel-all
    await create(alice, { side: 'bid', count: '1', price: '90.00' });
    await create(alice, { side: 'bid', count: '1', price: '91.00' });
    expect((await alice.delete('/margin/orders')).status).toBe(204);
    expect(valid('GET', '/margin/orders', await alice.get('/margin/orders?status=resting')).orders).toHaveLength(0);
  });

  it('serves maker/taker fee rates per ticker and charges fee = notional x rate', async () => {
    sim = await startMarginSim();
    const alice = sim.user('alice');
    const bob = sim.user('bob');
    const tiers = valid('GET', '/margin/fee_tiers', await alice.get('/margin/fee_tiers'));
    expect(tiers.maker_fee_rates.KXGOLDPERP).toBe(0.0001);
    expect(tiers.taker_fee_rates.KXGOLDPERP).toBe(0.0003);
    await create(bob, { ticker: 'KXGOLDPERP', side: 'ask', count: '3', price: '25.10' });
    const buy = await create(alice, { ticker: 'KXGOLDPERP', side: 'bid', count: '3', price: '25.10' });
    // $75.30 x 0.0003 = $0.02259 -> rounded up to the centicent: $0.0226 total
    expect(buy.average_fee_paid).toBe('0.0075'); // 0.0226 / 3 rounded
    const fills = valid('GET', '/margin/fills', await bob.get('/margin/fills')).fills;
    expect(fills[0].fees).toBe('0.0076'); // $75.30 x 0.0001 = 0.00753 -> 0.0076
  });

  it('omits per-position risk metrics for is_portfolio positions only', async () => {
    sim = await startMarginSim();
    const alice = sim.user('alice');
    const bob = sim.user('bob');
    await create(bob, { side: 'ask', count: '2', price: '100.00' });
    await create(alice, { side: 'bid', count: '2', price: '100.00' });
    let positions = valid('GET', '/margin/positions', await alice.get('/margin/positions')).positions;
    expect(positions[0].is_portfolio).toBe(false); // a lone portfolio position keeps margin_used
    expect(positions[0].margin_used).toBe('10.0000');
    await create(bob, { ticker: 'KXETHPERP', side: 'bid', count: '5', price: '30.00' });
    await create(alice, { ticker: 'KXETHPERP', side: 'ask', count: '5', price: '30.00' });
    await create(bob, { ticker: 'KXGOLDPERP', side: 'ask', count: '1', price: '25.00' });
    await create(alice, { ticker: 'KXGOLDPERP', side: 'bid', count: '1', price: '25.00' });
    positions = valid('GET', '/margin/positions', await alice.get('/margin/positions')).positions;
    const byTicker = Object.fromEntries(positions.map((p: any) => [p.market_ticker, p]));
    for (const ticker of ['KXBTCPERP', 'KXETHPERP']) {
      expect(byTicker[ticker].is_portfolio).toBe(true);
      expect('margin_used' in byTicker[ticker]).toBe(false);
      expect('roe' in byTicker[ticker]).toBe(false);
    }
    expect(byTicker.KXGOLDPERP).toMatchObject({ is_portfolio: false, margin_used: '1.0000' }); // gross market: $25 x 4%
    const risk = valid('GET', '/margin/risk', await alice.get('/margin/risk'));
    for (const row of risk.positions) {
      const hidden = row.market_ticker !== 'KXGOLDPERP';
      expect(row.is_portfolio).toBe(hidden);
      for (const field of ['maintenance_margin_required', 'position_leverage', 'estimated_liquidation_price']) expect(field in row).toBe(!hidden);
    }
    // hedged group: long BTC $200 x 5% = $10, short ETH $150 x 5% = $7.50 -> max = $10; plus gold $1
    expect(risk.total_maintenance_margin).toBe('11.0000');
  });
});

describe('margin funding and liquidation', () => {
  it('applies funding at the scheduled time of the injected clock', async () => {
    sim = await startMarginSim({ fundingDollars: 1000 });
    const alice = sim.user('alice');
    const bob = sim.user('bob');
    await create(bob, { side: 'ask', count: '7', price: '99.50' });
    await create(alice, { side: 'bid', count: '7', price: '99.50' });
    // mark 99.50 vs reference 100: premium -0.5% for the whole period -> rate -0.005, shorts pay longs
    const estimate = valid('GET', '/margin/funding_rates/estimate', await alice.get('/margin/funding_rates/estimate?ticker=KXBTCPERP'));
    expect(estimate).toMatchObject({ funding_rate: -0.005, next_funding_time: '2026-01-01T01:00:00.000Z', mark_price: '99.5000' });
    expect(valid('GET', '/margin/funding_history', await alice.get('/margin/funding_history?start_date=2026-01-01&end_date=2026-01-01')).funding_history).toHaveLength(0);
    sim.clock.advance(3_600_000);
    const history = valid('GET', '/margin/funding_history', await alice.get('/margin/funding_history?start_date=2026-01-01&end_date=2026-01-01')).funding_history;
    // $696.50 x 0.005 = $3.4825 received by the long
    expect(history).toEqual([{ market_ticker: 'KXBTCPERP', funding_time: '2026-01-01T01:00:00.000Z', funding_rate: -0.005, mark_price: '99.5000', funding_amount: '3.4825', quantity: '7.00', subaccount_number: 0 }]);
    const bobHistory = valid('GET', '/margin/funding_history', await bob.get('/margin/funding_history?start_date=2026-01-01&end_date=2026-01-02')).funding_history;
    expect(bobHistory[0]).toMatchObject({ funding_amount: '-3.4825', quantity: '-7.00' });
    const rates = valid('GET', '/margin/funding_rates/historical', await alice.get('/margin/funding_rates/historical?ticker=KXBTCPERP')).funding_rates;
    expect(rates).toHaveLength(1);
    sim.clock.advance(2 * 3_600_000);
    expect(valid('GET', '/margin/funding_rates/historical', await alice.get('/margin/funding_rates/historical?ticker=KXBTCPERP')).funding_rates).toHaveLength(3);
  });

  it('liquidates a leveraged long with a system order when the mark falls below its liquidation price', async () => {
    sim = await startMarginSim({ fundingDollars: 1000 });
    const [alice, bob, carol, dave, erin] = ['alice', 'bob', 'carol', 'dave', 'erin'].map((name) => sim!.user(name));
    await create(bob, { side: 'ask', count: '90', price: '100.00' });
    await create(alice, { side: 'bid', count: '90', price: '100.00' });
    // equity $995.50 (taker fee $4.50); p = (0 - 995.5 + 90 x 100) / (90 x 0.95) = 93.6199
    const risk = valid('GET', '/margin/risk', await alice.get('/margin/risk'));
    expect(risk.positions[0]).toMatchObject({ estimated_liquidation_price: '93.6199', maintenance_margin_required: '450.0000', position_leverage: 20 });
    expect((await alice.post('/margin/orders', marginOrder({ count: '20' }))).body.error.code).toBe('insufficient_balance');
    await create(carol, { side: 'bid', count: '100', price: '92.00' });
    await create(dave, { side: 'ask', count: '1', price: '94.00' });
    await create(erin, { side: 'bid', count: '1', price: '94.00' }); // mark 94: above 93.62, no liquidation
    expect(valid('GET', '/margin/positions', await alice.get('/margin/positions')).positions[0].position).toBe('90.00');
    await create(dave, { side: 'ask', count: '1', price: '93.00' });
    await create(erin, { side: 'bid', count: '1', price: '93.00' }); // mark 93: equity 365.50 < maintenance 418.50
    expect(valid('GET', '/margin/positions', await alice.get('/margin/positions')).positions).toHaveLength(0);
    const orders = valid('GET', '/margin/orders', await alice.get('/margin/orders')).orders;
    const liquidation = orders.find((o: any) => o.order_source === 'system');
    expect(liquidation).toMatchObject({ order_reason: 'liquidation', side: 'ask', fill_count: '90.00' });
    const fills = valid('GET', '/margin/fills', await alice.get('/margin/fills')).fills;
    expect(fills[0]).toMatchObject({ order_source: 'system', price: '92.0000', count: '90.00', realized_pnl: '-720.0000' });
    expect(valid('GET', '/margin/positions', await carol.get('/margin/positions')).positions[0].position).toBe('90.00');
  });
});

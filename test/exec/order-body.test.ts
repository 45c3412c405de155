// Goal: every hand-written V2 body is valid JSON that decodes to exactly the intended fields, for
// any ticker or id text, and impossible field values are refused.
// Method: JSON.parse each encoder's output and compare with the expected object; fuzz tickers and
// ids from a seeded generator that mixes quotes, backslashes, controls, U+2028, emoji and lone
// surrogates (2,000 cases, bounded); check the InvariantError cases.

import { describe, expect, it } from 'vitest';
import { InvariantError, type Count, type Price } from '../../src/core/index.ts';
import {
  encodeAmend,
  encodeBatchCancel,
  encodeBatchCreate,
  encodeCreateOrder,
  encodeDecrease,
  encodeOrderGroupCreate,
  encodeOrderGroupLimit,
  jsonString,
} from '../../src/exec/rest/order-body.ts';
import type { NewOrder } from '../../src/oms/index.ts';

function order(overrides: Partial<NewOrder> = {}): NewOrder {
  return {
    clientOrderId: '3f0d5c9e-8a61-4c1e-9a0b-2f4d7e6c1b11',
    ticker: 'KXEXAMPLE-26JUN30-T50',
    side: 'bid',
    price: 4200 as Price,
    count: 1000 as Count,
    timeInForce: 'good_till_canceled',
    postOnly: false,
    reduceOnly: false,
    selfTradePrevention: 'taker_at_cross',
    subaccount: 0,
    orderGroupId: null,
    expirationTs: 0,
    ...overrides,
  };
}

// Deterministic xorshift32 so a failure reproduces.
function generator(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
}

const NASTY = ['"', '\\', '\n', '\r', '\t', '\u0000', '\u001f', '\u007f', '\u2028', '\u2029', 'é', '€', '😀', '\ud800', '\udfff', '/', '<', "'", '{', '}'];

function fuzzText(next: () => number): string {
  const length = next() % 24;
  let text = '';
  for (let i = 0; i < length; i++) {
    const pick = next() % 4;
    if (pick === 0) text += NASTY[next() % NASTY.length];
    else if (pick === 1) text += String.fromCharCode(next() % 0x10000);
    else text += String.fromCharCode(0x20 + (next() % 95));
  }
  return text;
}

describe('order bodies', () => {
  it('encodes the spec example create body exactly', () => {
    const body = encodeCreateOrder(order({ postOnly: true }));
    expect(body).toBe(
      '{"ticker":"KXEXAMPLE-26JUN30-T50","client_order_id":"3f0d5c9e-8a61-4c1e-9a0b-2f4d7e6c1b11",' +
        '"side":"bid","count":"10.00","price":"0.4200","time_in_force":"good_till_canceled",' +
        '"self_trade_prevention_type":"taker_at_cross","post_only":true}',
    );
  });

  it('adds optional fields only when they say something', () => {
    const parsed = JSON.parse(encodeCreateOrder(order({
      side: 'ask', price: 1 as Price, count: 1 as Count, timeInForce: 'good_till_canceled', reduceOnly: true,
      selfTradePrevention: 'maker', subaccount: 63, orderGroupId: 'grp-1', expirationTs: 1_781_900_000,
    })));
    expect(parsed).toEqual({
      ticker: 'KXEXAMPLE-26JUN30-T50', client_order_id: '3f0d5c9e-8a61-4c1e-9a0b-2f4d7e6c1b11', side: 'ask',
      count: '0.01', price: '0.0001', time_in_force: 'good_till_canceled', self_trade_prevention_type: 'maker',
      reduce_only: true, subaccount: 63, order_group_id: 'grp-1', expiration_time: 1_781_900_000,
    });
    const ioc = JSON.parse(encodeCreateOrder(order({ timeInForce: 'immediate_or_cancel', price: 9999 as Price, count: 123456 as Count })));
    expect(ioc.price).toBe('0.9999');
    expect(ioc.count).toBe('1234.56');
    expect(ioc).not.toHaveProperty('subaccount');
    expect(ioc).not.toHaveProperty('post_only');
    expect(ioc).not.toHaveProperty('expiration_time');
  });

  it('decodes to the same ticker and ids for 2,000 fuzzed texts', () => {
    const next = generator(0x5eed);
    for (let i = 0; i < 2_000; i++) {
      const ticker = fuzzText(next);
      const clientOrderId = fuzzText(next);
      const groupId = fuzzText(next);
      const parsed = JSON.parse(encodeCreateOrder(order({ ticker, clientOrderId, orderGroupId: groupId })));
      // JSON.parse turns an escaped lone surrogate back into the same code unit.
      expect(parsed.ticker).toBe(ticker);
      expect(parsed.client_order_id).toBe(clientOrderId);
      expect(parsed.order_group_id).toBe(groupId);
      expect(JSON.parse(jsonString(ticker))).toBe(ticker);
      expect(JSON.parse(encodeAmend(ticker, 'bid', 5000 as Price, 100 as Count)).ticker).toBe(ticker);
      expect(JSON.parse(encodeBatchCancel([clientOrderId, ticker], 0)).orders.map((o: { order_id: string }) => o.order_id))
        .toEqual([clientOrderId, ticker]);
    }
  });

  it('quotes safe ASCII without JSON.stringify and escapes everything else the JSON way', () => {
    expect(jsonString('KX-ABC_1.2')).toBe('"KX-ABC_1.2"');
    expect(jsonString('a"b')).toBe('"a\\"b"');
    expect(jsonString('a\\b')).toBe('"a\\\\b"');
    expect(jsonString('\n')).toBe('"\\n"');
    expect(jsonString('\ud800')).toBe('"\\ud800"');
    expect(jsonString('')).toBe('""');
  });

  it('encodes batches, amend, decrease and order-group bodies', () => {
    const batch = JSON.parse(encodeBatchCreate([order(), order({ clientOrderId: 'b', side: 'ask' })]));
    expect(batch.orders).toHaveLength(2);
    expect(batch.orders[1]).toMatchObject({ client_order_id: 'b', side: 'ask' });
    expect(JSON.parse(encodeAmend('T', 'ask', 5600 as Price, 5400 as Count))).toEqual({ ticker: 'T', side: 'ask', price: '0.5600', count: '54.00' });
    expect(JSON.parse(encodeDecrease(250 as Count))).toEqual({ reduce_by: '2.50' });
    expect(JSON.parse(encodeBatchCancel(['x'], 5))).toEqual({ orders: [{ order_id: 'x', subaccount: 5 }] });
    expect(JSON.parse(encodeBatchCancel(['x', 'y'], 0))).toEqual({ orders: [{ order_id: 'x' }, { order_id: 'y' }] });
    expect(JSON.parse(encodeOrderGroupCreate(1000 as Count, 0))).toEqual({ contracts_limit: 10, contracts_limit_fp: '10.00' });
    expect(JSON.parse(encodeOrderGroupCreate(1050 as Count, 2))).toEqual({ contracts_limit_fp: '10.50', subaccount: 2 });
    expect(JSON.parse(encodeOrderGroupLimit(500 as Count))).toEqual({ contracts_limit: 5, contracts_limit_fp: '5.00' });
  });

  it('refuses impossible fields with InvariantError', () => {
    const cases: Partial<NewOrder>[] = [
      { price: 0 as Price }, { price: 10_000 as Price }, { price: 42.5 as Price }, { count: 0 as Count },
      { count: -100 as Count }, { side: 'buy' as never }, { timeInForce: 'GTT' as never },
      { selfTradePrevention: 'none' as never }, { subaccount: 64 }, { subaccount: -1 },
      { expirationTs: 5, timeInForce: 'immediate_or_cancel' }, { expirationTs: -1 },
    ];
    for (const bad of cases) expect(() => encodeCreateOrder(order(bad))).toThrow(InvariantError);
    expect(() => encodeBatchCreate([])).toThrow(InvariantError);
    expect(() => encodeBatchCancel([], 0)).toThrow(InvariantError);
    expect(() => encodeDecrease(0 as Count)).toThrow(InvariantError);
  });
});

// Goal: every hand-written V2 body is valid JSON that decodes to exactly the intended fields, for
// any ticker or id text, and impossible field values are refused. The hot path's body writers
// (bytes straight into a buffer) give exactly the bytes JSON.stringify gives for the same fields,
// at any offset, and report a buffer too small.
// Method: JSON.parse each encoder's output and compare with the expected object; fuzz tickers and
// ids from a seeded generator that mixes quotes, backslashes, controls, U+2028, emoji and lone
// surrogates (2,000 cases, bounded); check the InvariantError cases. The writers are compared with
// JSON.stringify of an object with the wire's field order (an independent encoder), over random
// numbers at their extremes and the fuzzed texts.

import { describe, expect, it } from 'vitest';
import { InvariantError, formatCount, formatPrice, type Count, type Price } from '../../src/core/index.ts';
import {
  AmendBodyWriter,
  CreateBodyWriter,
  OneCancelBodyWriter,
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

  it('writes the create, amend and one-cancel bodies as the bytes JSON.stringify gives, at any offset', () => {
    const next = generator(0xb17e5);
    const out = Buffer.alloc(8 * 1024);
    const create = new CreateBodyWriter();
    const amend = new AmendBodyWriter();
    const cancel = new OneCancelBodyWriter();
    const price = (): Price => (next() % 3 === 0 ? [1, 9999, 10_000_000_000][next() % 3]! : 1 + (next() % 9999)) as Price;
    const count = (): Count => (next() % 3 === 0 ? [1, 100, Number.MAX_SAFE_INTEGER][next() % 3]! : 1 + (next() % 1_000_000)) as Count;
    for (let i = 0; i < 2_000; i++) {
      const text = i % 2 === 0 ? fuzzText(next) : `KX-${next()}`;
      const o = order({
        ticker: text, clientOrderId: `rt-${next().toString(36)}-${next()}`, side: next() % 2 === 0 ? 'bid' : 'ask', price: price(), count: count(),
        postOnly: next() % 2 === 0, reduceOnly: next() % 2 === 0, subaccount: next() % 64, orderGroupId: next() % 2 === 0 ? null : fuzzText(next),
        selfTradePrevention: next() % 2 === 0 ? 'maker' : 'taker_at_cross', expirationTs: next() % 2 === 0 ? 0 : next(),
      });
      const reference = JSON.stringify({
        ticker: o.ticker, client_order_id: o.clientOrderId, side: o.side, count: formatCount(o.count), price: formatPrice(o.price),
        time_in_force: o.timeInForce, self_trade_prevention_type: o.selfTradePrevention,
        ...(o.postOnly ? { post_only: true } : {}), ...(o.reduceOnly ? { reduce_only: true } : {}), ...(o.subaccount !== 0 ? { subaccount: o.subaccount } : {}),
        ...(o.orderGroupId !== null ? { order_group_id: o.orderGroupId } : {}), ...(o.expirationTs !== 0 ? { expiration_time: o.expirationTs } : {}),
      });
      const at = next() % 100;
      create.order = o;
      const end = create.writeInto(out, at);
      expect(out.toString('utf8', at, end)).toBe(reference);
      expect(create.text()).toBe(reference);
      if (o.price < 10_000) expect(encodeCreateOrder(o)).toBe(reference); // a Margin price is above $1

      amend.ticker = text;
      amend.side = o.side;
      amend.price = o.price;
      amend.count = o.count;
      const amendReference = JSON.stringify({ ticker: text, side: o.side, price: formatPrice(o.price), count: formatCount(o.count) });
      expect(out.toString('utf8', at, amend.writeInto(out, at))).toBe(amendReference);
      expect(amend.text()).toBe(amendReference);

      cancel.orderId = text;
      cancel.subaccount = o.subaccount;
      const cancelReference = JSON.stringify({ orders: [{ order_id: text, ...(o.subaccount !== 0 ? { subaccount: o.subaccount } : {}) }] });
      expect(out.toString('utf8', at, cancel.writeInto(out, at))).toBe(cancelReference);
      expect(cancel.text()).toBe(cancelReference);
      expect(encodeBatchCancel([text], o.subaccount)).toBe(cancelReference);
    }
  });

  it('reports a buffer too small for a body writer instead of writing past it', () => {
    const create = new CreateBodyWriter();
    create.order = order({ ticker: 'T'.repeat(200) });
    const small = Buffer.alloc(300);
    expect(create.writeInto(small, 0)).toBe(-1);
    expect(create.writeInto(Buffer.alloc(2_000), 0)).toBe(Buffer.byteLength(create.text()));
  });
});

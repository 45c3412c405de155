// Goal: every body the Margin order route writes (create in each shape the gate lets through,
// amend, decrease) is valid for the exchange's published request schema, read from
// ../shared/spec/schemas/margin-api.openapi.yaml at test time, and uses no key the schema lacks.
// Method: the route's encoders on hand-made orders, each body validated with ajv.

import { describe, expect, it } from 'vitest';
import type { Count, Price } from '../../src/core/index.ts';
import { encodeMarginAmend, encodeMarginCreate, encodeMarginDecrease } from '../../src/exec/margin/margin-order-body.ts';
import type { NewOrder } from '../../src/oms/index.ts';
import { errorsOf, OpenApiValidator } from '../sim/helpers/schemas.ts';

// Closed for this test: a key the schema does not name fails (the published schemas leave them open).
const spec = new OpenApiValidator((doc) => {
  const schemas = (doc.components as { schemas: Record<string, Record<string, unknown>> }).schemas;
  for (const name of ['CreateMarginOrderRequest', 'AmendMarginOrderRequest', 'DecreaseMarginOrderRequest']) schemas[name]!.additionalProperties = false;
}, 'margin-api.openapi.yaml');

function order(overrides: Partial<NewOrder>): NewOrder {
  return {
    clientOrderId: 'rt-1', ticker: 'KXBTCPERP', side: 'bid', price: 1_000_100 as Price, count: 300 as Count, timeInForce: 'good_till_canceled',
    postOnly: false, reduceOnly: false, selfTradePrevention: 'taker_at_cross', subaccount: 0, orderGroupId: null, expirationTs: 0, ...overrides,
  };
}

function valid(method: string, path: string, body: string): void {
  const validate = spec.request(method, path);
  expect(validate(JSON.parse(body)), `${body}: ${errorsOf(validate)}`).toBe(true);
}

describe('Margin order bodies against CreateMarginOrderRequest, AmendMarginOrderRequest, DecreaseMarginOrderRequest', () => {
  const creates: [string, Partial<NewOrder>][] = [
    ['a resting bid', {}],
    ['a post-only ask in subaccount 5 in a group', { side: 'ask', postOnly: true, subaccount: 5, orderGroupId: 'grp-1' }],
    ['a reduce-only immediate-or-cancel', { side: 'ask', reduceOnly: true, timeInForce: 'immediate_or_cancel' }],
    ['a fill-or-kill at $100,000.00 for 1,000 contracts', { price: 1_000_000_000 as Price, count: 100_000 as Count, timeInForce: 'fill_or_kill' }],
    ['a good-till-date order', { expirationTs: 1_900_000_000 }],
    ['a maker-side self-trade rule and an escaped id', { selfTradePrevention: 'maker', clientOrderId: 'a"b\\c' }],
  ];
  for (const [name, overrides] of creates) {
    it(`create: ${name}`, () => valid('POST', '/margin/orders', encodeMarginCreate(order(overrides))));
  }

  it('amend and decrease', () => {
    valid('POST', '/margin/orders/{order_id}/amend', encodeMarginAmend('KXBTCPERP', 'bid', 999_900 as Price, 500 as Count));
    valid('POST', '/margin/orders/{order_id}/decrease', encodeMarginDecrease(200 as Count));
  });
});

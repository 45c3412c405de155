// Goal: the undici Pool.dispatch create baseline of bench/order-entry (undici-dispatch-create.ts)
// sends a correctly signed create and reports the ack, and undici's write timing holds as its
// header and src/exec/rest/rest-order-entry.ts describe it: on a warm keep-alive socket the create
// is NOT written inside create(); undici validates the idle socket for one setImmediate
// (GHSA-35p6-xmwp-9g52, client-h1.js scheduleIdleSocketValidation) and writes in the check phase of
// the same loop turn, before any timer. If undici changes that, this test says so.
// Method: the scripted node:http exchange of test/exec on 127.0.0.1:0; undici's
// `undici:client:sendHeaders` diagnostics channel marks the write.

import { generateKeyPairSync } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock, type Count, type Price } from '../../src/core/index.ts';
import { UNDICI_DISPATCH_CREATE_DEFAULTS, UndiciDispatchCreate } from '../../bench/order-entry/undici-dispatch-create.ts';
import { RecordingListener } from '../exec/recording-listener.ts';
import { ScriptedExchange, defaultScript } from '../exec/scripted-exchange.ts';
import type { NewOrder } from '../../src/oms/index.ts';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
let exchange: ScriptedExchange;

beforeAll(async () => {
  exchange = await ScriptedExchange.start(publicKey);
  exchange.script = (request) => (request.method === 'POST'
    ? { status: 201, body: JSON.stringify({ order_id: 'o-1', fill_count: '0.00', remaining_count: '10.00', ts_ms: 1 }) }
    : defaultScript(request));
});
afterAll(async () => {
  await exchange.close();
});

const order: NewOrder = {
  clientOrderId: 'sync-1', ticker: 'KXEXAMPLE-26JUN30-T50', side: 'bid', price: 4200 as Price, count: 1000 as Count,
  timeInForce: 'good_till_canceled', postOnly: true, reduceOnly: false, selfTradePrevention: 'taker_at_cross',
  subaccount: 0, orderGroupId: null, expirationTs: 0,
};

describe('bench baseline: undici Pool.dispatch create', () => {
  it('writes the create on a warm socket one setImmediate after create(), before any timer, and reports the ack', async () => {
    const listener = new RecordingListener();
    const baseline = await UndiciDispatchCreate.open({
      ...UNDICI_DISPATCH_CREATE_DEFAULTS, baseUrl: exchange.baseUrl, keyId: 'key-123', privateKey, clock: systemClock, presignCapacity: 4,
    }, listener);
    const sent: string[] = [];
    const onSend = (message: unknown) => sent.push((message as { headers: string }).headers);
    subscribe('undici:client:sendHeaders', onSend);
    try {
      expect(exchange.requests.filter((request) => request.method === 'GET')).toHaveLength(UNDICI_DISPATCH_CREATE_DEFAULTS.connections); // warmed
      let timerFired = false;
      const timer = setTimeout(() => { timerFired = true; }, 0);
      baseline.create(order);
      const sentInsideCreate = sent.length;
      await new Promise((resolve) => setImmediate(resolve));
      clearTimeout(timer);
      expect(sentInsideCreate).toBe(0);
      expect(sent).toHaveLength(1);
      expect(timerFired).toBe(false);
      expect(sent[0]).toContain('POST /trade-api/v2/portfolio/events/orders HTTP/1.1');
      expect(sent[0]).toContain('connection: keep-alive');
      for (let i = 0; i < 400 && listener.events.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(listener.events).toEqual([['createAck', 'sync-1', 'o-1', 0, 0, 0]]);
      expect(exchange.orderRequests).toHaveLength(1);
      expect(exchange.orderRequests[0]!.signatureValid).toBe(true);
      expect(JSON.parse(exchange.orderRequests[0]!.body).client_order_id).toBe('sync-1');
      expect(baseline.stats).toMatchObject({ requests: 1, presigned: 1, inlineSigned: 0, queued: 0, acks: 1 });
    } finally {
      unsubscribe('undici:client:sendHeaders', onSend);
      await baseline.close();
    }
  });
});

/**
 * The order-entry port's contract (src/oms/order-route.ts) as a reusable suite (not a test file):
 * orderEntryContract(name, makeRoute) starts its own simulator and checks what every route must
 * do, over real sockets: create -> ack with the venue's order id; a filled IOC acked with its fill
 * count; rejects with a code for an invalid order (off-grid price, duplicate client order id), and
 * nothing applied; cancel -> ack with the count removed; cancel of an order already gone -> reject
 * that the OMS reads as "gone" (404 or code not_found); amend and decrease acked with the new
 * counts; cancelAll leaves nothing resting; a connection lost with a create in flight -> unknown
 * (EXEC_DISCONNECTED), and the route trades again afterwards; after close() every request, also
 * one made from a callback close() itself ran, is a not-sent reject, never a throw. The venue's state is checked through
 * the simulator's engine after each step. Waits are bounded polls.
 *
 * What differs between exchanges is a ContractVenue (default: the Predictions exchange, so the REST
 * and FIX suites run exactly as before): the ticker, the venue's resting orders, how the
 * counterparty rests liquidity, the REST path a fault targets. Every case's prices and counts are
 * the same on each venue: whole contracts on a $0.01 tick, valid on the Margin perpetual too.
 */

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Count, Price } from '../../src/core/index.ts';
import type { NewOrder, OrderEntry } from '../../src/oms/index.ts';
import { startSim, type SimHandle, type StartSimOptions } from '../../src/sim/index.ts';
import { ListenerWithUnknowns } from './recording-listener.ts';

export const CONTRACT_TICKER = 'KXDEMO-26DEC31-T50'; // linear_cent grid

/** The exchange a route trades on, as the suite sees it. */
export interface ContractVenue {
  ticker: string;
  /** The demo user's resting orders at the venue (count units, price units). */
  resting(sim: SimHandle): { orderId: string; remainingCount: number; price: number }[];
  /** Funds `userId` on the venue (once, before the cases). */
  fundCounterparty(sim: SimHandle, userId: string): void;
  /** Rests an ask of `userId` directly in the venue's engine; false when refused. */
  restAsk(sim: SimHandle, userId: string, price: Price, count: Count): boolean;
  /** REST path (relative to /trade-api/v2) of the create, for the rest_close fault. */
  createFaultPath: string;
}

export const PREDICTIONS_CONTRACT_VENUE: ContractVenue = {
  ticker: CONTRACT_TICKER,
  resting: (sim) => sim.engine.restingOrders(sim.userId).map((o) => ({ orderId: o.orderId, remainingCount: o.remainingCount, price: o.price })),
  fundCounterparty: (sim, userId) => {
    sim.createApiKey({ scopes: ['read', 'write'], userId, subaccount: 0, tier: 'prime' }); // funds the counterparty
  },
  restAsk: (sim, userId, price, count) => {
    const maker = sim.engine.createOrder(userId, {
      ticker: CONTRACT_TICKER, side: 'ask', price, count, timeInForce: 'good_till_canceled', selfTradePrevention: 'taker_at_cross',
    });
    return !('isError' in maker && maker.isError);
  },
  createFaultPath: '/portfolio/events/orders',
};

export interface ContractRoute {
  route: OrderEntry;
  connect(): Promise<void>;
  close(): Promise<void>;
}

export type MakeRoute = (sim: SimHandle, key: { keyId: string; privateKeyPem: string }) => ContractRoute;

function order(ticker: string, overrides: Partial<NewOrder> = {}): NewOrder {
  return {
    clientOrderId: randomUUID(), ticker, side: 'bid', price: 1000 as Price, count: 500 as Count,
    timeInForce: 'good_till_canceled', postOnly: false, reduceOnly: false, selfTradePrevention: 'taker_at_cross',
    subaccount: 0, orderGroupId: null, expirationTs: 0, ...overrides,
  };
}

export function orderEntryContract(name: string, makeRoute: MakeRoute, simOptions: Partial<StartSimOptions> = {}, venue: ContractVenue = PREDICTIONS_CONTRACT_VENUE): void {
  const ticker = venue.ticker;
  describe(`order-entry contract: ${name}`, () => {
    let sim: SimHandle;
    let workDir: string;
    let made: ContractRoute;
    let route: OrderEntry;
    const listener = new ListenerWithUnknowns();
    const counterpartyUser = 'contract-counterparty';

    const resting = (): { orderId: string; remainingCount: number; price: number }[] => venue.resting(sim);

    beforeAll(async () => {
      workDir = mkdtempSync(join(tmpdir(), 'contract-'));
      sim = await startSim({ keysDir: join(workDir, 'keys'), logger: pino({ level: 'silent' }), rateLimits: false, ...simOptions });
      venue.fundCounterparty(sim, counterpartyUser);
      made = makeRoute(sim, { keyId: sim.demoKey.keyId, privateKeyPem: sim.demoKey.privateKeyPem });
      route = made.route;
      route.setListener(listener);
      await made.connect();
    });

    afterAll(async () => {
      await made?.close();
      await sim?.close();
      rmSync(workDir, { recursive: true, force: true });
    });

    it('create -> ack with the venue order id, resting at the venue', async () => {
      const create = order(ticker, { price: 1100 as Price });
      route.create(create);
      const ack = await listener.outcome('create', create.clientOrderId);
      expect(ack[0]).toBe('createAck');
      const orderId = ack[2] as string;
      expect(ack.slice(3, 5)).toEqual([0, 500]);
      expect(resting().find((o) => o.orderId === orderId)).toMatchObject({ remainingCount: 500, price: 1100 });
    });

    it('an IOC that fills against resting liquidity -> ack with its fill count and nothing remaining', async () => {
      expect(venue.restAsk(sim, counterpartyUser, 8000 as Price, 300 as Count)).toBe(true);
      const taker = order(ticker, { price: 8000 as Price, count: 300 as Count, timeInForce: 'immediate_or_cancel' });
      route.create(taker);
      const ack = await listener.outcome('create', taker.clientOrderId);
      expect([ack[0], ack[3], ack[4]]).toEqual(['createAck', 300, 0]);
    });

    it('rejects an invalid order with a code, applying nothing: off-grid price, duplicate client order id', async () => {
      const before = resting().length;
      const offGrid = order(ticker, { price: 1150 as Price });
      route.create(offGrid);
      expect(await listener.outcome('create', offGrid.clientOrderId)).toMatchObject(['createReject', offGrid.clientOrderId, { status: 400, code: 'invalid_price' }]);
      const first = order(ticker, { price: 1200 as Price });
      route.create(first);
      expect((await listener.outcome('create', first.clientOrderId))[0]).toBe('createAck');
      listener.events.length = 0;
      route.create({ ...first, price: 1300 as Price });
      expect(await listener.outcome('create', first.clientOrderId)).toMatchObject(['createReject', first.clientOrderId, { status: 409, code: 'order_already_exists' }]);
      expect(resting().length).toBe(before + 1);
      expect(resting().some((o) => o.price === 1300)).toBe(false);
    });

    it('cancel -> ack with the count removed; cancelling it again -> a reject the OMS reads as gone', async () => {
      const create = order(ticker, { price: 1400 as Price, count: 700 as Count });
      route.create(create);
      const orderId = (await listener.outcome('create', create.clientOrderId))[2] as string;
      route.cancel(orderId, 0);
      expect((await listener.outcome('cancel', orderId)).slice(0, 3)).toEqual(['cancelAck', orderId, 700]);
      expect(resting().some((o) => o.orderId === orderId)).toBe(false);
      listener.events.length = 0;
      route.cancel(orderId, 0);
      const gone = await listener.outcome('cancel', orderId);
      expect(gone[0]).toBe('cancelReject');
      const reject = gone[2] as { status: number; code: string };
      expect(reject.status === 404 || reject.code.startsWith('not_found')).toBe(true);
    });

    it('amend -> ack with the new counts; decrease -> ack with the remaining count', async () => {
      const create = order(ticker, { price: 1500 as Price, count: 1000 as Count });
      route.create(create);
      const orderId = (await listener.outcome('create', create.clientOrderId))[2] as string;
      route.amend(orderId, ticker, 'bid', 1600 as Price, 800 as Count, 0);
      expect((await listener.outcome('amend', orderId)).slice(0, 4)).toEqual(['amendAck', orderId, 0, 800]);
      expect(resting().find((o) => o.orderId === orderId)).toMatchObject({ price: 1600, remainingCount: 800 });
      route.decrease(orderId, 300 as Count, 0);
      expect((await listener.outcome('decrease', orderId)).slice(0, 3)).toEqual(['decreaseAck', orderId, 500]);
      expect(resting().find((o) => o.orderId === orderId)).toMatchObject({ remainingCount: 500 });
    });

    it('cancelAll leaves nothing resting', async () => {
      const create = order(ticker, { price: 1700 as Price });
      route.create(create);
      await listener.outcome('create', create.clientOrderId);
      expect(resting().length).toBeGreaterThan(0);
      await route.cancelAll(null);
      expect(resting()).toEqual([]);
    });

    it('a connection lost with a create in flight -> unknown (EXEC_DISCONNECTED); the route trades again afterwards', async () => {
      const rule = sim.faults.add({ kind: 'rest_close', target: { times: 1, method: 'POST', path: venue.createFaultPath } });
      const lost = order(ticker, { price: 1800 as Price });
      route.create(lost);
      expect(await listener.outcome('create', lost.clientOrderId)).toEqual(['createUnknown', lost.clientOrderId, 'EXEC_DISCONNECTED']);
      sim.faults.remove(rule);
      let acked = false;
      for (let attempt = 0; attempt < 50 && !acked; attempt++) { // the route reconnects on its own (bounded)
        const retry = order(ticker, { price: 1900 as Price });
        route.create(retry);
        const outcome = await listener.outcome('create', retry.clientOrderId);
        acked = outcome[0] === 'createAck';
        if (!acked) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(acked).toBe(true);
    });

    // Last: it closes the route. The main job's stop once crashed here: close() ended a request in
    // flight, the OMS answered that end with a cancel, and the route threw "request after close".
    it('after close() every request is a not-sent reject (status 0, EXEC_DISCONNECTED), also one made inside close()\'s own callbacks', async () => {
      const create = order(ticker, { price: 2000 as Price });
      route.create(create);
      const orderId = (await listener.outcome('create', create.clientOrderId))[2] as string;
      listener.events.length = 0;
      const inFlight = order(ticker, { price: 2100 as Price });
      const thrown: unknown[] = [];
      const cancelOnEnd = (name: 'onCreateUnknown' | 'onCreateReject' | 'onCreateAck'): void => {
        const record = listener[name].bind(listener);
        listener[name] = (...args: unknown[]) => {
          record(...args);
          if (args[0] !== inFlight.clientOrderId) return;
          try {
            route.cancel(orderId, 0);
          } catch (error) {
            thrown.push(error);
          }
        };
      };
      cancelOnEnd('onCreateUnknown');
      cancelOnEnd('onCreateReject');
      cancelOnEnd('onCreateAck');
      route.create(inFlight);
      await made.close();
      await listener.outcome('create', inFlight.clientOrderId);
      const notSent = { status: 0, code: 'EXEC_DISCONNECTED', message: expect.stringMatching(/^not sent/), details: '' };
      const lateCreate = order(ticker, { price: 2200 as Price });
      expect(() => {
        route.create(lateCreate);
        route.amend(orderId, ticker, 'bid', 2300 as Price, 500 as Count, 0);
        route.decrease(orderId, 100 as Count, 0);
      }).not.toThrow();
      expect(thrown).toEqual([]);
      expect(await listener.outcome('cancel', orderId)).toEqual(['cancelReject', orderId, notSent]);
      expect(await listener.outcome('create', lateCreate.clientOrderId)).toEqual(['createReject', lateCreate.clientOrderId, notSent]);
      expect(await listener.outcome('amend', orderId)).toEqual(['amendReject', orderId, notSent]);
      expect(await listener.outcome('decrease', orderId)).toEqual(['decreaseReject', orderId, notSent]);
      expect(resting().some((o) => o.orderId === orderId)).toBe(true); // nothing of it reached the venue
    });
  });
}

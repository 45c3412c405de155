// Goal: the Margin route (MarginOrderEntry) keeps the order-entry port's contract
// (order-entry-contract.ts), the same suite the REST and FIX routes pass, on a Margin perpetual.
// Method: the shared contract suite with the Margin venue (ticker KXBTCPERP, tick $0.01; the
// venue's resting orders and the counterparty's liquidity read from and put into the simulator's
// Margin engine; the rest_close fault on POST /margin/orders), against an in-process simulator over
// real sockets, inline signing (no presign worker) to spare CPU.
import { randomUUID } from 'node:crypto';
import { loadPrivateKey, systemClock } from '../../src/core/index.ts';
import { MARGIN_ORDER_ENTRY_DEFAULTS, MarginOrderEntry } from '../../src/exec/index.ts';
import { orderEntryContract, type ContractVenue } from './order-entry-contract.ts';

export const MARGIN_TICKER = 'KXBTCPERP'; // tick $0.01 (config/margin-markets.json)

export const MARGIN_CONTRACT_VENUE: ContractVenue = {
  ticker: MARGIN_TICKER,
  resting: (sim) => sim.services.margin.orderList
    .filter((o) => o.userId === sim.userId && o.status === 'resting')
    .map((o) => ({ orderId: o.orderId, remainingCount: o.remaining, price: o.price })),
  fundCounterparty: (sim, userId) => sim.services.ensureMarginAccount(userId, 0),
  restAsk: (sim, userId, price, count) => {
    const result = sim.services.margin.create(userId, 0, {
      ticker: MARGIN_TICKER, clientOrderId: randomUUID(), side: 'ask', count, price, timeInForce: 'good_till_canceled',
      selfTradePrevention: 'taker_at_cross', postOnly: false, reduceOnly: false, cancelOrderOnPause: false, expirationTs: null,
    });
    return 'order' in result;
  },
  createFaultPath: '/margin/orders',
};

orderEntryContract('MarginOrderEntry', (sim, key) => {
  const route = new MarginOrderEntry({
    ...MARGIN_ORDER_ENTRY_DEFAULTS, baseUrl: sim.httpUrl, keyId: key.keyId, privateKey: loadPrivateKey(key.privateKeyPem), clock: systemClock,
    connections: 2, headersTimeoutMs: 5_000, bodyTimeoutMs: 5_000, keepAliveIntervalMs: 0, signing: 'inline',
  });
  return { route, connect: () => route.connect(), close: () => route.close() };
}, {}, MARGIN_CONTRACT_VENUE);

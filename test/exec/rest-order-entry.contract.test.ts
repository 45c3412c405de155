// Goal: the REST route (RestOrderEntry) keeps the order-entry port's contract (order-entry-contract.ts).
// Method: the shared contract suite against an in-process simulator over real sockets; inline
// signing (no presign worker) to spare CPU.
import { loadPrivateKey, systemClock } from '../../src/core/index.ts';
import { REST_ORDER_ENTRY_DEFAULTS, RestOrderEntry } from '../../src/exec/index.ts';
import { orderEntryContract } from './order-entry-contract.ts';

orderEntryContract('RestOrderEntry', (sim, key) => {
  const route = new RestOrderEntry({
    ...REST_ORDER_ENTRY_DEFAULTS, baseUrl: sim.httpUrl, keyId: key.keyId, privateKey: loadPrivateKey(key.privateKeyPem), clock: systemClock,
    connections: 2, headersTimeoutMs: 5_000, bodyTimeoutMs: 5_000, keepAliveIntervalMs: 0, signing: 'inline',
  });
  return { route, connect: () => route.connect(), close: () => route.close() };
});

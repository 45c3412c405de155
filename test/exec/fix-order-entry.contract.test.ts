// Goal: the FIX route (FixOrderEntry on KalshiNR) keeps the order-entry port's contract
// (order-entry-contract.ts), the same suite the REST route passes.
// Method: the shared contract suite against an in-process simulator with its FIX acceptor on
// 127.0.0.1 (plain TCP), the demo key, an in-memory sequence store.
import { loadPrivateKey, systemClock } from '../../src/core/index.ts';
import { FIX_ORDER_ENTRY_DEFAULTS, FixOrderEntry } from '../../src/exec/index.ts';
import { orderEntryContract } from './order-entry-contract.ts';

orderEntryContract('FixOrderEntry (KalshiNR)', (sim, key) => {
  const route = new FixOrderEntry({
    ...FIX_ORDER_ENTRY_DEFAULTS, host: sim.fix!.host, port: sim.fix!.ports.KalshiNR, tls: null, keyId: key.keyId,
    privateKey: loadPrivateKey(key.privateKeyPem), clock: systemClock, storePath: null,
  });
  return { route, connect: () => route.connect(), close: () => route.close() };
}, { fix: { enabled: true } });

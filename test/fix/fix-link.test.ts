// Goal: FixLink keeps one initiator session connected: connect() resolves on logon and rejects with
// a coded FixLinkError when the logon is refused; after a logon a dropped connection comes back by
// itself; start() retries from the first attempt even while nothing listens; close() stops the
// retries and logs out.
// Method: the simulator's KalshiMD acceptor (startSim in-process, FIX on, port 0) and the demo key;
// a refused logon signs with a key the simulator does not know for that id; "nothing listens" is a
// port taken from the OS and released. Waits are bounded polls.

import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPrivateKey, systemClock } from '../../src/core/index.ts';
import { FixLink, FixLinkError, MemorySequenceStore, type FixLinkOptions } from '../../src/fix/index.ts';
import { startSim, type SimHandle } from '../../src/sim/index.ts';

let sim: SimHandle;
let workDir: string;

async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (let i = 0; i < 2_000 && !predicate() && Date.now() < deadline; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!predicate()) throw new Error(`timed out waiting for ${what}`);
}

function options(port: number, privateKey = loadPrivateKey(sim.demoKey.privateKeyPem)): FixLinkOptions {
  return {
    host: '127.0.0.1', port, tls: null, clock: systemClock, connectTimeoutMs: 2_000, reconnectMinMs: 10, reconnectMaxMs: 40, tickMs: 20,
    session: {
      role: 'initiator', sessionName: 'KalshiMD', keyId: sim.demoKey.keyId, privateKey, heartbeatIntervalS: 30,
      store: new MemorySequenceStore(), resetSeqNum: true, clock: systemClock,
    },
  };
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'fix-link-'));
  sim = await startSim({ keysDir: join(workDir, 'keys'), logger: pino({ level: 'silent' }), fix: { enabled: true } });
});

afterAll(async () => {
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('FixLink', () => {
  it('logs on, comes back by itself after a drop, and stops on close', async () => {
    const events: string[] = [];
    const link = new FixLink(options(sim.fix!.ports.KalshiMD), { onMessage() {}, onEvent: (event) => events.push(event.type) });
    await link.connect();
    expect(link.state).toBe('active');
    link.drop();
    await until(() => link.stats.connects === 2 && link.state === 'active', 'the reconnect');
    expect(link.stats.disconnects).toBe(1);
    await link.close();
    expect(link.state).toBe('closed');
    expect(events.filter((type) => type === 'logon')).toHaveLength(2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(link.stats.connects).toBe(2); // no retry after close
  });

  it('a refused logon rejects connect() with FIX_LOGON_REFUSED and is not retried', async () => {
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const link = new FixLink(options(sim.fix!.ports.KalshiMD, stranger), { onMessage() {} });
    const error = await link.connect().then(() => null, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(FixLinkError);
    expect((error as FixLinkError).code).toBe('FIX_LOGON_REFUSED');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(link.stats.connects).toBe(0);
    await link.close();
  });

  it('start() keeps trying while nothing listens; close() ends the tries', async () => {
    const free = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const link = new FixLink(options(free), { onMessage() {} });
    link.start();
    await until(() => link.stats.disconnects >= 3, 'several refused connects');
    await link.close();
    const after = link.stats.disconnects;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(link.stats.disconnects).toBe(after);
    expect(link.stats.connects).toBe(0);
  });
});

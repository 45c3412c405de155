/**
 * Goal: malformed WebSocket frames (truncated JSON, not JSON, a delta missing its fields) and
 * messages of unknown types are counted, logged and survived: the runtime keeps its book, keeps
 * applying good frames after them and keeps its strategies running. The simulator cannot send such
 * frames, so a scripted WebSocket server (uWebSockets.js on 127.0.0.1 port 0) plays the exchange's
 * WebSocket while the simulator serves REST (market facts, order entry).
 * Method: the scripted server answers every subscribe with `subscribed` and, for orderbook_delta,
 * sends a snapshot, the bad frames, then a good delta; the test reads the runtime's book, the
 * feed's counters and the strategy host's state.
 */

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as Uws from '@btc-vision/uwebsockets.js';
import { loadUws } from '../../src/net/uws.ts';
import { createPrivateKey } from 'node:crypto';
import { validateConfig } from '../../src/runtime/config.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import { MARKET, ROOT_DIR, startTestSim, waitUntil } from './helpers.ts';
import type { TestSim } from './helpers.ts';

const uws = loadUws();

const BAD_FRAMES = [
  '{"type":"orderbook_delta","sid":1,"seq":',
  'not json at all',
  '{"type":"brand_new_message","sid":1,"msg":{"anything":true}}',
  '{"type":"orderbook_delta"}',
  '[1,2,3]',
  '{"type":"orderbook_delta","sid":1,"msg":{"market_ticker":"KXDEMO-26DEC31-T50","price_dollars":"0.4100","delta_fp":"not a count","side":"yes"}}',
];

let sim: TestSim;
let listen: Uws.us_listen_socket | null = null;
let wsUrl = '';
let nextSid = 1;

beforeAll(async () => {
  sim = await startTestSim();
  const app = uws.App().ws<Record<string, never>>('/*', {
    message(ws, message) {
      const command = JSON.parse(Buffer.from(message).toString('utf8')) as { id: number; cmd: string; params?: { channels?: string[] } };
      if (command.cmd !== 'subscribe') return;
      for (const channel of command.params?.channels ?? []) {
        const sid = nextSid++;
        ws.send(JSON.stringify({ id: command.id, type: 'subscribed', msg: { channel, sid } }));
        if (channel !== 'orderbook_delta') continue;
        const script = [
          JSON.stringify({ type: 'orderbook_snapshot', sid, seq: 1, msg: { market_ticker: MARKET, market_id: 'm-1', yes_dollars_fp: [['0.4000', '10.00']], no_dollars_fp: [['0.5500', '5.00']] } }),
          ...BAD_FRAMES.map((frame) => frame.replace('"sid":1', `"sid":${sid}`)),
          JSON.stringify({ type: 'orderbook_delta', sid, seq: 2, msg: { market_ticker: MARKET, market_id: 'm-1', price_dollars: '0.4100', delta_fp: '3.00', side: 'yes' } }),
        ];
        for (const frame of script) ws.send(frame);
      }
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    app.listen('127.0.0.1', 0, (socket) => {
      if (socket === false) return reject(new Error('scripted WS server: listen failed'));
      listen = socket;
      resolve(uws.us_socket_local_port(socket));
    });
  });
  wsUrl = `ws://127.0.0.1:${port}/trade-api/ws/v2`;
});

afterAll(async () => {
  if (listen !== null) uws.us_listen_socket_close(listen);
  await sim.close();
});

describe('malformed frames and unknown messages', () => {
  it('are counted and survived; good frames after them still apply', async () => {
    const config = validateConfig({ risk: { rateLimitTier: 'prime' }, strategies: [{ id: 'idle', plugin: 'strategies/taker.ts', markets: [MARKET], params: { maxOrders: 0 } }] }, '<malformed>', {});
    const runtime = new Runtime({
      config,
      venue: { restUrl: `${sim.httpUrl}/trade-api/v2`, wsUrl, keyId: sim.demoKey.keyId, privateKey: createPrivateKey(sim.demoKey.privateKeyPem) },
      rootDir: ROOT_DIR,
      journalPath: join(sim.workDir, 'malformed.jsonl'),
      logger: createLogger({ level: 'silent', pretty: false }),
      startTimeoutMs: 5_000,
    });
    try {
      await runtime.start();
      const book = runtime.feed.books.get(MARKET)!;
      await waitUntil(() => book.synced && book.bestBid() === 4100, 5_000, 'the good delta after the bad frames');
      expect(book.bestBidSize()).toBe(300);
      expect(book.bestAsk()).toBe(4500);
      const counters = runtime.feed.counters;
      expect(counters.malformedFrames).toBeGreaterThanOrEqual(4);
      expect(counters.unknownTypes).toBeGreaterThanOrEqual(1);
      expect(counters.listenerErrors).toBe(0);
      expect(runtime.host.summaries().map((s) => s.status)).toEqual(['running']);
      // Snapshot and good delta reached the strategy layer; the bad frames did not.
      expect(runtime.probe.frames).toBe(2);
      expect(runtime.status().booksSynced).toBe(1);
    } finally {
      await runtime.stop('test done');
    }
  });
});

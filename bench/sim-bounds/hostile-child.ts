/**
 * Client A of the sim-bounds bench, in a process of its own so that its work never shares an event
 * loop with client B's latency measurement: one signed-in client running one hostile load at a
 * time against the simulator (the loads of the "one client can take the simulator down" finding).
 *
 * Protocol: prints {"event":"ready","pid"}; then JSON commands on stdin, one reply line each:
 *   {"cmd":"init","http","ws","keyId","privateKeyPath","markets":{ticker: lowest price}} -> {"ok":true}
 *   {"cmd":"start","load"}   starts a load (below), replies at once             -> {"ok":true}
 *   {"cmd":"stop"}           stops it, closes its sockets                        -> {"load", counters...}
 * Loads:
 *   idle               nothing
 *   huge-subscribe     one 400,000-ticker subscribe (about 10 MB in one frame), then, on a new
 *                      connection, 200 subscribes of 2,500 unknown markets (500,000 snapshots), read
 *                      and discarded; the connection is closed and the cycle repeats
 *   repeated-channels  a subscribe naming orderbook_delta 20,000 times on every market, then
 *                      subscribes to every market until the session's subscription cap refuses one;
 *                      every delta then fans out to each of them; read and discarded
 *   max-length-ids     batch creates of 50 resting orders with 64-character client order ids, as
 *                      fast as the write bucket allows, on 4 connections
 *   oversize-ids       creates with a 1,000,000-character client order id (refused 400) as fast as
 *                      answered, on 4 connections
 *   big-listing        GET /portfolio/orders?limit=1000 as fast as the read bucket allows, on 4
 *                      connections (the orders max-length-ids left resting)
 * Every loop ends when stopped; every wait is bounded. Nothing here measures latency.
 */

import { randomBytes, type KeyObject } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { ACCESS_KEY_HEADER, ACCESS_SIGNATURE_HEADER, ACCESS_TIMESTAMP_HEADER, loadPrivateKey, signRequest, signedHeaders } from '../../src/core/index.ts';

const API = '/trade-api/v2';
const WS_PATH = '/trade-api/ws/v2';
const CONNECTIONS = 4;
const REFUSED = Buffer.from('"code":26');

interface Init {
  http: string;
  ws: string;
  keyId: string;
  privateKey: KeyObject;
  markets: Record<string, string>;
}

let init: Init | null = null;
let running: { load: string; stop: () => Promise<Record<string, unknown>> } | null = null;
const agent = new Agent({ connections: CONNECTIONS * 2, pipelining: 1 });

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

function signed(method: string, path: string): Record<string, string> {
  return signedHeaders(init!.keyId, init!.privateKey, Date.now(), method, `${API}${path}`);
}

/** A raw WebSocket that writes masked frames and only counts what it reads (and error 26 replies). */
class CountingSocket {
  readonly socket: Socket;
  bytesIn = 0;
  /** `"code":26` seen in the stream (a refused subscribe); a frame split across reads may be missed. */
  refused = 0;
  ended = false;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('close', () => {
      this.ended = true;
    });
    socket.on('error', () => undefined);
  }

  static async open(port: number): Promise<CountingSocket> {
    const socket = connect({ host: '127.0.0.1', port, noDelay: true });
    const client = new CountingSocket(socket);
    const timestampMs = Date.now();
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('handshake timed out')), 5000);
      socket.once('connect', () => {
        socket.write(
          [
            `GET ${WS_PATH} HTTP/1.1`,
            `Host: 127.0.0.1:${port}`,
            'Upgrade: websocket',
            'Connection: Upgrade',
            `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
            'Sec-WebSocket-Version: 13',
            `${ACCESS_KEY_HEADER}: ${init!.keyId}`,
            `${ACCESS_TIMESTAMP_HEADER}: ${timestampMs}`,
            `${ACCESS_SIGNATURE_HEADER}: ${signRequest(init!.privateKey, timestampMs, 'GET', WS_PATH)}`,
            '',
            '',
          ].join('\r\n'),
        );
      });
      let head = '';
      const onData = (chunk: Buffer): void => {
        head += chunk.toString('latin1');
        if (!head.includes('\r\n\r\n')) return;
        clearTimeout(timer);
        socket.off('data', onData);
        socket.on('data', (more: Buffer) => {
          client.bytesIn += more.length;
          for (let at = more.indexOf(REFUSED); at >= 0; at = more.indexOf(REFUSED, at + 1)) client.refused++;
        });
        if (head.startsWith('HTTP/1.1 101')) resolve();
        else reject(new Error(`handshake answered ${head.slice(0, head.indexOf('\r\n'))}`));
      };
      socket.on('data', onData);
    });
    return client;
  }

  sendText(text: string): void {
    const payload = Buffer.from(text, 'utf8');
    const length = payload.length;
    let header: Buffer;
    if (length < 126) header = Buffer.from([0x81, 0x80 | length]);
    else if (length < 65536) header = Buffer.from([0x81, 0x80 | 126, length >> 8, length & 0xff]);
    else {
      header = Buffer.alloc(10);
      header[0] = 0x81;
      header[1] = 0x80 | 127;
      header.writeBigUInt64BE(BigInt(length), 2);
    }
    // A zero masking key leaves the payload as is (valid per RFC 6455; saves masking 10 MB).
    if (!this.ended) this.socket.write(Buffer.concat([header, Buffer.alloc(4), payload]));
  }

  close(): void {
    this.socket.destroy();
  }
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

function tickers(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
}

/** Runs `body` until `stop` is called; `stop` resolves with the counters once the loop ended. */
function loop(load: string, counters: Record<string, number>, body: (active: () => boolean) => Promise<void>, cleanup: () => void = () => undefined): typeof running {
  let active = true;
  const done = body(() => active).catch((error: Error) => {
    counters.errors = (counters.errors ?? 0) + 1;
    process.stderr.write(`hostile ${load}: ${error.message}\n`);
  });
  return {
    load,
    stop: async () => {
      active = false;
      cleanup();
      await Promise.race([done, sleep(5000)]);
      return { load, ...counters };
    },
  };
}

function hugeSubscribe(): typeof running {
  const counters = { cycles: 0, oversizeFramesDropped: 0, subscribes: 0, megabytesRead: 0 };
  let current: CountingSocket | null = null;
  return loop(
    'huge-subscribe',
    counters,
    async (active) => {
      const port = portOf(init!.ws);
      const huge = JSON.stringify({ id: 1, cmd: 'subscribe', params: { channels: ['orderbook_delta'], market_tickers: tickers('KXHUGE-26DEC31-T', 400_000) } });
      while (active()) {
        current = await CountingSocket.open(port);
        current.sendText(huge);
        for (let i = 0; i < 100 && !current.ended; i++) await sleep(10);
        if (current.ended) counters.oversizeFramesDropped++;
        current.close();
        if (!active()) break;
        current = await CountingSocket.open(port);
        for (let sub = 0; sub < 200; sub++) {
          current.sendText(JSON.stringify({ id: sub + 2, cmd: 'subscribe', params: { channels: ['orderbook_delta'], market_tickers: tickers(`KXHUGE-${counters.cycles}-${sub}`, 2_500) } }));
          counters.subscribes++;
        }
        // 500,000 snapshots of about 110 bytes each; stop waiting when they stop coming.
        let last = -1;
        for (let i = 0; i < 400 && active() && current.bytesIn !== last; i++) {
          last = current.bytesIn;
          await sleep(25);
        }
        counters.megabytesRead += Math.round(current.bytesIn / 1e6);
        current.close();
        counters.cycles++;
      }
    },
    () => current?.close(),
  );
}

function repeatedChannels(): typeof running {
  const counters = { subscribesSent: 0, refused: 0, megabytesRead: 0 };
  let current: CountingSocket | null = null;
  return loop(
    'repeated-channels',
    counters,
    async (active) => {
      current = await CountingSocket.open(portOf(init!.ws));
      const markets = Object.keys(init!.markets);
      current.sendText(JSON.stringify({ id: 1, cmd: 'subscribe', params: { channels: Array(20_000).fill('orderbook_delta'), market_tickers: markets } }));
      // Up to the session's subscription cap (1,000), paced so the command rate limit is not the bound.
      for (let i = 0; i < 1000 && active(); i++) {
        current.sendText(JSON.stringify({ id: i + 2, cmd: 'subscribe', params: { channels: ['orderbook_delta'], market_tickers: markets } }));
        counters.subscribesSent++;
        if (i % 100 === 99) await sleep(5);
      }
      while (active() && !current.ended) {
        await sleep(50);
        counters.refused = current.refused;
        counters.megabytesRead = Math.round(current.bytesIn / 1e6);
      }
    },
    () => current?.close(),
  );
}

async function rest(method: string, path: string, body?: string): Promise<{ status: number; bytes: number }> {
  const response = await request(`${init!.http}${API}${path}`, {
    method: method as 'GET' | 'POST',
    dispatcher: agent,
    headers: body === undefined ? signed(method, path) : { ...signed(method, path), 'content-type': 'application/json' },
    body,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  let bytes = 0;
  for await (const chunk of response.body) bytes += (chunk as Buffer).length;
  return { status: response.statusCode, bytes };
}

function countStatus(counters: Record<string, number>, status: number): void {
  const key = `http${status}`;
  counters[key] = (counters[key] ?? 0) + 1;
}

function maxLengthIds(): typeof running {
  const counters: Record<string, number> = { ordersSent: 0 };
  const tag = randomBytes(4).toString('hex');
  let next = 0;
  const markets = Object.entries(init!.markets);
  return loop('max-length-ids', counters, async (active) => {
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (active()) {
          const orders = Array.from({ length: 50 }, () => {
            const [ticker, price] = markets[next % markets.length];
            const id = `${tag}-${next++}-`.padEnd(64, 'x');
            return { ticker, client_order_id: id, side: 'bid', count: '1', price, time_in_force: 'good_till_canceled', self_trade_prevention_type: 'taker_at_cross', post_only: true };
          });
          const { status } = await rest('POST', '/portfolio/events/orders/batched', JSON.stringify({ orders }));
          countStatus(counters, status);
          if (status === 201) counters.ordersSent += orders.length;
          else await sleep(25); // 429: the write bucket is empty
        }
      }),
    );
  });
}

function oversizeIds(): typeof running {
  const counters: Record<string, number> = {};
  const [ticker, price] = Object.entries(init!.markets)[0];
  const body = JSON.stringify({ ticker, client_order_id: 'x'.repeat(1_000_000), side: 'bid', count: '1', price, time_in_force: 'good_till_canceled', self_trade_prevention_type: 'taker_at_cross' });
  return loop('oversize-ids', counters, async (active) => {
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (active()) countStatus(counters, (await rest('POST', '/portfolio/events/orders', body)).status);
      }),
    );
  });
}

function bigListing(): typeof running {
  const counters: Record<string, number> = { megabytesRead: 0 };
  let bytes = 0;
  return loop('big-listing', counters, async (active) => {
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (active()) {
          const result = await rest('GET', '/portfolio/orders?status=resting&limit=1000');
          countStatus(counters, result.status);
          bytes += result.bytes;
          counters.megabytesRead = Math.round(bytes / 1e6);
          if (result.status !== 200) await sleep(25);
        }
      }),
    );
  });
}

function idle(): typeof running {
  return loop('idle', {}, async (active) => {
    while (active()) await sleep(50);
  });
}

const LOADS: Record<string, () => typeof running> = {
  idle,
  'huge-subscribe': hugeSubscribe,
  'repeated-channels': repeatedChannels,
  'max-length-ids': maxLengthIds,
  'oversize-ids': oversizeIds,
  'big-listing': bigListing,
};

async function handle(command: Record<string, unknown>): Promise<Record<string, unknown>> {
  switch (command.cmd) {
    case 'init':
      init = {
        http: String(command.http),
        ws: String(command.ws),
        keyId: String(command.keyId),
        privateKey: loadPrivateKey(String(command.privateKeyPath)),
        markets: command.markets as Record<string, string>,
      };
      return { ok: true };
    case 'start': {
      if (init === null) return { error: 'not initialised' };
      if (running !== null) await running.stop();
      const make = LOADS[String(command.load)];
      if (make === undefined) return { error: `unknown load ${String(command.load)}` };
      running = make();
      return { ok: true };
    }
    case 'stop': {
      if (running === null) return { error: 'nothing running' };
      const counters = await running.stop();
      running = null;
      return counters;
    }
    default:
      return { error: `unknown command ${String(command.cmd)}` };
  }
}

const lines = createInterface({ input: process.stdin });
// Commands are answered strictly in order (the parent waits for each reply).
let chain: Promise<void> = Promise.resolve();
lines.on('line', (line) => {
  if (line.trim() === '') return;
  chain = chain.then(async () => {
    let reply: Record<string, unknown>;
    try {
      reply = await handle(JSON.parse(line) as Record<string, unknown>);
    } catch (error) {
      reply = { error: (error as Error).message };
    }
    process.stdout.write(`${JSON.stringify(reply)}\n`);
  });
});
lines.on('close', () => {
  void (running?.stop() ?? Promise.resolve()).finally(() => process.exit(0));
});
process.on('SIGTERM', () => process.exit(0));
process.stdout.write(`${JSON.stringify({ event: 'ready', pid: process.pid })}\n`);

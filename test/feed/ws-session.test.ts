/**
 * Goal: the WebSocket session signs its handshake over `<ms>GET<path>` (path from the URL, no
 * query) with the KALSHI-ACCESS-* headers, hands frames over as the socket's bytes, answers server
 * pings (the client does it; we check the server receives the pongs), reconnects with backoff after
 * the server closes, declares a silent connection dead, pinging it first, and fails the connection
 * with 1007 (then reconnects) when the handler says a text frame is not UTF-8. (undici's WebSocket,
 * once a second transport here, is bench/ws-client's baseline now.)
 * Method: real sockets on 127.0.0.1 - a scripted uWebSockets.js server that verifies signatures
 * with core's verifyRequest and counts pongs, and a silent node http server that completes the
 * handshake and then never answers; ticks are driven by hand with a manual clock.
 */

import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyRequest } from '../../src/core/index.ts';
import { handshakeSigner } from '../../src/feed/handshake-signer.ts';
import { seededRandom } from '../../src/core/index.ts';
import { isUtf8 } from 'node:buffer';
import { ConnectionState, WsSession, type WsSessionHandler, type WsSessionOptions } from '../../src/feed/ws-session.ts';
import { RecordingLogger } from './fakes.ts';
import { ScriptedWsServer, SilentWsServer } from './scripted-ws-server.ts';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

class Events implements WsSessionHandler {
  readonly log: string[] = [];
  readonly frames: string[] = [];
  onOpen(): void {
    this.log.push('open');
  }
  onFrame(bytes: Buffer, start: number, end: number): boolean {
    const frame = bytes.subarray(start, end);
    if (!isUtf8(frame)) return false; // as the Feed's decoder answers
    this.frames.push(frame.toString('utf8'));
    return true;
  }
  onClose(code: number): void {
    this.log.push(`close ${code}`);
  }
  onState(state: ConnectionState): void {
    this.log.push(`state ${state}`);
  }
}

/** Polls `condition` every 5 ms, at most `timeoutMs`. */
async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function session(url: string, events: Events, options: Partial<WsSessionOptions> = {}): WsSession {
  const s = new WsSession({
    url,
    sign: handshakeSigner({ keyId: 'key-1', privateKey }),
    handler: events,
    logger: new RecordingLogger(),
    nowMs: () => Date.now(),
    random: seededRandom(7),
    reconnectMinMs: 20,
    reconnectMaxMs: 200,
    idlePingMs: 1_000,
    deadAfterMs: 3_000,
    connectTimeoutMs: 5_000,
    stableAfterMs: 60_000,
    ...options,
  });
  cleanups.push(() => s.stop());
  return s;
}

async function scripted(): Promise<ScriptedWsServer> {
  const server = new ScriptedWsServer();
  await server.listen();
  cleanups.push(() => server.close());
  return server;
}

describe('WsSession', () => {
  it('signs the handshake over the URL path without its query and delivers text frames', async () => {
    const server = await scripted();
    server.verify = (h) => verifyRequest(publicKey, Number(h.timestamp), 'GET', h.url, h.signature);
    server.onMessage = (text, s) => s.send(`echo:${text}`);
    const events = new Events();
    const s = session(`ws://127.0.0.1:${server.port}/trade-api/ws/v2?debug=1`, events);
    expect(s.signedPath).toBe('/trade-api/ws/v2');
    s.start();
    await until(() => s.isOpen);
    const [handshake] = server.handshakes;
    expect(handshake).toMatchObject({ url: '/trade-api/ws/v2', query: 'debug=1', keyId: 'key-1' });
    expect(Math.abs(Number(handshake.timestamp) - Date.now())).toBeLessThan(5_000);
    expect(verifyRequest(publicKey, Number(handshake.timestamp), 'GET', '/trade-api/ws/v2', handshake.signature)).toBe(true);
    expect(s.send('{"id":1,"cmd":"list_subscriptions"}')).toBe(true);
    await until(() => events.frames.length === 1);
    expect(events.frames).toEqual(['echo:{"id":1,"cmd":"list_subscriptions"}']);
    expect(server.messages).toEqual(['{"id":1,"cmd":"list_subscriptions"}']);
    expect(events.log).toEqual(['state connecting', 'state open', 'open']);
  });

  it('keeps retrying with backoff while the handshake is refused', async () => {
    const server = await scripted();
    server.verify = () => false;
    const events = new Events();
    const s = session(`ws://127.0.0.1:${server.port}/trade-api/ws/v2`, events);
    s.start();
    await until(() => server.handshakes.length >= 3);
    expect(s.isOpen).toBe(false);
    expect(events.log).not.toContain('open');
    expect(events.log).toContain('state reconnecting');
    server.verify = () => true;
    await until(() => s.isOpen);
  });

  it('answers server pings: the server receives a pong for each', async () => {
    const server = await scripted();
    const events = new Events();
    const s = session(`ws://127.0.0.1:${server.port}/trade-api/ws/v2`, events);
    s.start();
    await until(() => s.isOpen && server.connections === 1);
    server.ping();
    server.ping();
    await until(() => server.pongs === 2);
  });

  it('reconnects after the server closes the connection, with a new signed handshake', async () => {
    const server = await scripted();
    const events = new Events();
    const s = session(`ws://127.0.0.1:${server.port}/trade-api/ws/v2`, events);
    s.start();
    await until(() => s.isOpen && server.connections === 1);
    server.closeAll(1001);
    await until(() => events.log.includes('close 1001'));
    await until(() => s.isOpen && server.opens === 2);
    expect(s.opens).toBe(2);
    expect(server.handshakes).toHaveLength(2);
    expect(server.handshakes[1].timestamp >= server.handshakes[0].timestamp).toBe(true);
    expect(events.log.filter((e) => e === 'open')).toHaveLength(2);
  });

  it('pings a silent connection, then declares it dead and reconnects', async () => {
    const server = new SilentWsServer();
    await server.listen();
    cleanups.push(() => server.close());
    const events = new Events();
    let now = 1_000_000;
    const s = session(`ws://127.0.0.1:${server.port}/trade-api/ws/v2`, events, { nowMs: () => now, sign: null });
    s.start();
    await until(() => s.isOpen);
    now += 999;
    s.onTick(now);
    expect(s.isOpen).toBe(true);
    now += 1;
    s.onTick(now); // 1 s of silence: ping (the silent server never answers)
    expect(s.isOpen).toBe(true);
    await until(() => server.bytesReceived >= 6); // a masked empty ping frame: 2 header + 4 mask bytes
    now += 2_000;
    s.onTick(now); // 3 s: dead
    expect(s.state).toBe(ConnectionState.RECONNECTING);
    expect(events.log).toContain('close 1006');
    await until(() => server.upgrades === 2 && s.isOpen);
  });

  it('stop closes for good', async () => {
    const server = await scripted();
    const events = new Events();
    const s = session(`ws://127.0.0.1:${server.port}/trade-api/ws/v2`, events);
    s.start();
    await until(() => s.isOpen && server.connections === 1);
    s.stop();
    expect(s.state).toBe(ConnectionState.CLOSED);
    expect(s.send('x')).toBe(false);
    await until(() => server.connections === 0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.opens).toBe(1);
  });

  it('fails the connection with 1007 when the handler says a text frame is not UTF-8, then reconnects', async () => {
    const server = await scripted();
    const events = new Events();
    const s = session(`ws://127.0.0.1:${server.port}/trade-api/ws/v2`, events);
    s.start();
    await until(() => s.isOpen && server.connections === 1);
    server.send('{"before":1}');
    server.sendBytes(Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d])); // {"\xc3("}: not UTF-8
    await until(() => events.log.includes('close 1007'));
    expect(events.frames).toEqual(['{"before":1}']);
    await until(() => server.closeCodes.length === 1);
    expect(server.closeCodes).toEqual([1007]);
    await until(() => s.isOpen && server.opens === 2);
    // Binary messages reach the handler too (counted); the exchange sends text.
    server.sendBytes(Buffer.from('{"binary":true}'), true);
    await until(() => events.frames.length === 2);
    expect([events.frames[1], s.binaryFrames]).toEqual(['{"binary":true}', 1]);
  });
});

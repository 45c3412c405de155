/**
 * Goal: the feed's own WebSocket client (src/net/raw-websocket.ts) frames exactly as RFC 6455 says:
 * messages split across TCP reads or sharing a read with the handshake, 7/16/64-bit lengths,
 * fragmented messages, pings answered with the same payload, the closing handshake with code and
 * reason, masked client frames, and the failures a server can cause (refused or forged handshake,
 * masked server frames, RSV bits, bad UTF-8, oversized messages) closing with the RFC's codes. Over
 * TLS (wss) with a private CA as well. Messages are handed over as bytes: in place (zero copy) when
 * the frame lies whole in one read, copied once into one reused buffer when it was split; a split
 * frame's bytes equal the whole frame's; the listener's UTF-8 verdict (`utf8: 'listener'`) fails
 * the connection with 1007 as the client's own check does.
 * Method: a hand-written server on node:net / node:tls that completes the handshake and then writes
 * exactly the bytes a test gives it (in pieces, with pauses so they arrive as separate reads), and
 * decodes (unmasks) what the client sends.
 */

import { createHash } from 'node:crypto';
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { CloseCode, RawWebSocket } from '../../src/net/index.ts';
import { selfSignedCertificate } from '../exec/self-signed-certificate.ts';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

interface ClientFrame {
  fin: boolean;
  opcode: number;
  masked: boolean;
  payload: Buffer;
}

/** One server connection after the handshake: raw writes out, decoded client frames in. */
class Peer {
  readonly frames: ClientFrame[] = [];
  request = '';
  #buffer = Buffer.alloc(0);
  constructor(readonly socket: Socket) {}

  onBytes(chunk: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const b = this.#buffer;
      if (b.length < 2) return;
      let length = b[1] & 0x7f;
      let at = 2;
      if (length === 126) {
        if (b.length < 4) return;
        length = b.readUInt16BE(2);
        at = 4;
      } else if (length === 127) {
        if (b.length < 10) return;
        length = Number(b.readBigUInt64BE(2));
        at = 10;
      }
      const masked = (b[1] & 0x80) !== 0;
      const maskAt = at;
      if (masked) at += 4;
      if (b.length < at + length) return;
      const payload = Buffer.from(b.subarray(at, at + length));
      if (masked) for (let i = 0; i < payload.length; i++) payload[i] ^= b[maskAt + (i & 3)];
      this.frames.push({ fin: (b[0] & 0x80) !== 0, opcode: b[0] & 0x0f, masked, payload });
      this.#buffer = b.subarray(at + length);
    }
  }
}

/** A server frame (unmasked unless `mask`), any length. */
function frame(opcode: number, payload: Buffer | string, options: { fin?: boolean; mask?: boolean; rsv?: number } = {}): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const length = body.length;
  const head = length < 126 ? Buffer.from([0, length]) : length < 65_536 ? Buffer.alloc(4) : Buffer.alloc(10);
  if (length >= 126 && length < 65_536) {
    head[1] = 126;
    head.writeUInt16BE(length, 2);
  } else if (length >= 65_536) {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(length), 2);
  }
  head[0] = ((options.fin ?? true) ? 0x80 : 0) | ((options.rsv ?? 0) << 4) | opcode;
  if (!options.mask) return Buffer.concat([head, body]);
  head[1] |= 0x80;
  return Buffer.concat([head, Buffer.from([1, 2, 3, 4]), body.map((byte, i) => byte ^ [1, 2, 3, 4][i & 3])]);
}

interface TestServer {
  url: string;
  peers: Peer[];
  server: Server;
}

type Respond = (key: string) => string;
const accept101: Respond = (key) =>
  `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${createHash('sha1').update(key + GUID).digest('base64')}\r\n\r\n`;

const servers: Server[] = [];
const clients: RawWebSocket[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** Listens on 127.0.0.1:0; each connection answers the handshake with `respond`, then `afterHandshake` bytes. */
async function listen(options: { respond?: Respond; afterHandshake?: Buffer; tls?: { key: string; cert: string } } = {}): Promise<TestServer> {
  const peers: Peer[] = [];
  const onConnection = (socket: Socket): void => {
    const peer = new Peer(socket);
    let head = '';
    let upgraded = false;
    socket.on('data', (chunk: Buffer) => {
      if (upgraded) return peer.onBytes(chunk);
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      upgraded = true;
      peer.request = head.slice(0, end);
      const key = /sec-websocket-key: *(\S+)/i.exec(peer.request)?.[1] ?? '';
      socket.write(Buffer.concat([Buffer.from((options.respond ?? accept101)(key), 'latin1'), options.afterHandshake ?? Buffer.alloc(0)]));
      peers.push(peer);
      const rest = Buffer.from(head.slice(end + 4), 'latin1');
      if (rest.length > 0) peer.onBytes(rest);
    });
    socket.on('error', () => {});
  };
  const server = options.tls === undefined ? createNetServer(onConnection) : createTlsServer({ key: options.tls.key, cert: options.tls.cert }, onConnection);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `${options.tls === undefined ? 'ws' : 'wss'}://127.0.0.1:${port}/trade-api/ws/v2?x=1`, peers, server };
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

interface Observed {
  client: RawWebSocket;
  opened: boolean;
  /** Text messages as strings, binary ones as ArrayBuffers (copied out of the client's bytes). */
  messages: (string | ArrayBuffer)[];
  /** The buffer each message was handed over in, and the message's bounds in it. */
  deliveries: { data: Buffer; start: number; end: number }[];
  controls: string[];
  closes: { code: number; reason: string }[];
  /** What ontext answers (the listener's UTF-8 verdict). */
  accept: (text: Buffer) => boolean;
}

function open(url: string, options: ConstructorParameters<typeof RawWebSocket>[1] = {}): Observed {
  const client = new RawWebSocket(url, options);
  clients.push(client);
  const seen: Observed = { client, opened: false, messages: [], deliveries: [], controls: [], closes: [], accept: () => true };
  client.onopen = () => (seen.opened = true);
  client.ontext = (data, start, end) => {
    seen.deliveries.push({ data, start, end });
    seen.messages.push(data.toString('utf8', start, end));
    return seen.accept(data.subarray(start, end));
  };
  client.onbinary = (data, start, end) => {
    seen.deliveries.push({ data, start, end });
    seen.messages.push(new Uint8Array(data.subarray(start, end)).buffer);
  };
  client.oncontrol = (kind) => seen.controls.push(kind);
  client.onclose = (event) => seen.closes.push({ code: event.code, reason: event.reason });
  client.onerror = () => {};
  return seen;
}

/** Writes `pieces` one at a time, pausing so that each reaches the client as a read of its own. */
async function writeApart(socket: Socket, pieces: readonly Buffer[]): Promise<void> {
  for (const piece of pieces) {
    socket.write(piece);
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
}

describe('RawWebSocket', () => {
  it('sends the upgrade request with its headers, then delivers a frame that shared the handshake read', async () => {
    const server = await listen({ afterHandshake: frame(1, '{"type":"subscribed"}') });
    const seen = open(server.url, { headers: { 'KALSHI-ACCESS-KEY': 'key-1' } });
    await until(() => seen.messages.length === 1);
    expect(seen.opened).toBe(true);
    expect(seen.messages).toEqual(['{"type":"subscribed"}']);
    const request = server.peers[0]!.request;
    expect(request.startsWith('GET /trade-api/ws/v2?x=1 HTTP/1.1\r\n')).toBe(true);
    expect(request).toMatch(/\r\nKALSHI-ACCESS-KEY: key-1(\r\n|$)/);
    expect(request).toMatch(/\r\nSec-WebSocket-Version: 13(\r\n|$)/);
  });

  it('reassembles frames split byte by byte, 16- and 64-bit lengths, and fragmented messages', async () => {
    const server = await listen();
    const seen = open(server.url);
    await until(() => server.peers.length === 1 && seen.opened);
    const socket = server.peers[0]!.socket;
    const medium = 'm'.repeat(300);
    const large = 'L'.repeat(70_000);
    const bytes = Buffer.concat([
      frame(1, 'short'),
      frame(1, medium),
      frame(1, large),
      frame(1, 'frag-', { fin: false }),
      frame(9, 'p'), // a ping between fragments is allowed
      frame(0, 'ment-', { fin: false }),
      frame(0, 'ed'),
      frame(2, Buffer.from([1, 2, 3])),
    ]);
    for (let i = 0; i < 400; i++) socket.write(bytes.subarray(i, i + 1)); // the first 400 bytes one at a time
    socket.write(bytes.subarray(400));
    await until(() => seen.messages.length === 5);
    expect(seen.messages.slice(0, 4)).toEqual(['short', medium, large, 'frag-ment-ed']);
    expect(Buffer.from(seen.messages[4] as ArrayBuffer)).toEqual(Buffer.from([1, 2, 3]));
    expect(seen.controls).toEqual(['ping']);
  });

  it('joins a 3 MiB message written in 1,000-byte pieces (a large snapshot), then the frame after it', async () => {
    const server = await listen();
    const seen = open(server.url);
    await until(() => server.peers.length === 1 && seen.opened);
    const snapshot = `{"type":"orderbook_snapshot","msg":"${'s'.repeat(3 * 1024 * 1024)}"}`;
    const bytes = Buffer.concat([frame(1, snapshot), frame(1, 'next')]);
    const socket = server.peers[0]!.socket;
    for (let at = 0; at < bytes.length; at += 1_000) socket.write(bytes.subarray(at, at + 1_000));
    await until(() => seen.messages.length === 2, 20_000);
    expect(seen.messages[0]).toBe(snapshot);
    expect(seen.messages[1]).toBe('next');
  });

  it('answers a ping with a masked pong carrying the same payload, and masks what it sends', async () => {
    const server = await listen();
    const seen = open(server.url);
    await until(() => server.peers.length === 1 && seen.opened);
    const peer = server.peers[0]!;
    peer.socket.write(frame(9, 'are-you-there'));
    await until(() => peer.frames.length === 1);
    expect(peer.frames[0]).toMatchObject({ fin: true, opcode: 10, masked: true });
    expect(peer.frames[0]!.payload.toString()).toBe('are-you-there');
    const big = 'c'.repeat(70_000);
    seen.client.send('{"id":1,"cmd":"subscribe"}');
    seen.client.send(big);
    seen.client.ping();
    await until(() => peer.frames.length === 4);
    expect(peer.frames.slice(1).map((f) => [f.opcode, f.masked, f.payload.length])).toEqual([[1, true, 26], [1, true, 70_000], [9, true, 0]]);
    expect(peer.frames[1]!.payload.toString()).toBe('{"id":1,"cmd":"subscribe"}');
    expect(peer.frames[2]!.payload.toString()).toBe(big);
  });

  it('completes the closing handshake: the server\'s code and reason reach onclose, the close is echoed', async () => {
    const server = await listen();
    const seen = open(server.url);
    await until(() => server.peers.length === 1 && seen.opened);
    const peer = server.peers[0]!;
    const body = Buffer.concat([Buffer.from([0x0f, 0xa1]), Buffer.from('maintenance')]); // 4001
    peer.socket.write(frame(8, body));
    await until(() => seen.closes.length === 1 && peer.frames.length === 1);
    expect(seen.closes).toEqual([{ code: 4001, reason: 'maintenance' }]);
    expect(peer.frames[0]).toMatchObject({ opcode: 8, masked: true });
    expect(peer.frames[0]!.payload.readUInt16BE(0)).toBe(4001);
    seen.client.send('late'); // after close: dropped, no throw
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(peer.frames).toHaveLength(1);
  });

  it('closes with the RFC\'s codes on protocol violations from the server', async () => {
    const cases: [Buffer, number, RegExp][] = [
      [frame(1, 'x', { mask: true }), CloseCode.PROTOCOL_ERROR, /masked/],
      [frame(1, 'x', { rsv: 4 }), CloseCode.PROTOCOL_ERROR, /RSV/],
      [frame(1, Buffer.from([0xc3, 0x28])), CloseCode.INVALID_DATA, /UTF-8/],
      [frame(0, 'orphan'), CloseCode.PROTOCOL_ERROR, /continuation/],
      [frame(9, 'x'.repeat(126)), CloseCode.PROTOCOL_ERROR, /control frame/],
      [frame(5, 'x'), CloseCode.PROTOCOL_ERROR, /opcode/],
      [frame(1, 'y'.repeat(2_000)), CloseCode.TOO_BIG, /bytes/],
    ];
    for (const [bytes, code, reason] of cases) {
      const server = await listen({ afterHandshake: bytes });
      const seen = open(server.url, { maxMessageBytes: 1_000 });
      await until(() => seen.closes.length === 1);
      expect(seen.messages).toEqual([]);
      expect(seen.closes[0]!.code).toBe(code);
      expect(seen.closes[0]!.reason).toMatch(reason);
      await until(() => server.peers[0]!.frames.length === 1); // told the server why
      expect(server.peers[0]!.frames[0]!.opcode).toBe(8);
      expect(server.peers[0]!.frames[0]!.payload.readUInt16BE(0)).toBe(code);
    }
  });

  it('reports a refused or forged handshake as a close without opening', async () => {
    const refused = await listen({ respond: () => 'HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n' });
    const a = open(refused.url);
    await until(() => a.closes.length === 1);
    expect(a.opened).toBe(false);
    expect(a.closes[0]).toEqual({ code: CloseCode.ABNORMAL, reason: 'handshake refused: HTTP/1.1 401 Unauthorized' });

    const forged = await listen({ respond: () => 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: bm90LXRoZS1yaWdodC1rZXk=\r\n\r\n' });
    const b = open(forged.url);
    await until(() => b.closes.length === 1);
    expect(b.opened).toBe(false);
    expect(b.closes[0]!.code).toBe(CloseCode.PROTOCOL_ERROR);
    expect(() => new RawWebSocket('http://127.0.0.1:1/')).toThrow(/not a ws: or wss: URL/);
  });

  it('hands a frame that lies whole in one read over in place, and a split one copied once into one reused buffer', async () => {
    const server = await listen();
    const seen = open(server.url);
    await until(() => server.peers.length === 1 && seen.opened);
    const socket = server.peers[0]!.socket;
    const texts = ['{"type":"orderbook_delta","sid":1,"seq":2}', '{"n":2}', 'x'.repeat(300)];
    socket.write(Buffer.concat(texts.map((text) => frame(1, text)))); // one write: one read on loopback
    await until(() => seen.messages.length === 3);
    expect(seen.messages).toEqual(texts);
    expect([seen.client.deliveredInPlace, seen.client.deliveredCopied]).toEqual([3, 0]);
    expect(new Set(seen.deliveries.map((d) => d.data)).size).toBe(1); // the socket's chunk itself

    // The same frames split at several points, each part its own read: the same bytes, copied.
    const payload = '{"type":"orderbook_delta","sid":1,"seq":3,"msg":{"market_ticker":"KXEXAMPLE-26DEC31-T100","price_dollars":"0.4200","delta_fp":"-40.00","side":"yes"}}';
    const whole = frame(1, payload); // 16-bit length: a 4-byte header, so cuts 1-3 split the header
    const cuts = [1, 2, 3, 7, 40, whole.length - 1];
    for (const cut of cuts) await writeApart(socket, [whole.subarray(0, cut), whole.subarray(cut)]);
    await until(() => seen.messages.length === 3 + cuts.length);
    expect(seen.messages.slice(3)).toEqual(cuts.map(() => payload));
    expect([seen.client.deliveredInPlace, seen.client.deliveredCopied]).toEqual([3, cuts.length]);
    const copiedInto = new Set(seen.deliveries.slice(3).map((d) => d.data));
    expect(copiedInto.size).toBe(1); // one carry buffer, reused
    expect(seen.deliveries.slice(3).every((d) => d.start === 4 && d.end === 4 + payload.length)).toBe(true); // the frame at the carry's start

    // A split frame followed, in the same read, by whole ones: the split one copied, the rest in place.
    const next = [frame(1, 'a'), frame(1, 'b')];
    await writeApart(socket, [whole.subarray(0, 50), Buffer.concat([whole.subarray(50), ...next])]);
    await until(() => seen.messages.length === 3 + cuts.length + 3);
    expect(seen.messages.slice(-3)).toEqual([payload, 'a', 'b']);
    expect([seen.client.deliveredInPlace, seen.client.deliveredCopied]).toEqual([5, cuts.length + 1]);
  });

  it('answers a ping split across reads with its own payload (the carry buffer is reused after)', async () => {
    const server = await listen();
    const seen = open(server.url);
    await until(() => server.peers.length === 1 && seen.opened);
    const peer = server.peers[0]!;
    const ping = frame(9, 'split-ping-payload');
    await writeApart(peer.socket, [ping.subarray(0, 1), ping.subarray(1, 9), Buffer.concat([ping.subarray(9), frame(1, 'y'.repeat(18)).subarray(0, 5)])]);
    await until(() => peer.frames.length === 1);
    expect(peer.frames[0]!.payload.toString()).toBe('split-ping-payload');
  });

  it('fails the connection with 1007 when the listener says a text frame is not UTF-8', async () => {
    const server = await listen({ afterHandshake: Buffer.concat([frame(1, 'fine'), frame(1, Buffer.from([0x7b, 0xff, 0x7d])), frame(1, 'never')]) });
    const seen = open(server.url, { utf8: 'listener' });
    seen.accept = (text) => text[1] !== 0xff; // as the Feed's decoder answers
    await until(() => seen.closes.length === 1);
    expect(seen.messages.length).toBe(2); // 'fine', then the bad one; nothing after it
    expect(seen.closes[0]).toEqual({ code: CloseCode.INVALID_DATA, reason: 'text frame is not UTF-8' });
    await until(() => server.peers[0]!.frames.length === 1);
    expect(server.peers[0]!.frames[0]!.payload.readUInt16BE(0)).toBe(CloseCode.INVALID_DATA);
  });

  it('with a turn budget, hands the rest of a burst over after a turn, so timers and I/O run between; every message in order', async () => {
    const server = await listen();
    // A fake clock: each message costs 10 us; the budget is 100 us, looked at every 16 messages.
    let clockNs = 1e9;
    const seen = open(server.url, { turnBudgetNs: 100_000, now: () => clockNs });
    const ontext = seen.client.ontext!;
    let immediateAt = -1;
    seen.client.ontext = (data, start, end) => {
      if (seen.messages.length === 0) setImmediate(() => (immediateAt = seen.messages.length));
      clockNs += 10_000;
      return ontext(data, start, end);
    };
    await until(() => server.peers.length === 1 && seen.opened);
    const count = 2_000;
    // One write of ~88 KB: more than one read of the client's reused read buffer (64 KiB), so a
    // read after the socket resumes lands where the rest of the previous one was; each far above
    // the budget. Every message distinct: a rest overwritten before it was handed over would show.
    const text = (i: number): string => `m${i}`.padEnd(40, '.');
    server.peers[0]!.socket.write(Buffer.concat(Array.from({ length: count }, (_, i) => frame(1, text(i)))));
    await until(() => seen.messages.length === count);
    expect(seen.messages).toEqual(Array.from({ length: count }, (_, i) => text(i)));
    // Without the budget the whole first read is handed over before the immediate can run.
    expect(immediateAt).toBeGreaterThan(0);
    expect(immediateAt).toBeLessThanOrEqual(32);
    expect(seen.client.yields).toBeGreaterThanOrEqual(Math.floor(count / 32));
    // The socket reads again after the burst: the next message arrives.
    server.peers[0]!.socket.write(frame(1, 'after'));
    await until(() => seen.messages.length === count + 1);
    expect(seen.messages.at(-1)).toBe('after');
  });

  it('speaks wss through TLS with a private CA', async () => {
    const certificate = selfSignedCertificate();
    const server = await listen({ tls: { key: certificate.key, cert: certificate.cert }, afterHandshake: frame(1, 'over tls') });
    const seen = open(server.url, { ca: certificate.cert });
    await until(() => seen.messages.length === 1);
    expect(seen.messages).toEqual(['over tls']);
    const untrusted = open(server.url);
    await until(() => untrusted.closes.length === 1);
    expect(untrusted.opened).toBe(false);
  });
});

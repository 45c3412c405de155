// Goal: the rfq bench suite's stamps (bench/rfq/wire-stamps.ts) pair the right bytes: RFQ ids are
// read from rfq_created frames (several per chunk) and FIX QuoteRequests, the quote's RFQ id from a
// REST body or a FIX Quote; t0/t1 match per RFQ id, first stamp wins, quotes without a t0 and RFQs
// never quoted are counted; over real loopback sockets, a lane's socket is known by its key id, the
// quote head is stamped even when the body (with the id) comes in the next write, other keys'
// sockets and the server's own sockets are never stamped, and uninstall restores net.Socket.
// Method: the module's functions on hand-made bytes, and a node:net server on 127.0.0.1 port 0.
// No timing is asserted (only that t1 >= t0 where both exist).
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LaneStamps, SocketStamper, fixFieldOfType, matchLane, rfqIdInQuoteBody, rfqIdsInWsChunk } from '../../bench/rfq/wire-stamps.ts';

const frame = (id: string, seq: number): string =>
  `{"type":"rfq_created","sid":3,"seq":${seq},"msg":{"id":"${id}","creator_id":"abc","market_ticker":"KXDEMO-26DEC31-T50","contracts_fp":"10.00"}}`;
const fix = (fields: string): string => `8=FIXT.1.1\x019=99\x01${fields}\x0110=123\x01`;

describe('rfq stamps: reading ids', () => {
  it('reads every rfq_created id in a chunk and ignores other messages', () => {
    const chunk = `\x81\x7e${frame('rfq-1', 1)}\x81\x7e{"type":"quote_created","sid":3,"seq":2,"msg":{"id":"q-9","rfq_id":"rfq-1"}}\x81\x7e${frame('rfq-2', 3)}`;
    expect(rfqIdsInWsChunk(chunk)).toEqual(['rfq-1', 'rfq-2']);
    expect(rfqIdsInWsChunk('{"type":"rfq_deleted","sid":3,"seq":4,"msg":{"id":"rfq-1"}}')).toEqual([]);
    expect(rfqIdsInWsChunk(frame('rfq-3', 5).slice(0, 40))).toEqual([]); // split: the id is in the next chunk
  });

  it('reads 131 of QuoteRequests and Quotes only', () => {
    const chunk = fix('35=R\x0134=7\x01131=rfq-7\x0155=KX') + fix('35=AI\x0134=8\x01131=rfq-8') + fix('35=R\x0134=9\x01131=rfq-9');
    expect(fixFieldOfType(chunk, 'R', '131')).toEqual(['rfq-7', 'rfq-9']);
    expect(fixFieldOfType(fix('35=S\x0134=2\x01117=fq1\x01131=rfq-7\x0155=KX'), 'S', '131')).toEqual(['rfq-7']);
    expect(fixFieldOfType(fix('35=S\x0134=2\x01117=fq1'), 'S', '131')).toEqual([]);
  });

  it('reads the rfq_id of a quote body', () => {
    expect(rfqIdInQuoteBody('{"rfq_id":"rfq-5","yes_bid":"0.4800","no_bid":"0.4800"}')).toBe('rfq-5');
    expect(rfqIdInQuoteBody('{"yes_bid":"0.4800"}')).toBeNull();
  });
});

describe('rfq stamps: matching', () => {
  it('pairs t0 and t1 per id over the counted ids, first stamp wins, and counts what is missing', () => {
    const stamps = new LaneStamps();
    stamps.noteReceived('a', 100n);
    stamps.noteReceived('a', 150n); // a second copy of the RFQ: the first bytes count
    stamps.noteSent('a', 400n);
    stamps.noteSent('a', 900n);
    stamps.noteReceived('b', 200n); // never quoted
    stamps.noteSent('c', 500n); // no t0
    stamps.noteReceived('warm', 1n);
    stamps.noteSent('warm', 2n); // not a counted id
    const match = matchLane(stamps, ['a', 'b', 'c']);
    expect(match).toEqual({ latenciesNs: [300], received: 2, quoted: 2, sentWithoutReceived: 1 });
  });
});

describe('rfq stamps: sockets', () => {
  let stamper: SocketStamper | null = null;
  let server: net.Server | null = null;
  afterEach(async () => {
    stamper?.uninstall();
    await new Promise<void>((resolve) => (server === null ? resolve() : server.close(() => resolve())));
    server = null;
  });

  it('stamps a lane socket known by its key id, head then body, and nothing else', async () => {
    const originalEmit = net.Socket.prototype.emit;
    const originalWrite = net.Socket.prototype.write;
    const serverSockets: net.Socket[] = [];
    server = net.createServer((socket) => {
      serverSockets.push(socket);
      socket.on('data', () => {});
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as net.AddressInfo).port;
    stamper = new SocketStamper([{ name: 'lane', kind: 'ws', keyId: 'KEY-LANE' }], [port]);
    stamper.install();
    const connect = async (): Promise<net.Socket> => {
      const socket = net.connect(port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      return socket;
    };
    const lane = await connect();
    const other = await connect();
    const received: string[] = [];
    lane.on('data', (chunk: Buffer) => received.push(chunk.toString()));
    lane.write('GET /trade-api/ws/v2 HTTP/1.1\r\nKALSHI-ACCESS-KEY: KEY-LANE\r\n\r\n');
    other.write('GET /trade-api/ws/v2 HTTP/1.1\r\nKALSHI-ACCESS-KEY: KEY-OTHER\r\n\r\n');
    await until(() => serverSockets.length === 2);
    // The server sends the RFQ to both; only the lane's socket is stamped.
    for (const socket of serverSockets) socket.write(frame('rfq-1', 1));
    await until(() => received.length > 0);
    lane.write('POST /trade-api/v2/communications/quotes HTTP/1.1\r\nKALSHI-ACCESS-KEY: KEY-LANE\r\n\r\n');
    lane.write('{"rfq_id":"rfq-1","yes_bid":"0.4800"}');
    other.write('POST /trade-api/v2/communications/quotes HTTP/1.1\r\n\r\n{"rfq_id":"rfq-2"}');
    const stamps = stamper.stamps[0]!;
    expect([...stamps.received.keys()]).toEqual(['rfq-1']);
    expect([...stamps.sent.keys()]).toEqual(['rfq-1']);
    expect(stamps.sent.get('rfq-1')! >= stamps.received.get('rfq-1')!).toBe(true);
    stamper.uninstall();
    expect(net.Socket.prototype.emit).toBe(originalEmit);
    expect(net.Socket.prototype.write).toBe(originalWrite);
    lane.destroy();
    other.destroy();
  });
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!check()) throw new Error('timed out');
}

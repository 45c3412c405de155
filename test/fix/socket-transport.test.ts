/**
 * Goal: the FIX socket transport's reused output buffer never sends a message that a later one
 * overwrote. The session's encoder reuses its own buffer, so the transport copies each message:
 * into one reused buffer while the socket holds nothing, else into a buffer of its own. A burst
 * large enough that the kernel stops taking writes at once must still arrive byte for byte, and so
 * must the messages written one at a time after it drains.
 * The keep-warm's rehearsal (rehearse(): the copy into the reused buffer, no write) between the
 * writes must send nothing and never touch bytes the socket still holds; the diagnostics channels
 * mark every write, and no rehearsal.
 * Method: a TCP server on 127.0.0.1 port 0 that collects every byte; the client writes messages of
 * varying length from one source buffer it overwrites after every write, as the encoder does, and
 * rehearses another message of its own after each.
 */

import { createServer, connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { FIX_WRITE_CHANNEL, FIX_WRITE_START_CHANNEL, socketTransport } from '../../src/fix/socket-link.ts';

const BURST = 20_000;
const ONE_AT_A_TIME = 200;
const chunks: Buffer[] = [];
let received = 0;
const server = createServer((socket) => socket.on('data', (chunk: Buffer) => { chunks.push(chunk); received += chunk.length; }));
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Message `n`: a FIX-like line of 40 to 1,039 bytes whose content names n, so a mix-up shows. */
function message(n: number, into: Buffer): number {
  const head = `8=FIXT.1.1\u00019=${n}\u000135=D\u000111=order-${n}\u000158=`;
  const length = 40 + ((n * 7919) % 1_000);
  into.write(head, 0, 'latin1');
  into.fill(0x41 + (n % 26), head.length, length - 1);
  into[length - 1] = 0x01;
  return length;
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('FIX socket transport', () => {
  it('delivers a queued burst and then single messages byte for byte, though the source buffer is overwritten after each write', async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const socket: Socket = connect({ host: '127.0.0.1', port });
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const transport = socketTransport(socket, 1_000);
    const source = Buffer.alloc(2_048);
    const expected: Buffer[] = [];
    let queuedSeen = false;
    const rehearsed = Buffer.alloc(2_048);
    let starts = 0;
    let returns = 0;
    const onStart = (): void => void starts++;
    const onReturn = (): void => void returns++;
    subscribe(FIX_WRITE_START_CHANNEL, onStart);
    subscribe(FIX_WRITE_CHANNEL, onReturn);
    const send = (n: number): void => {
      const length = message(n, source);
      expected.push(Buffer.from(source.subarray(0, length)));
      transport.write(source.subarray(0, length));
      if (socket.writableLength > 0) queuedSeen = true;
      source.fill(0x3f); // the encoder's next message overwrites its buffer
      // A rehearsal of another message: nothing sent, and a queued write's bytes left alone.
      transport.rehearse!(rehearsed.subarray(0, message(n + 1_000_000, rehearsed)));
    };
    for (let n = 0; n < BURST; n++) send(n);
    expect(queuedSeen).toBe(true); // the burst did make the socket queue
    await new Promise<void>((resolve) => (socket.writableLength === 0 ? resolve() : socket.once('drain', resolve)));
    for (let n = BURST; n < BURST + ONE_AT_A_TIME; n++) {
      send(n);
      if (socket.writableLength > 0) await new Promise<void>((resolve) => socket.once('drain', resolve));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const total = expected.reduce((sum, bytes) => sum + bytes.length, 0);
    await waitFor(() => received >= total, 20_000);
    expect(received).toBe(total);
    expect(Buffer.concat(chunks).equals(Buffer.concat(expected))).toBe(true);
    unsubscribe(FIX_WRITE_START_CHANNEL, onStart);
    unsubscribe(FIX_WRITE_CHANNEL, onReturn);
    expect(starts).toBe(BURST + ONE_AT_A_TIME);
    expect(returns).toBe(BURST + ONE_AT_A_TIME);
    socket.destroy();
  }, 60_000);
});

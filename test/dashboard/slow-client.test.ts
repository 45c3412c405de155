/**
 * Goal: a dashboard client that stops reading never makes the runtime buffer without bound: once
 * its send buffer passes the limit it misses updates (counted), while another client keeps
 * getting every view; closing it frees its slot.
 * Method: OperatorSnapshots over test/dashboard/fake-source.ts with 200 live orders (views of
 * ~30 KB) on a 10 ms timer, a DashboardServer on 127.0.0.1 port 0 with a 64 KiB send limit; the
 * slow client is a raw TCP socket that completes the WebSocket handshake and then pauses
 * reading; the healthy one is undici's WebSocket. Bounded waits.
 */

import { connect as tcpConnect } from 'node:net';
import type { Socket } from 'node:net';
import { WebSocket } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { DashboardServer, OperatorSnapshots } from '../../src/dashboard/index.ts';
import { waitUntil } from '../integration/helpers.ts';
import { fakeSource } from './fake-source.ts';

const TOKEN = 'slow-client-test-token';
let snapshots: OperatorSnapshots | null = null;
let dashboard: DashboardServer | null = null;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  snapshots?.stop();
  snapshots = null;
  await dashboard?.stop();
  dashboard = null;
});

/** A WebSocket handshake over a raw socket; resolves once the 101 arrives, with reading paused. */
function stalledClient(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host: '127.0.0.1', port });
    sockets.push(socket);
    const timer = setTimeout(() => reject(new Error('no 101 in 5 s')), 5_000);
    socket.once('connect', () => {
      socket.write(`GET /ws?token=${TOKEN} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
    });
    socket.once('data', (chunk: Buffer) => {
      clearTimeout(timer);
      if (!chunk.toString('latin1').startsWith('HTTP/1.1 101')) {
        reject(new Error(`handshake refused: ${chunk.toString('latin1').split('\r\n')[0]}`));
        return;
      }
      socket.pause(); // from here on the kernel buffers fill and the server sees backpressure
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

describe('a slow dashboard client', () => {
  it('misses updates instead of being buffered for, and does not slow the others', async () => {
    const { source } = fakeSource(200);
    snapshots = new OperatorSnapshots(source, 10);
    dashboard = await DashboardServer.start({ host: '127.0.0.1', port: 0, token: TOKEN, snapshots, sendBufferBytesMax: 64 * 1024, onKill: () => undefined });
    snapshots.start();
    const stalled = await stalledClient(dashboard.port);
    const healthy = new WebSocket(`ws://127.0.0.1:${dashboard.port}/ws?token=${TOKEN}`);
    let views = 0;
    healthy.addEventListener('message', () => {
      views++;
    });
    await waitUntil(() => dashboard!.stats.dropped > 0, 20_000, 'updates dropped for the stalled client');
    // The healthy client keeps receiving views meanwhile: at least half the ticks' (some may be in flight).
    const before = views;
    const ticksBefore = snapshots.view!.seq;
    await waitUntil(() => views >= before + 20, 5_000, 'views to the healthy client');
    expect(views - before).toBeGreaterThanOrEqual((snapshots.view!.seq - ticksBefore) / 2);
    const droppedBefore = dashboard.stats.dropped;
    await waitUntil(() => dashboard!.stats.dropped >= droppedBefore + 10, 5_000, 'still dropping while stalled');
    expect(dashboard.stats.clients).toBe(2);
    stalled.destroy();
    await waitUntil(() => dashboard!.stats.clients === 1, 5_000, 'the stalled client gone');
    healthy.close();
  }, 40_000);
});

/**
 * Client B of the sim-bounds bench: a well-behaved client timing `GET /trade-api/v2/exchange/status`
 * (public, the cheapest route: its latency is the simulator's event loop wait) on raw keep-alive
 * HTTP/1.1 sockets. Requests are due on a fixed schedule, round-robin over the sockets; a sample
 * runs from the write to the end of the response, except that a request due while its socket still
 * waits for the previous answer is sent when the socket frees and timed from its due time, so a
 * stalled simulator shows up in full (no coordinated omission). Unsigned callers are billed per remote address at the Basic tier (200 read tokens/s,
 * cost 10), so the sockets come from different loopback addresses (127.0.0.2, .3, ...), each
 * within its own budget, and client A (signed, its own bucket) never spends B's tokens.
 */

import { connect, type Socket } from 'node:net';
import { createHistogram, nowNs, recordNs, type Histogram } from '../harness.ts';

const REQUEST_PATH = '/trade-api/v2/exchange/status';

class ProbeSocket {
  readonly socket: Socket;
  #buffer = '';
  /** Due time (ns) of the request in flight, or -1 when idle. */
  dueNs = -1;
  /** Due times of requests waiting for this socket. */
  readonly backlog: number[] = [];
  #onResponse: (socket: ProbeSocket, status: number) => void;
  #request: string;

  constructor(port: number, localAddress: string, onResponse: (socket: ProbeSocket, status: number) => void) {
    this.socket = connect({ host: '127.0.0.1', port, localAddress, noDelay: true });
    this.socket.setEncoding('latin1');
    this.socket.on('error', () => undefined);
    this.socket.on('data', (chunk: string) => this.#onData(chunk));
    this.#onResponse = onResponse;
    this.#request = `GET ${REQUEST_PATH} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
  }

  connected(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.once('connect', resolve);
      this.socket.once('error', reject);
    });
  }

  /**
   * Sends now when idle (timed from now: this client's own timer lateness is not the server's), else
   * queues it behind the request in flight (timed from its due time: the server held it up).
   */
  send(dueNs: number): void {
    if (this.dueNs !== -1) {
      this.backlog.push(dueNs);
      return;
    }
    this.#start(nowNs());
  }

  #start(fromNs: number): void {
    this.dueNs = fromNs;
    this.socket.write(this.#request);
  }

  #onData(chunk: string): void {
    this.#buffer += chunk;
    for (;;) {
      const end = this.#buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.#buffer.slice(0, end);
      const match = /content-length:\s*(\d+)/i.exec(head);
      const length = match === null ? 0 : Number(match[1]);
      if (this.#buffer.length < end + 4 + length) return;
      const status = Number(head.slice(9, 12));
      this.#buffer = this.#buffer.slice(end + 4 + length);
      this.#onResponse(this, status);
    }
  }

  /** The response to the request in flight arrived; starts the next waiting one. */
  finish(): void {
    this.dueNs = -1;
    const next = this.backlog.shift();
    if (next !== undefined) this.#start(next);
  }

  close(): void {
    this.socket.destroy();
  }
}

export interface ProbeResult {
  histogram: Histogram;
  statuses: Map<number, number>;
  /** Requests due in the window that had no answer when it (and its grace) ended. */
  unanswered: number;
}

export class StatusProber {
  readonly #sockets: ProbeSocket[] = [];
  readonly #port: number;
  readonly #addresses: number;
  #histogram: Histogram | null = null;
  #statuses = new Map<number, number>();

  /** `addresses` loopback sources (127.0.0.2 on), one socket each. */
  constructor(port: number, addresses: number) {
    this.#port = port;
    this.#addresses = addresses;
  }

  async open(): Promise<void> {
    for (let i = 0; i < this.#addresses; i++) {
      const socket = new ProbeSocket(this.#port, `127.0.0.${i + 2}`, (probe, status) => this.#onResponse(probe, status));
      this.#sockets.push(socket);
    }
    await Promise.all(this.#sockets.map((socket) => socket.connected()));
  }

  #onResponse(probe: ProbeSocket, status: number): void {
    if (this.#histogram !== null && probe.dueNs !== -1) {
      recordNs(this.#histogram, nowNs() - probe.dueNs);
      this.#statuses.set(status, (this.#statuses.get(status) ?? 0) + 1);
    }
    probe.finish();
  }

  /**
   * Sends `ratePerSec` requests a second for `windowMs`, round-robin over the sockets, then waits at
   * most `graceMs` for the last answers. Every loop is bounded by the window and the grace.
   */
  async measure(ratePerSec: number, windowMs: number, graceMs: number): Promise<ProbeResult> {
    const histogram = createHistogram();
    this.#histogram = histogram;
    this.#statuses = new Map();
    const intervalNs = 1e9 / ratePerSec;
    const startNs = nowNs();
    const endNs = startNs + windowMs * 1e6;
    let dueNs = startNs;
    let index = 0;
    let sent = 0;
    while (dueNs < endNs) {
      const now = nowNs();
      while (dueNs <= now && dueNs < endNs) {
        this.#sockets[index].send(dueNs);
        index = (index + 1) % this.#sockets.length;
        dueNs += intervalNs;
        sent++;
      }
      const waitMs = Math.max(0, (dueNs - nowNs()) / 1e6);
      await new Promise((done) => setTimeout(done, Math.min(waitMs, 50)));
    }
    const graceEnd = performance.now() + graceMs;
    while (histogram.totalCount < sent && performance.now() < graceEnd) await new Promise((done) => setTimeout(done, 5));
    this.#histogram = null;
    const unanswered = sent - histogram.totalCount;
    // Late answers of this window must not be counted in the next one: start the next one clean.
    for (const socket of this.#sockets) socket.backlog.length = 0;
    return { histogram, statuses: this.#statuses, unanswered };
  }

  close(): void {
    for (const socket of this.#sockets) socket.close();
  }
}

/**
 * The bench client's reaction: on a delta, at most `ordersPerSec` times a second and one request
 * in flight, write a V2 create order (IOC buy YES at the market's lowest price, so it rests nowhere
 * and changes no book) for the delta's market on a keep-alive HTTP/1.1 connection (node:net, no
 * HTTP library: the reaction should cost what a tuned client's does, not a library's promises).
 * Requests are signed ahead: the signature covers timestamp + method + path, not the body, so one
 * signature serves every create for a few seconds (the simulator accepts 10 s of skew) and is
 * renewed off the reaction path. The same bytes go to the raw TCP floor. It reads responses only
 * to count statuses and free the in-flight slot; it never decides what to measure.
 */

import type { KeyObject } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { ACCESS_KEY_HEADER, ACCESS_SIGNATURE_HEADER, ACCESS_TIMESTAMP_HEADER, signRequest } from '../../src/core/index.ts';
import { createHistogram, nowNs, recordNs, type Histogram } from '../harness.ts';
import { tickerOf } from './delta-reader.ts';

export const ORDER_PATH = '/trade-api/v2/portfolio/events/orders';

/** Re-sign this often; the simulator accepts timestamps up to 10 s old. */
const RESIGN_MS = 4000;

export interface OrderSenderOptions {
  host: string;
  port: number;
  keyId: string;
  privateKey: KeyObject;
  /** Lowest tradable price text per market ticker ("0.0100"). */
  lowestPriceByTicker: ReadonlyMap<string, string>;
  ordersPerSec: number;
}

export class OrderSender {
  readonly #options: OrderSenderOptions;
  readonly #intervalNs: number;
  /** Full request bytes per ticker, rebuilt on each re-sign (the reaction only writes them). */
  #requests = new Map<string, Buffer>();
  #socket: Socket | null = null;
  #resignTimer: NodeJS.Timeout | null = null;
  #inFlight = 0;
  #nextNs = 0;
  #response = '';
  /** Reactions happen only while enabled (the measurement window and its warm-up). */
  enabled = false;
  sent = 0;
  readonly statuses = new Map<number, number>();
  /** onDelta entry to socket.write returned, ns (this process's clock). */
  readonly reaction: Histogram = createHistogram();
  /** Body of the first 201 answer (the floor answers with these bytes). */
  firstCreatedBody = '';

  constructor(options: OrderSenderOptions) {
    this.#options = options;
    this.#intervalNs = 1e9 / options.ordersPerSec;
  }

  async connect(): Promise<void> {
    this.#sign();
    this.#resignTimer = setInterval(() => this.#sign(), RESIGN_MS);
    const socket = connect({ host: this.#options.host, port: this.#options.port, noDelay: true });
    socket.setEncoding('latin1');
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    socket.on('error', () => undefined); // a closed peer ends the run; statuses tell the story
    socket.on('data', (chunk: string) => this.#onData(chunk));
    this.#socket = socket;
  }

  /** The DeltaReader's onDelta: maybe send one order on this delta's market. */
  readonly onDelta = (text: string): void => {
    if (!this.enabled || this.#inFlight > 0) return;
    const startNs = nowNs();
    if (startNs < this.#nextNs) return;
    const request = this.#requests.get(tickerOf(text));
    if (request === undefined || this.#socket === null) return;
    this.#nextNs = startNs + this.#intervalNs;
    this.#inFlight++;
    this.#socket.write(request);
    recordNs(this.reaction, nowNs() - startNs);
    this.sent++;
  };

  /** Waits (bounded) for the request in flight to be answered. */
  async settle(timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (this.#inFlight > 0 && performance.now() < deadline) await new Promise((done) => setTimeout(done, 5));
  }

  resetWindow(): void {
    this.sent = 0;
    this.statuses.clear();
    this.reaction.reset();
  }

  statusText(): string {
    return [...this.statuses.entries()].map(([status, count]) => `${status}x${count}`).join(' ') || 'none';
  }

  close(): void {
    if (this.#resignTimer !== null) clearInterval(this.#resignTimer);
    this.#resignTimer = null;
    this.#socket?.destroy();
    this.#socket = null;
  }

  #sign(): void {
    const options = this.#options;
    const timestampMs = Date.now();
    const signature = signRequest(options.privateKey, timestampMs, 'POST', ORDER_PATH);
    const head =
      `POST ${ORDER_PATH} HTTP/1.1\r\nHost: ${options.host}:${options.port}\r\n` +
      `${ACCESS_KEY_HEADER}: ${options.keyId}\r\n${ACCESS_TIMESTAMP_HEADER}: ${timestampMs}\r\n${ACCESS_SIGNATURE_HEADER}: ${signature}\r\n` +
      'Content-Type: application/json\r\n';
    const requests = new Map<string, Buffer>();
    for (const [ticker, price] of options.lowestPriceByTicker) {
      const body = `{"ticker":${JSON.stringify(ticker)},"side":"bid","count":"1.00","price":"${price}","time_in_force":"immediate_or_cancel","self_trade_prevention_type":"taker_at_cross"}`;
      requests.set(ticker, Buffer.from(`${head}Content-Length: ${body.length}\r\n\r\n${body}`, 'latin1'));
    }
    this.#requests = requests;
  }

  /** Splits HTTP/1.1 responses (Content-Length framed) and counts their statuses. */
  #onData(chunk: string): void {
    this.#response += chunk;
    for (;;) {
      const text = this.#response;
      const headEnd = text.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = text.slice(0, headEnd).toLowerCase();
      const lengthAt = head.indexOf('content-length:');
      const length = lengthAt < 0 ? 0 : Number.parseInt(head.slice(lengthAt + 15).trimStart(), 10);
      const end = headEnd + 4 + length;
      if (text.length < end) return;
      const status = Number.parseInt(text.slice(9, 12), 10);
      this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
      if (status === 201 && this.firstCreatedBody === '') this.firstCreatedBody = text.slice(headEnd + 4, end);
      this.#response = text.slice(end);
      if (this.#inFlight > 0) this.#inFlight--;
    }
  }
}

/**
 * Serves metrics in the Prometheus text format at GET /metrics over node:http, bound to the
 * configured host (loopback by default), from one of two sources:
 * - `text`: a function returning the exposition, called once per scrape, synchronously; the
 *   runtime's returns text prebuilt on its snapshot timer, so a scrape costs one string write;
 * - `registry`: a prom-client Registry rendered per scrape. Before each scrape `beforeScrape` runs
 *   once, so the metrics' collect() callbacks can read one snapshot instead of each taking its own.
 *   One scrape at a time: a scrape arriving while one is rendered waits for that one's text.
 * Owns the HTTP server only; what the metrics are is the caller's.
 */

import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsServerOptions {
  /** The exposition, returned synchronously per scrape (takes precedence over `registry`). */
  text?: () => string;
  /** Content type of `text` (default the text format 0.0.4). */
  contentType?: string;
  registry?: Registry;
  host: string;
  /** 0: a free port (read `port` after start). */
  port: number;
  /** Called once per scrape before the registry is read. */
  beforeScrape?: () => void;
  /** Told about a scrape that failed (the client gets a 500). */
  onError?: (error: unknown) => void;
}

/** Idle keep-alive sockets are closed after this long, so stop() never waits on a scraper. */
const KEEP_ALIVE_MS = 5_000;
const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export class MetricsServer {
  readonly #options: MetricsServerOptions;
  readonly #server: Server;
  #rendering: Promise<string> | null = null;
  #port = -1;

  private constructor(options: MetricsServerOptions) {
    if (options.text === undefined && options.registry === undefined) throw new TypeError('MetricsServer: a text source or a registry is required');
    this.#options = options;
    this.#server = createServer((request, response) => this.#handle(request, response));
    this.#server.keepAliveTimeout = KEEP_ALIVE_MS;
  }

  /** Listens; rejects if the address cannot be bound (in use, not local). */
  static async start(options: MetricsServerOptions): Promise<MetricsServer> {
    const server = new MetricsServer(options);
    await new Promise<void>((resolve, reject) => {
      server.#server.once('error', reject);
      server.#server.listen(options.port, options.host, () => {
        server.#server.off('error', reject);
        resolve();
      });
    });
    server.#port = (server.#server.address() as AddressInfo).port;
    return server;
  }

  get port(): number {
    return this.#port;
  }

  get url(): string {
    const host = this.#options.host.includes(':') ? `[${this.#options.host}]` : this.#options.host;
    return `http://${host}:${this.#port}/metrics`;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: metrics are at /metrics\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('GET /metrics\n');
      return;
    }
    const text = this.#options.text;
    if (text !== undefined) {
      let body: string;
      try {
        body = text();
      } catch (error) {
        this.#options.onError?.(error);
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics failed; see the log\n');
        return;
      }
      response.writeHead(200, { 'content-type': this.#options.contentType ?? TEXT_CONTENT_TYPE });
      response.end(request.method === 'HEAD' ? undefined : body);
      return;
    }
    this.#render().then(
      (text) => {
        response.writeHead(200, { 'content-type': this.#options.registry!.contentType });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        this.#options.onError?.(error);
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics failed; see the log\n');
      },
    );
  }

  #render(): Promise<string> {
    if (this.#rendering !== null) return this.#rendering;
    const rendering = (async () => {
      try {
        this.#options.beforeScrape?.();
        return await this.#options.registry!.metrics();
      } finally {
        this.#rendering = null;
      }
    })();
    this.#rendering = rendering;
    return rendering;
  }
}

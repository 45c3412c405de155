/**
 * Test helper: a tiny scripted exchange on node:http (127.0.0.1, port 0; node:https when started
 * with `tls`, e.g. from self-signed-certificate.ts) for the RestOrderEntry
 * tests and the order-entry bench fallback. It verifies every request's KALSHI-ACCESS-* signature
 * with verifyRequest against the raw path up to '?' (as spec/rest.md §1 says the exchange does),
 * answers 401 when it fails, records every request, counts sockets, and answers each request from
 * a script: a status + body, `hang` (never answers) or `destroy` (drops the socket).
 * It is not the simulator: no matching, no state beyond what a script keeps.
 */

import type { KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { verifyRequest } from '../../src/core/index.ts';

export interface RecordedRequest {
  method: string;
  url: string; // raw path with query
  path: string; // up to '?'
  headers: IncomingMessage['headers'];
  body: string;
  socketId: number;
  signatureValid: boolean;
}

export type ScriptAction = { status: number; body?: string } | 'hang' | 'destroy';
export type Script = (request: RecordedRequest) => ScriptAction;

const BALANCE_BODY = '{"balance":100000,"balance_dollars":"1000.0000","portfolio_value":0,"updated_ts":1781821370}';

/** Warm-up GETs of /portfolio/balance answer 200 unless the script says otherwise. */
export function defaultScript(request: RecordedRequest): ScriptAction {
  if (request.method === 'GET' && request.path.endsWith('/portfolio/balance')) return { status: 200, body: BALANCE_BODY };
  return { status: 404, body: '{"error":{"code":"not_found","message":"no script"}}' };
}

export class ScriptedExchange {
  readonly requests: RecordedRequest[] = [];
  script: Script = defaultScript;
  socketsOpened = 0;
  readonly #server: Server;
  readonly #publicKey: KeyObject;
  readonly #sockets = new Set<Socket>();
  readonly #hanging = new Set<ServerResponse>();
  #nextSocketId = 0;

  readonly #secure: boolean;

  private constructor(publicKey: KeyObject, tls: { key: string; cert: string } | null) {
    this.#publicKey = publicKey;
    this.#secure = tls !== null;
    const handler = (request: IncomingMessage, response: ServerResponse) => this.#onRequest(request, response);
    this.#server = tls === null
      ? createServer({ keepAliveTimeout: 30_000 }, handler)
      : createTlsServer({ keepAliveTimeout: 30_000, key: tls.key, cert: tls.cert }, handler);
    this.#server.on(tls === null ? 'connection' : 'secureConnection', (socket: Socket) => {
      this.socketsOpened++;
      (socket as Socket & { testId?: number }).testId = this.#nextSocketId++;
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  static async start(publicKey: KeyObject, tls: { key: string; cert: string } | null = null): Promise<ScriptedExchange> {
    const exchange = new ScriptedExchange(publicKey, tls);
    await new Promise<void>((resolve) => exchange.#server.listen(0, '127.0.0.1', resolve));
    return exchange;
  }

  get baseUrl(): string {
    const address = this.#server.address() as AddressInfo;
    return `${this.#secure ? 'https' : 'http'}://127.0.0.1:${address.port}/trade-api/v2`;
  }

  /** Requests other than the warm-up GETs of /portfolio/balance. */
  get orderRequests(): RecordedRequest[] {
    return this.requests.filter((request) => !request.path.endsWith('/portfolio/balance'));
  }

  async close(): Promise<void> {
    for (const response of this.#hanging) response.destroy();
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #onRequest(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = request.url ?? '/';
      const query = url.indexOf('?');
      const path = query === -1 ? url : url.slice(0, query);
      const timestamp = Number(request.headers['kalshi-access-timestamp']);
      const signature = String(request.headers['kalshi-access-signature'] ?? '');
      const recorded: RecordedRequest = {
        method: request.method ?? '',
        url,
        path,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        socketId: (request.socket as Socket & { testId?: number }).testId ?? -1,
        signatureValid: verifyRequest(this.#publicKey, timestamp, request.method ?? '', path, signature),
      };
      this.requests.push(recorded);
      if (!recorded.signatureValid) {
        response.writeHead(401, { 'content-type': 'application/json' });
        response.end('{"error":{"code":"authentication_error","message":"bad signature","details":"INCORRECT_API_KEY_SIGNATURE"}}');
        return;
      }
      const action = this.script(recorded);
      if (action === 'hang') {
        this.#hanging.add(response);
        return;
      }
      if (action === 'destroy') {
        request.socket.destroy();
        return;
      }
      response.writeHead(action.status, { 'content-type': 'application/json' });
      response.end(action.body ?? '');
    });
  }
}

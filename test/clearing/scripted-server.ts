// Test helper (not a test): a scripted HTTP server on 127.0.0.1 port 0 that answers each request
// with whatever the test's handler returns, raw bytes included, and records what it was asked, so
// the clearing client meets values and failures the simulator cannot produce (int64 past 2^53,
// more than 1,000 settlement rows, broken bodies, stuck cursors).

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedReply {
  status?: number;
  body: string | Buffer;
  headers?: Record<string, string>;
}

export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string;
}

export interface ScriptedServer {
  url: string; // origin + /clearing-api/v1
  seen: SeenRequest[];
  close(): Promise<void>;
}

export async function startScriptedServer(handler: (request: SeenRequest) => ScriptedReply): Promise<ScriptedServer> {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const request: SeenRequest = { method: req.method ?? '', path: url.pathname, query: url.searchParams, authorization: req.headers.authorization ?? '' };
    seen.push(request);
    let reply: ScriptedReply;
    try {
      reply = handler(request);
    } catch (error) {
      reply = { status: 599, body: String(error) };
    }
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    res.end(reply.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/clearing-api/v1`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Test helper (not a test): a minimal scripted WebSocket server on uWebSockets.js, listening on
 * 127.0.0.1 port 0. It records each handshake (path, query, KALSHI-ACCESS-* headers) and can
 * refuse it (401) when a verifier says no; records text messages and close codes; sends frames
 * (text, or raw bytes), pings and closes on command; counts pongs. Also a silent server (node http + a hand-made 101 response) that
 * completes the handshake and then never answers anything: a dead path.
 */

import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type * as Uws from '@btc-vision/uwebsockets.js';
import { loadUws } from '../../src/net/uws.ts';

const uws = loadUws();

export interface Handshake {
  url: string;
  query: string;
  keyId: string;
  timestamp: string;
  signature: string;
}

interface Connection {
  id: number;
}

export class ScriptedWsServer {
  readonly handshakes: Handshake[] = [];
  readonly messages: string[] = [];
  pongs = 0;
  opens = 0;
  closes = 0;
  /** Close codes the clients sent, in order. */
  readonly closeCodes: number[] = [];
  port = 0;
  /** Return false to refuse the handshake with 401. */
  verify: (handshake: Handshake) => boolean = () => true;
  /** Called for every text message from the client. */
  onMessage: (text: string, server: ScriptedWsServer) => void = () => {};
  readonly #app: Uws.TemplatedApp;
  readonly #sockets = new Set<Uws.WebSocket<Connection>>();
  #listenSocket: Uws.us_listen_socket | null = null;
  #nextId = 1;

  constructor() {
    this.#app = uws.App().ws<Connection>('/*', {
      idleTimeout: 0,
      sendPingsAutomatically: false,
      maxPayloadLength: 1 << 20,
      upgrade: (res, req, context) => {
        const handshake: Handshake = {
          url: req.getUrl(),
          query: req.getQuery() ?? '',
          keyId: req.getHeader('kalshi-access-key'),
          timestamp: req.getHeader('kalshi-access-timestamp'),
          signature: req.getHeader('kalshi-access-signature'),
        };
        this.handshakes.push(handshake);
        if (!this.verify(handshake)) {
          res.writeStatus('401 Unauthorized').end('{"error":{"code":"authentication_error"}}');
          return;
        }
        res.upgrade<Connection>(
          { id: this.#nextId++ },
          req.getHeader('sec-websocket-key'),
          req.getHeader('sec-websocket-protocol'),
          req.getHeader('sec-websocket-extensions'),
          context,
        );
      },
      open: (ws) => {
        this.opens++;
        this.#sockets.add(ws);
      },
      message: (_ws, message) => {
        const text = Buffer.from(message).toString('utf8');
        this.messages.push(text);
        this.onMessage(text, this);
      },
      pong: () => {
        this.pongs++;
      },
      close: (ws, code) => {
        this.closes++;
        this.closeCodes.push(code);
        this.#sockets.delete(ws);
      },
    });
  }

  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#app.listen('127.0.0.1', 0, (socket) => {
        if (!socket) return reject(new Error('listen failed'));
        this.#listenSocket = socket;
        this.port = uws.us_socket_local_port(socket);
        resolve(this.port);
      });
    });
  }

  get connections(): number {
    return this.#sockets.size;
  }

  send(text: string): void {
    for (const ws of this.#sockets) ws.send(text, false);
  }

  /** Sends raw bytes as one text (or binary) frame, unchecked: e.g. bytes that are not UTF-8. */
  sendBytes(bytes: Buffer, binary = false): void {
    for (const ws of this.#sockets) ws.send(bytes, binary);
  }

  ping(): void {
    for (const ws of this.#sockets) ws.ping('heartbeat');
  }

  /** Closes every connection with a close frame. */
  closeAll(code = 1001): void {
    for (const ws of [...this.#sockets]) ws.end(code, 'scripted close');
  }

  close(): void {
    for (const ws of [...this.#sockets]) ws.close();
    if (this.#listenSocket !== null) uws.us_listen_socket_close(this.#listenSocket);
    this.#listenSocket = null;
  }
}

/** Completes WebSocket handshakes, then reads and discards everything: never a pong, never a frame. */
export class SilentWsServer {
  port = 0;
  upgrades = 0;
  /** Bytes received after handshakes (client pings and close frames). */
  bytesReceived = 0;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  constructor() {
    this.#server = createServer((_req, res) => res.writeHead(404).end());
    this.#server.on('upgrade', (req, socket: Socket) => {
      this.upgrades++;
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
      socket.on('error', () => {});
      socket.on('data', (chunk: Buffer) => {
        this.bytesReceived += chunk.length; // swallowed: pings and close frames go unanswered
      });
      const key = String(req.headers['sec-websocket-key']);
      const accept = createHash('sha1').update(key + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
      socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    });
  }

  get openSockets(): number {
    return this.#sockets.size;
  }

  listen(): Promise<number> {
    return new Promise((resolve) => {
      this.#server.listen(0, '127.0.0.1', () => {
        this.port = (this.#server.address() as AddressInfo).port;
        resolve(this.port);
      });
    });
  }

  close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

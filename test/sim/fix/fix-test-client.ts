/**
 * Test support for the simulator's FIX acceptor (not a test): a FIX client over a real socket built
 * on our initiator FixSession (signed Logon, sequence store), recording every message it receives
 * as a tag -> value map, plus a raw socket client for bytes no well-behaved engine sends. Waits are
 * bounded polls.
 */

import type { KeyObject } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import type { Clock } from '../../../src/core/index.ts';
import {
  FixError, FixSession, MemorySequenceStore, parseMessage, Tag, type FixEncoder, type FixSessionEvent, type SequenceStore,
} from '../../../src/fix/index.ts';

export interface Received {
  msgType: string;
  seq: number;
  fields: Map<number, string>;
  raw: string;
}

export function decodeAll(bytes: Buffer): Received[] {
  const out: Received[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    const start = bytes.indexOf('8=FIXT.1.1\x01', pos, 'latin1');
    if (start === -1) break;
    const end = bytes.indexOf('\x0110=', start, 'latin1');
    if (end === -1 || end + 8 > bytes.length) break;
    const message = parseMessage(Buffer.from(bytes.subarray(start, end + 8)));
    if (message instanceof FixError) throw message;
    const fields = new Map<number, string>();
    for (let i = 0; i < message.fieldCount; i++) if (!fields.has(message.tagAt(i))) fields.set(message.tagAt(i), message.stringAt(i) as string);
    out.push({ msgType: message.msgType(), seq: message.msgSeqNum, fields, raw: message.raw().toString('latin1').replaceAll('\x01', '|') });
    pos = end + 8;
  }
  return out;
}

export async function until(predicate: () => boolean, what: string, limit = 600): Promise<void> {
  for (let i = 0; i < limit && !predicate(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!predicate()) throw new Error(`timed out waiting for ${what}`);
}

export interface ClientOptions {
  port: number;
  sessionName: string;
  keyId: string;
  privateKey: KeyObject;
  logonFields?: ReadonlyArray<readonly [number, string]>;
  resetSeqNum?: boolean;
  store?: SequenceStore;
  /** The session's clock (SendingTime, Logon signature); the simulator's manual clock in tests that move time. */
  clock?: Clock;
}

export class FixTestClient {
  readonly received: Received[] = [];
  readonly events: FixSessionEvent[] = [];
  readonly session: FixSession;
  socket: Socket | null = null;
  #closed = false;

  constructor(options: ClientOptions) {
    this.session = new FixSession({
      role: 'initiator', sessionName: options.sessionName, keyId: options.keyId, privateKey: options.privateKey, heartbeatIntervalS: 30,
      store: options.store ?? new MemorySequenceStore(),
      ...(options.resetSeqNum === undefined ? {} : { resetSeqNum: options.resetSeqNum }),
      ...(options.logonFields === undefined ? {} : { logonFields: options.logonFields }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    }, {
      onMessage: (message) => {
        const fields = new Map<number, string>();
        for (let i = 0; i < message.fieldCount; i++) if (!fields.has(message.tagAt(i))) fields.set(message.tagAt(i), message.stringAt(i) as string);
        this.received.push({ msgType: message.msgType(), seq: message.msgSeqNum, fields, raw: message.raw().toString('latin1').replaceAll('\x01', '|') });
      },
      onEvent: (event) => {
        this.events.push(event);
        if (event.type === 'closed') this.#closed = true;
      },
    });
    this.#options = options;
  }
  readonly #options: ClientOptions;
  readonly #wire: Buffer[] = [];

  /** Every message received, session messages included, decoded from the wire. */
  wire(): Received[] {
    return decodeAll(Buffer.concat(this.#wire));
  }

  /** Waits for a wire message (session level included) matching `predicate`. */
  async nextOnWire(predicate: (message: Received) => boolean, what: string): Promise<Received> {
    let found: Received | undefined;
    await until(() => (found = this.wire().find(predicate)) !== undefined, what);
    return found as Received;
  }

  /** Connects and waits for the session to be active or closed (a refused logon). */
  async open(): Promise<this> {
    const socket = connect(this.#options.port, '127.0.0.1');
    this.socket = socket;
    socket.setNoDelay(true);
    const session = this.session;
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('error', reject);
    });
    socket.on('data', (chunk: Buffer) => {
      this.#wire.push(chunk);
      session.receive(chunk);
    });
    socket.on('error', () => {});
    socket.on('close', () => session.disconnected());
    session.connect({
      write(bytes) {
        if (!socket.destroyed) socket.write(Buffer.from(bytes));
      },
      end() {
        socket.end();
        setTimeout(() => socket.destroy(), 500).unref();
      },
    });
    await until(() => session.state === 'active' || this.#closed, 'logon outcome');
    return this;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Sends an application message built by `fill`; returns its MsgSeqNum. */
  send(msgType: string, fill: (encoder: FixEncoder) => void): number {
    fill(this.session.begin(msgType));
    return this.session.send();
  }

  /** Waits for a received message matching `predicate` after index `from`; returns it. */
  async next(predicate: (message: Received) => boolean, what: string, from = 0): Promise<Received> {
    let found: Received | undefined;
    await until(() => (found = this.received.slice(from).find(predicate)) !== undefined, what);
    return found as Received;
  }

  /** All received messages whose ClOrdID is `clOrdId`. */
  about(clOrdId: string): Received[] {
    return this.received.filter((message) => message.fields.get(Tag.ClOrdID) === clOrdId);
  }

  async logout(): Promise<void> {
    if (this.session.state === 'active') this.session.logout();
    await until(() => this.#closed, 'logout');
  }

  destroy(): void {
    this.socket?.destroy();
  }
}

/** A raw TCP client: writes bytes, collects what comes back. */
export class RawFixClient {
  readonly chunks: Buffer[] = [];
  socket: Socket | null = null;
  ended = false;

  async open(port: number): Promise<this> {
    const socket = connect(port, '127.0.0.1');
    this.socket = socket;
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('error', reject);
    });
    socket.on('data', (chunk: Buffer) => this.chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      this.ended = true;
    });
    return this;
  }

  write(bytes: Buffer | string): void {
    this.socket?.write(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes);
  }

  messages(): Received[] {
    return decodeAll(Buffer.concat(this.chunks));
  }

  destroy(): void {
    this.socket?.destroy();
  }
}

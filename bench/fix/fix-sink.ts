/**
 * The FIX route for the in-process bench: the real FixOrderEntry (src/exec/fix) logged on over a
 * real loopback TCP connection to a minimal acceptor in this process (a src/fix FixSession in the
 * acceptor role: signed Logon checked, sequence numbers kept), then cut from the socket's syscall:
 *
 *   before sink mode   FixOrderEntry <-> TCP <-> acceptor FixSession (logon handshake, real bytes)
 *   in sink mode       FixOrderEntry.create -> FixSession.begin/encode/finish/send -> transport
 *                      (copy into its reused buffer) -> socket.write  ==> replaced on that one
 *                      socket by a counter that copies the bytes into a preallocated slot, as the
 *                      kernel copies them at write(): "FIX order bytes ready", no syscall
 *                      answers: deliverAnswers() (between frames, never timed) parses what was
 *                      kept, has the acceptor session write ExecutionReports (the simulator's own
 *                      writer, fix.md fields, 21005=Y prices) and hands them to FixOrderEntry's
 *                      socket as a 'data' event, so the route's parse, ack and OMS paths run too.
 *
 * This stops exactly where bench/hot-path's SinkOrderEntry stops for REST (the request copied into
 * bytes, the syscall left out), so the two routes are compared on the same span. The client socket
 * is found through node:net's 'net.client.socket' diagnostics channel (FixOrderEntry keeps it
 * private); socket.write is replaced on that instance only. Owns the acceptor, the counters and the
 * kept buffers; decides nothing for the OMS.
 */

import { generateKeyPairSync } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { systemClock } from '../../src/core/index.ts';
import { FIX_ORDER_ENTRY_DEFAULTS, FixOrderEntry } from '../../src/exec/index.ts';
import {
  ActiveSessionRegistry, FixMessage, FixSession, MemorySequenceStore, MsgType, Tag, parseMessage, type FixTransport,
} from '../../src/fix/index.ts';
import { newReport, writeExecutionReport, type ReportFlags } from '../../src/sim/server/fix/execution-report.ts';

const KEY_ID = 'bench-fix-0000-4a7b-8c9d-0e1f2a3b4c5d';
/** Requests kept between two deliverAnswers() calls; the driver answers every frame (one order, one cancel). */
const KEPT_MAX = 1024;
/** Each kept request's slot: a NewOrderSingle or a cancel is ~210 bytes; a longer one is copied into a buffer of its own. */
const KEPT_SLOT_BYTES = 1024;
const FLAGS: ReportFlags = { dollars: true, preserveOriginalQty: false, splitCollateral: false, expiredStatus: false };

/** One order the fake venue has resting (for the cancel's report). */
interface Resting {
  orderId: string;
  clOrdId: string;
  symbol: string;
  side: '1' | '2';
  price: number;
  count: number;
}

export class FixSinkRoute {
  readonly entry: FixOrderEntry;
  /** Messages written to the socket in sink mode, and their bytes. */
  requests = 0;
  bytes = 0;
  readonly #server: Server;
  readonly #acceptor: FixSession;
  /** Copies of what was written since the last deliverAnswers(): preallocated slots, as the kernel's copy at write(). */
  readonly #kept: Buffer[] = Array.from({ length: KEPT_MAX }, () => Buffer.allocUnsafe(KEPT_SLOT_BYTES));
  readonly #keptLength = new Int32Array(KEPT_MAX);
  #keptCount = 0;
  #client: Socket | null = null;
  #sink = false;
  readonly #resting = new Map<string, Resting>();
  readonly #parsed = new FixMessage();
  readonly #report = newReport();
  #orderIds = 0;
  #execIds = 0;

  private constructor(server: Server, acceptor: FixSession, entry: FixOrderEntry) {
    this.#server = server;
    this.#acceptor = acceptor;
    this.entry = entry;
  }

  /** Starts the acceptor on 127.0.0.1:0, logs the real FixOrderEntry on, then switches to sink mode. */
  static async start(): Promise<FixSinkRoute> {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    let route: FixSinkRoute | null = null;
    const acceptor = new FixSession({
      role: 'acceptor', sessionNames: ['KalshiNR'], clock: systemClock, registry: new ActiveSessionRegistry(),
      publicKeyOf: (keyId) => (keyId === KEY_ID ? publicKey : null), storeFor: () => new MemorySequenceStore(),
    }, { onMessage() { /* the logon only: sink mode answers from deliverAnswers() */ } });
    let serverSocket: Socket | null = null;
    const server = createServer((socket) => {
      serverSocket = socket;
      socket.setNoDelay(true);
      socket.on('data', (chunk: Buffer) => acceptor.receive(chunk));
      socket.on('error', () => { /* 'close' follows */ });
      // No tick: the acceptor never sends heartbeats or TestRequests (the client is cut from it in sink mode).
      const transport: FixTransport = {
        write: (bytes: Uint8Array) => {
          const copy = Buffer.from(bytes);
          if (route !== null && route.#sink) route.#client?.emit('data', copy);
          else if (!socket.destroyed) socket.write(copy);
        },
        end: () => socket.end(),
      };
      acceptor.connect(transport);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const entry = new FixOrderEntry({
      ...FIX_ORDER_ENTRY_DEFAULTS, host: '127.0.0.1', port, tls: null, keyId: KEY_ID, privateKey, clock: systemClock, storePath: null,
    });
    route = new FixSinkRoute(server, acceptor, entry);
    const found = route;
    const onSocket = (message: unknown): void => {
      const socket = (message as { socket: Socket }).socket;
      if (found.#client === null) found.#client = socket;
    };
    subscribe('net.client.socket', onSocket);
    try {
      await entry.connect();
    } finally {
      unsubscribe('net.client.socket', onSocket);
    }
    const client = route.#client;
    if (client === null || serverSocket === null) throw new Error('bench fix: the FIX route connected without a socket seen');
    // Let the Logon's bytes settle, then cut the client from its syscall.
    await new Promise((resolve) => setTimeout(resolve, 20));
    route.#sinkMode(client);
    return route;
  }

  #sinkMode(client: Socket): void {
    this.#sink = true;
    const kept = this.#kept;
    const keptLength = this.#keptLength;
    // Own property on this socket only: the bytes are copied as the kernel would copy them at
    // write() (the transport hands over its reused buffer, which the next message overwrites), and
    // nothing is sent.
    const write = (chunk: Buffer): boolean => {
      this.requests++;
      this.bytes += chunk.length;
      const k = this.#keptCount;
      if (k < KEPT_MAX) {
        if (chunk.length <= KEPT_SLOT_BYTES) chunk.copy(kept[k]);
        else kept[k] = Buffer.from(chunk);
        keptLength[k] = chunk.length;
        this.#keptCount = k + 1;
      }
      return true;
    };
    (client as unknown as { write: typeof write }).write = write;
  }

  /**
   * Answers what was written since the last call, as the venue would: New for a NewOrderSingle (the
   * order rests), Canceled for an OrderCancelRequest. Heartbeats and others get no answer.
   */
  deliverAnswers(): number {
    const n = this.#keptCount;
    this.#keptCount = 0;
    let answered = 0;
    for (let i = 0; i < n; i++) {
      const bytes = this.#kept[i].subarray(0, this.#keptLength[i]);
      const message = parseMessage(bytes, this.#parsed);
      if (!(message instanceof FixMessage)) throw new Error(`bench fix: the route wrote an unparsable message: ${message.message}`);
      if (message.msgTypeIs(MsgType.NewOrderSingle)) {
        this.#answerNew(message);
        answered++;
      } else if (message.msgTypeIs(MsgType.OrderCancelRequest)) {
        this.#answerCancel(message);
        answered++;
      }
    }
    return answered;
  }

  #answerNew(message: FixMessage): void {
    const order: Resting = {
      orderId: `sink-${++this.#orderIds}`, clOrdId: message.getString(Tag.ClOrdID) ?? '', symbol: message.getString(Tag.Symbol) ?? '',
      side: message.valueEquals(Tag.Side, '2') ? '2' : '1', price: message.getPrice(Tag.Price), count: message.getCount(Tag.OrderQty),
    };
    this.#resting.set(order.orderId, order);
    this.#send(order, order.clOrdId, '', '0', '0', order.count);
  }

  #answerCancel(message: FixMessage): void {
    const orderId = message.getString(Tag.OrderID) ?? '';
    const order = this.#resting.get(orderId);
    if (order === undefined) throw new Error('bench fix: cancel of an order the sink never acked');
    this.#resting.delete(orderId);
    this.#send(order, message.getString(Tag.ClOrdID) ?? '', message.getString(Tag.OrigClOrdID) ?? '', '4', '4', 0);
  }

  #send(order: Resting, clOrdId: string, origClOrdId: string, execType: string, ordStatus: string, leaves: number): void {
    const record = this.#report;
    record.orderId = order.orderId;
    record.clOrdId = clOrdId;
    record.origClOrdId = origClOrdId;
    record.execId = `5812;${++this.#execIds}`;
    record.execType = execType;
    record.ordStatus = ordStatus;
    record.symbol = order.symbol;
    record.side = order.side;
    record.orderQty = order.count;
    record.price = order.price;
    record.cumQty = 0;
    record.leavesQty = leaves;
    record.transactTimeMs = Date.now();
    writeExecutionReport(this.#acceptor.begin(MsgType.ExecutionReport), record, FLAGS);
    this.#acceptor.send();
  }

  async stop(): Promise<void> {
    this.#sink = false;
    this.#client?.destroy();
    await this.entry.close();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

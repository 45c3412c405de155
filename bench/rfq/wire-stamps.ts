/**
 * The rfq suite's two stamps, taken at the process's socket boundary and identical for every lane:
 *
 *   t0  the 'data' event of a lane's socket whose chunk carries an RFQ (a `communications`
 *       rfq_created frame, or a FIX QuoteRequest 35=R): process.hrtime.bigint() taken before any
 *       listener runs; the chunk is read for RFQ ids only after the listeners returned, so the
 *       scan is never inside a lane's own window.
 *   t1  the first socket.write on a lane's socket whose bytes start the quote: an HTTP request line
 *       naming communications/quotes (the RFQ id is then in that write's body or in the next write
 *       on the same socket: undici writes the head and the body separately) or a FIX Quote 35=S
 *       (131=<rfq id> in the same write).
 *
 * A socket belongs to a lane when it is a client socket of the simulator (its remote port is one of
 * `ports`, or not known yet while it connects) and one of its writes carries the lane's API key id (the signed HTTP and WebSocket
 * handshakes name it in KALSHI-ACCESS-KEY, a FIX Logon in SenderCompID); sockets of other keys and
 * the simulator's own server sockets are never stamped. The stamps are kept per lane and RFQ id,
 * first stamp wins; the matching (RfqStampBook) is plain data so test/bench/rfq-stamps.test.ts can
 * check it. Installing patches net.Socket.prototype.emit and .write for the run and restores them;
 * this file decides nothing about what the figures mean.
 */

import net from 'node:net';

export type LaneKind = 'ws' | 'fix';

export interface StampLane {
  name: string;
  kind: LaneKind;
  /** The lane's API key id, as its requests and logons carry it. */
  keyId: string;
}

/** t0 and t1 per RFQ id for one lane; first stamp wins. */
export class LaneStamps {
  readonly received = new Map<string, bigint>();
  readonly sent = new Map<string, bigint>();

  noteReceived(rfqId: string, at: bigint): void {
    if (!this.received.has(rfqId)) this.received.set(rfqId, at);
  }

  noteSent(rfqId: string, at: bigint): void {
    if (!this.sent.has(rfqId)) this.sent.set(rfqId, at);
  }
}

export interface LaneMatch {
  /** t1 - t0 in ns, one per RFQ of `ids` with both stamps (t1 >= t0). */
  latenciesNs: number[];
  /** RFQs of `ids` whose bytes reached the lane (t0 seen). */
  received: number;
  /** RFQs of `ids` the lane sent a quote for (t1 seen). */
  quoted: number;
  /** Quotes sent with no t0 for their RFQ (a frame split across chunks, say). */
  sentWithoutReceived: number;
}

/** Latencies of one lane over the RFQ ids that count (the recording window's). */
export function matchLane(stamps: LaneStamps, ids: Iterable<string>): LaneMatch {
  const latenciesNs: number[] = [];
  let received = 0;
  let quoted = 0;
  let sentWithoutReceived = 0;
  for (const id of ids) {
    const t0 = stamps.received.get(id);
    const t1 = stamps.sent.get(id);
    if (t0 !== undefined) received++;
    if (t1 !== undefined) quoted++;
    if (t1 !== undefined && t0 === undefined) sentWithoutReceived++;
    if (t0 !== undefined && t1 !== undefined && t1 >= t0) latenciesNs.push(Number(t1 - t0));
  }
  return { latenciesNs, received, quoted, sentWithoutReceived };
}

const RFQ_CREATED = /"type":"rfq_created"/g;
const MSG_ID = /"msg":\{"id":"([^"]+)"/y;

/** RFQ ids of the rfq_created messages in a chunk of WebSocket bytes (latin1 text). */
export function rfqIdsInWsChunk(text: string): string[] {
  const ids: string[] = [];
  RFQ_CREATED.lastIndex = 0;
  for (let match = RFQ_CREATED.exec(text); match !== null; match = RFQ_CREATED.exec(text)) {
    // The envelope is {"type":..,"sid":..,"seq":..,"msg":{"id":..}}: the msg's id follows within the frame.
    const at = text.indexOf('"msg":{"id":"', RFQ_CREATED.lastIndex);
    if (at === -1) break;
    MSG_ID.lastIndex = at;
    const id = MSG_ID.exec(text);
    if (id !== null) ids.push(id[1]!);
  }
  return ids;
}

/** The value of `tag` in a FIX message starting at `from` (SOH-delimited), or null. */
function fixField(text: string, from: number, end: number, tag: string): string | null {
  const needle = `\x01${tag}=`;
  const at = text.indexOf(needle, from);
  if (at === -1 || at >= end) return null;
  const start = at + needle.length;
  const stop = text.indexOf('\x01', start);
  return stop === -1 ? null : text.slice(start, stop);
}

/** The messages of type `msgType` in FIX bytes: the value of `tag` of each (131 QuoteReqID here). */
export function fixFieldOfType(text: string, msgType: string, tag: string): string[] {
  const ids: string[] = [];
  const marker = `\x0135=${msgType}\x01`;
  for (let at = text.indexOf(marker); at !== -1; at = text.indexOf(marker, at + marker.length)) {
    const next = text.indexOf('\x0110=', at); // the message's CheckSum ends it
    const value = fixField(text, at, next === -1 ? text.length : next, tag);
    if (value !== null) ids.push(value);
  }
  return ids;
}

/** The rfq_id of a POST /communications/quotes JSON body, or null. */
export function rfqIdInQuoteBody(text: string): string | null {
  const at = text.indexOf('"rfq_id":"');
  if (at === -1) return null;
  const start = at + '"rfq_id":"'.length;
  const stop = text.indexOf('"', start);
  return stop === -1 ? null : text.slice(start, stop);
}

const QUOTE_LINE = /^POST [^ ]*\/communications\/quotes /;

function chunkText(chunk: unknown, encoding: unknown): string {
  if (typeof chunk === 'string') return chunk;
  if (Buffer.isBuffer(chunk)) return chunk.toString('latin1');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
  void encoding;
  return '';
}

/** Per-socket state: its lane (null: not a lane's socket) and a quote head waiting for its body. */
interface SocketTag {
  lane: number;
  /** t1 of a quote request whose head was written and whose body (with the RFQ id) was not yet seen. */
  pendingSentAt: bigint;
}

const NOT_A_LANE = -2;

/**
 * The patches on net.Socket for one run: lanes' stamps, in lane order. install() once; uninstall()
 * restores the prototype's own methods (or removes the overrides when there were none).
 */
export class SocketStamper {
  readonly lanes: readonly StampLane[];
  readonly stamps: LaneStamps[];
  readonly #ports: Set<number>;
  readonly #tags = new WeakMap<net.Socket, SocketTag>();
  #installed = false;
  #restore: (() => void) | null = null;
  /** Counters for the notes: chunks with an RFQ marker but no id read (split frames). */
  chunksWithoutId = 0;

  constructor(lanes: readonly StampLane[], ports: readonly number[]) {
    this.lanes = lanes;
    this.stamps = lanes.map(() => new LaneStamps());
    this.#ports = new Set(ports);
  }

  install(): void {
    if (this.#installed) return;
    this.#installed = true;
    const proto = net.Socket.prototype as unknown as Record<string, unknown>;
    const hadEmit = Object.prototype.hasOwnProperty.call(proto, 'emit');
    const hadWrite = Object.prototype.hasOwnProperty.call(proto, 'write');
    const originalEmit = proto['emit'] as (this: net.Socket, event: string | symbol, ...args: unknown[]) => boolean;
    const originalWrite = proto['write'] as (this: net.Socket, ...args: unknown[]) => boolean;
    const stamper = this;
    proto['emit'] = function emit(this: net.Socket, event: string | symbol, ...args: unknown[]): boolean {
      if (event !== 'data') return originalEmit.call(this, event, ...args);
      const at = process.hrtime.bigint();
      const result = originalEmit.call(this, event, ...args);
      stamper.#onData(this, args[0], at);
      return result;
    };
    proto['write'] = function write(this: net.Socket, ...args: unknown[]): boolean {
      const at = process.hrtime.bigint();
      stamper.#onWrite(this, args[0], args[1], at);
      return originalWrite.apply(this, args);
    };
    this.#restore = () => {
      if (hadEmit) proto['emit'] = originalEmit;
      else delete proto['emit'];
      if (hadWrite) proto['write'] = originalWrite;
      else delete proto['write'];
    };
  }

  uninstall(): void {
    this.#restore?.();
    this.#restore = null;
    this.#installed = false;
  }

  #tagOf(socket: net.Socket): SocketTag | undefined {
    return this.#tags.get(socket);
  }

  #onWrite(socket: net.Socket, chunk: unknown, encoding: unknown, at: bigint): void {
    let tag = this.#tagOf(socket);
    if (tag !== undefined && tag.lane === NOT_A_LANE) return;
    const text = chunkText(chunk, encoding);
    if (tag === undefined) {
      // A server's socket (the simulator's own end), or a client of another server: never a lane's.
      // A client still connecting has no remote port yet (node:http writes its first request then).
      const remotePort = socket.remotePort;
      if ((socket as unknown as { _server?: unknown })._server != null || (remotePort !== undefined && !this.#ports.has(remotePort))) {
        this.#tags.set(socket, { lane: NOT_A_LANE, pendingSentAt: 0n });
        return;
      }
      const lane = this.lanes.findIndex((candidate) => text.includes(candidate.keyId));
      if (lane === -1) return; // not yet known (a write before the signed one); asked again next write
      tag = { lane, pendingSentAt: 0n };
      this.#tags.set(socket, tag);
    }
    const lane = this.lanes[tag.lane]!;
    const stamps = this.stamps[tag.lane]!;
    if (lane.kind === 'fix') {
      for (const id of fixFieldOfType(text, 'S', '131')) stamps.noteSent(id, at);
      return;
    }
    if (tag.pendingSentAt !== 0n) {
      const id = rfqIdInQuoteBody(text);
      if (id !== null) {
        stamps.noteSent(id, tag.pendingSentAt);
        tag.pendingSentAt = 0n;
        return;
      }
    }
    if (QUOTE_LINE.test(text)) {
      const id = rfqIdInQuoteBody(text); // head and body in one write (node:http's end(body))
      if (id !== null) stamps.noteSent(id, at);
      else tag.pendingSentAt = at;
    }
  }

  #onData(socket: net.Socket, chunk: unknown, at: bigint): void {
    const tag = this.#tagOf(socket);
    if (tag === undefined || tag.lane < 0) return;
    const lane = this.lanes[tag.lane]!;
    const text = chunkText(chunk, undefined);
    const ids = lane.kind === 'fix' ? fixFieldOfType(text, 'R', '131') : rfqIdsInWsChunk(text);
    if (ids.length === 0) {
      if (lane.kind === 'fix' ? text.includes('\x0135=R\x01') : text.includes('"rfq_created"')) this.chunksWithoutId++;
      return;
    }
    const stamps = this.stamps[tag.lane]!;
    for (const id of ids) stamps.noteReceived(id, at);
  }
}

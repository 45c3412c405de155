/**
 * A WebSocket client (RFC 6455) on a plain node:net / node:tls socket, for the feed's hot path.
 *
 * Why not undici's: it runs each frame through a Writable byte parser, a MessageEvent and an
 * EventTarget dispatch, and hands text over as a string. This client parses frames straight from
 * the socket's chunk and hands each complete text message to one callback as bytes:
 *
 *   chunk: [hdr|payload][hdr|payload][hdr|pay ...     next chunk: ... load][hdr|...
 *           ontext(chunk, s, e) x2     |___ carried: copied once into the reused carry buffer,
 *           (in place, no copy)             completed from the next chunk, then ontext(carry, 0, n)
 *
 * A message whose frame lies whole in one chunk (the common case) is delivered in place, zero
 * copy; a frame split across chunks is copied once into a reused carry buffer that grows to the
 * largest frame seen (released after a frame above 1 MiB), and a fragmented message is copied
 * fragment by fragment into a reused message buffer. The bytes handed over are valid only during
 * the callback. `deliveredInPlace` / `deliveredCopied` count the two cases.
 * bench/ws-client measures it against undici's WebSocket, one way from a uWebSockets.js server in
 * another process to the callback.
 *
 * UTF-8 (RFC 6455 §8.1: invalid UTF-8 in a text message fails the connection with 1007): with
 * `utf8: 'client'` (default) this client checks every text message with `isUtf8` before ontext;
 * with `utf8: 'listener'` the listener vouches for the bytes it reads and ontext returns false
 * for bytes that are not UTF-8 - the Feed does so, because its byte scanners accept ASCII only
 * (valid UTF-8 by construction) and check the rest (decoders/json-bytes.ts), so the hot path does
 * not pay a second pass (~90-130 ns per delta frame, bench/feed). Either way, false fails with 1007.
 *
 * It speaks what a market-data client needs and refuses the rest loudly: text and binary messages
 * (fragmented or not), ping (answered with a pong at once), pong, close (echoed, with code and
 * reason); no extensions (a frame with RSV bits set is a protocol error), server frames unmasked,
 * client frames masked with a fresh random key, messages above `maxMessageBytes` refused (1009).
 * Protocol errors close with the RFC's code and report it through onclose.
 * Owns: one TCP/TLS socket and its framing. Never: reconnects, signs, or decodes JSON.
 */

import { createHash, randomBytes, randomFillSync } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const HEADER_LIMIT = 16 * 1024; // handshake response bytes before we give up
/** The reused read buffer of a plain-TCP socket: one read takes at most this much. */
const READ_BUFFER_BYTES = 64 * 1024;
const Opcode = { CONTINUATION: 0, TEXT: 1, BINARY: 2, CLOSE: 8, PING: 9, PONG: 10 } as const;

export const CloseCode = {
  NORMAL: 1000,
  PROTOCOL_ERROR: 1002,
  ABNORMAL: 1006, // never sent: no close frame was received
  INVALID_DATA: 1007,
  TOO_BIG: 1009,
} as const;

export interface RawWebSocketOptions {
  headers?: Record<string, string>;
  /** Extra trust for wss (tests, private CAs); undefined: the system's CAs. */
  ca?: string | Buffer;
  /** Largest message accepted, bytes (default 64 MiB). */
  maxMessageBytes?: number;
  /**
   * Who checks that text messages are UTF-8: 'client' (default) runs isUtf8 on each before
   * ontext; 'listener' leaves it to ontext, which returns false for bytes that are not UTF-8.
   */
  utf8?: 'client' | 'listener';
  /**
   * Longest stretch, ns, this socket's messages may hold the event loop before the rest waits for
   * the next turn (0 or absent: no limit). Timers and other sockets (order entry's answers) run
   * between; the kernel buffers what is not read meanwhile. `now` is the clock it is checked on.
   */
  turnBudgetNs?: number;
  now?: () => number;
}

/**
 * A complete text message in data[start, end), valid during the call only. Returns false when the
 * bytes are not UTF-8: the client then fails the connection with 1007.
 */
export type RawTextListener = (data: Buffer, start: number, end: number) => boolean;
/** A complete binary message in data[start, end), valid during the call only. */
export type RawBinaryListener = (data: Buffer, start: number, end: number) => void;

export interface RawCloseEvent {
  code: number;
  reason: string;
}

const ReadyState = { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 } as const;

// 64 KiB: a delta is ~250 bytes and a snapshot of a wide book tens of KiB; larger frames grow it.
const CARRY_BYTES_INITIAL = 64 * 1024;
// A carry or message buffer grown past this for one large frame is released after it.
const BUFFER_BYTES_KEPT_MAX = 1024 * 1024;
// Messages between two looks at the clock against the turn budget (a delta takes 2-25 us).
const MESSAGES_PER_CLOCK_READ = 16;

export class RawWebSocket {
  onopen: (() => void) | null = null;
  ontext: RawTextListener | null = null;
  onbinary: RawBinaryListener | null = null;
  onerror: ((event: { error: unknown }) => void) | null = null;
  onclose: ((event: RawCloseEvent) => void) | null = null;
  /** A ping or pong arrived (liveness); `kind` is 'ping' or 'pong'. */
  oncontrol: ((kind: 'ping' | 'pong') => void) | null = null;
  readyState: number = ReadyState.CONNECTING;
  /** Messages handed over straight from the socket's chunk (no copy). */
  deliveredInPlace = 0;
  /** Messages handed over from the carry or message buffer (split across chunks, or fragmented). */
  deliveredCopied = 0;
  /** Times the turn budget ran out and the rest waited for the next turn. */
  yields = 0;

  readonly #socket: Socket;
  readonly #key = randomBytes(16).toString('base64');
  readonly #maxMessageBytes: number;
  readonly #checkUtf8: boolean;
  readonly #mask = Buffer.alloc(4);
  #head = ''; // handshake response so far (latin1)
  // A frame split across chunks: its bytes so far in #carry[0, #carryLength), #carryNeed its whole
  // length (header included) once its header is complete, 0 before.
  #carry: Buffer | null = null;
  #carryLength = 0;
  #carryNeed = 0;
  // A fragmented message so far.
  #message: Buffer | null = null;
  #messageLength = 0;
  #messageOpcode = -1;
  // Header length of the frame #measure last sized.
  #headerLength = 0;
  #closeCode: number = CloseCode.ABNORMAL;
  #closeReason = '';
  #closeSent = false;
  #closeReceived = false;
  #closedFired = false;
  // The turn budget: 0 when off. #turnStartNs is when this turn's first chunk came (0: no turn yet);
  // #rest holds the chunk and offset left for the next turn while the socket is paused.
  readonly #turnBudgetNs: number;
  readonly #now: () => number;
  #turnStartNs = 0;
  #untilClockRead = MESSAGES_PER_CLOCK_READ;
  #rest: Buffer | null = null;
  #restOffset = 0;
  #restEnd = 0;
  readonly #endTurn = (): void => {
    this.#turnStartNs = 0;
  };
  readonly #nextTurn = (): void => this.#resumeRest();

  constructor(url: string, options: RawWebSocketOptions = {}) {
    const target = new URL(url);
    if (target.protocol !== 'ws:' && target.protocol !== 'wss:') throw new TypeError(`RawWebSocket: ${url} is not a ws: or wss: URL`);
    this.#maxMessageBytes = options.maxMessageBytes ?? 64 * 1024 * 1024;
    this.#checkUtf8 = (options.utf8 ?? 'client') === 'client';
    this.#turnBudgetNs = options.turnBudgetNs ?? 0;
    this.#now = options.now ?? (() => Number(process.hrtime.bigint()));
    const secure = target.protocol === 'wss:';
    const port = target.port === '' ? (secure ? 443 : 80) : Number(target.port);
    const host = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
    const request = this.#handshake(target, options.headers ?? {});
    // Plain TCP reads into one reused buffer (net's onread): no Buffer, stream bookkeeping and
    // nextTick per read (~2 KB of garbage and the stream's calls per feed read, bench/tick-to-trade's
    // heap profile). Frames are handed over in place and never kept past the call (the feed's
    // frameTap copies what it keeps); a split frame is copied into the carry, and a turn that ran
    // out of budget pauses the socket, so no read overwrites the rest it keeps. TLS keeps 'data'
    // (tls.connect documents no onread).
    if (secure) {
      this.#socket = tlsConnect({ host, port, servername: isIpLiteral(host) ? undefined : host, ca: options.ca, ALPNProtocols: ['http/1.1'] });
      this.#socket.on('data', (chunk: Buffer) => this.#onData(chunk, chunk.length));
    } else {
      const readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
      this.#socket = netConnect({ host, port, onread: { buffer: readBuffer, callback: (bytes: number) => this.#onRead(readBuffer, bytes) } });
    }
    const socket = this.#socket;
    socket.setNoDelay(true);
    socket.once(secure ? 'secureConnect' : 'connect', () => socket.write(request, 'latin1'));
    socket.on('error', (error: Error) => this.onerror?.({ error }));
    socket.on('close', () => this.#fireClose());
  }

  /** Sends one text message; ignored unless open (as the WHATWG API, minus its exception). */
  send(text: string): void {
    if (this.readyState !== ReadyState.OPEN) return;
    this.#write(Opcode.TEXT, Buffer.from(text, 'utf8'));
  }

  /** Sends a ping (liveness from our side). */
  ping(payload: Buffer = Buffer.alloc(0)): void {
    if (this.readyState !== ReadyState.OPEN) return;
    this.#write(Opcode.PING, payload);
  }

  /** Starts the closing handshake; the socket is dropped if the peer does not finish it within 1 s. */
  close(code: number = CloseCode.NORMAL, reason = ''): void {
    if (this.readyState === ReadyState.CLOSED) return;
    if (this.readyState === ReadyState.CONNECTING) {
      this.#socket.destroy();
      return;
    }
    this.#sendClose(code, reason);
    this.readyState = ReadyState.CLOSING;
    this.#socket.end();
    setTimeout(() => this.#socket.destroy(), 1_000).unref();
  }

  // ---- handshake -------------------------------------------------------------------------------

  #handshake(target: URL, headers: Record<string, string>): string {
    let text = `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`;
    text += `Sec-WebSocket-Key: ${this.#key}\r\nSec-WebSocket-Version: 13\r\n`;
    for (const [name, value] of Object.entries(headers)) {
      if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) throw new TypeError(`RawWebSocket: header ${name} holds a line break`);
      text += `${name}: ${value}\r\n`;
    }
    return `${text}\r\n`;
  }

  /** Handshake bytes; returns the frame bytes that followed the response head in `chunk`, or null. */
  #onHandshakeData(chunk: Buffer): Buffer | null {
    this.#head += chunk.toString('latin1');
    const end = this.#head.indexOf('\r\n\r\n');
    if (end < 0) {
      if (this.#head.length > HEADER_LIMIT) this.#fail(CloseCode.PROTOCOL_ERROR, 'handshake response head too large');
      return null;
    }
    const head = this.#head.slice(0, end);
    const rest = Buffer.from(this.#head.slice(end + 4), 'latin1');
    this.#head = '';
    const lines = head.split('\r\n');
    const status = /^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? '');
    if (status === null || status[1] !== '101') {
      this.#fail(CloseCode.ABNORMAL, `handshake refused: ${lines[0] ?? 'no status line'}`);
      return null;
    }
    const fields = new Map<string, string>();
    for (let i = 1; i < lines.length; i++) {
      const colon = lines[i].indexOf(':');
      if (colon > 0) fields.set(lines[i].slice(0, colon).trim().toLowerCase(), lines[i].slice(colon + 1).trim());
    }
    const accept = createHash('sha1').update(this.#key + GUID).digest('base64');
    if (fields.get('upgrade')?.toLowerCase() !== 'websocket' || fields.get('sec-websocket-accept') !== accept) {
      this.#fail(CloseCode.PROTOCOL_ERROR, 'handshake response without a valid Upgrade / Sec-WebSocket-Accept');
      return null;
    }
    if (fields.has('sec-websocket-extensions')) {
      this.#fail(CloseCode.PROTOCOL_ERROR, 'server chose an extension this client did not offer');
      return null;
    }
    this.readyState = ReadyState.OPEN;
    this.onopen?.();
    return rest;
  }

  // ---- frames (hot path) -----------------------------------------------------------------------

  /** onread's callback: `bytes` new bytes at the start of the reused buffer. True keeps reading. */
  #onRead(buffer: Buffer, bytes: number): boolean {
    this.#onData(buffer, bytes);
    return true; // a turn out of budget paused the socket itself
  }

  /** chunk[0, length): the bytes of one read. */
  #onData(chunk: Buffer, length: number): void {
    let data: Buffer | null = chunk;
    if (this.readyState === ReadyState.CONNECTING) {
      data = this.#onHandshakeData(length === chunk.length ? chunk : chunk.subarray(0, length));
      if (data === null || data.length === 0) return;
      length = data.length;
    }
    let offset = 0;
    if (this.#carryLength > 0) {
      offset = this.#fillCarry(data, length);
      if (offset === -1 || this.#carryNeed === 0 || this.#carryLength < this.#carryNeed) return;
      const carry = this.#carry as Buffer;
      const frameLength = this.#carryLength;
      this.#carryLength = 0;
      this.#carryNeed = 0;
      this.#measure(carry, 0, frameLength); // sized before: sets #headerLength again
      this.#onFrame(carry, 0, frameLength, false);
      if (frameLength > BUFFER_BYTES_KEPT_MAX && this.#carry === carry) this.#carry = null;
    }
    if (this.#turnBudgetNs > 0 && this.#turnStartNs === 0) {
      this.#turnStartNs = this.#now();
      setImmediate(this.#endTurn);
    }
    this.#frames(data, offset, length);
  }

  /** The whole frames of data[offset, length); the start of a split one is carried. */
  #frames(data: Buffer, offset: number, length: number): void {
    while (offset < length && this.#reading()) {
      const size = this.#measure(data, offset, length);
      if (size <= 0) {
        if (size < 0) return; // failed
        break; // header incomplete
      }
      if (length - offset < size) break;
      this.#onFrame(data, offset, offset + size, true);
      offset += size;
      if (this.#turnBudgetNs > 0 && --this.#untilClockRead <= 0 && offset < length && this.#budgetSpent()) {
        this.#waitForNextTurn(data, offset, length);
        return;
      }
    }
    if (offset < length && this.#reading()) this.#startCarry(data, offset, length);
  }

  #budgetSpent(): boolean {
    this.#untilClockRead = MESSAGES_PER_CLOCK_READ;
    return this.#now() - this.#turnStartNs >= this.#turnBudgetNs;
  }

  /** Keeps data[offset..] and pauses the socket: timers and other sockets run before the rest. */
  #waitForNextTurn(data: Buffer, offset: number, length: number): void {
    this.yields++;
    this.#rest = data;
    this.#restOffset = offset;
    this.#restEnd = length;
    this.#socket.pause();
    // setImmediate runs after this turn's I/O; a timer would wait for the clock's next millisecond.
    setImmediate(this.#nextTurn);
  }

  #resumeRest(): void {
    const data = this.#rest;
    if (data === null) return;
    this.#rest = null;
    this.#turnStartNs = this.#now();
    setImmediate(this.#endTurn);
    this.#frames(data, this.#restOffset, this.#restEnd);
    if (this.#rest === null && this.#reading()) this.#socket.resume();
  }

  #reading(): boolean {
    return this.readyState !== ReadyState.CLOSED && !this.#closeReceived;
  }

  /**
   * Sizes the frame whose header starts at data[at] (bytes up to `length` available): its whole
   * length, header included (and #headerLength), 0 while the header is incomplete, -1 after failing
   * the connection (masked frame, RSV bits, too large).
   */
  #measure(data: Buffer, at: number, length: number): number {
    if (length - at < 2) return 0;
    const b0 = data[at];
    const b1 = data[at + 1];
    if ((b1 & 0x80) !== 0) return this.#failed(CloseCode.PROTOCOL_ERROR, 'masked frame from the server');
    if ((b0 & 0x70) !== 0) return this.#failed(CloseCode.PROTOCOL_ERROR, 'RSV bits set without an extension');
    let payloadLength = b1 & 0x7f;
    let headerLength = 2;
    if (payloadLength === 126) {
      if (length - at < 4) return 0;
      payloadLength = (data[at + 2] << 8) | data[at + 3];
      headerLength = 4;
    } else if (payloadLength === 127) {
      if (length - at < 10) return 0;
      const high = data.readUInt32BE(at + 2);
      if (high >= 0x20_0000) return this.#failed(CloseCode.TOO_BIG, 'frame length beyond 2^53');
      payloadLength = high * 0x1_0000_0000 + data.readUInt32BE(at + 6);
      headerLength = 10;
    }
    if (payloadLength > this.#maxMessageBytes) return this.#failed(CloseCode.TOO_BIG, `frame of ${payloadLength} bytes`);
    this.#headerLength = headerLength;
    return headerLength + payloadLength;
  }

  /** The start of a frame that the chunk does not finish: copied into the carry buffer. */
  #startCarry(data: Buffer, offset: number, length: number): void {
    const size = this.#measure(data, offset, length); // > 0, or 0 for an incomplete header
    if (size < 0) return;
    this.#carryNeed = size;
    const carry = this.#carryFor(size);
    data.copy(carry, 0, offset, length);
    this.#carryLength = length - offset;
  }

  /**
   * Completes the carried frame from `data`: copies what the frame still needs (finishing its
   * header first when that was incomplete). Returns the position in `data` after the bytes taken,
   * or -1 after failing the connection.
   */
  #fillCarry(data: Buffer, length: number): number {
    let taken = 0;
    if (this.#carryNeed === 0) {
      // Header bytes one at a time (at most 10 in all) until the frame can be sized.
      const carry = this.#carryFor(16);
      while (taken < length) {
        carry[this.#carryLength++] = data[taken++];
        const size = this.#measure(carry, 0, this.#carryLength);
        if (size < 0) return -1;
        if (size > 0) {
          this.#carryNeed = size;
          break;
        }
      }
      if (this.#carryNeed === 0) return taken;
      this.#carryFor(this.#carryNeed); // grows it, keeping the header
    }
    const want = Math.min(this.#carryNeed - this.#carryLength, length - taken);
    data.copy(this.#carry as Buffer, this.#carryLength, taken, taken + want);
    this.#carryLength += want;
    return taken + want;
  }

  /** The carry buffer with room for `size` bytes, keeping what it holds. */
  #carryFor(size: number): Buffer {
    const carry = this.#carry;
    if (carry !== null && carry.length >= size) return carry;
    const grown = Buffer.allocUnsafe(Math.max(size, carry === null ? CARRY_BYTES_INITIAL : carry.length * 2));
    if (carry !== null && this.#carryLength > 0) carry.copy(grown, 0, 0, this.#carryLength);
    this.#carry = grown;
    return grown;
  }

  /** One whole frame in data[start, end), its header sized by the last #measure. */
  #onFrame(data: Buffer, start: number, end: number, inPlace: boolean): void {
    const b0 = data[start];
    const fin = (b0 & 0x80) !== 0;
    const opcode = b0 & 0x0f;
    const payloadStart = start + this.#headerLength;
    if (opcode === Opcode.TEXT || opcode === Opcode.BINARY) {
      if (this.#messageOpcode !== -1) return this.#fail(CloseCode.PROTOCOL_ERROR, 'new message inside a fragmented one');
      if (fin) return this.#deliver(opcode, data, payloadStart, end, inPlace);
      this.#messageOpcode = opcode;
      this.#addFragment(data, payloadStart, end);
      return;
    }
    if (opcode === Opcode.CONTINUATION) {
      if (this.#messageOpcode === -1) return this.#fail(CloseCode.PROTOCOL_ERROR, 'continuation without a message');
      this.#addFragment(data, payloadStart, end);
      if (!fin || this.readyState === ReadyState.CLOSED) return;
      const message = this.#message as Buffer;
      const messageLength = this.#messageLength;
      const kind = this.#messageOpcode;
      this.#messageLength = 0;
      this.#messageOpcode = -1;
      this.#deliver(kind, message, 0, messageLength, false);
      if (messageLength > BUFFER_BYTES_KEPT_MAX && this.#message === message) this.#message = null;
      return;
    }
    if (!fin || end - payloadStart > 125) return this.#fail(CloseCode.PROTOCOL_ERROR, 'fragmented or oversized control frame');
    if (opcode === Opcode.PING) {
      // #write copies the payload into the pong it builds (the carry buffer is reused).
      if (this.readyState === ReadyState.OPEN) this.#write(Opcode.PONG, data.subarray(payloadStart, end));
      this.oncontrol?.('ping');
      return;
    }
    if (opcode === Opcode.PONG) {
      this.oncontrol?.('pong');
      return;
    }
    if (opcode === Opcode.CLOSE) return this.#onCloseFrame(data, payloadStart, end);
    this.#fail(CloseCode.PROTOCOL_ERROR, `unknown opcode ${opcode}`);
  }

  #addFragment(data: Buffer, start: number, end: number): void {
    const length = this.#messageLength + (end - start);
    if (length > this.#maxMessageBytes) return this.#fail(CloseCode.TOO_BIG, `message above ${this.#maxMessageBytes} bytes`);
    let message = this.#message;
    if (message === null || message.length < length) {
      const grown = Buffer.allocUnsafe(Math.max(length, message === null ? CARRY_BYTES_INITIAL : message.length * 2));
      if (message !== null && this.#messageLength > 0) message.copy(grown, 0, 0, this.#messageLength);
      this.#message = message = grown;
    }
    data.copy(message, this.#messageLength, start, end);
    this.#messageLength = length;
  }

  #deliver(opcode: number, data: Buffer, start: number, end: number, inPlace: boolean): void {
    if (inPlace) this.deliveredInPlace++;
    else this.deliveredCopied++;
    if (opcode === Opcode.TEXT) {
      if (this.#checkUtf8 && !isUtf8(data.subarray(start, end))) return this.#fail(CloseCode.INVALID_DATA, 'text frame is not UTF-8');
      const listener = this.ontext;
      if (listener !== null && !listener(data, start, end)) this.#fail(CloseCode.INVALID_DATA, 'text frame is not UTF-8');
      return;
    }
    this.onbinary?.(data, start, end);
  }

  #onCloseFrame(data: Buffer, start: number, end: number): void {
    let code: number = 1005; // no status received
    let reason = '';
    if (end - start === 1) return this.#fail(CloseCode.PROTOCOL_ERROR, 'close frame with a one-byte body');
    if (end - start >= 2) {
      code = data.readUInt16BE(start);
      const text = data.subarray(start + 2, end);
      if (!isUtf8(text)) return this.#fail(CloseCode.INVALID_DATA, 'close reason is not UTF-8');
      reason = text.toString('utf8');
    }
    this.#closeReceived = true;
    this.#closeCode = code;
    this.#closeReason = reason;
    this.#sendClose(code === 1005 ? CloseCode.NORMAL : code, '');
    this.readyState = ReadyState.CLOSING;
    this.#socket.end();
    setTimeout(() => this.#socket.destroy(), 1_000).unref();
  }

  // ---- writing and closing ---------------------------------------------------------------------

  /** One masked frame with FIN set. */
  #write(opcode: number, payload: Buffer): void {
    const length = payload.length;
    const headerLength = length < 126 ? 6 : length < 65_536 ? 8 : 14;
    const frame = Buffer.allocUnsafe(headerLength + length);
    frame[0] = 0x80 | opcode;
    if (length < 126) {
      frame[1] = 0x80 | length;
    } else if (length < 65_536) {
      frame[1] = 0x80 | 126;
      frame.writeUInt16BE(length, 2);
    } else {
      frame[1] = 0x80 | 127;
      frame.writeUInt32BE(Math.floor(length / 0x1_0000_0000), 2);
      frame.writeUInt32BE(length >>> 0, 6);
    }
    const mask = randomFillSync(this.#mask);
    mask.copy(frame, headerLength - 4);
    for (let i = 0; i < length; i++) frame[headerLength + i] = payload[i] ^ mask[i & 3];
    this.#socket.write(frame);
  }

  #sendClose(code: number, reason: string): void {
    if (this.#closeSent || this.readyState !== ReadyState.OPEN) return;
    this.#closeSent = true;
    const text = Buffer.from(reason, 'utf8').subarray(0, 123);
    const body = Buffer.allocUnsafe(2 + text.length);
    body.writeUInt16BE(code, 0);
    text.copy(body, 2);
    this.#write(Opcode.CLOSE, body);
  }

  /** A protocol failure: close with `code` (sent when open) and report it as the close reason. */
  #fail(code: number, reason: string): void {
    if (this.readyState === ReadyState.CLOSED) return;
    this.#closeCode = code;
    this.#closeReason = reason;
    const sent = code !== CloseCode.ABNORMAL && this.readyState === ReadyState.OPEN;
    if (sent) this.#sendClose(code, reason);
    this.readyState = ReadyState.CLOSED;
    this.#carry = null;
    this.#carryLength = 0;
    this.#carryNeed = 0;
    this.#message = null;
    this.#messageLength = 0;
    this.#messageOpcode = -1;
    if (sent) {
      // Let the close frame leave before the socket goes.
      this.#socket.end();
      setTimeout(() => this.#socket.destroy(), 1_000).unref();
    } else {
      this.#socket.destroy();
    }
    this.#fireClose();
  }

  /** #fail for callers that return a size: -1. */
  #failed(code: number, reason: string): number {
    this.#fail(code, reason);
    return -1;
  }

  #fireClose(): void {
    this.readyState = ReadyState.CLOSED;
    if (this.#closedFired) return;
    this.#closedFired = true;
    this.onclose?.({ code: this.#closeCode, reason: this.#closeReason });
  }
}

function isIpLiteral(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}

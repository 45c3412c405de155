// Test helper (not a test): a WebSocket client on a raw TCP socket that writes any frame (masked or
// not, any length, any opcode) and reads large volumes cheaply: text frames the `keep` filter
// rejects (order book snapshots, say) are only counted, never decoded. It records the server's
// close frame and the end of the TCP connection, for the RFC 6455 checks.

import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { wsHeaders, type KeyPair } from './clients.ts';

export interface CloseFrame {
  code: number | null;
  reason: string;
}

export class FrameClient {
  readonly socket: Socket;
  /** Decoded text frames the filter kept, in order. */
  readonly messages: any[] = [];
  /** Every text frame received, kept or not. */
  textFrames = 0;
  /** The server's close frame, if one came. */
  closeFrame: CloseFrame | null = null;
  /** Resolves when the TCP connection is gone (either side). */
  readonly ended: Promise<void>;
  #ended = false;
  #buffer: Buffer = Buffer.alloc(0);
  #upgraded = false;
  #nextId = 1;
  readonly #keep: (text: string) => boolean;
  #waiters: Array<{ predicate: (message: any) => boolean; resolve: (message: any) => void }> = [];

  private constructor(socket: Socket, keep: (text: string) => boolean) {
    this.socket = socket;
    this.#keep = keep;
    this.ended = new Promise((resolve) => {
      socket.once('close', () => {
        this.#ended = true;
        resolve();
      });
    });
    socket.on('error', () => {}); // a reset shows up as 'close'
  }

  get isEnded(): boolean {
    return this.#ended;
  }

  static async open(port: number, key: KeyPair, keep: (text: string) => boolean = () => true): Promise<FrameClient> {
    const socket = connect(port, '127.0.0.1');
    const client = new FrameClient(socket, keep);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('handshake timed out')), 5000);
      socket.once('connect', () => {
        const lines = [
          'GET /trade-api/ws/v2 HTTP/1.1',
          `Host: 127.0.0.1:${port}`,
          'Upgrade: websocket',
          'Connection: Upgrade',
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
          'Sec-WebSocket-Version: 13',
          ...Object.entries(wsHeaders(key)).map(([name, value]) => `${name}: ${value}`),
        ];
        socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      });
      socket.on('data', (chunk: Buffer) => {
        client.#onData(chunk);
        if (client.#upgraded) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    return client;
  }

  #onData(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    if (!this.#upgraded) {
      const end = this.#buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      this.#buffer = this.#buffer.subarray(end + 4);
      this.#upgraded = true;
    }
    const buffer = this.#buffer;
    let at = 0;
    for (;;) {
      if (buffer.length - at < 2) break;
      const opcode = buffer[at] & 0x0f;
      let length = buffer[at + 1] & 0x7f;
      let offset = at + 2;
      if (length === 126) {
        if (buffer.length - at < 4) break;
        length = buffer.readUInt16BE(at + 2);
        offset = at + 4;
      } else if (length === 127) {
        if (buffer.length - at < 10) break;
        length = Number(buffer.readBigUInt64BE(at + 2));
        offset = at + 10;
      }
      if (buffer.length < offset + length) break;
      const payload = buffer.subarray(offset, offset + length);
      if (opcode === 1) this.#onText(payload.toString('utf8'));
      else if (opcode === 8) this.closeFrame = { code: payload.length >= 2 ? payload.readUInt16BE(0) : null, reason: payload.subarray(2).toString('utf8') };
      at = offset + length;
    }
    this.#buffer = at === buffer.length ? Buffer.alloc(0) : buffer.subarray(at);
  }

  #onText(text: string): void {
    this.textFrames++;
    if (!this.#keep(text)) return;
    const message = JSON.parse(text);
    this.messages.push(message);
    if (this.#waiters.length === 0) return;
    this.#waiters = this.#waiters.filter((waiter) => {
      if (!waiter.predicate(message)) return true;
      waiter.resolve(message);
      return false;
    });
  }

  /** One frame: FIN set, `opcode`, masked with a random key unless `masked` is false. */
  static frame(opcode: number, payload: Buffer, masked: boolean): Buffer {
    const length = payload.length;
    const maskBit = masked ? 0x80 : 0;
    let header: Buffer;
    if (length < 126) header = Buffer.from([0x80 | opcode, maskBit | length]);
    else if (length < 65536) header = Buffer.from([0x80 | opcode, maskBit | 126, length >> 8, length & 0xff]);
    else {
      header = Buffer.alloc(10);
      header[0] = 0x80 | opcode;
      header[1] = maskBit | 127;
      header.writeBigUInt64BE(BigInt(length), 2);
    }
    if (!masked) return Buffer.concat([header, payload]);
    const mask = randomBytes(4);
    const body = Buffer.alloc(length);
    for (let i = 0; i < length; i++) body[i] = payload[i] ^ mask[i & 3];
    return Buffer.concat([header, mask, body]);
  }

  /** Writes raw bytes. */
  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  sendText(text: string): void {
    this.write(FrameClient.frame(0x1, Buffer.from(text, 'utf8'), true));
  }

  /** Sends a command with the next id; returns the id. */
  send(cmd: string, params?: Record<string, unknown>): number {
    const id = this.#nextId++;
    this.sendText(JSON.stringify(params === undefined ? { id, cmd } : { id, cmd, params }));
    return id;
  }

  /** Resolves with the first kept message (already received or future) matching, or rejects after timeoutMs. */
  waitFor(predicate: (message: any) => boolean, timeoutMs = 5000): Promise<any> {
    const found = this.messages.find(predicate);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting; last kept: ${JSON.stringify(this.messages.slice(-3))}`)), timeoutMs);
      this.#waiters.push({
        predicate,
        resolve: (message) => {
          clearTimeout(timer);
          resolve(message);
        },
      });
    });
  }

  /** Resolves true when the connection ends within timeoutMs, false otherwise. */
  async endsWithin(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const result = await Promise.race([this.ended.then(() => true), timeout]);
    clearTimeout(timer);
    return result;
  }

  close(): void {
    this.socket.destroy();
  }
}

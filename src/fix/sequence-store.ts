/**
 * Where a FIX session keeps its sequence numbers and, on retransmitting sessions (KalshiRT,
 * KalshiPT), the outgoing messages it may be asked to resend. Two implementations: in memory (lost
 * with the process) and file-backed (recovered by reopening the same files after a crash). The
 * session decides what to store; a store only keeps it, bounded by `messagesMax` (oldest first out,
 * standing in for the venue's 24 to 72 h retention of fix.md §2 tag 20200).
 *
 * File layout, both files mode 0600 (they hold order flow):
 *   <path>.seqnums   one 40-byte line "<nextOut:19 digits> <nextIn:19 digits>\n", rewritten in place
 *   <path>.messages  append-only records "<seq> <length>\n<message bytes>\n"; a torn last record is
 *                    cut off on reopen. Writes are not fsynced: a process crash loses nothing, a
 *                    machine crash may lose the last writes (the gap is then recovered by resend).
 */

import {
  closeSync, fchmodSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { FixError } from './fix-error.ts';
import { writePadded } from './field-codec.ts';

export interface SequenceStore {
  /** MsgSeqNum of the next message we send. */
  nextOutgoing(): number;
  /** MsgSeqNum we expect next from the peer. */
  nextIncoming(): number;
  setNextOutgoing(seq: number): void;
  setNextIncoming(seq: number): void;
  /** Keeps a copy of an outgoing message for replay. */
  saveOutgoing(seq: number, message: Uint8Array): void;
  /** A stored outgoing message, or null when never stored or aged out. */
  loadOutgoing(seq: number): Buffer | null;
  /** The lowest sequence number still retained; nextOutgoing() when none is. */
  oldestOutgoing(): number;
  /** Both numbers back to 1 and every stored message dropped (Logon with 141=Y). */
  reset(): void;
  close(): void;
}

export interface SequenceStoreOptions {
  /** Outgoing messages retained for replay (default 100,000). */
  messagesMax?: number;
}

export class MemorySequenceStore implements SequenceStore {
  #nextOutgoing = 1;
  #nextIncoming = 1;
  #oldest = 1;
  readonly #messages = new Map<number, Buffer>();
  readonly #messagesMax: number;

  constructor(options: SequenceStoreOptions = {}) {
    this.#messagesMax = options.messagesMax ?? 100_000;
  }
  nextOutgoing(): number {
    return this.#nextOutgoing;
  }
  nextIncoming(): number {
    return this.#nextIncoming;
  }
  setNextOutgoing(seq: number): void {
    this.#nextOutgoing = seq;
  }
  setNextIncoming(seq: number): void {
    this.#nextIncoming = seq;
  }
  saveOutgoing(seq: number, message: Uint8Array): void {
    if (this.#messages.size === 0) this.#oldest = seq;
    this.#messages.set(seq, Buffer.from(message));
    while (this.#messages.size > this.#messagesMax) this.#messages.delete(this.#oldest++);
  }
  loadOutgoing(seq: number): Buffer | null {
    return this.#messages.get(seq) ?? null;
  }
  oldestOutgoing(): number {
    return this.#messages.size === 0 ? this.#nextOutgoing : this.#oldest;
  }
  reset(): void {
    this.#nextOutgoing = 1;
    this.#nextIncoming = 1;
    this.#messages.clear();
    this.#oldest = 1;
  }
  close(): void {
    this.#messages.clear();
  }
}

const SEQNUMS_LENGTH = 40;
const FILE_MODE = 0o600;

function openPrivate(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, 'a+', FILE_MODE); // created if missing; never truncated
    fchmodSync(fd, FILE_MODE); // an existing file may have been created with a wider mode
    closeSync(fd);
    return openSync(path, 'r+');
  } catch (error) {
    throw new FixError('FIX_STORE_IO', `sequence store: cannot open ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

function readAll(fd: number): Buffer {
  const size = fstatSync(fd).size;
  const bytes = Buffer.alloc(size);
  let read = 0;
  while (read < size) {
    const n = readSync(fd, bytes, read, size - read, read);
    if (n === 0) break;
    read += n;
  }
  return bytes.subarray(0, read);
}

export class FileSequenceStore implements SequenceStore {
  readonly #seqnumsFd: number;
  readonly #messagesFd: number;
  readonly #line = Buffer.alloc(SEQNUMS_LENGTH);
  readonly #offsets = new Map<number, number>();
  readonly #lengths = new Map<number, number>();
  readonly #messagesMax: number;
  #nextOutgoing = 1;
  #nextIncoming = 1;
  #oldest = 1;
  #messagesSize = 0;
  #closed = false;

  /** Opens (creating when missing) `<path>.seqnums` and `<path>.messages` and recovers their state. */
  constructor(path: string, options: SequenceStoreOptions = {}) {
    this.#messagesMax = options.messagesMax ?? 100_000;
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.#seqnumsFd = openPrivate(`${path}.seqnums`);
    this.#messagesFd = openPrivate(`${path}.messages`);
    this.#recoverSeqnums();
    this.#recoverMessages();
  }

  nextOutgoing(): number {
    return this.#nextOutgoing;
  }
  nextIncoming(): number {
    return this.#nextIncoming;
  }
  setNextOutgoing(seq: number): void {
    this.#nextOutgoing = seq;
    this.#writeSeqnums();
  }
  setNextIncoming(seq: number): void {
    this.#nextIncoming = seq;
    this.#writeSeqnums();
  }

  saveOutgoing(seq: number, message: Uint8Array): void {
    const header = Buffer.from(`${seq} ${message.length}\n`, 'latin1');
    const offset = this.#messagesSize + header.length;
    this.#write(this.#messagesFd, header, this.#messagesSize);
    this.#write(this.#messagesFd, message, offset);
    this.#write(this.#messagesFd, NEWLINE, offset + message.length);
    this.#messagesSize = offset + message.length + 1;
    this.#index(seq, offset, message.length);
  }

  loadOutgoing(seq: number): Buffer | null {
    const offset = this.#offsets.get(seq);
    if (offset === undefined) return null;
    const length = this.#lengths.get(seq) as number;
    const bytes = Buffer.alloc(length);
    const n = readSync(this.#messagesFd, bytes, 0, length, offset);
    return n === length ? bytes : null;
  }

  oldestOutgoing(): number {
    return this.#offsets.size === 0 ? this.#nextOutgoing : this.#oldest;
  }

  reset(): void {
    this.#nextOutgoing = 1;
    this.#nextIncoming = 1;
    this.#writeSeqnums();
    ftruncateSync(this.#messagesFd, 0);
    this.#messagesSize = 0;
    this.#offsets.clear();
    this.#lengths.clear();
    this.#oldest = 1;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeSync(this.#seqnumsFd);
    closeSync(this.#messagesFd);
  }

  #index(seq: number, offset: number, length: number): void {
    if (this.#offsets.size === 0) this.#oldest = seq;
    this.#offsets.set(seq, offset);
    this.#lengths.set(seq, length);
    while (this.#offsets.size > this.#messagesMax) {
      this.#offsets.delete(this.#oldest);
      this.#lengths.delete(this.#oldest);
      this.#oldest++;
    }
  }

  #writeSeqnums(): void {
    const line = this.#line;
    writePadded(line, 0, this.#nextOutgoing, 19);
    line[19] = 0x20;
    writePadded(line, 20, this.#nextIncoming, 19);
    line[39] = 0x0a;
    this.#write(this.#seqnumsFd, line, 0);
  }

  #write(fd: number, bytes: Uint8Array, position: number): void {
    try {
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written, position + written);
    } catch (error) {
      throw new FixError('FIX_STORE_IO', `sequence store: write failed (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }

  #recoverSeqnums(): void {
    const bytes = readAll(this.#seqnumsFd);
    if (bytes.length === 0) {
      this.#writeSeqnums();
      return;
    }
    const match = /^(\d{19}) (\d{19})\n$/.exec(bytes.toString('latin1', 0, bytes.length));
    if (match === null) throw new FixError('FIX_STORE_IO', 'sequence store: seqnums file is corrupt');
    this.#nextOutgoing = Number(match[1]);
    this.#nextIncoming = Number(match[2]);
  }

  #recoverMessages(): void {
    const bytes = readAll(this.#messagesFd);
    let pos = 0;
    for (;;) {
      const newline = bytes.indexOf(0x0a, pos);
      if (newline === -1) break;
      const match = /^(\d{1,16}) (\d{1,9})$/.exec(bytes.toString('latin1', pos, newline));
      if (match === null) break;
      const length = Number(match[2]);
      const offset = newline + 1;
      if (offset + length + 1 > bytes.length || bytes[offset + length] !== 0x0a) break; // torn record
      this.#index(Number(match[1]), offset, length);
      pos = offset + length + 1;
    }
    if (pos < bytes.length) ftruncateSync(this.#messagesFd, pos); // cut a record torn by a crash
    this.#messagesSize = pos;
  }
}

const NEWLINE = Buffer.from('\n', 'latin1');

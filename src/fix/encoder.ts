/**
 * The FIX message encoder: writes tag=value fields into one reused Buffer and frames them as
 * FIXT.1.1 (fix.md §1: BodyLength 2nd, MsgType 3rd, 3-digit CheckSum last). The body is written
 * first after a reserved gap; finish() then writes "8=FIXT.1.1|9=<n>|" backwards into the gap so
 * nothing is moved, appends the checksum and returns a view. The view is valid until the next
 * begin(): a transport that queues bytes must copy them. No allocation per field or per message;
 * the buffer grows (by doubling, up to a bound) only when a message does not fit.
 *
 *   [ gap ............ | 8=FIXT.1.1|9=198|35=D|49=..|...|10=160| ]
 *     ^0      messageStart^          ^BODY_START          ^position
 */

import { FixError } from './fix-error.ts';
import {
  digitCount, fixedLengthMax, TIMESTAMP_LENGTH, writeDigits, writeFixed, writePadded, writeUtcDate,
  writeUtcTime, writeUtcTimestamp,
} from './field-codec.ts';
import { Tag } from './tags.ts';
import type { FixMessage } from './message.ts';

const SOH = 0x01;
const EQUALS = 0x3d;
const BEGIN_STRING_BYTES = Buffer.from('8=FIXT.1.1\x019=', 'latin1');
// "8=FIXT.1.1|9=" (13) + up to 6 length digits + SOH: 20 bytes; 32 leaves room.
const BODY_START = 32;
const TRAILER_LENGTH = 7; // "10=ddd|"
/** Room for one field's tag, '=' and SOH, on top of its value. */
const FIELD_OVERHEAD = 12;

export interface FixEncoderOptions {
  /** Initial buffer size in bytes (default 4096). */
  capacityBytes?: number;
  /** The largest message this encoder will write, in bytes (default 65536). */
  messageBytesMax?: number;
}

/** Header tags written by begin() and finish(); copyBody() skips them. */
const HEADER_TAGS = new Set<number>([
  Tag.BeginString, Tag.BodyLength, Tag.MsgType, Tag.SenderCompID, Tag.TargetCompID, Tag.MsgSeqNum,
  Tag.SendingTime, Tag.PossDupFlag, Tag.PossResend, Tag.OrigSendingTime, Tag.CheckSum,
]);

export class FixEncoder {
  #buffer: Buffer;
  #position: number;
  readonly #messageBytesMax: number;

  constructor(options: FixEncoderOptions = {}) {
    const capacity = options.capacityBytes ?? 4096;
    this.#messageBytesMax = options.messageBytesMax ?? 65_536;
    this.#buffer = Buffer.alloc(Math.max(capacity, BODY_START + 256));
    this.#position = BODY_START;
  }

  /** Starts a message: 35, 49, 56, 34 and 52 (from epoch milliseconds). Discards any unfinished one. */
  begin(msgType: string, senderCompId: string, targetCompId: string, msgSeqNum: number, sendingTimeMs: number): this {
    this.#position = BODY_START;
    this.string(Tag.MsgType, msgType);
    this.string(Tag.SenderCompID, senderCompId);
    this.string(Tag.TargetCompID, targetCompId);
    this.int(Tag.MsgSeqNum, msgSeqNum);
    return this.timestamp(Tag.SendingTime, sendingTimeMs);
  }

  /** A signed safe integer: "34=2", "100=-1". */
  int(tag: number, value: number): this {
    if (!Number.isSafeInteger(value)) throw new FixError('FIX_VALUE_INVALID', 'int: not a safe integer');
    this.#ensure(FIELD_OVERHEAD + 17);
    let pos = this.#tag(tag);
    const buffer = this.#buffer;
    if (value < 0) {
      buffer[pos++] = 0x2d;
      value = -value;
    }
    pos = writeDigits(buffer, pos, value);
    buffer[pos] = SOH;
    this.#position = pos + 1;
    return this;
  }

  /** Printable ASCII (0x20-0x7e), at least one character. */
  string(tag: number, value: string): this {
    const length = value.length;
    if (length === 0) throw new FixError('FIX_VALUE_INVALID', 'string: empty value');
    this.#ensure(FIELD_OVERHEAD + length);
    let pos = this.#tag(tag);
    const buffer = this.#buffer;
    for (let i = 0; i < length; i++) {
      const code = value.charCodeAt(i);
      if (code < 0x20 || code > 0x7e) throw new FixError('FIX_VALUE_INVALID', 'string: not printable ASCII');
      buffer[pos++] = code;
    }
    buffer[pos] = SOH;
    this.#position = pos + 1;
    return this;
  }

  /** FIX boolean: Y or N. */
  flag(tag: number, value: boolean): this {
    this.#ensure(FIELD_OVERHEAD + 1);
    const pos = this.#tag(tag);
    this.#buffer[pos] = value ? 0x59 : 0x4e;
    this.#buffer[pos + 1] = SOH;
    this.#position = pos + 2;
    return this;
  }

  /** A price in 1/10,000 dollar as dollars with 4 decimals (fix.md §4, 21005=Y): 4200 -> "0.4200". */
  price(tag: number, price: number): this {
    return this.fixed(tag, price, 4, 4);
  }

  /** A price in 1/10,000 dollar as whole cents (fix.md §4 default mode): 4200 -> "42". Sub-cent throws. */
  priceCents(tag: number, price: number): this {
    if (price % 100 !== 0) throw new FixError('FIX_VALUE_INVALID', 'priceCents: sub-cent price needs dollar mode (21005=Y)');
    return this.int(tag, price / 100);
  }

  /** A count in 1/100 contract with at least `decimalsMin` decimals: (1000, 2) -> "10.00", (1000, 0) -> "10". */
  count(tag: number, count: number, decimalsMin: 0 | 2 = 2): this {
    return this.fixed(tag, count, 2, decimalsMin);
  }

  /** Signed money in centicents as dollars, 2 to 4 decimals: (700, 2) -> "0.07", (-17500, 2) -> "-1.75". */
  dollars(tag: number, centicents: number, decimalsMin: 2 | 4 = 2): this {
    return this.fixed(tag, centicents, 4, decimalsMin);
  }

  /** A signed fixed-point integer of `scale` decimals written with `decimalsMin` to `scale` decimals. */
  fixed(tag: number, value: number, scale: number, decimalsMin: number): this {
    if (!Number.isSafeInteger(value)) throw new FixError('FIX_VALUE_INVALID', 'fixed: not a safe integer');
    this.#ensure(FIELD_OVERHEAD + fixedLengthMax(value, scale));
    const pos = writeFixed(this.#buffer, this.#tag(tag), value, scale, decimalsMin);
    this.#buffer[pos] = SOH;
    this.#position = pos + 1;
    return this;
  }

  /** UTCTimestamp YYYYMMDD-HH:MM:SS.mmm of epoch milliseconds. */
  timestamp(tag: number, epochMs: number): this {
    this.#checkTime(epochMs);
    this.#ensure(FIELD_OVERHEAD + TIMESTAMP_LENGTH);
    const pos = writeUtcTimestamp(this.#buffer, this.#tag(tag), epochMs);
    this.#buffer[pos] = SOH;
    this.#position = pos + 1;
    return this;
  }

  /** UTC date YYYYMMDD (e.g. MDEntryDate 272). ClearingBusinessDate 715 is an Eastern date: pass it to int(). */
  utcDate(tag: number, epochMs: number): this {
    this.#checkTime(epochMs);
    this.#ensure(FIELD_OVERHEAD + 8);
    const pos = writeUtcDate(this.#buffer, this.#tag(tag), epochMs);
    this.#buffer[pos] = SOH;
    this.#position = pos + 1;
    return this;
  }

  /** UTC time HH:MM:SS.mmm (e.g. MDEntryTime 273). */
  utcTime(tag: number, epochMs: number): this {
    this.#checkTime(epochMs);
    this.#ensure(FIELD_OVERHEAD + 12);
    const pos = writeUtcTime(this.#buffer, this.#tag(tag), epochMs);
    this.#buffer[pos] = SOH;
    this.#position = pos + 1;
    return this;
  }

  /** Copies a value's bytes verbatim (a parsed field echoed back); the bytes must hold no SOH. */
  bytes(tag: number, source: Uint8Array, start: number, end: number): this {
    const length = end - start;
    if (length <= 0) throw new FixError('FIX_VALUE_INVALID', 'bytes: empty value');
    this.#ensure(FIELD_OVERHEAD + length);
    const pos = this.#tag(tag);
    const buffer = this.#buffer;
    for (let i = 0; i < length; i++) {
      const code = source[start + i];
      if (code === SOH) throw new FixError('FIX_VALUE_INVALID', 'bytes: value holds SOH');
      buffer[pos + i] = code;
    }
    buffer[pos + length] = SOH;
    this.#position = pos + length + 1;
    return this;
  }

  /** A data field preceded by its length field, e.g. RawDataLength(95) then RawData(96). */
  data(lengthTag: number, dataTag: number, value: string): this {
    return this.int(lengthTag, value.length).string(dataTag, value);
  }

  /** Copies every field of `message` except the header and trailer (a replay keeps the body as sent). */
  copyBody(message: FixMessage): this {
    const count = message.fieldCount;
    for (let i = 0; i < count; i++) {
      const tag = message.tagAt(i);
      if (HEADER_TAGS.has(tag)) continue;
      this.bytes(tag, message.bytes, message.valueStartAt(i), message.valueEndAt(i));
    }
    return this;
  }

  /** Frames the message and returns a view of it, valid until the next begin(). */
  finish(): Buffer {
    const bodyLength = this.#position - BODY_START;
    const bodyLengthDigits = digitCount(bodyLength);
    const messageStart = BODY_START - BEGIN_STRING_BYTES.length - bodyLengthDigits - 1;
    const buffer = this.#buffer;
    BEGIN_STRING_BYTES.copy(buffer, messageStart);
    const lengthEnd = writeDigits(buffer, messageStart + BEGIN_STRING_BYTES.length, bodyLength);
    buffer[lengthEnd] = SOH;
    // every writer reserved TRAILER_LENGTH bytes, so the trailer fits
    let sum = 0;
    const end = this.#position;
    for (let i = messageStart; i < end; i++) sum += buffer[i];
    buffer[end] = 0x31; // '1'
    buffer[end + 1] = 0x30; // '0'
    buffer[end + 2] = EQUALS;
    writePadded(buffer, end + 3, sum & 0xff, 3);
    buffer[end + 6] = SOH;
    const messageEnd = end + TRAILER_LENGTH;
    this.#position = BODY_START; // the next message starts clean even without begin()
    return buffer.subarray(messageStart, messageEnd);
  }

  #checkTime(epochMs: number): void {
    if (!Number.isSafeInteger(epochMs) || epochMs < 0) throw new FixError('FIX_VALUE_INVALID', 'time: not epoch milliseconds');
  }

  /** Writes "<tag>=" at the current position and returns where the value starts. */
  #tag(tag: number): number {
    if (!Number.isSafeInteger(tag) || tag <= 0) throw new FixError('FIX_VALUE_INVALID', 'tag: not a positive integer');
    const pos = writeDigits(this.#buffer, this.#position, tag);
    this.#buffer[pos] = EQUALS;
    return pos + 1;
  }

  /** Makes room for `bytes` more (plus the trailer), doubling the buffer up to the message bound. */
  #ensure(bytes: number): void {
    const needed = this.#position + bytes + TRAILER_LENGTH;
    if (needed <= this.#buffer.length) return;
    if (needed - BODY_START > this.#messageBytesMax) {
      this.#position = BODY_START;
      throw new FixError('FIX_MESSAGE_TOO_LARGE', 'encoder: message exceeds messageBytesMax');
    }
    let capacity = this.#buffer.length * 2;
    while (capacity < needed) capacity *= 2;
    const grown = Buffer.alloc(Math.min(capacity, this.#messageBytesMax + BODY_START + 64));
    this.#buffer.copy(grown, 0, 0, this.#position);
    this.#buffer = grown;
  }
}

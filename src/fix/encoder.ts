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
  digitCount as digitCountImported, fixedLengthMax as fixedLengthMaxImported, TIMESTAMP_LENGTH as TIMESTAMP_LENGTH_IMPORTED,
  writeDigits as writeDigitsImported, writeFixed as writeFixedImported, writePadded as writePaddedImported,
  writeUtcDate as writeUtcDateImported, writeUtcTime as writeUtcTimeImported, writeUtcTimestamp as writeUtcTimestampImported,
} from './field-codec.ts';
import { Tag } from './tags.ts';
import type { FixMessage } from './message.ts';


// Imported bindings copied to module constants: hot paths then call plain functions and read plain numbers.
const digitCount = digitCountImported;
const fixedLengthMax = fixedLengthMaxImported;
const TIMESTAMP_LENGTH = TIMESTAMP_LENGTH_IMPORTED;
const writeDigits = writeDigitsImported;
const writeFixed = writeFixedImported;
const writePadded = writePaddedImported;
const writeUtcDate = writeUtcDateImported;
const writeUtcTime = writeUtcTimeImported;
const writeUtcTimestamp = writeUtcTimestampImported;
const TAG_MSG_TYPE: number = Tag.MsgType;
const TAG_SENDER_COMP_ID: number = Tag.SenderCompID;
const TAG_TARGET_COMP_ID: number = Tag.TargetCompID;
const TAG_MSG_SEQ_NUM: number = Tag.MsgSeqNum;

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

const BEGIN_STRING_SUM = BEGIN_STRING_BYTES.reduce((sum, byte) => sum + byte, 0);
/** "52=" */
const SENDING_TIME_TAG_BYTES = Buffer.from(`${Tag.SendingTime}=`, 'latin1');
const SECOND_PREFIX_LENGTH = 18; // "YYYYMMDD-HH:MM:SS."

// A Uint32Array over the last buffer summed, so byteSum reads 4 bytes at a time.
let wordsBuffer: ArrayBufferLike | null = null;
let words: Uint32Array<ArrayBufferLike> = new Uint32Array(0);
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** The sum of bytes [start, end), read as 32-bit words in two 16-bit lanes of byte pairs. */
function byteSum(bytes: Uint8Array, start: number, end: number): number {
  let sum = 0;
  let k = start;
  if (end - start >= 32 && LITTLE_ENDIAN) {
    const offset = bytes.byteOffset;
    for (; ((offset + k) & 3) !== 0; k++) sum += bytes[k];
    if (bytes.buffer !== wordsBuffer) {
      wordsBuffer = bytes.buffer;
      words = new Uint32Array(wordsBuffer, 0, wordsBuffer.byteLength >>> 2);
    }
    const view = words;
    let w = (offset + k) >>> 2;
    const wordsEnd = (offset + end) >>> 2;
    while (w < wordsEnd) {
      const flushAt = Math.min(wordsEnd, w + 64); // a lane gains at most 510 per word: flush before 2^16
      let lanes = 0;
      for (; w < flushAt; w++) {
        const word = view[w];
        lanes += (word & 0x00ff00ff) + ((word >>> 8) & 0x00ff00ff);
      }
      sum += (lanes & 0xffff) + (lanes >>> 16);
    }
    k = (w << 2) - offset;
  }
  for (; k < end; k++) sum += bytes[k];
  return sum;
}

// Tags below 1000 as [digit count, digits...] in 4 bytes each, so #tag copies instead of dividing.
const TAG_TABLE_SIZE = 1000;
const TAG_TABLE = new Uint8Array(TAG_TABLE_SIZE * 4);
for (let tag = 1; tag < TAG_TABLE_SIZE; tag++) {
  const digits = String(tag);
  TAG_TABLE[tag * 4] = digits.length;
  for (let k = 0; k < digits.length; k++) TAG_TABLE[tag * 4 + 1 + k] = digits.charCodeAt(k);
}

export class FixEncoder {
  #buffer: Buffer;
  #position: number;
  readonly #messageBytesMax: number;
  // begin()'s constant bytes "35=..|49=..|56=..|34=" for the last (msgType, sender, target), and their byte sum.
  #headerMsgType = '';
  #headerSender = '';
  #headerTarget = '';
  #headerBytes: Buffer | null = null;
  #headerSum = 0;
  /** Where the cached header ends in the current message (0 when begin() did not write it): finish() sums from there. */
  #headerEnd = 0;
  // "YYYYMMDD-HH:MM:SS." of the last SendingTime second begin() wrote.
  #timeSecond = -1;
  readonly #timePrefix = Buffer.alloc(SECOND_PREFIX_LENGTH);

  constructor(options: FixEncoderOptions = {}) {
    const capacity = options.capacityBytes ?? 4096;
    this.#messageBytesMax = options.messageBytesMax ?? 65_536;
    this.#buffer = Buffer.alloc(Math.max(capacity, BODY_START + 256));
    this.#position = BODY_START;
  }

  /** Starts a message: 35, 49, 56, 34 and 52 (from epoch milliseconds). Discards any unfinished one. */
  begin(msgType: string, senderCompId: string, targetCompId: string, msgSeqNum: number, sendingTimeMs: number): this {
    this.#position = BODY_START;
    this.#headerEnd = 0;
    let header = this.#headerBytes;
    if (header === null || msgType !== this.#headerMsgType || senderCompId !== this.#headerSender || targetCompId !== this.#headerTarget) {
      this.string(TAG_MSG_TYPE, msgType);
      this.string(TAG_SENDER_COMP_ID, senderCompId);
      this.string(TAG_TARGET_COMP_ID, targetCompId);
      const end = this.#tag(TAG_MSG_SEQ_NUM);
      header = Buffer.from(this.#buffer.subarray(BODY_START, end));
      let sum = 0;
      for (let i = 0; i < header.length; i++) sum += header[i];
      this.#headerBytes = header;
      this.#headerSum = sum;
      this.#headerMsgType = msgType;
      this.#headerSender = senderCompId;
      this.#headerTarget = targetCompId;
      this.#position = BODY_START;
    }
    // 34=<seq>| and 52=<time>| as int() and timestamp() write them, the constant part copied
    this.#position = BODY_START + header.length - 3; // after 56=..|, where int(34) would start
    if (!Number.isSafeInteger(msgSeqNum)) {
      this.#writeHeader(header, header.length - 3);
      throw new FixError('FIX_VALUE_INVALID', 'int: not a safe integer');
    }
    this.#ensure(FIELD_OVERHEAD + 17);
    let pos = this.#writeHeader(header, header.length);
    this.#headerEnd = pos;
    let buffer = this.#buffer;
    if (msgSeqNum < 0) {
      buffer[pos++] = 0x2d;
      msgSeqNum = -msgSeqNum;
    }
    pos = writeDigits(buffer, pos, msgSeqNum);
    buffer[pos] = SOH;
    this.#position = pos + 1;
    this.#checkTime(sendingTimeMs);
    this.#ensure(FIELD_OVERHEAD + TIMESTAMP_LENGTH);
    buffer = this.#buffer; // #ensure may have grown it
    pos = this.#position;
    buffer[pos] = SENDING_TIME_TAG_BYTES[0];
    buffer[pos + 1] = SENDING_TIME_TAG_BYTES[1];
    buffer[pos + 2] = SENDING_TIME_TAG_BYTES[2];
    pos += 3;
    const second = Math.floor(sendingTimeMs / 1000);
    const prefix = this.#timePrefix;
    if (second !== this.#timeSecond) {
      writeUtcTimestamp(prefix, 0, second * 1000); // "YYYYMMDD-HH:MM:SS.000": keep the first 18
      this.#timeSecond = second;
    }
    for (let i = 0; i < SECOND_PREFIX_LENGTH; i++) buffer[pos + i] = prefix[i];
    pos = writePadded(buffer, pos + SECOND_PREFIX_LENGTH, sendingTimeMs - second * 1000, 3);
    buffer[pos] = SOH;
    this.#position = pos + 1;
    return this;
  }

  /** Copies the first `length` bytes of the cached header to BODY_START; returns the position after them. */
  #writeHeader(header: Buffer, length: number): number {
    // one native copy: the header (sender and target ids) is 60-80 bytes, too long for a JS byte loop
    this.#buffer.set(length === header.length ? header : header.subarray(0, length), BODY_START);
    return BODY_START + length;
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
    for (let i = 0; i < BEGIN_STRING_BYTES.length; i++) buffer[messageStart + i] = BEGIN_STRING_BYTES[i];
    const lengthEnd = writeDigits(buffer, messageStart + BEGIN_STRING_BYTES.length, bodyLength);
    buffer[lengthEnd] = SOH;
    // every writer reserved TRAILER_LENGTH bytes, so the trailer fits
    let sum = BEGIN_STRING_SUM + SOH;
    for (let i = messageStart + BEGIN_STRING_BYTES.length; i < lengthEnd; i++) sum += buffer[i];
    let i = BODY_START;
    if (this.#headerEnd !== 0) { // begin()'s cached header: its sum is known
      sum += this.#headerSum;
      i = this.#headerEnd;
    }
    const end = this.#position;
    sum += byteSum(buffer, i, end);
    buffer[end] = 0x31; // '1'
    buffer[end + 1] = 0x30; // '0'
    buffer[end + 2] = EQUALS;
    writePadded(buffer, end + 3, sum & 0xff, 3);
    buffer[end + 6] = SOH;
    const messageEnd = end + TRAILER_LENGTH;
    this.#position = BODY_START;
    this.#headerEnd = 0; // the next message starts clean even without begin()
    return buffer.subarray(messageStart, messageEnd);
  }

  #checkTime(epochMs: number): void {
    if (!Number.isSafeInteger(epochMs) || epochMs < 0) throw new FixError('FIX_VALUE_INVALID', 'time: not epoch milliseconds');
  }

  /** Writes "<tag>=" at the current position and returns where the value starts. */
  #tag(tag: number): number {
    const buffer = this.#buffer;
    let pos = this.#position;
    if (tag > 0 && tag < TAG_TABLE_SIZE && (tag | 0) === tag) { // the usual tags: bytes from the table, no division
      const from = tag * 4;
      const length = TAG_TABLE[from];
      for (let k = 1; k <= length; k++) buffer[pos++] = TAG_TABLE[from + k];
      buffer[pos] = EQUALS;
      return pos + 1;
    }
    if (!Number.isSafeInteger(tag) || tag <= 0) throw new FixError('FIX_VALUE_INVALID', 'tag: not a positive integer');
    pos = writeDigits(buffer, pos, tag);
    buffer[pos] = EQUALS;
    return pos + 1;
  }

  /** Makes room for `bytes` more (plus the trailer), doubling the buffer up to the message bound. */
  #ensure(bytes: number): void {
    const needed = this.#position + bytes + TRAILER_LENGTH;
    if (needed <= this.#buffer.length) return;
    if (needed - BODY_START > this.#messageBytesMax) {
      this.#position = BODY_START;
      this.#headerEnd = 0;
      throw new FixError('FIX_MESSAGE_TOO_LARGE', 'encoder: message exceeds messageBytesMax');
    }
    let capacity = this.#buffer.length * 2;
    while (capacity < needed) capacity *= 2;
    const grown = Buffer.alloc(Math.min(capacity, this.#messageBytesMax + BODY_START + 64));
    this.#buffer.copy(grown, 0, 0, this.#position);
    this.#buffer = grown;
  }
}

/**
 * The streaming FIX framer and parser. Bytes arrive in TCP chunks split anywhere or holding several
 * messages; the framer copies them into one preallocated buffer (bounded by the largest message),
 * finds each "8=FIX", checks BeginString, BodyLength, CheckSum and that MsgType is third, indexes
 * the fields into a reused FixMessage and hands it to the handler. It never throws on input: every
 * garbled frame becomes a FixError value passed to onError, with the action standard FIXT asks for
 * (a bad length or checksum is dropped without consuming a sequence number; a wrong BeginString or
 * an oversized message means disconnect). Field-level problems inside a well-framed message (a
 * non-numeric tag, an empty value, a wrong data length) do not drop it: they are recorded on the
 * message as a SessionRejectReason so the session can answer with Reject(35=3).
 */

import { FixError, type FixErrorCode } from './fix-error.ts';
import { readInt as readIntImported } from './field-codec.ts';
import { FixMessage, REJECT_NONE } from './message.ts';
import { SessionRejectReason, Tag } from './tags.ts';

const SOH = 0x01;
const EQUALS = 0x3d;
const PREFIX = Buffer.from('8=FIX', 'latin1');
const BEGIN_STRING = Buffer.from('FIXT.1.1', 'latin1');
const BEGIN_STRING_VALUE_MAX = 16;
const BODY_LENGTH_DIGITS_MAX = 9;
const TRAILER_LENGTH = 7; // "10=ddd|"
// Imported bindings copied to module constants: hot paths then call plain functions and read plain numbers.
const TAG_RAW_DATA_LENGTH: number = Tag.RawDataLength;
const TAG_RAW_DATA: number = Tag.RawData;
const TAG_MSG_SEQ_NUM: number = Tag.MsgSeqNum;
const TAG_BEGIN_STRING: number = Tag.BeginString;
const TAG_BODY_LENGTH: number = Tag.BodyLength;
const TAG_MSG_TYPE: number = Tag.MsgType;
const TAG_CHECK_SUM: number = Tag.CheckSum;
const readInt = readIntImported;

/** Every data-length tag of dataTagOf is below this. */
const DATA_LENGTH_TAG_BELOW = 355;

/** Data fields whose value may hold any byte, so their length comes from the preceding field. */
function dataTagOf(lengthTag: number): number {
  switch (lengthTag) {
    case TAG_RAW_DATA_LENGTH: return TAG_RAW_DATA;
    case 90: return 91; // SecureDataLen -> SecureData
    case 93: return 94; // SignatureLength -> Signature
    case 212: return 213; // XmlDataLen -> XmlData
    case 354: return 355; // EncodedTextLen -> EncodedText
    default: return 0;
  }
}

export interface FixParserOptions {
  /** Largest message accepted, in bytes from "8=" to the checksum's SOH (default 65536). */
  messageBytesMax?: number;
  /** Fields indexed per message (default 1024). */
  fieldsMax?: number;
}

/** Outcome of scanning one frame (reused, never allocated per message). */
class ScanResult {
  code: FixErrorCode | null = null;
  /** Bytes to drop before scanning again (noise, a bad frame) or the message length when ok. */
  length = 0;
  detail = '';
}

/**
 * Scans one frame starting at `pos`. Returns 1 when a message was indexed into `message`
 * (result.length is its size), 0 when more bytes are needed, -1 on a framing error (result.code,
 * result.length bytes to skip).
 */
function scanFrame(bytes: Buffer, pos: number, end: number, message: FixMessage, messageBytesMax: number, result: ScanResult): number {
  result.code = null;
  result.length = 0;
  // 1. Find "8=FIX"; what comes before it is noise. A partial prefix at the tail waits for more.
  // the usual case, a message right at `pos`, without a native search
  let start = end - pos >= 5 && bytes[pos] === 0x38 && bytes[pos + 1] === EQUALS && bytes[pos + 2] === 0x46
    && bytes[pos + 3] === 0x49 && bytes[pos + 4] === 0x58 ? pos : bytes.indexOf(PREFIX, pos);
  if (start === -1 || start >= end) {
    let keep = 0;
    for (let k = Math.min(PREFIX.length - 1, end - pos); k > 0; k--) {
      if (bytes.compare(PREFIX, 0, k, end - k, end) === 0) {
        keep = k;
        break;
      }
    }
    if (end - keep > pos) return fail(result, 'FIX_NOISE_SKIPPED', end - keep - pos, 'no message start');
    return 0;
  }
  if (start > pos) return fail(result, 'FIX_NOISE_SKIPPED', start - pos, 'bytes before 8=FIX');

  // 2. BeginString(8): must be FIXT.1.1.
  const beginValue = start + 2;
  const beginEnd = indexOfSoh(bytes, beginValue, Math.min(end, beginValue + BEGIN_STRING_VALUE_MAX + 1));
  if (beginEnd === -1) {
    if (end - beginValue <= BEGIN_STRING_VALUE_MAX) return 0;
    return fail(result, 'FIX_BAD_BEGIN_STRING', 2, 'BeginString unterminated');
  }
  if (beginEnd - beginValue !== BEGIN_STRING.length || !isBeginString(bytes, beginValue)) {
    return fail(result, 'FIX_BAD_BEGIN_STRING', 2, 'BeginString is not FIXT.1.1');
  }

  // 3. BodyLength(9): digits, leading zeros allowed (some engines pad it), bounded.
  let i = beginEnd + 1;
  if (end - i < 2) return 0;
  if (bytes[i] !== 0x39 || bytes[i + 1] !== EQUALS) return fail(result, 'FIX_BAD_BODY_LENGTH', 2, 'BodyLength is not the second field');
  i += 2;
  const lengthStart = i;
  let bodyLength = 0;
  for (; i < end && bytes[i] !== SOH; i++) {
    const digit = bytes[i] - 0x30;
    if (digit < 0 || digit > 9 || i - lengthStart >= BODY_LENGTH_DIGITS_MAX) {
      return fail(result, 'FIX_BAD_BODY_LENGTH', 2, 'BodyLength malformed');
    }
    bodyLength = bodyLength * 10 + digit;
  }
  if (i === end) return 0;
  if (i === lengthStart) return fail(result, 'FIX_BAD_BODY_LENGTH', 2, 'BodyLength empty');
  const bodyStart = i + 1;
  const bodyEnd = bodyStart + bodyLength;
  const total = bodyEnd + TRAILER_LENGTH - start;
  if (total > messageBytesMax) return fail(result, 'FIX_MESSAGE_TOO_LARGE', 2, 'BodyLength exceeds the bound');
  if (end < bodyEnd + TRAILER_LENGTH) return 0;

  // 4. The trailer must start exactly where BodyLength says, after the body's last SOH.
  if (bodyLength === 0 || bytes[bodyEnd - 1] !== SOH || bytes[bodyEnd] !== 0x31 || bytes[bodyEnd + 1] !== 0x30
    || bytes[bodyEnd + 2] !== EQUALS || bytes[bodyEnd + 6] !== SOH) {
    return fail(result, 'FIX_BAD_BODY_LENGTH', 2, 'BodyLength does not end at CheckSum');
  }
  const declaredSum = readInt(bytes, bodyEnd + 3, bodyEnd + 6);
  const sum = sumMarkingSoh(bytes, start, bodyEnd);
  if (declaredSum !== (sum & 0xff)) return fail(result, 'FIX_BAD_CHECKSUM', total, 'CheckSum mismatch');

  // 5. Index the fields: 8 and 9, the body, then 10. The fast path takes the field ends the sum
  // found; anything it does not expect (a data field, an odd tag, an empty value) goes the general way.
  message.clear(bytes, start);
  message.push(TAG_BEGIN_STRING, beginValue, beginEnd);
  message.push(TAG_BODY_LENGTH, lengthStart, bodyStart - 1);
  const fast = indexBodyBySoh(bytes, bodyStart, bodyEnd, message);
  if (fast === 0) {
    message.clear(bytes, start);
    message.push(TAG_BEGIN_STRING, beginValue, beginEnd);
    message.push(TAG_BODY_LENGTH, lengthStart, bodyStart - 1);
    if (!indexBody(bytes, bodyStart, bodyEnd, message)) return fail(result, 'FIX_TOO_MANY_FIELDS', total, 'too many fields');
  } else if (fast === -1) return fail(result, 'FIX_TOO_MANY_FIELDS', total, 'too many fields');
  if (message.fieldCount < 3 || message.tagAt(2) !== TAG_MSG_TYPE) {
    return fail(result, 'FIX_MSG_TYPE_NOT_THIRD', total, 'MsgType is not the third field');
  }
  if (!message.push(TAG_CHECK_SUM, bodyEnd + 3, bodyEnd + 6)) return fail(result, 'FIX_TOO_MANY_FIELDS', total, 'too many fields');
  message.end = start + total;
  result.length = total;
  return 1;
}

// A Uint32Array over the last ArrayBuffer summed, so the sum reads 4 bytes at a time without a view per call.
let wordsBuffer: ArrayBufferLike | null = null;
let words: Uint32Array<ArrayBufferLike> = new Uint32Array(0);
// Little-endian word lanes map byte k of a word to bits 8k..8k+7; elsewhere the byte loop alone is used.
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
// Positions of the SOH bytes the last sum met, in order: the ends of the message's fields.
const SOH_MAX = 2048;
const sohs = new Int32Array(SOH_MAX + 1);
let sohCount = 0; // -1: more than SOH_MAX, positions incomplete

/**
 * The sum of bytes [start, end) (the CheckSum before its mod 256), noting each SOH's position in
 * `sohs` on the way: one pass over the bytes gives both the checksum and every field's end.
 */
function sumMarkingSoh(bytes: Uint8Array, start: number, end: number): number {
  let count = 0;
  let sum = 0;
  let k = start;
  if (end - start >= 64 && LITTLE_ENDIAN) {
    const offset = bytes.byteOffset;
    for (; ((offset + k) & 3) !== 0; k++) {
      const b = bytes[k];
      sum += b;
      if (b === SOH && count <= SOH_MAX) sohs[count++] = k;
    }
    if (bytes.buffer !== wordsBuffer) {
      wordsBuffer = bytes.buffer;
      words = new Uint32Array(wordsBuffer, 0, wordsBuffer.byteLength >>> 2);
    }
    const view = words; // locals: module bindings are reloaded on every use in the loop
    const positions = sohs;
    // two 16-bit lanes of byte pairs per word; flushed every 64 words so a lane stays below 2^16
    let w = (offset + k) >>> 2;
    const wordsEnd = (offset + end) >>> 2;
    while (w < wordsEnd) {
      const flushAt = Math.min(wordsEnd, w + 64);
      let lanes = 0;
      for (; w < flushAt; w++) {
        const word = view[w];
        lanes += (word & 0x00ff00ff) + ((word >>> 8) & 0x00ff00ff);
        // SOH bytes become zero bytes in x; the zero-byte test flags every one (and at most a
        // 0x00 byte above one, by borrow, which the byte check below drops)
        const x = word ^ 0x01010101;
        let hits = (x - 0x01010101) & ~x & 0x80808080;
        while (hits !== 0) {
          const position = (w << 2) - offset + ((31 - Math.clz32(hits & -hits)) >>> 3);
          if (bytes[position] === SOH && count <= SOH_MAX) positions[count++] = position;
          hits &= hits - 1;
        }
      }
      sum += (lanes & 0xffff) + (lanes >>> 16);
    }
    k = (w << 2) - offset;
  }
  for (; k < end; k++) {
    const b = bytes[k];
    sum += b;
    if (b === SOH && count <= SOH_MAX) sohs[count++] = k;
  }
  sohCount = count > SOH_MAX ? -1 : count;
  return sum;
}

/**
 * Indexes the body's fields from the SOH positions the sum noted: each field is a tag up to '='
 * and a value up to its SOH, so values are never scanned. Returns 1 when indexed, -1 when the
 * index is full, 0 when the message needs the general scan (data fields, whose values may hold
 * SOH; a malformed tag; an empty value: the general scan records what is wrong).
 */
function indexBodyBySoh(bytes: Buffer, bodyStart: number, bodyEnd: number, message: FixMessage): number {
  const count = sohCount;
  if (count < 0) return 0;
  const positions = sohs;
  let k = 0;
  while (k < count && positions[k] < bodyStart) k++;
  let i = bodyStart;
  for (; k < count; k++) {
    const valueEnd = positions[k];
    const tagStart = i;
    let tag = 0;
    let code = bytes[i];
    while (code >= 0x30 && code <= 0x39) {
      tag = tag * 10 + code - 0x30;
      code = bytes[++i];
    }
    if (code !== EQUALS || i === tagStart || i - tagStart > 9 || bytes[tagStart] === 0x30 || i + 1 >= valueEnd) return 0;
    if (tag < DATA_LENGTH_TAG_BELOW && dataTagOf(tag) !== 0) return 0;
    if (!message.pushParsed(tag, i + 1, valueEnd)) return -1;
    if (tag === TAG_MSG_SEQ_NUM && message.msgSeqNum === Number.MIN_SAFE_INTEGER) message.msgSeqNum = readInt(bytes, i + 1, valueEnd);
    i = valueEnd + 1;
  }
  return i === bodyEnd ? 1 : 0;
}

/** "FIXT.1.1" at `at`, byte by byte (Buffer.compare is a native call for 8 bytes). */
function isBeginString(bytes: Buffer, at: number): boolean {
  for (let k = 0; k < 8; k++) if (bytes[at + k] !== BEGIN_STRING[k]) return false;
  return true;
}

function fail(result: ScanResult, code: FixErrorCode, skip: number, detail: string): number {
  result.code = code;
  result.length = skip;
  result.detail = detail;
  return -1;
}

function indexOfSoh(bytes: Buffer, from: number, to: number): number {
  for (let i = from; i < to; i++) if (bytes[i] === SOH) return i;
  return -1;
}

/** Indexes tag=value pairs of [start, end) (end is after the body's last SOH); false when the index is full. */
function indexBody(bytes: Buffer, start: number, end: number, message: FixMessage): boolean {
  let i = start;
  let dataLength = -1; // length announced by a data-length field for the next field
  let dataTag = 0;
  while (i < end) {
    const tagStart = i;
    let tag = 0;
    let tagValid = true;
    // the usual tag: 1 to 9 digits, no leading zero, then '=' (the body's last SOH bounds the scan)
    let code = bytes[i];
    while (code >= 0x30 && code <= 0x39) {
      tag = tag * 10 + code - 0x30;
      code = bytes[++i];
    }
    if (code !== EQUALS || i === tagStart || i - tagStart > 9 || bytes[tagStart] === 0x30) {
      i = tagStart; // anything else: the general scan, which notes the problem
      tag = 0;
      for (; i < end && bytes[i] !== EQUALS && bytes[i] !== SOH; i++) {
        const digit = bytes[i] - 0x30;
        if (digit < 0 || digit > 9 || i - tagStart >= 9) tagValid = false;
        else tag = tag * 10 + digit;
      }
      if (i === tagStart || bytes[tagStart] === 0x30) tagValid = false; // empty or leading zero
    }
    if (bytes[i] === SOH) { // no '=' at all
      noteReject(message, SessionRejectReason.INVALID_TAG_NUMBER, 0);
      i++;
      continue;
    }
    i++; // past '='
    const valueStart = i;
    let valueEnd: number;
    if (tagValid && tag === dataTag && dataLength >= 0 && valueStart + dataLength < end && bytes[valueStart + dataLength] === SOH) {
      valueEnd = valueStart + dataLength; // a data value may hold SOH: trust the announced length
    } else {
      if (tagValid && tag === dataTag && dataLength >= 0) noteReject(message, SessionRejectReason.VALUE_INCORRECT, lengthTagOf(tag));
      // a JS scan: values are short, and Buffer.indexOf is a native call per field
      // (valueStart < end and bytes[end - 1] is SOH, so the scan stops inside the body)
      valueEnd = valueStart;
      while (bytes[valueEnd] !== SOH) valueEnd++;
    }
    dataTag = 0;
    dataLength = -1;
    if (!tagValid) {
      noteReject(message, SessionRejectReason.INVALID_TAG_NUMBER, 0);
    } else if (valueEnd === valueStart) {
      noteReject(message, SessionRejectReason.TAG_WITHOUT_VALUE, tag);
    } else {
      if (!message.push(tag, valueStart, valueEnd)) return false;
      if (tag === TAG_MSG_SEQ_NUM && message.msgSeqNum === Number.MIN_SAFE_INTEGER) message.msgSeqNum = readInt(bytes, valueStart, valueEnd);
      const next = dataTagOf(tag);
      if (next !== 0) {
        dataTag = next;
        dataLength = readInt(bytes, valueStart, valueEnd);
      }
    }
    i = valueEnd + 1;
  }
  return true;
}

function lengthTagOf(dataTag: number): number {
  switch (dataTag) {
    case TAG_RAW_DATA: return TAG_RAW_DATA_LENGTH;
    case 91: return 90;
    case 94: return 93;
    case 213: return 212;
    case 355: return 354;
    default: return 0;
  }
}

function noteReject(message: FixMessage, reason: number, tag: number): void {
  if (message.rejectReason !== REJECT_NONE) return; // the first problem is the one reported
  message.rejectReason = reason;
  message.rejectTag = tag;
}

export interface FixFramerHandler {
  /** A well-framed message; check message.rejectReason. The view is valid only during the call. */
  onMessage(message: FixMessage): void;
  /** A framing problem; error.action says what the session should do. */
  onError(error: FixError): void;
}

function actionOf(code: FixErrorCode): 'ignore' | 'disconnect' {
  return code === 'FIX_BAD_BEGIN_STRING' || code === 'FIX_MESSAGE_TOO_LARGE' || code === 'FIX_TOO_MANY_FIELDS' ? 'disconnect' : 'ignore';
}

export class FixFramer {
  readonly #handler: FixFramerHandler;
  readonly #buffer: Buffer;
  readonly #message: FixMessage;
  readonly #result = new ScanResult();
  readonly #messageBytesMax: number;
  #read = 0;
  #length = 0;
  #generation = 0;

  constructor(handler: FixFramerHandler, options: FixParserOptions = {}) {
    this.#handler = handler;
    this.#messageBytesMax = options.messageBytesMax ?? 65_536;
    this.#buffer = Buffer.alloc(this.#messageBytesMax + 64);
    this.#message = new FixMessage(options.fieldsMax ?? 1024);
  }

  /** Bytes held while waiting for the rest of a message. */
  get bufferedBytes(): number {
    return this.#length - this.#read;
  }

  /** Drops buffered bytes (a new connection, or after a disconnect). Safe to call from a handler. */
  reset(): void {
    this.#read = 0;
    this.#length = 0;
    this.#generation++;
  }

  /** Feeds a chunk. Handler calls happen synchronously, in order. */
  push(chunk: Uint8Array): void {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.#read > 0) { // compact: keep the unread tail at the front
        if (this.#read < this.#length) this.#buffer.copyWithin(0, this.#read, this.#length);
        this.#length -= this.#read;
        this.#read = 0;
      }
      const count = Math.min(this.#buffer.length - this.#length, chunk.length - offset);
      this.#buffer.set(offset === 0 && count === chunk.length ? chunk : chunk.subarray(offset, offset + count), this.#length);
      this.#length += count;
      offset += count;
      if (!this.#drain()) return;
    }
  }

  /** Frames what the buffer holds; false when a handler reset the framer mid-way. */
  #drain(): boolean {
    const generation = this.#generation;
    const result = this.#result;
    for (;;) {
      if (this.#read === this.#length) return true;
      const status = scanFrame(this.#buffer, this.#read, this.#length, this.#message, this.#messageBytesMax, result);
      if (status === 0) {
        // A buffer full of one unfinished frame cannot complete (scanFrame bounds the size): drop a byte.
        if (this.#read === 0 && this.#length === this.#buffer.length) this.#read = 1;
        else return true;
        continue;
      }
      this.#read += result.length;
      if (status === 1) this.#handler.onMessage(this.#message);
      else {
        const code = result.code as FixErrorCode;
        this.#handler.onError(new FixError(code, `${code}: ${result.detail}`, actionOf(code), result.length));
      }
      if (this.#generation !== generation) return false;
    }
  }
}

/**
 * Parses one complete message held in `bytes` in place (a stored message for replay, a test
 * vector). Returns the message, or the FixError of the first framing problem.
 */
export function parseMessage(bytes: Buffer, message: FixMessage = new FixMessage(), messageBytesMax = 65_536): FixMessage | FixError {
  const result = new ScanResult();
  const status = scanFrame(bytes, 0, bytes.length, message, messageBytesMax, result);
  if (status === 1) return message;
  if (status === 0) return new FixError('FIX_BAD_BODY_LENGTH', 'FIX_BAD_BODY_LENGTH: message truncated', 'ignore', bytes.length);
  const code = result.code as FixErrorCode;
  return new FixError(code, `${code}: ${result.detail}`, actionOf(code), result.length);
}

/**
 * A parsed FIX message as a view: tag numbers and value offsets in preallocated typed arrays over
 * the bytes the message arrived in. Reading a field scans those arrays and the bytes; nothing is
 * allocated unless a string is asked for. The view belongs to whoever filled it (the framer reuses
 * one) and is valid only until that owner parses the next message: copy what you keep.
 *
 * Repeating groups are read without a dictionary: the caller names the count tag, the delimiter
 * (first) tag and, optionally, the member tags that end the last entry at the first non-member.
 */

import {
  INT_INVALID as INT_INVALID_IMPORTED, readFixed as readFixedImported, readInt as readIntImported,
  readUtcTimestamp as readUtcTimestampImported,
} from './field-codec.ts';
import { MsgType } from './tags.ts';

// Imported bindings copied to module constants: hot paths then call plain functions and read plain numbers.
const INT_INVALID = INT_INVALID_IMPORTED;
const readFixed = readFixedImported;
const readInt = readIntImported;
const readUtcTimestamp = readUtcTimestampImported;

/** No field-level problem (see FixMessage.rejectReason). */
export const REJECT_NONE = -1;

const KNOWN_MSG_TYPES: readonly string[] = Object.values(MsgType);
const ONE_CHAR_STRINGS: readonly string[] = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code));
/** Tags below this get an O(1) first-field lookup; larger ones are scanned. */
const TAG_LOOKUP = 1024;
const GENERATION_MAX = 0x7fff_fff0;

/** Entry bounds of one repeating group, reused across reads: entry k is fields [start(k), end(k)). */
export class FixGroup {
  readonly #starts: Int32Array;
  readonly #ends: Int32Array;
  count: number;
  constructor(entriesMax = 256) {
    this.#starts = new Int32Array(entriesMax);
    this.#ends = new Int32Array(entriesMax);
    this.count = 0;
  }
  get capacity(): number {
    return this.#starts.length;
  }
  start(entry: number): number {
    return this.#starts[entry];
  }
  end(entry: number): number {
    return this.#ends[entry];
  }
  /** @internal used by FixMessage.readGroup */
  set(entry: number, start: number, end: number): void {
    this.#starts[entry] = start;
    this.#ends[entry] = end;
  }
}

export class FixMessage {
  /** The bytes holding the message (the framer's buffer, or the caller's for parseMessage). */
  bytes: Buffer;
  /** Message bounds within `bytes`: from "8=" to after the checksum's SOH. */
  start: number;
  end: number;
  fieldCount: number;
  /** MsgSeqNum(34) as scanned, INT_INVALID when absent or malformed. */
  msgSeqNum: number;
  /** The first field-level problem as a SessionRejectReason(373) code, or REJECT_NONE. */
  rejectReason: number;
  /** The tag that problem is about (371), 0 when unknown. */
  rejectTag: number;
  readonly #tags: Int32Array;
  readonly #valueStarts: Int32Array;
  readonly #valueEnds: Int32Array;
  /** tag -> index of its first field, valid where #firstGeneration[tag] === #generation. */
  readonly #firstIndex: Int32Array;
  readonly #firstGeneration: Int32Array;
  #generation: number;

  constructor(fieldsMax = 1024) {
    this.bytes = Buffer.alloc(0);
    this.start = 0;
    this.end = 0;
    this.fieldCount = 0;
    this.msgSeqNum = INT_INVALID;
    this.rejectReason = REJECT_NONE;
    this.rejectTag = 0;
    this.#tags = new Int32Array(fieldsMax);
    this.#valueStarts = new Int32Array(fieldsMax);
    this.#valueEnds = new Int32Array(fieldsMax);
    this.#firstIndex = new Int32Array(TAG_LOOKUP);
    this.#firstGeneration = new Int32Array(TAG_LOOKUP);
    this.#generation = 1;
  }

  get fieldsMax(): number {
    return this.#tags.length;
  }

  /** @internal the scanner's reset before filling. */
  clear(bytes: Buffer, start: number): void {
    this.bytes = bytes;
    this.start = start;
    this.end = start;
    this.fieldCount = 0;
    this.msgSeqNum = INT_INVALID;
    this.rejectReason = REJECT_NONE;
    this.rejectTag = 0;
    if (++this.#generation >= GENERATION_MAX) {
      this.#firstGeneration.fill(0);
      this.#generation = 1;
    }
  }

  /** @internal appends a field; false when the index is full. */
  push(tag: number, valueStart: number, valueEnd: number): boolean {
    const i = this.fieldCount;
    if (i === this.#tags.length) return false;
    this.#tags[i] = tag;
    this.#valueStarts[i] = valueStart;
    this.#valueEnds[i] = valueEnd;
    this.fieldCount = i + 1;
    if (tag >= 0 && tag < TAG_LOOKUP && (tag | 0) === tag && this.#firstGeneration[tag] !== this.#generation) {
      this.#firstGeneration[tag] = this.#generation;
      this.#firstIndex[tag] = i;
    }
    return true;
  }

  /** @internal push() for the scanner's fast path: `tag` is a non-negative integer it parsed from digits. */
  pushParsed(tag: number, valueStart: number, valueEnd: number): boolean {
    const i = this.fieldCount;
    const tags = this.#tags;
    if (i === tags.length) return false;
    tags[i] = tag;
    this.#valueStarts[i] = valueStart;
    this.#valueEnds[i] = valueEnd;
    this.fieldCount = i + 1;
    if (tag < TAG_LOOKUP) {
      const generation = this.#generation;
      const firstGeneration = this.#firstGeneration;
      if (firstGeneration[tag] !== generation) {
        firstGeneration[tag] = generation;
        this.#firstIndex[tag] = i;
      }
    }
    return true;
  }

  /** The raw message bytes (a view, valid as long as the message). */
  raw(): Buffer {
    return this.bytes.subarray(this.start, this.end);
  }

  /** MsgType(35); known types come from a table, so dispatch does not allocate. */
  msgType(): string {
    const i = this.indexOf(35);
    if (i === -1) return '';
    const start = this.#valueStarts[i];
    const length = this.#valueEnds[i] - start;
    if (length === 1 && this.bytes[start] < 128) return ONE_CHAR_STRINGS[this.bytes[start]];
    for (let k = 0; k < KNOWN_MSG_TYPES.length; k++) {
      if (this.valueEqualsAt(i, KNOWN_MSG_TYPES[k])) return KNOWN_MSG_TYPES[k];
    }
    return this.bytes.toString('latin1', start, start + length);
  }

  /** True when MsgType(35) is `msgType`, comparing bytes. */
  msgTypeIs(msgType: string): boolean {
    return this.valueEquals(35, msgType);
  }

  /** Index of the first field with `tag` in [from, to), or -1. */
  indexOf(tag: number, from = 0, to = this.fieldCount): number {
    if (from <= 0 && tag >= 0 && tag < TAG_LOOKUP && (tag | 0) === tag) {
      // the first occurrence in the whole message; none in [from, to) when it is at or past `to`
      if (this.#firstGeneration[tag] !== this.#generation) return -1;
      const first = this.#firstIndex[tag];
      return first < to && first < this.fieldCount ? first : -1;
    }
    const tags = this.#tags;
    for (let i = from; i < to; i++) if (tags[i] === tag) return i;
    return -1;
  }

  has(tag: number): boolean {
    return this.indexOf(tag) !== -1;
  }

  tagAt(index: number): number {
    return this.#tags[index];
  }
  valueStartAt(index: number): number {
    return this.#valueStarts[index];
  }
  valueEndAt(index: number): number {
    return this.#valueEnds[index];
  }

  /** Signed integer, INT_INVALID when absent or malformed. */
  getInt(tag: number): number {
    return this.intAt(this.indexOf(tag));
  }
  intAt(index: number): number {
    return index === -1 ? INT_INVALID : readInt(this.bytes, this.#valueStarts[index], this.#valueEnds[index]);
  }

  /** The value as a string (allocates), null when absent. */
  getString(tag: number): string | null {
    return this.stringAt(this.indexOf(tag));
  }
  stringAt(index: number): string | null {
    if (index === -1) return null;
    const start = this.#valueStarts[index];
    const end = this.#valueEnds[index];
    if (end - start === 1 && this.bytes[start] < 128) return ONE_CHAR_STRINGS[this.bytes[start]]; // Side, ExecType, ...
    return this.bytes.toString('latin1', start, end);
  }

  /** Dollars with up to 4 decimals as 1/10,000 dollar ("0.4200" -> 4200), unsigned; INT_INVALID when bad. */
  getPrice(tag: number): number {
    return this.priceAt(this.indexOf(tag));
  }
  priceAt(index: number): number {
    return index === -1 ? INT_INVALID : readFixed(this.bytes, this.#valueStarts[index], this.#valueEnds[index], 4, false);
  }

  /** Whole cents (fix.md §4 default mode) as 1/10,000 dollar ("42" -> 4200); INT_INVALID when bad. */
  getPriceCents(tag: number): number {
    const i = this.indexOf(tag);
    if (i === -1) return INT_INVALID;
    const cents = readInt(this.bytes, this.#valueStarts[i], this.#valueEnds[i]);
    return cents === INT_INVALID || cents < 0 ? INT_INVALID : cents * 100;
  }

  /** Contract count in 1/100 contract ("10.00" -> 1000), signed (LongQty may be negative); INT_INVALID when bad. */
  getCount(tag: number): number {
    return this.countAt(this.indexOf(tag));
  }
  countAt(index: number): number {
    return index === -1 ? INT_INVALID : readFixed(this.bytes, this.#valueStarts[index], this.#valueEnds[index], 2, true);
  }

  /** Signed dollars as centicents ("-1.75" -> -17500); INT_INVALID when bad. */
  getDollars(tag: number): number {
    const i = this.indexOf(tag);
    return i === -1 ? INT_INVALID : readFixed(this.bytes, this.#valueStarts[i], this.#valueEnds[i], 4, true);
  }

  /** True only when the value is exactly "Y". */
  getFlag(tag: number): boolean {
    const i = this.indexOf(tag);
    return i !== -1 && this.#valueEnds[i] - this.#valueStarts[i] === 1 && this.bytes[this.#valueStarts[i]] === 0x59;
  }

  /** UTCTimestamp as epoch milliseconds, -1 when absent or malformed. */
  getTimestamp(tag: number): number {
    const i = this.indexOf(tag);
    return i === -1 ? -1 : readUtcTimestamp(this.bytes, this.#valueStarts[i], this.#valueEnds[i]);
  }

  /** True when the field is present and its bytes equal `text` (ASCII). */
  valueEquals(tag: number, text: string): boolean {
    const i = this.indexOf(tag);
    return i !== -1 && this.valueEqualsAt(i, text);
  }
  valueEqualsAt(index: number, text: string): boolean {
    const start = this.#valueStarts[index];
    if (this.#valueEnds[index] - start !== text.length) return false;
    for (let k = 0; k < text.length; k++) if (this.bytes[start + k] !== text.charCodeAt(k)) return false;
    return true;
  }

  /**
   * Fills `group` with the entries of the repeating group counted by `countTag` in fields
   * [from, to): each entry starts at a `delimiterTag` field. The last entry ends at the first
   * field not in `memberTags` (when given), else at `to`. Returns the entry count, 0 when the count
   * tag is absent, -1 when the count is malformed, does not match the entries found, or exceeds
   * the group's capacity (a Reject with 373=5 on countTag is the usual answer).
   */
  readGroup(countTag: number, delimiterTag: number, group: FixGroup, memberTags: ReadonlySet<number> | null = null,
    from = 0, to = this.fieldCount): number {
    group.count = 0;
    const countIndex = this.indexOf(countTag, from, to);
    if (countIndex === -1) return 0;
    const declared = this.intAt(countIndex);
    if (declared < 0 || declared > group.capacity) return -1;
    let entries = 0;
    let i = countIndex + 1;
    const tags = this.#tags;
    for (; i < to; i++) {
      const tag = tags[i];
      if (tag === delimiterTag) {
        if (entries === declared) break; // a further delimiter belongs to what follows the group
        if (entries > 0) group.set(entries - 1, group.start(entries - 1), i);
        group.set(entries, i, to);
        entries++;
        continue;
      }
      if (entries === 0) break; // the group must start with its delimiter
      if (memberTags !== null && !memberTags.has(tag)) break;
    }
    if (entries > 0) group.set(entries - 1, group.start(entries - 1), i);
    if (entries !== declared) return -1;
    group.count = entries;
    return entries;
  }
}

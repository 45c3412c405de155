/**
 * The recording file format (docs/recording-format.md is its reference): a 16-byte file header,
 * then length-prefixed records appended one after another, each with a 16-byte header (marker,
 * kind, length, receive time in ns since the recording started) and its body bytes. This file
 * owns the constants, the record kinds and the coded error readers raise; it does no I/O.
 *
 *   file   | "PRRC" | version u16 | flags u16 | startMs f64 |  record  record  record ...
 *   record | 0xA5 | kind u8 | 0 u16 | bodyLength u32 | timeNs lo u32 | timeNs hi u32 | body ...
 *
 * All integers little-endian. timeNs is split in two u32 so writing it never allocates a BigInt.
 */

export const FILE_MAGIC = 'PRRC';
export const FORMAT_VERSION = 1;
export const FILE_HEADER_BYTES = 16;
export const RECORD_HEADER_BYTES = 16;
/** First byte of every record: a framing check that catches most corruptions at the record they start. */
export const RECORD_MARKER = 0xa5;
/** 16 MiB: far above the exchange's largest frame (a 1,000-level snapshot is < 64 KiB); a larger length is corruption. */
export const RECORD_BODY_MAX = 16 * 1024 * 1024;

/** The closed set of record kinds. Never renumber, only append. */
export const RecordKind = {
  /** One WebSocket text frame as the feed received it (body: its UTF-8 bytes). */
  FRAME: 1,
  /** A market the runtime added (body: JSON {ticker, priceLevelStructure, priceRanges, open, closeMs, eventTicker}). */
  MARKET: 2,
  /** One of our order-entry requests (body: '|'-separated text, docs/recording-format.md). */
  ORDER: 3,
  /** The route's answer to one of our requests (body: '|'-separated text). */
  ANSWER: 4,
  /** Session facts (body: JSON, e.g. {"event":"start","source":"runtime"}). */
  SESSION: 5,
} as const;
export type RecordKind = (typeof RecordKind)[keyof typeof RecordKind];

const KIND_NAMES: readonly string[] = ['', 'frame', 'market', 'order', 'answer', 'session'];
export const RECORD_KIND_MAX = KIND_NAMES.length - 1;

export function recordKindName(kind: number): string {
  return kind >= 1 && kind <= RECORD_KIND_MAX ? KIND_NAMES[kind] : `unknown(${kind})`;
}

export type RecordingErrorCode =
  | 'RECORDING_NOT_FOUND' // no such file, or it cannot be read
  | 'RECORDING_BAD_MAGIC' // not a recording: the first 4 bytes are not "PRRC", or the header is short
  | 'RECORDING_BAD_VERSION' // a format version this reader does not know
  | 'RECORDING_CORRUPT' // a record does not start with the marker, or its length is impossible
  | 'RECORDING_UNKNOWN_KIND' // a record kind outside RecordKind
  | 'RECORDING_BAD_BODY' // a MARKET / ORDER / ANSWER body that does not parse
  | 'RECORDING_OPEN_FAILED'; // the writer cannot create the file

/** Every code with its meaning; a test checks each is documented in docs/recording-format.md. */
export const RECORDING_ERROR_CODES: Readonly<Record<RecordingErrorCode, string>> = Object.freeze({
  RECORDING_NOT_FOUND: 'the file does not exist or cannot be read',
  RECORDING_BAD_MAGIC: 'the file does not start with the PRRC header: not a recording',
  RECORDING_BAD_VERSION: 'the header names a format version this build does not read',
  RECORDING_CORRUPT: 'a record does not start with the 0xA5 marker or has an impossible length (the offset is in the message)',
  RECORDING_UNKNOWN_KIND: 'a record kind this build does not know (the offset and kind are in the message)',
  RECORDING_BAD_BODY: 'a market, order or answer record whose body does not parse',
  RECORDING_OPEN_FAILED: 'the recorder cannot create or open its file',
});

export class RecordingError extends Error {
  readonly code: RecordingErrorCode;
  constructor(code: RecordingErrorCode, message: string) {
    super(`${code}: ${message}`);
    this.name = 'RecordingError';
    this.code = code;
  }
}

/**
 * Reading a recording (format.ts): the whole file into memory, every record located in one
 * bounded pass (at most fileBytes / 16 records), kinds, times and body offsets in typed arrays so a
 * replay walks them without allocating. A truncated last record (a crash mid-write) is detected and
 * ignored, its size reported; anything else that does not frame is a coded RecordingError naming
 * the offset. Owns parsing of the framing and of the MARKET body; never interprets frames.
 */

import { readFileSync } from 'node:fs';
import type { PriceRangeText } from '../core/index.ts';
import {
  FILE_HEADER_BYTES, FILE_MAGIC, FORMAT_VERSION, RECORD_BODY_MAX, RECORD_HEADER_BYTES, RECORD_KIND_MAX, RECORD_MARKER, RecordKind, RecordingError,
} from './format.ts';

const TWO_32 = 4_294_967_296;

export interface Recording {
  /** Where it was read from ('<buffer>' when given bytes). */
  source: string;
  version: number;
  /** Unix ms the recording started (record times are ns after it). */
  startMs: number;
  count: number;
  kinds: Uint8Array;
  /** Receive time of each record, ns since startMs. */
  timesNs: Float64Array;
  /** Offset of each record's body in `bytes`. */
  bodyStarts: Uint32Array;
  bodyLengths: Uint32Array;
  bytes: Buffer;
  /** Bytes of an incomplete last record that were ignored (0: the file ended on a record boundary). */
  truncatedTailBytes: number;
}

/** A market as the runtime added it (RecordKind.MARKET). */
export interface RecordedMarket {
  ticker: string;
  priceLevelStructure: string | null;
  priceRanges: PriceRangeText[] | null;
  open: boolean;
  /** Unix ms; null when the market has none (JSON cannot carry Infinity). */
  closeMs: number | null;
  eventTicker: string;
}

export function readRecordingFile(path: string): Recording {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new RecordingError('RECORDING_NOT_FOUND', `${path}: ${(error as Error).message}`);
  }
  return readRecording(bytes, path);
}

export function readRecording(bytes: Buffer, source = '<buffer>'): Recording {
  if (bytes.length < FILE_HEADER_BYTES || bytes.toString('latin1', 0, 4) !== FILE_MAGIC) {
    throw new RecordingError('RECORDING_BAD_MAGIC', `${source}: not a recording (no ${FILE_MAGIC} header)`);
  }
  const version = bytes.readUInt16LE(4);
  if (version !== FORMAT_VERSION) throw new RecordingError('RECORDING_BAD_VERSION', `${source}: format version ${version}, this build reads ${FORMAT_VERSION}`);
  const startMs = bytes.readDoubleLE(8);
  if (!Number.isSafeInteger(startMs)) throw new RecordingError('RECORDING_BAD_MAGIC', `${source}: the header's start time is not an integer ms`);
  // Pass 1: frame every record and count them; bounded by the file's length (each record >= 16 bytes).
  let offset = FILE_HEADER_BYTES;
  let count = 0;
  let truncatedTailBytes = 0;
  while (offset < bytes.length) {
    const remaining = bytes.length - offset;
    if (remaining < RECORD_HEADER_BYTES) {
      truncatedTailBytes = remaining;
      break;
    }
    if (bytes[offset] !== RECORD_MARKER) throw new RecordingError('RECORDING_CORRUPT', `${source}: no record marker at offset ${offset}`);
    const kind = bytes[offset + 1];
    const length = bytes.readUInt32LE(offset + 4);
    if (length > RECORD_BODY_MAX) throw new RecordingError('RECORDING_CORRUPT', `${source}: record at offset ${offset} claims ${length} bytes`);
    if (remaining < RECORD_HEADER_BYTES + length) {
      truncatedTailBytes = remaining;
      break;
    }
    if (kind < 1 || kind > RECORD_KIND_MAX) throw new RecordingError('RECORDING_UNKNOWN_KIND', `${source}: record kind ${kind} at offset ${offset}`);
    offset += RECORD_HEADER_BYTES + length;
    count++;
  }
  // Pass 2: the index.
  const kinds = new Uint8Array(count);
  const timesNs = new Float64Array(count);
  const bodyStarts = new Uint32Array(count);
  const bodyLengths = new Uint32Array(count);
  offset = FILE_HEADER_BYTES;
  for (let i = 0; i < count; i++) {
    kinds[i] = bytes[offset + 1];
    const length = bytes.readUInt32LE(offset + 4);
    timesNs[i] = bytes.readUInt32LE(offset + 8) + bytes.readUInt32LE(offset + 12) * TWO_32;
    bodyStarts[i] = offset + RECORD_HEADER_BYTES;
    bodyLengths[i] = length;
    offset += RECORD_HEADER_BYTES + length;
  }
  return { source, version, startMs, count, kinds, timesNs, bodyStarts, bodyLengths, bytes, truncatedTailBytes };
}

/** The body of record `i` as text (off the hot path: markets, orders, answers, reports). */
export function recordText(recording: Recording, i: number): string {
  const start = recording.bodyStarts[i];
  return recording.bytes.toString('utf8', start, start + recording.bodyLengths[i]);
}

export function parseMarketRecord(recording: Recording, i: number): RecordedMarket {
  let value: unknown;
  try {
    value = JSON.parse(recordText(recording, i));
  } catch (error) {
    throw new RecordingError('RECORDING_BAD_BODY', `${recording.source}: market record ${i}: ${(error as Error).message}`);
  }
  const m = value as Partial<RecordedMarket>;
  if (typeof m !== 'object' || m === null || typeof m.ticker !== 'string' || m.ticker === '' || typeof m.open !== 'boolean') {
    throw new RecordingError('RECORDING_BAD_BODY', `${recording.source}: market record ${i} lacks ticker or open`);
  }
  if ((m.priceLevelStructure ?? null) === null && !Array.isArray(m.priceRanges)) {
    throw new RecordingError('RECORDING_BAD_BODY', `${recording.source}: market record ${i} (${m.ticker}) has neither priceLevelStructure nor priceRanges`);
  }
  return {
    ticker: m.ticker,
    priceLevelStructure: m.priceLevelStructure ?? null,
    priceRanges: m.priceRanges ?? null,
    open: m.open,
    closeMs: typeof m.closeMs === 'number' ? m.closeMs : null,
    eventTicker: typeof m.eventTicker === 'string' ? m.eventTicker : '',
  };
}

/** Every MARKET record, the last one per ticker winning (a market re-added after a regrid). */
export function recordedMarkets(recording: Recording): Map<string, RecordedMarket> {
  const markets = new Map<string, RecordedMarket>();
  for (let i = 0; i < recording.count; i++) {
    if (recording.kinds[i] !== RecordKind.MARKET) continue;
    const market = parseMarketRecord(recording, i);
    markets.set(market.ticker, market);
  }
  return markets;
}

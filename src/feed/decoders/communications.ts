/**
 * The private `communications` channel (spec/websocket.md §6.11) as two reused records: RFQ
 * messages (`rfq_created`, `rfq_deleted`) and quote messages (`quote_created`, `quote_accepted`,
 * `quote_executed`). Decoded on the JSON path (frame-decoder.ts): RFQs are not the book hot path,
 * a frame per RFQ at ~10/s. Listeners copy what they keep: each record is overwritten by the next
 * message of its kind. Timestamps are RFC3339 on this channel: the UTC form the venue sends
 * (`2026-11-25T02:20:15.123Z`, 0-9 fraction digits) is read by scanning characters (rfc3339Ms), on
 * the RFQ hot path (rfq_created -> quote written) without Date.parse's allocation and parse; any
 * other spelling (an offset, a space) goes to Date.parse, the authority.
 */

import { CENTICENTS_INVALID, COUNT_INVALID, PRICE_INVALID, type Centicents, type Count, type Price } from '../../core/index.ts';
import type { FieldReader } from './field-reader.ts';

export const RFQ_EVENT_TYPES = ['created', 'deleted'] as const;
export type RfqEventType = (typeof RFQ_EVENT_TYPES)[number];

export const QUOTE_EVENT_TYPES = ['created', 'accepted', 'executed'] as const;
export type QuoteEventType = (typeof QUOTE_EVENT_TYPES)[number];

const SIDES = ['yes', 'no'] as const;

export class RfqRecord {
  readonly type = 'rfq';
  sid = 0;
  /** -1 when the frame carries no seq (Aug-2026 wire). */
  seq = -1;
  eventType: RfqEventType = 'created';
  id = '';
  /** Pseudonymous public communications id ('' on the Aug-2026 wire, a fixed placeholder when obscured). */
  creatorId = '';
  marketTicker = '';
  eventTicker = '';
  /** 1/100 contract; COUNT_INVALID when absent, 0 ("0.00") on a target-cost RFQ. */
  contracts: Count = COUNT_INVALID;
  /** Centicents; CENTICENTS_INVALID when absent (a contracts RFQ). */
  targetCost: Centicents = CENTICENTS_INVALID;
  /** created_ts or deleted_ts, Unix ms; -1 when unparseable. */
  tsMs = -1;
}

export class QuoteMessageRecord {
  readonly type = 'quote';
  sid = 0;
  seq = -1;
  eventType: QuoteEventType = 'created';
  quoteId = '';
  rfqId = '';
  quoteCreatorId = '';
  /** '' when absent. */
  rfqCreatorId = '';
  marketTicker = '';
  /** PRICE_INVALID on quote_executed (not sent); 0 when the quote declines a side. */
  yesBid: Price = PRICE_INVALID;
  noBid: Price = PRICE_INVALID;
  /** COUNT_INVALID when absent. */
  yesContractsOffered: Count = COUNT_INVALID;
  noContractsOffered: Count = COUNT_INVALID;
  /** quote_accepted: the side the RFQ creator takes; '' otherwise. */
  acceptedSide: 'yes' | 'no' | '' = '';
  contractsAccepted: Count = COUNT_INVALID;
  /** quote_executed: the recipient's own order ids ('' otherwise). */
  orderId = '';
  clientOrderId = '';
  /** The recipient's own subaccount; -1 when absent (the primary, 0). */
  subaccount = -1;
  /** created_ts / executed_ts, Unix ms; -1 when absent. */
  tsMs = -1;
}

function readTs(reader: FieldReader, key: string, required: boolean): number {
  const value = reader.raw(key);
  if (typeof value !== 'string') {
    if (required) reader.fail(key);
    return -1;
  }
  const scanned = rfc3339Ms(value);
  const ms = scanned !== -1 ? scanned : Date.parse(value);
  if (Number.isNaN(ms)) {
    reader.fail(key);
    return -1;
  }
  return ms;
}

/** Digits text[at, at + n) as a number, -1 when one is not a digit. */
function digits(text: string, at: number, n: number): number {
  let value = 0;
  for (let i = at; i < at + n; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** Days from 1970-01-01 to year-month-day (proleptic Gregorian; Howard Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Unix ms of `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (fraction truncated to ms, as Date.parse does);
 * -1 for any other text (the caller then asks Date.parse). No allocation.
 */
export function rfc3339Ms(text: string): number {
  const length = text.length;
  if (length < 20 || text.charCodeAt(length - 1) !== 0x5a /* Z */) return -1;
  if (text.charCodeAt(4) !== 0x2d || text.charCodeAt(7) !== 0x2d || text.charCodeAt(10) !== 0x54 || text.charCodeAt(13) !== 0x3a || text.charCodeAt(16) !== 0x3a) return -1;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1]! || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return -1;
  if (month === 2 && day === 29 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0))) return -1;
  let ms = 0;
  if (length > 20) {
    // A fraction: '.' then 1-9 digits before the Z.
    if (text.charCodeAt(19) !== 0x2e || length - 21 < 1 || length - 21 > 9) return -1;
    const fractionDigits = length - 21;
    const fraction = digits(text, 20, fractionDigits);
    if (fraction < 0) return -1;
    ms = fractionDigits >= 3 ? Math.floor(fraction / 10 ** (fractionDigits - 3)) : fraction * 10 ** (3 - fractionDigits);
  }
  return ((daysFromCivil(year, month, day) * 24 + hour) * 60 + minute) * 60_000 + second * 1_000 + ms;
}

/** rfq_created / rfq_deleted body into `out`; check reader.ok. */
export function readRfq(reader: FieldReader, eventType: RfqEventType, out: RfqRecord): void {
  out.eventType = eventType;
  out.id = reader.string('id');
  out.creatorId = reader.optString('creator_id', '');
  out.marketTicker = reader.string('market_ticker');
  out.eventTicker = reader.optString('event_ticker', '');
  out.contracts = reader.optCount('contracts_fp');
  out.targetCost = reader.optDollars('target_cost_dollars');
  out.tsMs = readTs(reader, eventType === 'created' ? 'created_ts' : 'deleted_ts', true);
}

/** quote_created / quote_accepted / quote_executed body into `out`; check reader.ok. */
export function readQuoteMessage(reader: FieldReader, eventType: QuoteEventType, out: QuoteMessageRecord): void {
  out.eventType = eventType;
  out.quoteId = reader.string('quote_id');
  out.rfqId = reader.string('rfq_id');
  out.quoteCreatorId = reader.optString('quote_creator_id', '');
  out.rfqCreatorId = reader.optString('rfq_creator_id', '');
  out.marketTicker = reader.string('market_ticker');
  if (eventType === 'executed') {
    out.yesBid = PRICE_INVALID;
    out.noBid = PRICE_INVALID;
  } else {
    out.yesBid = reader.price('yes_bid_dollars');
    out.noBid = reader.price('no_bid_dollars');
  }
  out.yesContractsOffered = reader.optCount('yes_contracts_offered_fp');
  out.noContractsOffered = reader.optCount('no_contracts_offered_fp');
  out.acceptedSide = reader.optChoice('accepted_side', SIDES, '');
  out.contractsAccepted = reader.optCount('contracts_accepted_fp');
  out.orderId = eventType === 'executed' ? reader.optString('order_id', '') : '';
  out.clientOrderId = eventType === 'executed' ? reader.optString('client_order_id', '') : '';
  out.subaccount = reader.optIndex('subaccount', -1);
  out.tsMs = eventType === 'created' ? readTs(reader, 'created_ts', false) : eventType === 'executed' ? readTs(reader, 'executed_ts', false) : -1;
}

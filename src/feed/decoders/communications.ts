/**
 * The private `communications` channel (spec/websocket.md §6.11) as two reused records: RFQ
 * messages (`rfq_created`, `rfq_deleted`) and quote messages (`quote_created`, `quote_accepted`,
 * `quote_executed`). Decoded on the JSON path (frame-decoder.ts): RFQs are not the book hot path,
 * a frame per RFQ at ~10/s. Listeners copy what they keep: each record is overwritten by the next
 * message of its kind. Timestamps are RFC3339 on this channel (parsed with Date.parse: an
 * allocation per message, acceptable here and nowhere on the book path).
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
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) {
    reader.fail(key);
    return -1;
  }
  return ms;
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

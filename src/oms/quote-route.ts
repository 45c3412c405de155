/**
 * The quote route's port: what the quote book asks of the venue (create, cancel, confirm a quote;
 * list our quotes for reconciliation) and how the answers come back (QuoteListener). The REST
 * implementation is src/exec/rest/quote-route.ts, the FIX one (KalshiRFQ) src/exec/fix/fix-quote-route.ts.
 * Types only.
 */

import type { Price } from '../core/index.ts';
import type { ExecErrorCode } from './order-route.ts';

/** What the route needs of a quote (the quote book's Quote record satisfies it). */
export interface QuoteRequest {
  readonly handle: number;
  readonly quoteId: string;
  readonly rfqId: string;
  /** The RFQ's market (FIX Quote 55). */
  readonly ticker: string;
  readonly yesBid: Price;
  readonly noBid: Price;
  readonly postOnly: boolean;
  readonly subaccount: number;
}

export interface QuoteListener {
  onQuoteCreateAck(handle: number, quoteId: string): void;
  /** `status` the HTTP status (0: transport), `code` the venue's error code or an ExecErrorCode. */
  onQuoteCreateReject(handle: number, code: string, status: number): void;
  /** The create's fate is unknown (timeout, disconnect): reconciled. */
  onQuoteCreateUnknown(handle: number, code: ExecErrorCode): void;
  onQuoteCancelAck(handle: number): void;
  onQuoteCancelReject(handle: number, code: string, status: number): void;
  onQuoteConfirmAck(handle: number): void;
  onQuoteConfirmReject(handle: number, code: string, status: number): void;
}

/** One of our quotes as GET /communications/quotes lists it. */
export interface WireQuote {
  quoteId: string;
  rfqId: string;
  marketTicker: string;
  status: 'open' | 'accepted' | 'confirmed' | 'executed' | 'cancelled';
  yesBid: Price;
  noBid: Price;
  /** '' when not accepted. */
  acceptedSide: 'yes' | 'no' | '';
  subaccount: number;
  /** Unix ms of accepted_ts; 0 when absent. */
  acceptedMs: number;
}

export interface QuoteEntry {
  setListener(listener: QuoteListener): void;
  create(quote: QuoteRequest): void;
  cancel(quote: QuoteRequest): void;
  confirm(quote: QuoteRequest): void;
  /** Our quotes (user_filter self) for reconciliation. */
  listQuotes(): Promise<WireQuote[]>;
}

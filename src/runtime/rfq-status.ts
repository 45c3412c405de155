/**
 * The RFQ quoting counters the status line, the terminal table, the dashboard and the metrics show
 * when config rfq.enabled: RFQs seen, our quotes sent and how they ended, and the quote actions the
 * gate denied. Read from the owners' running totals (QuoteBookStats, the feed listener's RFQ count,
 * the quote router's denies) off the hot path; owns nothing but the shape.
 */

import type { QuoteBookStats } from '../oms/index.ts';

export interface RfqStatus {
  /** RFQs created on the venue the runtime handed to the quote book and the strategies. */
  rfqsSeen: number;
  /** Quotes the gate passed and the route sent (QuoteBook.accept), and those the venue rejected. */
  quotesSent: number;
  quotesRejected: number;
  /** Our quotes the RFQ's creator accepted, we confirmed, and that executed. */
  accepted: number;
  confirmed: number;
  executed: number;
  cancelled: number;
  /** Quote actions (new, cancel, confirm) the gate denied. */
  denied: number;
  /** Our quotes not yet closed. */
  open: number;
}

/** The counters, or null when quoting is off (no quote book). */
export function rfqStatus(quotes: { readonly stats: Readonly<QuoteBookStats>; readonly openCount: number } | null, rfqsSeen: number, denied: number): RfqStatus | null {
  if (quotes === null) return null;
  const stats = quotes.stats;
  return {
    rfqsSeen,
    quotesSent: stats.created,
    quotesRejected: stats.rejected,
    accepted: stats.accepted,
    confirmed: stats.confirmed,
    executed: stats.executed,
    cancelled: stats.cancelled,
    denied,
    open: quotes.openCount,
  };
}

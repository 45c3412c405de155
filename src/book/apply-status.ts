/**
 * The closed set of outcomes of applying an exchange book message, and the exchange's side codes.
 * Values are stable machine-readable codes that callers branch on and logs carry: never renumber,
 * only append. This file owns the codes and their names only.
 */

/** The `side` of an orderbook_delta / snapshot array: yes -> 0 (YES bids), no -> 1 (NO bids); on Margin bid -> 0, ask -> 1. */
export const BookSideCode = { YES: 0, NO: 1 } as const;
export type BookSideCode = (typeof BookSideCode)[keyof typeof BookSideCode];

export const ApplyStatus = {
  OK: 0,
  /** seq on the sid was not last + 1: every book of the sid is out of sync. */
  SEQ_GAP: 1,
  /** A delta for a book without a snapshot (on this sid). */
  NO_SNAPSHOT: 2,
  /** A delta or snapshot level would leave a negative size. */
  NEGATIVE_LEVEL: 3,
  /** A price that is not on the market's grid (or a level missing after a regrid). */
  OFF_GRID: 4,
  /** The book was already out of sync; nothing applied. */
  OUT_OF_SYNC: 5,
  /** No book for the ticker. */
  UNKNOWN_MARKET: 6,
  /** The feed decided the book is stale (no data for too long). */
  STALE: 7,
  /** The feed is resubscribing or reconnecting. */
  RESYNC: 8,
} as const;
export type ApplyStatus = (typeof ApplyStatus)[keyof typeof ApplyStatus];

const NAMES: readonly string[] = Object.freeze(
  Object.entries(ApplyStatus)
    .sort((a, b) => a[1] - b[1])
    .map(([name]) => name),
);

/** SCREAMING_SNAKE name of a status for logs; 'UNKNOWN' for a number outside the set. */
export function applyStatusName(status: number): string {
  return NAMES[status] ?? 'UNKNOWN';
}

/**
 * The book folder's public surface: order books per market built from the exchange's snapshots and
 * deltas, and the store that sequences them. Other folders import book only through this file.
 */

export { ApplyStatus, applyStatusName, BookSideCode } from './apply-status.ts';
export { OrderBook, PERP_MAX_WINDOW_TICKS, PERP_WINDOW_TICKS, type OutOfSyncListener } from './order-book.ts';
export { BookStore, type BookStoreOptions } from './book-store.ts';

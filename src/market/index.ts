/**
 * The market folder's public surface: the one registry that gives every market its dense index,
 * the Market record every hop reads, and the ticker-bytes hash the feed's scanners share with it.
 * Other folders import market only through this file.
 */

export { MarketRegistry } from './registry.ts';
export type { RegridListener } from './registry.ts';
export { Market } from './market.ts';
export type { Exchange } from './market.ts';
export { HASH_PRIME, HASH_SEED, hashBytes, hashFinish, wordAt } from './ticker-hash.ts';

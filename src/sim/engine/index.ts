/**
 * The simulator matching engine's public surface: the engine (and the types of its parts, for
 * front ends that take one part: `engine.matching`, `engine.accounts`, ...), the catalog loader,
 * the record types, the wire renderers and the seeded PRNG. Other folders (sim servers, activity,
 * benches, tests) import the engine only through this file.
 */

export { SimEngine, type MarketMetadataPatch } from './engine.ts';
export type { Matching } from './matching.ts';
export type { Accounts } from './accounts.ts';
export type { OrderGroups } from './order-groups.ts';
export type { Queries } from './queries.ts';
export type { Venue } from './venue.ts';
export type { RfqBook } from './rfq-book.ts';
export type { Combos } from './combos.ts';
export { collectionStatus, COMBO_PRICE_LEVEL_STRUCTURE } from './combos.ts';
export { loadCatalog, parseCatalog, CatalogError } from './catalog.ts';
export { withSyntheticMarkets, syntheticCatalogJson, SYNTHETIC_MARKETS_MAX, SYNTHETIC_MARKETS_PER_EVENT, SYNTHETIC_SERIES_MAX, SYNTHETIC_SERIES_PREFIX } from './synthetic-catalog.ts';
export * from './types.ts';
export * from './render.ts';
export * from './render-communications.ts';
export { SeededRandom } from '../../core/index.ts';
export { encodeCursor, decodeCursor } from './pagination.ts';
export { simError } from './errors.ts';
export { BlockTrades, BLOCK_TRADE_PROPOSALS_MAX, type BlockTradeProposal, type BlockTradeParty, type BlockTradeStatus, type ProposeBlockTradeParams } from './block-trades.ts';

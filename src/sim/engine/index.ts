/**
 * The simulator matching engine's public surface: the engine, the catalog loader, the record
 * types, the wire renderers and the seeded PRNG. Other folders (sim servers, activity, benches,
 * tests) import the engine only through this file.
 */

export { SimEngine, type MarketMetadataPatch } from './engine.ts';
export { loadCatalog, parseCatalog, CatalogError } from './catalog.ts';
export * from './types.ts';
export * from './render.ts';
export { SeededRandom } from '../../core/index.ts';

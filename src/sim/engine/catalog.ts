/**
 * The market catalog: series, events and markets the simulator lists, loaded from a JSON file
 * (config/markets.json) and validated field by field, every violation reported at once with its
 * JSON path. It owns parsing and validation only; live market state lives in the engine.
 */

import type { Catalog } from './types.ts';

export class CatalogError extends Error {
  readonly code = 'CATALOG_INVALID' as const;
  readonly problems: readonly string[];
  constructor(source: string, problems: readonly string[]) {
    super(`${source}: invalid market catalog:\n  ${problems.join('\n  ')}`);
    this.name = 'CatalogError';
    this.problems = problems;
  }
}

/** Reads and validates a catalog file. Throws CatalogError naming the file and every bad path. */
export function loadCatalog(path: string): Catalog {
  void path;
  throw new Error('not implemented');
}

/** Validates already-parsed JSON (same format as the file). Throws CatalogError. */
export function parseCatalog(json: unknown, source = 'catalog'): Catalog {
  void json;
  void source;
  throw new Error('not implemented');
}

/**
 * The core folder's public surface: units, sides, price grids, errors and the clock. Other folders
 * import core only through this file. Core never does I/O.
 */

export * from './units.ts';
export * from './sides.ts';
export * from './price-grid.ts';
export * from './errors.ts';
export * from './clock.ts';
// TO ADD when src/core/request-signing.ts (exec/rest helper) lands:
// export * from './request-signing.ts';

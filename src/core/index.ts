/**
 * The core folder's public surface: units, sides, order states, price grids, errors, the clock,
 * request signing, the seeded PRNG and the token bucket. Other folders import core only through
 * this file. Core never does I/O.
 */

export * from './units.ts';
export * from './sides.ts';
export * from './order-states.ts';
export * from './price-grid.ts';
export * from './tick-grid.ts';
export * from './errors.ts';
export * from './clock.ts';
export * from './request-signing.ts'; // written by the exec/rest helper
export * from './seeded-random.ts';
export * from './token-bucket.ts';
export * from './intent.ts';
export * from './exit-trigger.ts';
export * from './fifo-map.ts';
export * from './counter-ring.ts';
export * from './ascii-bytes.ts';
export * from './cli-options.ts';
export * from './double-layout.ts';

/**
 * Market activity's public surface: the seeded participant flow the simulator server runs beside
 * real clients. Other folders import activity only through this file.
 */

export { MarketActivity, type MarketActivityOptions } from './market-activity.ts';

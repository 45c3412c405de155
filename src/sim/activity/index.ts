/**
 * Market activity's public surface: the seeded participant flow the simulator server runs beside
 * real clients. Other folders import activity only through this file.
 */

export { MarketActivity, type MarketActivityOptions } from './market-activity.ts';
export { seedLiquidity, LIQUIDITY_USER_ID, LIQUIDITY_LEVELS, type SeededLiquidity } from './seed-liquidity.ts';
export { RfqParticipants, type RfqParticipantsOptions, type ParticipantRfq } from './rfq-participants.ts';
export { MarginActivity, type MarginActivityOptions } from './margin-activity.ts';

/**
 * The gate's trading state (append-only numbering): ACTIVE trades normally, REDUCING lets through
 * only orders that reduce a position, HALTED only cancels and decreases. The kill switch sets
 * HALTED and a flag of its own (risk-gate.ts). This file owns the codes and their config names.
 */

export const TradingState = { ACTIVE: 0, REDUCING: 1, HALTED: 2 } as const;
export type TradingState = (typeof TradingState)[keyof typeof TradingState];

export type TradingStateName = 'active' | 'reducing' | 'halted';

/** The config's `risk.tradingState` name as a code. */
export function tradingStateOf(name: TradingStateName): TradingState {
  return name === 'halted' ? TradingState.HALTED : name === 'reducing' ? TradingState.REDUCING : TradingState.ACTIVE;
}

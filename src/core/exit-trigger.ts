/**
 * The exit-trigger record (Margin exchange, interface-spec "Exit trigger rules"): the one record a
 * strategy fills to set, update or delete a stop-loss / take-profit bracket or a trailing stop on a
 * position, which the gate checks (RiskGate.checkTrigger) and the OMS's trigger table sends. It
 * lives in core because both read it and neither owns it; reused, never kept. Also the read-only
 * view of live triggers the gate's trigger limits need, which the trigger table implements.
 */

import { COUNT_INVALID, PRICE_INVALID } from './units.ts';
import type { Count, Price } from './units.ts';

/** ExitTriggerKind: a bracket carries a stop-loss and/or a take-profit leg; a trailing stop a trail. */
export type ExitTriggerKind = 'bracket' | 'trailing';

export const TriggerAction = {
  SET: 0, //    PUT .../exit_trigger (a bracket or trailing stop; with count or anchor: appended, client_trigger_id required)
  UPDATE: 1, // PUT .../exit_trigger/{trigger_id} (cross: change one bracket's legs)
  DELETE: 2, // DELETE .../exit_trigger[/{trigger_id}]
} as const;
export type TriggerAction = (typeof TriggerAction)[keyof typeof TriggerAction];

export interface ExitTriggerIntent {
  action: TriggerAction;
  /** Market index (the registry's); a Margin market. */
  market: number;
  subaccount: number;
  /** The position's margin mode: isolated (one trigger per kind, closes in full) or cross. */
  isolated: boolean;
  kind: ExitTriggerKind;
  /** Mark prices at which the legs fire; PRICE_INVALID: the leg is absent (cleared). */
  stopLossPrice: Price;
  takeProfitPrice: Price;
  /** Trailing: absolute distance in 1/10,000 $ (PRICE_INVALID: none) or basis points of the watermark (0: none). */
  trailAmount: Price;
  trailBps: number;
  /** Contracts closed when it fires (whole contracts, 1/100 units); COUNT_INVALID: the whole position. */
  count: Count;
  /** Bracket anchored to one of our orders (its venue order id); '' for none. Exclusive with count. */
  anchorOrderId: string;
  /** Required on a create with count or anchor (an append); '' otherwise. */
  clientTriggerId: string;
  /** UPDATE / DELETE of one trigger (cross): the venue's trigger id; '' for DELETE by kind. */
  triggerId: string;
  strategyId: number;
}

export function createTriggerIntent(): ExitTriggerIntent {
  return {
    action: TriggerAction.SET,
    market: -1,
    subaccount: 0,
    isolated: false,
    kind: 'bracket',
    stopLossPrice: PRICE_INVALID,
    takeProfitPrice: PRICE_INVALID,
    trailAmount: PRICE_INVALID,
    trailBps: 0,
    count: COUNT_INVALID,
    anchorOrderId: '',
    clientTriggerId: '',
    triggerId: '',
    strategyId: 0,
  };
}

/** What the gate reads of the live triggers of one position (market, subaccount, margin mode). */
export interface LiveTriggersView {
  /** Live (not done, not cancelled) bracket triggers on the position. */
  bracketCount(market: number, subaccount: number, isolated: boolean): number;
  /** Sum of the live brackets' counts (a whole-position bracket counts as the position); 1/100 contract. */
  bracketCountSum(market: number, subaccount: number, isolated: boolean): number;
  /** Live trailing stops on the position (at most one). */
  trailingCount(market: number, subaccount: number, isolated: boolean): number;
}

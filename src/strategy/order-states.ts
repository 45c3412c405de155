/**
 * Order-state predicates for plugins, over core's OrderState codes, so a plugin never compares
 * raw codes. Owns the predicates only; the codes live in core, their moves in src/oms.
 */

import { ORDER_STATE_HELD, OrderState, isLive } from '../core/index.ts';

export { OrderState, ORDER_STATE_HELD };

/** A create the router holds for the write budget: not sent yet; amend or cancel it like any live order. */
export function isHeldOrder(state: number): boolean {
  return state === ORDER_STATE_HELD;
}

/** May still trade: not filled, cancelled or rejected. */
export function isLiveOrder(state: number): boolean {
  return isLive(state as OrderState);
}

/** Resting and idle: no create, cancel, amend or decrease in flight and the fate is known. */
export function isRestingOrder(state: number): boolean {
  return state === OrderState.RESTING;
}

/** A request is in flight or the fate is unknown: do not send another change now. */
export function isPendingOrder(state: number): boolean {
  return (
    state === OrderState.PENDING_NEW ||
    state === OrderState.PENDING_CANCEL ||
    state === OrderState.PENDING_AMEND ||
    state === OrderState.PENDING_DECREASE ||
    state === OrderState.UNKNOWN
  );
}

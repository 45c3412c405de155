/**
 * The closed set of order states every layer speaks: the OMS moves orders between them
 * (src/oms/transitions.ts), strategies read them on their orders, journals and dashboards store
 * the numbers (append-only, like Deny). This file owns the codes, their names and two predicates;
 * the events and the moves belong to src/oms.
 *
 * Partial fills are not a state: an order with fills and a remainder is RESTING (or pending) with
 * filledCount > 0, so the table stays small and every "partial" row is the same row.
 */

export const OrderState = {
  PENDING_NEW: 0, //      create sent, no answer yet
  RESTING: 1, //          on the book (possibly partly filled)
  PENDING_CANCEL: 2, //   cancel sent
  PENDING_AMEND: 3, //    amend sent
  PENDING_DECREASE: 4, // decrease sent
  UNKNOWN: 5, //          fate unknown (timeout, 5xx, disconnect, contradiction): reconciled until known
  FILLED: 6, //           executed in full
  CANCELED: 7, //         closed with a remainder (cancel, IOC/FOK rest, expiry, group trigger, post-only cross...)
  REJECTED: 8, //         never applied by the venue (or not found after the grace period)
} as const;
export type OrderState = (typeof OrderState)[keyof typeof OrderState];
export const ORDER_STATE_COUNT = 9;

/**
 * The state a strategy sees of a create the router holds for the write budget (router/held-intents.ts).
 * Not one of the OMS's states (no order exists yet): live, not pending, so an amend or cancel reaches it.
 */
export const ORDER_STATE_HELD = 9;

export const ORDER_STATE_NAMES: readonly string[] = Object.freeze(
  Object.entries(OrderState).sort((a, b) => a[1] - b[1]).map(([name]) => name),
);

/** FILLED, CANCELED, REJECTED: no request of ours can change them (a late venue message still may, see transitions.ts). */
export function isTerminal(state: OrderState): boolean {
  return state === OrderState.FILLED || state === OrderState.CANCELED || state === OrderState.REJECTED;
}

/** Any state whose remainder may still trade: counted as resting exposure by the risk gate. */
export function isLive(state: OrderState): boolean {
  return !isTerminal(state);
}

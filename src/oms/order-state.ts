/**
 * The closed sets of order states and order events the OMS state machine speaks (numbering is
 * append-only, like Deny: journals and dashboards store the numbers). This file owns the codes,
 * their names and two predicates; the moves between states live only in transitions.ts.
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

export const ORDER_STATE_NAMES: readonly string[] = Object.freeze(
  Object.entries(OrderState).sort((a, b) => a[1] - b[1]).map(([name]) => name),
);

export const OrderEvent = {
  CREATE_ACK_OPEN: 0, //          create answered, remaining > 0
  CREATE_ACK_FILLED: 1, //        create answered, remaining 0, fully filled
  CREATE_ACK_DONE: 2, //          create answered, remaining 0, not fully filled (IOC/FOK rest, self-trade, post-only)
  CREATE_REJECT: 3,
  CREATE_UNKNOWN: 4,
  CANCEL_SENT: 5,
  CANCEL_ACK: 6,
  CANCEL_REJECT: 7, //            the venue refused the cancel; the order stands
  CANCEL_GONE: 8, //              404 not_found: already closed, filled or cancelled we do not know yet
  CANCEL_UNKNOWN: 9,
  AMEND_SENT: 10,
  AMEND_ACK_OPEN: 11,
  AMEND_ACK_FILLED: 12, //        the amended price crossed and filled the rest
  AMEND_REJECT: 13,
  AMEND_UNKNOWN: 14,
  DECREASE_SENT: 15,
  DECREASE_ACK_OPEN: 16,
  DECREASE_ACK_DONE: 17, //       decreased to zero: closed
  DECREASE_REJECT: 18,
  DECREASE_UNKNOWN: 19,
  WS_RESTING: 20, //              user_order status resting
  WS_CANCELED: 21, //             user_order status canceled
  WS_EXECUTED: 22, //             user_order status executed
  FILL_PARTIAL: 23, //            a new fill that leaves a remainder
  FILL_FULL: 24, //               a new fill that completes the order
  RECONCILE_RESTING: 25, //       listOrders shows it resting
  RECONCILE_CANCELED: 26,
  RECONCILE_EXECUTED: 27,
  RECONCILE_MISSING: 28, //       not listed yet, inside the grace period (the read side lags)
  RECONCILE_MISSING_EXPIRED: 29, // never acked and still not listed after the grace period
  RECONCILE_GONE_EXPIRED: 30, //  acked once, no longer listed after the grace period (closed before the read window)
  PENDING_TIMEOUT: 31, //         a pending request got no answer within pendingTimeoutMs
  AMEND_ACK_DONE: 32, //          amend answered remaining 0, not filled in full: the venue closed it (post-only cross)
} as const;
export type OrderEvent = (typeof OrderEvent)[keyof typeof OrderEvent];
export const ORDER_EVENT_COUNT = 33;

export const ORDER_EVENT_NAMES: readonly string[] = Object.freeze(
  Object.entries(OrderEvent).sort((a, b) => a[1] - b[1]).map(([name]) => name),
);

/** FILLED, CANCELED, REJECTED: no request of ours can change them (a late venue message still may, see transitions.ts). */
export function isTerminal(state: OrderState): boolean {
  return state === OrderState.FILLED || state === OrderState.CANCELED || state === OrderState.REJECTED;
}

/** Any state whose remainder may still trade: counted as resting exposure by the risk gate. */
export function isLive(state: OrderState): boolean {
  return !isTerminal(state);
}

/**
 * The closed set of order events the OMS state machine speaks (numbering is append-only, like
 * Deny: journals store the numbers), and the order states, which live in core (every layer reads
 * them) and are re-exported here. The moves between states live only in transitions.ts.
 */

export { ORDER_STATE_COUNT, ORDER_STATE_NAMES, OrderState, isLive, isTerminal } from '../core/order-states.ts';

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


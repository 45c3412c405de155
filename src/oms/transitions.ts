/**
 * The order state machine: the ONE place an order's state changes (STYLE §6). One aligned table
 * of (state, event) -> next state; surprising rows carry a note. Compiled once at load into a
 * dense Int8Array so a transition is one load. A pair missing from the table returns NO_TRANSITION:
 * the OMS logs it, keeps the order in its state, flags it and reconciles it with the venue; an
 * order is never dropped for a message we did not expect.
 *
 * Counts (filled, remaining, price) are not the table's business: the OMS updates them from the
 * message first, then classifies the message into an OrderEvent (e.g. a fill that leaves nothing is
 * FILL_FULL) and asks the table for the next state.
 */

import { ORDER_EVENT_COUNT, ORDER_STATE_COUNT, OrderEvent as E, OrderState as S } from './order-state.ts';
import type { OrderEvent, OrderState } from './order-state.ts';

export const NO_TRANSITION = -1;

export interface TransitionRow {
  readonly state: OrderState;
  readonly event: OrderEvent;
  readonly next: OrderState;
  readonly note: string;
}

const row = (state: OrderState, event: OrderEvent, next: OrderState, note = ''): TransitionRow => ({ state, event, next, note });

// prettier-ignore
export const TRANSITIONS: readonly TransitionRow[] = Object.freeze([
  //  state               event                           next                  note
  row(S.PENDING_NEW,      E.CREATE_ACK_OPEN,              S.RESTING),
  row(S.PENDING_NEW,      E.CREATE_ACK_FILLED,            S.FILLED),
  row(S.PENDING_NEW,      E.CREATE_ACK_DONE,              S.CANCELED,           'IOC/FOK rest, self-trade or post-only cross: the venue closed it at once'),
  row(S.PENDING_NEW,      E.CREATE_REJECT,                S.REJECTED),
  row(S.PENDING_NEW,      E.CREATE_UNKNOWN,               S.UNKNOWN),
  row(S.PENDING_NEW,      E.WS_RESTING,                   S.RESTING,            'user_order before the HTTP ack: the socket won the race'),
  row(S.PENDING_NEW,      E.WS_CANCELED,                  S.CANCELED,           'user_order before the ack, already closed (post-only cross, IOC)'),
  row(S.PENDING_NEW,      E.WS_EXECUTED,                  S.FILLED),
  row(S.PENDING_NEW,      E.FILL_PARTIAL,                 S.RESTING,            'fill before the ack: the order exists'),
  row(S.PENDING_NEW,      E.FILL_FULL,                    S.FILLED),
  row(S.PENDING_NEW,      E.PENDING_TIMEOUT,              S.UNKNOWN),

  row(S.RESTING,          E.CREATE_ACK_OPEN,              S.RESTING,            'ack after WS (user_order or fill) already placed it'),
  row(S.RESTING,          E.CREATE_ACK_FILLED,            S.FILLED,             'ack after a partial fill from WS: the ack says it completed'),
  row(S.RESTING,          E.CREATE_ACK_DONE,              S.CANCELED,           'IOC: a fill came first, the ack closes the rest'),
  row(S.RESTING,          E.CREATE_UNKNOWN,               S.RESTING,            'WS already showed the order: its fate is known despite the timeout'),
  row(S.RESTING,          E.CANCEL_SENT,                  S.PENDING_CANCEL),
  row(S.RESTING,          E.AMEND_SENT,                   S.PENDING_AMEND),
  row(S.RESTING,          E.DECREASE_SENT,                S.PENDING_DECREASE),
  row(S.RESTING,          E.WS_RESTING,                   S.RESTING),
  row(S.RESTING,          E.WS_CANCELED,                  S.CANCELED,           'venue-side close: expiry, group trigger, cancel-all, market close'),
  row(S.RESTING,          E.WS_EXECUTED,                  S.FILLED),
  row(S.RESTING,          E.FILL_PARTIAL,                 S.RESTING),
  row(S.RESTING,          E.FILL_FULL,                    S.FILLED),
  row(S.RESTING,          E.RECONCILE_RESTING,            S.RESTING),
  row(S.RESTING,          E.RECONCILE_CANCELED,           S.CANCELED),
  row(S.RESTING,          E.RECONCILE_EXECUTED,           S.FILLED),

  row(S.PENDING_CANCEL,   E.CREATE_ACK_OPEN,              S.PENDING_CANCEL,     'cancel sent on the order id WS gave before the create ack'),
  row(S.PENDING_CANCEL,   E.CREATE_ACK_FILLED,            S.FILLED),
  row(S.PENDING_CANCEL,   E.CREATE_ACK_DONE,              S.CANCELED),
  row(S.PENDING_CANCEL,   E.CANCEL_ACK,                   S.CANCELED),
  row(S.PENDING_CANCEL,   E.CANCEL_REJECT,                S.RESTING),
  row(S.PENDING_CANCEL,   E.CANCEL_GONE,                  S.UNKNOWN,            '404: gone, but filled or cancelled? reconciliation decides'),
  row(S.PENDING_CANCEL,   E.CANCEL_UNKNOWN,               S.UNKNOWN),
  row(S.PENDING_CANCEL,   E.WS_RESTING,                   S.PENDING_CANCEL,     'an update published before the cancel landed'),
  row(S.PENDING_CANCEL,   E.WS_CANCELED,                  S.CANCELED),
  row(S.PENDING_CANCEL,   E.WS_EXECUTED,                  S.FILLED,             'the venue filled it before the cancel landed'),
  row(S.PENDING_CANCEL,   E.FILL_PARTIAL,                 S.PENDING_CANCEL),
  row(S.PENDING_CANCEL,   E.FILL_FULL,                    S.FILLED,             'fill before cancel: the venue filled first'),
  row(S.PENDING_CANCEL,   E.PENDING_TIMEOUT,              S.UNKNOWN),
  row(S.PENDING_CANCEL,   E.AMEND_ACK_OPEN,               S.PENDING_CANCEL,     'late amend ack (the amend timed out, then we cancelled): the cancel stands'),
  row(S.PENDING_CANCEL,   E.AMEND_ACK_FILLED,             S.FILLED),
  row(S.PENDING_CANCEL,   E.AMEND_ACK_DONE,               S.CANCELED),

  row(S.PENDING_AMEND,    E.CREATE_ACK_OPEN,              S.PENDING_AMEND,      'amend sent on the order id WS gave before the create ack'),
  row(S.PENDING_AMEND,    E.AMEND_ACK_OPEN,               S.RESTING),
  row(S.PENDING_AMEND,    E.AMEND_ACK_FILLED,             S.FILLED,             'the new price crossed and filled the rest'),
  row(S.PENDING_AMEND,    E.AMEND_ACK_DONE,               S.CANCELED,           'post-only cross: the venue cancelled it at the new price (fill_count 0, remaining 0)'),
  row(S.PENDING_AMEND,    E.AMEND_REJECT,                 S.RESTING,            'the old price and size stand'),
  row(S.PENDING_AMEND,    E.AMEND_UNKNOWN,                S.UNKNOWN,            'old or new price? reconciliation reads it'),
  row(S.PENDING_AMEND,    E.WS_RESTING,                   S.PENDING_AMEND),
  row(S.PENDING_AMEND,    E.WS_CANCELED,                  S.CANCELED),
  row(S.PENDING_AMEND,    E.WS_EXECUTED,                  S.FILLED),
  row(S.PENDING_AMEND,    E.FILL_PARTIAL,                 S.PENDING_AMEND),
  row(S.PENDING_AMEND,    E.FILL_FULL,                    S.FILLED,             'filled at the old price before the amend landed'),
  row(S.PENDING_AMEND,    E.PENDING_TIMEOUT,              S.UNKNOWN),

  row(S.PENDING_DECREASE, E.CREATE_ACK_OPEN,              S.PENDING_DECREASE),
  row(S.PENDING_DECREASE, E.DECREASE_ACK_OPEN,            S.RESTING),
  row(S.PENDING_DECREASE, E.DECREASE_ACK_DONE,            S.CANCELED,           'decreased to zero: closed with its fills'),
  row(S.PENDING_DECREASE, E.DECREASE_REJECT,              S.RESTING),
  row(S.PENDING_DECREASE, E.DECREASE_UNKNOWN,             S.UNKNOWN),
  row(S.PENDING_DECREASE, E.WS_RESTING,                   S.PENDING_DECREASE),
  row(S.PENDING_DECREASE, E.WS_CANCELED,                  S.CANCELED),
  row(S.PENDING_DECREASE, E.WS_EXECUTED,                  S.FILLED),
  row(S.PENDING_DECREASE, E.FILL_PARTIAL,                 S.PENDING_DECREASE),
  row(S.PENDING_DECREASE, E.FILL_FULL,                    S.FILLED),
  row(S.PENDING_DECREASE, E.PENDING_TIMEOUT,              S.UNKNOWN),

  row(S.UNKNOWN,          E.CREATE_ACK_OPEN,              S.RESTING,            'late ack after a timeout: the request did land'),
  row(S.UNKNOWN,          E.CREATE_ACK_FILLED,            S.FILLED),
  row(S.UNKNOWN,          E.CREATE_ACK_DONE,              S.CANCELED),
  row(S.UNKNOWN,          E.CREATE_REJECT,                S.REJECTED,           'late reject: nothing was applied'),
  row(S.UNKNOWN,          E.CREATE_UNKNOWN,               S.UNKNOWN),
  row(S.UNKNOWN,          E.CANCEL_SENT,                  S.PENDING_CANCEL,     'cancel by order id is safe whatever the fate: 404 if gone'),
  row(S.UNKNOWN,          E.CANCEL_ACK,                   S.CANCELED,           'late cancel ack'),
  row(S.UNKNOWN,          E.CANCEL_GONE,                  S.UNKNOWN),
  row(S.UNKNOWN,          E.CANCEL_UNKNOWN,               S.UNKNOWN),
  row(S.UNKNOWN,          E.AMEND_ACK_OPEN,               S.RESTING,            'late amend ack'),
  row(S.UNKNOWN,          E.AMEND_ACK_FILLED,             S.FILLED),
  row(S.UNKNOWN,          E.AMEND_ACK_DONE,               S.CANCELED),
  row(S.UNKNOWN,          E.AMEND_UNKNOWN,                S.UNKNOWN),
  row(S.UNKNOWN,          E.DECREASE_ACK_OPEN,            S.RESTING),
  row(S.UNKNOWN,          E.DECREASE_ACK_DONE,            S.CANCELED),
  row(S.UNKNOWN,          E.DECREASE_UNKNOWN,             S.UNKNOWN),
  row(S.UNKNOWN,          E.WS_RESTING,                   S.RESTING),
  row(S.UNKNOWN,          E.WS_CANCELED,                  S.CANCELED),
  row(S.UNKNOWN,          E.WS_EXECUTED,                  S.FILLED),
  row(S.UNKNOWN,          E.FILL_PARTIAL,                 S.UNKNOWN,            'a fill proves it existed, not that it still rests: keep reconciling'),
  row(S.UNKNOWN,          E.FILL_FULL,                    S.FILLED),
  row(S.UNKNOWN,          E.RECONCILE_RESTING,            S.RESTING,            'unknown -> resting after reconcile'),
  row(S.UNKNOWN,          E.RECONCILE_CANCELED,           S.CANCELED),
  row(S.UNKNOWN,          E.RECONCILE_EXECUTED,           S.FILLED),
  row(S.UNKNOWN,          E.RECONCILE_MISSING,            S.UNKNOWN,            'not listed yet: the read side lags; retry until the grace period ends'),
  row(S.UNKNOWN,          E.RECONCILE_MISSING_EXPIRED,    S.REJECTED,           'never reached the venue; the id is retired, never reused'),
  row(S.UNKNOWN,          E.RECONCILE_GONE_EXPIRED,       S.CANCELED,           'acked once, no longer listed: closed before the read window'),

  row(S.FILLED,           E.CREATE_ACK_OPEN,              S.FILLED,             'ack after fill from WS: the fills came first'),
  row(S.FILLED,           E.CREATE_ACK_FILLED,            S.FILLED),
  row(S.FILLED,           E.CREATE_ACK_DONE,              S.FILLED),
  row(S.FILLED,           E.CREATE_UNKNOWN,               S.FILLED),
  row(S.FILLED,           E.CANCEL_ACK,                   S.FILLED),
  row(S.FILLED,           E.CANCEL_REJECT,                S.FILLED),
  row(S.FILLED,           E.CANCEL_GONE,                  S.FILLED,             'cancel raced the last fill: 404 because it was filled'),
  row(S.FILLED,           E.CANCEL_UNKNOWN,               S.FILLED),
  row(S.FILLED,           E.AMEND_ACK_OPEN,               S.FILLED,             'the last fill came before the amend ack'),
  row(S.FILLED,           E.AMEND_ACK_FILLED,             S.FILLED),
  row(S.FILLED,           E.AMEND_REJECT,                 S.FILLED,             'amend raced the last fill'),
  row(S.FILLED,           E.AMEND_UNKNOWN,                S.FILLED),
  row(S.FILLED,           E.DECREASE_REJECT,              S.FILLED),
  row(S.FILLED,           E.DECREASE_UNKNOWN,             S.FILLED),
  row(S.FILLED,           E.WS_RESTING,                   S.FILLED,             'a user_order older than the fill that completed it'),
  row(S.FILLED,           E.WS_EXECUTED,                  S.FILLED),
  row(S.FILLED,           E.RECONCILE_EXECUTED,           S.FILLED),

  row(S.CANCELED,         E.CREATE_ACK_OPEN,              S.CANCELED,           'ack after user_order canceled: the socket won the race'),
  row(S.CANCELED,         E.CREATE_ACK_DONE,              S.CANCELED),
  row(S.CANCELED,         E.CREATE_UNKNOWN,               S.CANCELED),
  row(S.CANCELED,         E.CANCEL_ACK,                   S.CANCELED),
  row(S.CANCELED,         E.CANCEL_REJECT,                S.CANCELED),
  row(S.CANCELED,         E.CANCEL_GONE,                  S.CANCELED),
  row(S.CANCELED,         E.CANCEL_UNKNOWN,               S.CANCELED),
  row(S.CANCELED,         E.AMEND_ACK_OPEN,               S.CANCELED,           'a cancel after the amend landed; its user_order came before the amend ack'),
  row(S.CANCELED,         E.AMEND_ACK_FILLED,             S.FILLED,             'the amended price filled the rest; user_order canceled came first'),
  row(S.CANCELED,         E.AMEND_ACK_DONE,               S.CANCELED,           'post-only cross: user_order canceled came before the amend ack'),
  row(S.CANCELED,         E.AMEND_REJECT,                 S.CANCELED),
  row(S.CANCELED,         E.AMEND_UNKNOWN,                S.CANCELED),
  row(S.CANCELED,         E.DECREASE_ACK_DONE,            S.CANCELED),
  row(S.CANCELED,         E.DECREASE_REJECT,              S.CANCELED),
  row(S.CANCELED,         E.DECREASE_UNKNOWN,             S.CANCELED),
  row(S.CANCELED,         E.WS_RESTING,                   S.CANCELED,           'a user_order older than the cancel'),
  row(S.CANCELED,         E.WS_CANCELED,                  S.CANCELED),
  row(S.CANCELED,         E.WS_EXECUTED,                  S.FILLED,             'cancel raced the last fill: the venue filled first'),
  row(S.CANCELED,         E.FILL_PARTIAL,                 S.CANCELED,           'fill after cancel: the venue filled first, the message came late'),
  row(S.CANCELED,         E.FILL_FULL,                    S.FILLED,             'fill after cancel completed the order: the venue filled first'),
  row(S.CANCELED,         E.RECONCILE_CANCELED,           S.CANCELED),
  row(S.CANCELED,         E.RECONCILE_EXECUTED,           S.FILLED),

  row(S.REJECTED,         E.CREATE_REJECT,                S.REJECTED),
  row(S.REJECTED,         E.CREATE_ACK_OPEN,              S.RESTING,            'ack after we gave up at the grace period: the venue has it after all'),
  row(S.REJECTED,         E.CREATE_ACK_FILLED,            S.FILLED),
  row(S.REJECTED,         E.CREATE_ACK_DONE,              S.CANCELED),
  row(S.REJECTED,         E.WS_RESTING,                   S.RESTING,            'rejected after the grace period, yet the venue had it: resurrected'),
  row(S.REJECTED,         E.WS_CANCELED,                  S.CANCELED),
  row(S.REJECTED,         E.WS_EXECUTED,                  S.FILLED),
  row(S.REJECTED,         E.FILL_PARTIAL,                 S.UNKNOWN,            'a fill on an order we gave up on: it exists, reconcile it'),
  row(S.REJECTED,         E.FILL_FULL,                    S.FILLED),
  row(S.REJECTED,         E.RECONCILE_RESTING,            S.RESTING),
  row(S.REJECTED,         E.RECONCILE_CANCELED,           S.CANCELED),
  row(S.REJECTED,         E.RECONCILE_EXECUTED,           S.FILLED),
]);

// (state, event) -> next, NO_TRANSITION when absent. Built once; duplicate pairs are a bug in the table.
const NEXT = new Int8Array(ORDER_STATE_COUNT * ORDER_EVENT_COUNT).fill(NO_TRANSITION);
for (const r of TRANSITIONS) {
  const index = r.state * ORDER_EVENT_COUNT + r.event;
  if (NEXT[index] !== NO_TRANSITION) throw new Error(`transitions.ts: duplicate row for state ${r.state} event ${r.event}`);
  NEXT[index] = r.next;
}

/** Next state, or NO_TRANSITION when the table has no row for the pair. */
export function nextState(state: OrderState, event: OrderEvent): OrderState | typeof NO_TRANSITION {
  return NEXT[state * ORDER_EVENT_COUNT + event] as OrderState | typeof NO_TRANSITION;
}

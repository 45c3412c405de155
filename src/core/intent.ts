/**
 * The intent record: the one record a strategy fills and the router, the risk gate and the OMS
 * each read in turn (one per caller, allocated at start-up and reused, STYLE §5; nobody keeps it).
 * It lives in core because every hop reads it and none owns it. This file owns the record's shape,
 * the closed set of kinds and the token cost of each kind; it never checks anything.
 */

import { PRICE_INVALID, asCount } from './units.ts';
import type { Count, Price } from './units.ts';
import type { BookSide } from './sides.ts';

/** Append-only numbering, like Deny. */
export const IntentKind = {
  NEW: 0, //          create an order (POST /portfolio/events/orders)
  CANCEL: 1, //       cancel one order (DELETE .../{order_id})
  AMEND: 2, //        change price and/or resting count (POST .../amend)
  DECREASE: 3, //     reduce resting count (POST .../decrease)
  CANCEL_ALL: 4, //   kill switch: cancel every order of a subaccount (DELETE /portfolio/events/orders)
  GROUP_CREATE: 5, // create an order group (POST /portfolio/order_groups/create)
} as const;
export type IntentKind = (typeof IntentKind)[keyof typeof IntentKind];
export const INTENT_KIND_COUNT = 6;

const COUNT_ZERO: Count = asCount(0);

/** The wire's time_in_force strings (rest.md). */
export type TimeInForce = 'good_till_canceled' | 'immediate_or_cancel' | 'fill_or_kill';

/**
 * Write-bucket token cost of each kind (rest.md §9: V2 create/amend/decrease 10, cancel 2,
 * cancel-all 2 "the same as one cancel", order-group endpoints the default 10). A batch costs
 * the sum of its items, so batch items are checked one intent at a time.
 */
export const INTENT_TOKEN_COST: readonly number[] = Object.freeze([10, 2, 10, 10, 2, 10]);

/** True for kinds that may spend the cancel reserve of the write bucket. */
export function usesCancelReserve(kind: IntentKind): boolean {
  return kind === IntentKind.CANCEL || kind === IntentKind.CANCEL_ALL;
}

export interface OrderIntent {
  kind: IntentKind;
  /** Market index (RiskGate.addMarket's handle); -1 for CANCEL_ALL and GROUP_CREATE. */
  market: number;
  /** bid = buy YES, ask = sell YES (V2 book side). */
  side: BookSide;
  /** YES price. NEW / AMEND: the order's (new) price. */
  price: Price;
  /**
   * NEW: order count. AMEND: the new resting count (the OMS adds the filled count for the wire's
   * "new total"). DECREASE: reduce by. GROUP_CREATE: the group's contracts limit. CANCEL: unused.
   */
  count: Count;
  /** AMEND / DECREASE / CANCEL: the order's current price and resting count (the router fills them from the OMS's order). */
  prevPrice: Price;
  prevCount: Count;
  postOnly: boolean;
  reduceOnly: boolean;
  timeInForce: TimeInForce;
  /** 0 = primary, 1-63; CANCEL_ALL may use -1 for "every subaccount" (full-account keys only). */
  subaccount: number;
  /** Order-group handle from RiskGate.addOrderGroup; -1 for none. */
  orderGroup: number;
  /** Caller-chosen number for attribution in the OMS and journal; the gate ignores it. */
  strategyId: number;
  /**
   * CANCEL / AMEND / DECREASE: the target order's client order id, or '' when `orderHandle` names
   * it. NEW: '' in; after the router sent it, its id as text when it has one already (a held
   * create), else '' with `orderHandle` set.
   */
  clientOrderId: string;
  /**
   * The OMS's handle of the order (its id's counter, this session's orders only): names the target
   * instead of the text when > 0; after a NEW, the new order's. 0: none.
   */
  orderHandle: number;
  /** NEW: the order-entry route it goes out on (the router's index: 0 the default, REST). */
  route: number;
}

/** A fresh record with every field set (stable shape); callers create one and reuse it. */
export function createIntent(): OrderIntent {
  return {
    kind: IntentKind.NEW,
    market: -1,
    side: 'bid',
    price: PRICE_INVALID,
    count: COUNT_ZERO,
    prevPrice: PRICE_INVALID,
    prevCount: COUNT_ZERO,
    postOnly: false,
    reduceOnly: false,
    timeInForce: 'good_till_canceled',
    subaccount: 0,
    orderGroup: -1,
    strategyId: 0,
    clientOrderId: '',
    orderHandle: 0,
    route: 0,
  };
}

/** Puts a reused record back to its defaults (every field, so no stale value leaks into the next intent). */
export function resetIntent(intent: OrderIntent): OrderIntent {
  intent.kind = IntentKind.NEW;
  intent.market = -1;
  intent.side = 'bid';
  intent.price = PRICE_INVALID;
  intent.count = COUNT_ZERO;
  intent.prevPrice = PRICE_INVALID;
  intent.prevCount = COUNT_ZERO;
  intent.postOnly = false;
  intent.reduceOnly = false;
  intent.timeInForce = 'good_till_canceled';
  intent.subaccount = 0;
  intent.orderGroup = -1;
  intent.strategyId = 0;
  intent.clientOrderId = '';
  intent.orderHandle = 0;
  intent.route = 0;
  return intent;
}

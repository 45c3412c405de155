/**
 * The strategy host's OrderPort over the OMS: NEW intents go to oms.submit (which runs the risk
 * gate, then sends), cancels, amends and decreases to oms.cancel / amend / decrease (each runs the
 * gate too). The OMS's own outcomes map onto Deny codes for the strategy: RISK_DENIED -> the gate's
 * code; OK and QUEUED (a cancel the OMS will send once it can) -> NONE; an unknown, closed or busy
 * order -> ORDER_UNKNOWN / ORDER_NOT_LIVE / ORDER_BUSY, the OMS result also kept in `lastOmsResult`. Reads (order,
 * open orders, position) come from the OMS. Stamps the tick-to-trade probe's intent time.
 * Wiring only: this file decides nothing.
 */

import { asCount, IntentKind } from '../core/index.ts';
import type { Count, OrderIntent } from '../core/index.ts';
import { Deny } from '../risk/index.ts';
import type { RiskGate } from '../risk/index.ts';
import { OmsResult } from '../oms/index.ts';
import type { Oms } from '../oms/index.ts';
import type { OrderPort, OrderView } from '../strategy/index.ts';
import type { OrderUpdates } from './order-updates.ts';
import type { TickToTradeProbe } from './tick-to-trade-probe.ts';

export class OmsOrderPort implements OrderPort {
  readonly #oms: Oms;
  readonly #gate: RiskGate;
  readonly #probe: TickToTradeProbe;
  readonly #updates: OrderUpdates | null;
  /** The OMS result of the last cancel / amend / decrease (OmsResult), for logs and tests. */
  lastOmsResult: OmsResult = OmsResult.OK;

  constructor(oms: Oms, gate: RiskGate, probe: TickToTradeProbe, updates: OrderUpdates | null = null) {
    this.#oms = oms;
    this.#gate = gate;
    this.#probe = probe;
    this.#updates = updates;
  }

  submit(intent: OrderIntent): Deny {
    this.#probe.onIntent();
    const updates = this.#updates;
    if (updates === null) return this.#submit(intent);
    updates.beginOwn();
    try {
      return this.#submit(intent);
    } finally {
      updates.endOwn();
    }
  }

  #submit(intent: OrderIntent): Deny {
    const oms = this.#oms;
    switch (intent.kind) {
      case IntentKind.NEW: {
        const deny = oms.submit(intent);
        if (deny === Deny.NONE) intent.clientOrderId = oms.lastClientOrderId;
        return deny;
      }
      case IntentKind.CANCEL:
        return this.#map(oms.cancel(intent.clientOrderId));
      case IntentKind.AMEND:
        return this.#map(oms.amend(intent.clientOrderId, intent.price, intent.count));
      case IntentKind.DECREASE:
        return this.#map(oms.decrease(intent.clientOrderId, intent.count));
      default:
        // CANCEL_ALL and GROUP_CREATE are the runtime's, never a strategy's.
        return Deny.INTENT_INVALID;
    }
  }

  order(clientOrderId: string): OrderView | null {
    return this.#oms.order(clientOrderId) ?? null;
  }

  openOrders(strategyId: number, ticker: string | null, out: OrderView[]): number {
    // Off the hot path (stop, drain, cancelAll): the OMS hands out a fresh array of its live orders.
    let n = 0;
    for (const order of this.#oms.liveOrders()) {
      if (order.strategyId !== strategyId || (ticker !== null && order.ticker !== ticker)) continue;
      out[n++] = order;
    }
    return n;
  }

  position(subaccount: number, ticker: string): Count {
    const position = this.#oms.position(subaccount, ticker);
    return asCount(position === undefined ? 0 : position.position);
  }

  #map(result: OmsResult): Deny {
    this.lastOmsResult = result;
    if (result === OmsResult.OK || result === OmsResult.QUEUED) return Deny.NONE;
    if (result === OmsResult.RISK_DENIED) {
      const deny = this.#gate.lastDeny;
      return deny === Deny.NONE ? Deny.INTENT_INVALID : deny;
    }
    if (result === OmsResult.ORDER_UNKNOWN) return Deny.ORDER_UNKNOWN;
    if (result === OmsResult.ORDER_NOT_LIVE) return Deny.ORDER_NOT_LIVE;
    if (result === OmsResult.ORDER_BUSY) return Deny.ORDER_BUSY;
    return Deny.INTENT_INVALID;
  }
}

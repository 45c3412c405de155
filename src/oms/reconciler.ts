/**
 * Reconciliation: asks the venue about orders whose fate we do not know (UNKNOWN: timeout, 5xx,
 * disconnect, a 404 on cancel, a restart) or whose messages contradicted the state table, by
 * client order id through OrderReads.listOrders, and pulls their fills through listFills so
 * positions and fill counts are exact. Off the hot path: one round at a time, driven by the OMS's
 * tick, each read paid from the risk gate's read-token bucket. An order is looked up again after
 * every await, because WS messages may have settled it meanwhile (then the read, older, is dropped).
 * This file owns the round; the OMS (the host) owns every state change and the grace rule.
 */

import type { Order } from './order.ts';
import type { OrderReads, WireFill, WireOrder } from './order-route.ts';

export interface ReconcileHost {
  /** The reads of the order's exchange (the Predictions account client, or the Margin route). */
  readsOf(order: Order): OrderReads;
  /** Orders flagged for reconciliation now. */
  ordersToReconcile(): Order[];
  /** Still flagged (WS may have settled it during an await). */
  stillNeedsReconcile(order: Order): boolean;
  /** Takes one read's tokens (listOrders / listFills cost the default 10); false: stop this round. */
  takeReadToken(): boolean;
  /** The read those tokens paid for was answered or failed. */
  readSettled(): void;
  applyFound(order: Order, wire: WireOrder): void;
  applyMissing(order: Order): void;
  applyWireFill(order: Order, fill: WireFill): void;
  onReconcileError(error: unknown, what: string): void;
}

export interface ReconcileRoundResult {
  asked: number;
  found: number;
  missing: number;
  reads: number;
  errors: number;
}

/** One round over every flagged order, grouped by (exchange, subaccount, ticker): one listOrders per group. */
export async function reconcileRound(host: ReconcileHost): Promise<ReconcileRoundResult> {
  const result: ReconcileRoundResult = { asked: 0, found: 0, missing: 0, reads: 0, errors: 0 };
  const groups = new Map<string, Order[]>();
  for (const order of host.ordersToReconcile()) {
    const key = `${order.exchange}\n${order.subaccount}\n${order.ticker}`;
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = []));
    group.push(order);
  }
  for (const group of groups.values()) {
    if (!host.takeReadToken()) break;
    const { ticker, subaccount } = group[0];
    const reads = host.readsOf(group[0]);
    let wires: WireOrder[];
    result.reads++;
    try {
      wires = await reads.listOrders({ ticker, subaccount });
    } catch (error) {
      result.errors++;
      host.onReconcileError(error, 'listOrders');
      continue;
    } finally {
      host.readSettled();
    }
    const byClientId = new Map<string, WireOrder>();
    const byOrderId = new Map<string, WireOrder>();
    for (const wire of wires) {
      if (wire.clientOrderId !== '') byClientId.set(wire.clientOrderId, wire);
      byOrderId.set(wire.orderId, wire);
    }
    for (const order of group) {
      if (!host.stillNeedsReconcile(order)) continue;
      result.asked++;
      const wire = byClientId.get(order.clientOrderId) ?? (order.orderId !== '' ? byOrderId.get(order.orderId) : undefined);
      if (wire === undefined) {
        result.missing++;
        host.applyMissing(order);
        continue;
      }
      result.found++;
      if (wire.fillCount > order.fillSum && host.takeReadToken()) {
        result.reads++;
        try {
          const fills = await reads.listFills({ orderId: wire.orderId, subaccount });
          for (const fill of fills) if (fill.orderId === wire.orderId) host.applyWireFill(order, fill);
        } catch (error) {
          result.errors++;
          host.onReconcileError(error, 'listFills');
        } finally {
          host.readSettled();
        }
      }
      if (host.stillNeedsReconcile(order)) host.applyFound(order, wire);
    }
  }
  return result;
}

/**
 * Margin order groups (interface-spec: "Margin order groups are bound to one exchange_index"; OpenAPI
 * /margin/order_groups*). A group belongs to one user and subaccount and is bound to one
 * exchange_index; since every margin market is on index 0, a group asked for any other index is
 * refused at creation, and an order may join a group only on the group's subaccount and for a
 * market of the group's index. A group with a contracts limit counts the contracts its orders fill
 * at entry over a rolling 15-second window (as Predictions groups, rest.md §7); reaching the limit
 * triggers it: its resting orders are cancelled and new ones refused until a reset. Not counted:
 * fills a group's resting orders receive later as makers (the margin engine reports no per-order
 * fill events to this store).
 */

import type { MarginEngine } from './margin-engine.ts';

export const MARGIN_EXCHANGE_INDEX = 0;
/** Groups per user: the seed's order-group limit (100,000). */
export const MARGIN_ORDER_GROUPS_PER_USER_MAX = 100_000;
/** Orders remembered per group: an input bound. */
export const MARGIN_GROUP_ORDERS_MAX = 10_000;
const WINDOW_MS = 15_000;

export interface MarginOrderGroup {
  readonly id: string;
  readonly userId: string;
  readonly subaccount: number;
  readonly exchangeIndex: number;
  /** Count units (1/100 contract); null: no limit. */
  limit: number | null;
  triggered: boolean;
  readonly orderIds: string[];
  /** Fills at entry inside the rolling window: [ms, count]. */
  readonly window: Array<[number, number]>;
}

export type GroupError = { status: number; code: string; message: string };

/** A change of a group, as order_group_updates reports it (the Predictions event's shape). */
export interface MarginOrderGroupEvent {
  readonly eventType: 'created' | 'triggered' | 'reset' | 'deleted' | 'limit_updated';
  readonly orderGroupId: string;
  readonly subaccount: number;
  /** Count units; null without a limit. */
  readonly contractsLimit: number | null;
  readonly tsMs: number;
}

export class MarginOrderGroups {
  readonly #groups = new Map<string, MarginOrderGroup>();
  readonly #perUser = new Map<string, number>();
  readonly #engine: MarginEngine;
  #nextId = 1;
  /** Told every change of a group (the Margin WebSocket's order_group_updates). */
  listener: ((userId: string, event: MarginOrderGroupEvent) => void) | null = null;

  constructor(engine: MarginEngine) {
    this.#engine = engine;
  }

  create(userId: string, subaccount: number, exchangeIndex: number, limit: number | null): MarginOrderGroup | GroupError {
    if (exchangeIndex !== MARGIN_EXCHANGE_INDEX) {
      return { status: 400, code: 'bad_request', message: `margin order groups are bound to exchange_index ${MARGIN_EXCHANGE_INDEX}, the index of every margin market` };
    }
    const count = this.#perUser.get(userId) ?? 0;
    if (count >= MARGIN_ORDER_GROUPS_PER_USER_MAX) return { status: 400, code: 'order_group_limit_reached', message: `at most ${MARGIN_ORDER_GROUPS_PER_USER_MAX} order groups per user` };
    const group: MarginOrderGroup = { id: `mog-${String(this.#nextId++).padStart(10, '0')}`, userId, subaccount, exchangeIndex, limit, triggered: false, orderIds: [], window: [] };
    this.#groups.set(group.id, group);
    this.#perUser.set(userId, count + 1);
    this.#emit(group, 'created');
    return group;
  }

  /** The user's group; a subaccount, when given, must match (else not found, as for orders). */
  get(userId: string, id: string, subaccount: number | null): MarginOrderGroup | null {
    const group = this.#groups.get(id);
    if (group === undefined || group.userId !== userId) return null;
    if (subaccount !== null && group.subaccount !== subaccount) return null;
    return group;
  }

  list(userId: string, subaccount: number | null): MarginOrderGroup[] {
    const out: MarginOrderGroup[] = [];
    for (const group of this.#groups.values()) if (group.userId === userId && (subaccount === null || group.subaccount === subaccount)) out.push(group);
    return out;
  }

  /** Whether an order for `ticker` on `subaccount` may join; null when it may. */
  admit(group: MarginOrderGroup, subaccount: number, ticker: string): GroupError | null {
    if (group.subaccount !== subaccount) return { status: 400, code: 'bad_request', message: 'the order group belongs to another subaccount' };
    if (!this.#engine.markets.has(ticker)) return null; // the engine answers market_not_found
    // Every margin market is on index 0: a group bound elsewhere could hold none (refused at creation).
    if (group.exchangeIndex !== MARGIN_EXCHANGE_INDEX) return { status: 400, code: 'bad_request', message: 'the order group is bound to another exchange_index' };
    if (group.triggered) return { status: 400, code: 'order_group_triggered', message: 'the order group was triggered; reset it first' };
    if (group.orderIds.length >= MARGIN_GROUP_ORDERS_MAX) return { status: 400, code: 'bad_request', message: `an order group holds at most ${MARGIN_GROUP_ORDERS_MAX} orders` };
    return null;
  }

  /** Records an accepted order and its fills at entry; triggers the group at its limit. */
  joined(group: MarginOrderGroup, orderId: string, filledCount: number, nowMs: number): void {
    group.orderIds.push(orderId);
    if (filledCount > 0) group.window.push([nowMs, filledCount]);
    if (group.limit === null) return;
    while (group.window.length > 0 && group.window[0][0] <= nowMs - WINDOW_MS) group.window.shift();
    let matched = 0;
    for (const [, count] of group.window) matched += count;
    if (matched >= group.limit) this.trigger(group);
  }

  /** Cancels the group's resting orders and blocks new ones until reset. */
  trigger(group: MarginOrderGroup): void {
    const already = group.triggered;
    group.triggered = true;
    this.#cancelResting(group);
    if (!already) this.#emit(group, 'triggered');
  }

  #cancelResting(group: MarginOrderGroup): void {
    for (const orderId of group.orderIds) {
      const order = this.#engine.orders.get(orderId);
      if (order !== undefined && order.status === 'resting') this.#engine.cancel(group.userId, group.subaccount, orderId);
    }
  }

  reset(group: MarginOrderGroup): void {
    group.triggered = false;
    group.window.length = 0;
    this.#emit(group, 'reset');
  }

  setLimit(group: MarginOrderGroup, limit: number, nowMs: number): void {
    group.limit = limit;
    this.#emit(group, 'limit_updated');
    let matched = 0;
    for (const [ms, count] of group.window) if (ms > nowMs - WINDOW_MS) matched += count;
    if (matched >= limit) this.trigger(group); // an already-breached limit triggers at once (rest.md §7)
  }

  delete(group: MarginOrderGroup): void {
    group.triggered = true;
    this.#cancelResting(group); // its orders go with it; reported as deleted only
    this.#groups.delete(group.id);
    this.#perUser.set(group.userId, (this.#perUser.get(group.userId) ?? 1) - 1);
    this.#emit(group, 'deleted');
  }

  #emit(group: MarginOrderGroup, eventType: MarginOrderGroupEvent['eventType']): void {
    this.listener?.(group.userId, { eventType, orderGroupId: group.id, subaccount: group.subaccount, contractsLimit: group.limit, tsMs: this.#engine.now() });
  }

  restingOrderIds(group: MarginOrderGroup): string[] {
    return group.orderIds.filter((id) => this.#engine.orders.get(id)?.status === 'resting');
  }
}

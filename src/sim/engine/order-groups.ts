/**
 * Order groups (REST §7, the exchange's order-groups page): create, read, list, delete, reset,
 * trigger and limit a user's groups, the contracts-matched counter the matching part feeds after
 * each execution, and the checks an order naming a group must pass. Triggering or deleting a
 * group cancels its resting orders through the order store; every change emits one
 * order_group_updates event. The window arithmetic is the record's (order-group-state.ts). It
 * never matches, never moves money and never accepts or rejects an order for any other reason.
 */

import type { Count } from '../../core/index.ts';
import type { CreateOrderGroupParams, OrderGroup, SimEngineOptions, SimError } from './types.ts';
import { ERR_BAD_SUBACCOUNT, ERR_GROUP_NOT_FOUND, ERR_GROUP_TRIGGERED, ERR_USER_NOT_FOUND, simError } from './errors.ts';
import { OrderGroupState } from './order-group-state.ts';
import type { UserState } from './user-state.ts';
import type { IdSource } from './ids.ts';
import { validSubaccount, type Accounts } from './accounts.ts';
import type { OrderStore } from './order-store.ts';
import type { EngineEvents } from './events.ts';

/** Order group limits: whole contracts from 1 to 1,000,000 (exchange order-groups page). */
function validGroupLimit(limit: number): boolean {
  return Number.isSafeInteger(limit) && limit >= 100 && limit <= 100_000_000 && limit % 100 === 0;
}

const ERR_BAD_GROUP_LIMIT = simError(400, 'bad_request', 'contracts_limit must be a whole number of contracts from 1 to 1,000,000', 'contracts_limit');

export class OrderGroups {
  readonly #now: () => number;
  readonly #windowMs: number;
  readonly #maxPerUser: number;
  readonly #ids: IdSource;
  readonly #accounts: Accounts;
  readonly #orders: OrderStore;
  readonly #events: EngineEvents;

  constructor(now: () => number, options: Readonly<SimEngineOptions>, ids: IdSource, accounts: Accounts, orders: OrderStore, events: EngineEvents) {
    this.#now = now;
    this.#windowMs = options.orderGroupWindowMs;
    this.#maxPerUser = options.maxOrderGroupsPerUser;
    this.#ids = ids;
    this.#accounts = accounts;
    this.#orders = orders;
    this.#events = events;
  }

  // ---------------------------------------------------------------------------------------------
  // What order entry and matching ask.

  /** Why an order of `user` on `subaccount` may not join group `orderGroupId` (unknown, other subaccount, triggered), or null. */
  checkOrder(user: UserState, orderGroupId: string, subaccount: number): SimError | null {
    const group = user.groups.get(orderGroupId);
    if (group === undefined) return ERR_GROUP_NOT_FOUND;
    if (group.subaccount !== subaccount) return simError(400, 'invalid_order', 'order group belongs to another subaccount', 'order_group_id');
    if (group.triggered) return ERR_GROUP_TRIGGERED;
    return null;
  }

  /** Counts `quantity` matched by an order of `group`; triggers the group when the window exceeds its limit. */
  matched(group: OrderGroupState, quantity: number, nowMs: number): void {
    if (group.addMatched(quantity as Count, nowMs, this.#windowMs) && !group.triggered) this.#trigger(group, nowMs);
  }

  #trigger(group: OrderGroupState, nowMs: number): void {
    group.triggered = true;
    this.#cancelOrders(group, nowMs);
    this.#events.orderGroup(group, 'triggered', nowMs);
  }

  #cancelOrders(group: OrderGroupState, nowMs: number): void {
    const victims = [...group.orders].filter((o) => o.inBook).sort((a, b) => a.seq - b.seq);
    for (const order of victims) this.#orders.cancelResting(order, 'OrderGroupCancel', nowMs);
  }

  #owned(userId: string, orderGroupId: string, subaccount: number | null | undefined): OrderGroupState | SimError {
    const user = this.#accounts.user(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const group = user.groups.get(orderGroupId);
    if (group === undefined) return ERR_GROUP_NOT_FOUND;
    if (subaccount !== undefined && subaccount !== null && group.subaccount !== subaccount) return ERR_GROUP_NOT_FOUND;
    return group;
  }

  // ---------------------------------------------------------------------------------------------
  // REST §7.

  createOrderGroup(userId: string, params: CreateOrderGroupParams): OrderGroup | SimError {
    const nowMs = this.#now();
    const user = this.#accounts.user(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const subaccount = params.subaccount ?? 0;
    if (!validSubaccount(subaccount)) return ERR_BAD_SUBACCOUNT;
    const limit = params.contractsLimit ?? null;
    if (limit !== null && !validGroupLimit(limit)) return ERR_BAD_GROUP_LIMIT;
    const index = params.exchangeIndex ?? 0;
    if (index !== 0 && index !== 2 && index !== 3) return simError(400, 'bad_request', 'unknown exchange_index');
    if (user.groups.size >= this.#maxPerUser) {
      return simError(400, 'order_group_limit_reached', `order group limit of ${this.#maxPerUser} per user reached`);
    }
    const group = new OrderGroupState(this.#ids.next(), userId, subaccount, index, limit, nowMs);
    user.groups.set(group.orderGroupId, group);
    this.#events.orderGroup(group, 'created', nowMs);
    return group;
  }

  getOrderGroup(userId: string, orderGroupId: string, subaccount?: number | null): { group: OrderGroup; orderIds: string[] } | SimError {
    const group = this.#owned(userId, orderGroupId, subaccount);
    if (!(group instanceof OrderGroupState)) return group;
    group.expire(this.#now(), this.#windowMs);
    const orderIds = [...group.orders].sort((a, b) => a.seq - b.seq).map((o) => o.orderId);
    return { group, orderIds };
  }

  listOrderGroups(userId: string, subaccount?: number | null): OrderGroup[] | SimError {
    const user = this.#accounts.user(userId);
    if (user === undefined) return ERR_USER_NOT_FOUND;
    const nowMs = this.#now();
    const out: OrderGroup[] = [];
    for (const group of user.groups.values()) {
      if (subaccount !== undefined && subaccount !== null && group.subaccount !== subaccount) continue;
      group.expire(nowMs, this.#windowMs);
      out.push(group);
    }
    return out;
  }

  deleteOrderGroup(userId: string, orderGroupId: string, subaccount?: number | null): SimError | null {
    const group = this.#owned(userId, orderGroupId, subaccount);
    if (!(group instanceof OrderGroupState)) return group;
    const nowMs = this.#now();
    this.#cancelOrders(group, nowMs);
    this.#accounts.user(userId)?.groups.delete(orderGroupId);
    this.#events.orderGroup(group, 'deleted', nowMs);
    return null;
  }

  resetOrderGroup(userId: string, orderGroupId: string, subaccount?: number | null): SimError | null {
    const group = this.#owned(userId, orderGroupId, subaccount);
    if (!(group instanceof OrderGroupState)) return group;
    group.clearWindow();
    group.triggered = false;
    this.#events.orderGroup(group, 'reset', this.#now());
    return null;
  }

  triggerOrderGroup(userId: string, orderGroupId: string, subaccount?: number | null): SimError | null {
    const group = this.#owned(userId, orderGroupId, subaccount);
    if (!(group instanceof OrderGroupState)) return group;
    this.#trigger(group, this.#now());
    return null;
  }

  setOrderGroupLimit(userId: string, orderGroupId: string, contractsLimit: Count | null, subaccount?: number | null): SimError | null {
    const group = this.#owned(userId, orderGroupId, subaccount);
    if (!(group instanceof OrderGroupState)) return group;
    if (contractsLimit !== null && !validGroupLimit(contractsLimit)) return ERR_BAD_GROUP_LIMIT;
    const nowMs = this.#now();
    group.contractsLimit = contractsLimit;
    this.#events.orderGroup(group, 'limit_updated', nowMs);
    group.expire(nowMs, this.#windowMs);
    if (!group.triggered && group.limitReached()) this.#trigger(group, nowMs);
    return null;
  }
}

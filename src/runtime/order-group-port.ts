/**
 * The strategies' order-group port: the gate checks and books the request (GROUP_CREATE), the
 * venue makes or deletes the group, the gate keeps it. One implementation for the main job (the
 * exchange through the account client) and the replay (its venue on the simulator's engine).
 */

import { createIntent, IntentKind } from '../core/index.ts';
import type { Count } from '../core/index.ts';
import { DENY_NAMES, Deny } from '../risk/index.ts';
import type { RiskGate } from '../risk/index.ts';
import type { OrderGroupPort } from '../strategy/index.ts';

/** Where order groups are made: the venue's group id for a new one, and its deletion. */
export interface OrderGroupVenue {
  createOrderGroup(contractsLimit: Count, subaccount: number): Promise<string> | string;
  deleteOrderGroup(groupId: string, subaccount: number): Promise<void> | void;
}

/** How long a group's creation waits for write tokens before it fails, ms (wall clock). */
const BUDGET_WAIT_MAX_MS = 10_000;
const BUDGET_POLL_MS = 20;

export function gatedOrderGroupPort(gate: RiskGate, venue: OrderGroupVenue, budgetWaitMaxMs = BUDGET_WAIT_MAX_MS): OrderGroupPort {
  const intent = createIntent();
  return {
    create: async (subaccount, contractsLimit: Count) => {
      intent.kind = IntentKind.GROUP_CREATE;
      intent.subaccount = subaccount;
      intent.count = contractsLimit;
      // Off the hot path, so it waits for the write budget rather than failing a strategy's start:
      // right after the account's real (larger) budget is adopted, the bucket holds what the
      // configured one did, below the new reserve and headroom, for about half a second at Prime.
      const deadline = Date.now() + budgetWaitMaxMs;
      let deny = gate.check(intent);
      while (deny === Deny.RATE_LIMITED && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, BUDGET_POLL_MS));
        deny = gate.check(intent);
      }
      // budgetWaitMaxMs 0 (the replay): its buckets refill on the recording's clock, which stands
      // still during a start, so a short bucket cannot be waited for; the live run it replays got
      // its group (it waited for the tokens), and so does the replay, without booking them.
      const replayShort = deny === Deny.RATE_LIMITED && budgetWaitMaxMs === 0;
      if (deny !== Deny.NONE && !replayShort) throw new Error(`risk gate denied the order group: ${DENY_NAMES[deny]}`);
      const id = await venue.createOrderGroup(contractsLimit, subaccount);
      // order_group_updates "created" may have registered it already.
      const known = gate.groupHandle(id);
      if (known >= 0) {
        const group = gate.groups.at(known);
        if (group !== undefined) group.contractsLimit = contractsLimit;
        return known;
      }
      return gate.addOrderGroup(id, subaccount, contractsLimit);
    },
    release: async (handle, subaccount) => {
      const group = gate.groups.at(handle);
      if (group === undefined) return;
      await venue.deleteOrderGroup(group.id, subaccount);
      gate.groups.delete(handle);
    },
  };
}

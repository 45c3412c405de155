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

export function gatedOrderGroupPort(gate: RiskGate, venue: OrderGroupVenue): OrderGroupPort {
  const intent = createIntent();
  return {
    create: async (subaccount, contractsLimit: Count) => {
      intent.kind = IntentKind.GROUP_CREATE;
      intent.subaccount = subaccount;
      intent.count = contractsLimit;
      const deny = gate.check(intent);
      if (deny !== Deny.NONE) throw new Error(`risk gate denied the order group: ${DENY_NAMES[deny]}`);
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

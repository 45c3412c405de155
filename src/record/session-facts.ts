/**
 * SESSION facts a replay needs to run as the live session ran: the REST budgets the runtime
 * adopted at start (the tier "auto" resolves to whatever the exchange answered, which the config
 * alone cannot tell) and each order group it created, with the times of the request and of the
 * answer (the strategy's onStart waits for the group, so its first quotes do too). Written as
 * SESSION records (JSON with an "event" key); read back by `sessionFacts`. It owns these two
 * record shapes; it decides nothing.
 */

import type { Count } from '../core/index.ts';
import { RecordKind } from './format.ts';
import type { Recorder } from './recorder.ts';
import { recordText } from './recording-reader.ts';
import type { Recording } from './recording-reader.ts';

/** The write and read budgets the gate's buckets ran with (tokens per second, capacity in tokens). */
export interface BudgetFact {
  tier: string;
  source: string;
  writePerSecond: number;
  writeCapacity: number;
  readPerSecond: number;
  readCapacity: number;
}

/** One order group the live run created: when it asked, when the venue answered, and the id. */
export interface OrderGroupFact {
  subaccount: number;
  contractsLimit: number;
  orderGroupId: string;
  requestNs: number;
  createdNs: number;
}

export interface SessionFacts {
  /** Null: a recording made before budgets were recorded. */
  budget: BudgetFact | null;
  /** When the budget was adopted, ns (-1 without one). */
  budgetNs: number;
  /** When the strategies started (their first market added or group asked for), ns; -1 unknown. */
  strategiesStartNs: number;
  orderGroups: OrderGroupFact[];
}

export function recordBudget(recorder: Recorder, budget: Readonly<BudgetFact>): void {
  const { tier, source, writePerSecond, writeCapacity, readPerSecond, readCapacity } = budget;
  recorder.text(RecordKind.SESSION, JSON.stringify({ event: 'budget', tier, source, writePerSecond, writeCapacity, readPerSecond, readCapacity }));
}

/** Where order groups are made (runtime/order-group-port.ts's OrderGroupVenue, restated to keep record free of runtime). */
export interface GroupVenue {
  createOrderGroup(contractsLimit: Count, subaccount: number): Promise<string> | string;
  deleteOrderGroup(groupId: string, subaccount: number): Promise<void> | void;
}

/** The venue, with each group creation recorded: a request record, then the answer's. Off the hot path. */
export function recordingGroupVenue(recorder: Recorder, venue: GroupVenue): GroupVenue {
  return {
    createOrderGroup: async (contractsLimit, subaccount) => {
      recorder.text(RecordKind.SESSION, JSON.stringify({ event: 'order_group_request', subaccount, contractsLimit }));
      const id = await venue.createOrderGroup(contractsLimit, subaccount);
      recorder.text(RecordKind.SESSION, JSON.stringify({ event: 'order_group_created', subaccount, contractsLimit, orderGroupId: id }));
      return id;
    },
    deleteOrderGroup: (groupId, subaccount) => venue.deleteOrderGroup(groupId, subaccount),
  };
}

/** The budget and order-group facts of a recording (the last budget wins; groups in creation order). */
export function sessionFacts(recording: Recording): SessionFacts {
  const facts: SessionFacts = { budget: null, budgetNs: -1, strategiesStartNs: -1, orderGroups: [] };
  const requests: number[] = [];
  for (let i = 0; i < recording.count; i++) {
    if (recording.kinds[i] === RecordKind.MARKET && facts.strategiesStartNs < 0) facts.strategiesStartNs = recording.timesNs[i];
    if (recording.kinds[i] !== RecordKind.SESSION) continue;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(recordText(recording, i)) as Record<string, unknown>;
    } catch {
      continue; // a SESSION record is informational: one that does not parse is skipped
    }
    const ns = recording.timesNs[i];
    if (body.event === 'budget' && typeof body.writePerSecond === 'number' && typeof body.writeCapacity === 'number' && typeof body.readPerSecond === 'number' && typeof body.readCapacity === 'number') {
      facts.budgetNs = ns;
      facts.budget = { tier: String(body.tier), source: String(body.source), writePerSecond: body.writePerSecond, writeCapacity: body.writeCapacity, readPerSecond: body.readPerSecond, readCapacity: body.readCapacity };
    } else if (body.event === 'order_group_request') {
      requests.push(ns);
      if (facts.strategiesStartNs < 0) facts.strategiesStartNs = ns;
    }
    else if (body.event === 'order_group_created' && typeof body.orderGroupId === 'string') {
      facts.orderGroups.push({ subaccount: Number(body.subaccount), contractsLimit: Number(body.contractsLimit), orderGroupId: body.orderGroupId, requestNs: requests.shift() ?? ns, createdNs: ns });
    }
  }
  return facts;
}

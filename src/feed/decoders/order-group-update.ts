/**
 * The private `order_group_updates` message (spec/websocket.md §6.7) as one reused record.
 */

import { COUNT_INVALID, type Count } from '../../core/index.ts';
import type { FieldReader } from './field-reader.ts';

export const ORDER_GROUP_EVENT_TYPES = ['created', 'triggered', 'reset', 'deleted', 'limit_updated'] as const;
export type OrderGroupEventType = (typeof ORDER_GROUP_EVENT_TYPES)[number];

export class OrderGroupUpdateRecord {
  readonly type = 'order_group_updates';
  sid = 0;
  seq = -1;
  eventType: OrderGroupEventType = 'created';
  orderGroupId = '';
  /** Only on created and limit_updated; COUNT_INVALID otherwise. */
  contractsLimit: Count = COUNT_INVALID;
  tsMs = -1;
}

export function readOrderGroupUpdate(reader: FieldReader, out: OrderGroupUpdateRecord): void {
  out.eventType = reader.choice('event_type', ORDER_GROUP_EVENT_TYPES);
  out.orderGroupId = reader.string('order_group_id');
  out.contractsLimit = reader.optCount('contracts_limit_fp');
  out.tsMs = reader.optIndex('ts_ms', -1);
}

/**
 * The FIX route behind the OMS's order-entry port (fix-order-entry.ts).
 */

export { FIX_ORDER_ENTRY_DEFAULTS, FixOrderEntry, FixOrderEntryConfigError } from './fix-order-entry.ts';
export type { FixOrderEntryOptions, FixOrderEntryStats } from './fix-order-entry.ts';

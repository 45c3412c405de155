/**
 * The Margin exchange's order route (perpetuals): MarginOrderEntry behind the OMS's order-entry
 * port, its pre-send rules, the wire records of its reads, and the exit-trigger client (the OMS
 * trigger table's venue port). Imported by other folders only through src/exec/index.ts.
 */

export { MARGIN_ORDER_ENTRY_DEFAULTS, MARGIN_ORDER_VENUE, MarginOrderEntry } from './margin-order-entry.ts';
export type { MarginBalance, MarginOrderEntryOptions, MarginReadSettings } from './margin-order-entry.ts';
export { MARGIN_CONTRACT, MarginRefusal, encodeMarginCreate, marginAmendProblem, marginCountProblem, marginOrderProblem, marginPriceProblem } from './margin-order-body.ts';
export type { MarginWireFill, MarginWireOrder, MarginWirePosition } from './margin-wire.ts';
export { ExitTriggerClient, TriggerRefusal, encodeSetTrigger, encodeUpdateTrigger, parseExitTrigger, triggerErrorOf, triggerSetProblem } from './exit-trigger-client.ts';

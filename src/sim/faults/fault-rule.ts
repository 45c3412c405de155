/**
 * What a fault rule says: its kind, which requests or messages it targets and its parameters.
 * Kinds (README "Faults"):
 *
 *   REST (checked once per request, before it is handled)
 *     rest_delay       handle normally, hold the response `delayMs`
 *     rest_error       do not handle; answer `status` (default 503) with an internal error body
 *     rest_hang        do not handle; never answer (the client times out)
 *     rest_close       do not handle; close the connection without an answer
 *     ambiguous_order  order-entry routes only: the order IS applied, then per `mode` the answer
 *                      is a 5xx (`error`, default 500), nothing (`hang`) or a closed connection (`close`)
 *   WebSocket (checked per data message a subscription is about to receive)
 *     ws_drop_delta    skip an orderbook_delta but consume its seq: the client sees a gap
 *     ws_reorder_delta hold an orderbook_delta and send it after the next one on the same sid
 *     ws_buffer_overflow  error 25 "Subscription buffer overflow" on that subscription (terminal)
 *     ws_close         close the connection (abrupt TCP close, or `closeCode` for a close frame)
 *   FIX (the simulator's acceptor, src/sim/server/fix)
 *     fix_drop_outbound  an outbound application message is numbered (and kept for resend on
 *                        KalshiRT/KalshiPT) but never written: the peer sees a MsgSeqNum gap; on
 *                        RT/PT its ResendRequest brings it back, elsewhere it is lost (fix.md §3)
 *     fix_disconnect     on an inbound application message the TCP connection is dropped without a
 *                        Logout: before the message is handled (`applied` false, default) or after it
 *                        is handled and before its answers are written (`applied` true)
 *     fix_exchange_unavailable  order entry (35=D/F/G): answered EXCHANGE_UNAVAILABLE, the request
 *                        not applied (`applied` false, default) or applied (`applied` true)
 *
 * Targeting: `times` fires at most N times (the "next N" matches), `skip` lets the first K matches
 * through, `probability` draws from the seeded PRNG, and the filters narrow what matches. This
 * file owns the shapes and their validation; the controller applies them.
 */

export type RestFaultKind = 'rest_delay' | 'rest_error' | 'rest_hang' | 'rest_close' | 'ambiguous_order';
export type WsFaultKind = 'ws_drop_delta' | 'ws_reorder_delta' | 'ws_buffer_overflow' | 'ws_close';
export type FixFaultKind = 'fix_drop_outbound' | 'fix_disconnect' | 'fix_exchange_unavailable';
export type FaultKind = RestFaultKind | WsFaultKind | FixFaultKind;

export const REST_FAULT_KINDS: readonly RestFaultKind[] = ['rest_delay', 'rest_error', 'rest_hang', 'rest_close', 'ambiguous_order'];
export const WS_FAULT_KINDS: readonly WsFaultKind[] = ['ws_drop_delta', 'ws_reorder_delta', 'ws_buffer_overflow', 'ws_close'];
export const FIX_FAULT_KINDS: readonly FixFaultKind[] = ['fix_drop_outbound', 'fix_disconnect', 'fix_exchange_unavailable'];

export interface FaultTarget {
  /** Fire at most this many times, then the rule goes quiet. Default: unlimited. */
  times?: number;
  /** Let this many matches pass before firing. Default 0. */
  skip?: number;
  /** Chance to fire on a match, drawn from the seeded PRNG. Default 1. */
  probability?: number;
  /** REST: HTTP method, any case. */
  method?: string;
  /**
   * REST: a string matches the route template (`/portfolio/events/orders/{order_id}`) or the raw
   * path, both relative to /trade-api/v2; a RegExp is tested against the relative raw path.
   */
  path?: string | RegExp;
  /** WS: channel name (`orderbook_delta`, `trade`, `fill`, ...). */
  channel?: string;
  /** WS: only messages about this market. */
  marketTicker?: string;
  /** Either: only requests signed by / sessions of this API key. */
  keyId?: string;
  /** FIX: only this session kind (TargetCompID: KalshiNR, KalshiRT, KalshiDC, KalshiPT, KalshiMD). */
  session?: string;
  /** FIX: only messages of this MsgType(35) (`8`, `W`, `X`, `D`, `UMS`, ...). */
  msgType?: string;
}

export interface FaultRule {
  kind: FaultKind;
  target?: FaultTarget;
  /** rest_error, ambiguous_order(error): HTTP status, 500-599. */
  status?: number;
  /** rest_delay: milliseconds to hold the response. */
  delayMs?: number;
  /** ambiguous_order: how the answer goes wrong after the order is applied. */
  mode?: 'error' | 'hang' | 'close';
  /** ws_close: send a close frame with this code instead of dropping the TCP connection. */
  closeCode?: number;
  /** fix_disconnect, fix_exchange_unavailable: whether the request is applied before the fault (default false). */
  applied?: boolean;
}

export class FaultRuleError extends Error {
  readonly code: 'SIM_FAULT_RULE_INVALID' = 'SIM_FAULT_RULE_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'FaultRuleError';
  }
}

export function isRestFault(kind: FaultKind): kind is RestFaultKind {
  return (REST_FAULT_KINDS as readonly string[]).includes(kind);
}

export function isFixFault(kind: FaultKind): kind is FixFaultKind {
  return (FIX_FAULT_KINDS as readonly string[]).includes(kind);
}

/** Throws FaultRuleError naming the first bad field. */
export function validateFaultRule(rule: FaultRule): void {
  if (!(REST_FAULT_KINDS as readonly string[]).includes(rule.kind) && !(WS_FAULT_KINDS as readonly string[]).includes(rule.kind)
    && !isFixFault(rule.kind)) {
    throw new FaultRuleError(`unknown fault kind ${JSON.stringify(rule.kind)}`);
  }
  const target = rule.target ?? {};
  if (target.times !== undefined && !(Number.isInteger(target.times) && target.times >= 0)) throw new FaultRuleError('target.times must be an integer >= 0');
  if (target.skip !== undefined && !(Number.isInteger(target.skip) && target.skip >= 0)) throw new FaultRuleError('target.skip must be an integer >= 0');
  if (target.probability !== undefined && !(target.probability >= 0 && target.probability <= 1)) throw new FaultRuleError('target.probability must be in [0, 1]');
  if (rule.status !== undefined && !(Number.isInteger(rule.status) && rule.status >= 500 && rule.status <= 599)) throw new FaultRuleError('status must be 500-599');
  if (rule.kind === 'rest_delay' && !(Number.isInteger(rule.delayMs) && (rule.delayMs as number) >= 0)) throw new FaultRuleError('rest_delay needs delayMs >= 0');
  if (rule.applied !== undefined && typeof rule.applied !== 'boolean') throw new FaultRuleError('applied must be a boolean');
  if (target.session !== undefined && typeof target.session !== 'string') throw new FaultRuleError('target.session must be a string');
  if (target.msgType !== undefined && typeof target.msgType !== 'string') throw new FaultRuleError('target.msgType must be a string');
  if (rule.mode !== undefined && rule.mode !== 'error' && rule.mode !== 'hang' && rule.mode !== 'close') throw new FaultRuleError('mode must be error, hang or close');
}

/**
 * The closed set of reasons the risk gate refuses an intent (STYLE §4: expected outcomes are values
 * with stable codes). Numbers are part of the contract: logs, journals, dashboards and tests match
 * on them, so a code is never renumbered or reused, only appended. `NONE` (0) means "allowed".
 * This file owns the codes, their names and the order in which the gate evaluates them; it never
 * evaluates anything itself (risk-gate.ts does).
 */

export const Deny = {
  NONE: 0,
  INTENT_INVALID: 1, //            kind or side outside its closed set (a caller bug, still a value, never a throw)
  KILL_SWITCH: 2, //               the kill switch is engaged: only cancels and decreases pass
  TRADING_HALTED: 3, //            trading state halted: only cancels and decreases pass
  TRADING_REDUCING_ONLY: 4, //     trading state reducing: the order would not reduce the position
  SUBACCOUNT_INVALID: 5, //        subaccount outside 0-63
  SUBACCOUNT_LOCKED: 6, //         restricted key: another subaccount than the key's own
  MARKET_UNKNOWN: 7, //            market handle not registered with the gate
  MARKET_NOT_OPEN: 8, //           market registered but not open for trading
  BOOK_NOT_SYNCED: 9, //           local book out of sync (or none): no new order, no post-only
  BOOK_STALE: 10, //               local book not updated within limits.bookStaleMs
  PRICE_OUT_OF_RANGE: 11, //       price <= $0 or >= $1 (or not an integer of 1/10,000 $); Margin: <= $0 only
  PRICE_OUT_OF_BAND: 12, //        price outside the grid's bands (below minPrice / above maxPrice)
  PRICE_OFF_GRID: 13, //           price inside the bands but not on a tick (grid.levelOf === -1); Margin: not a multiple of the tick
  COUNT_NOT_POSITIVE: 14, //       count <= 0 (or not an integer of 1/100 contract)
  COUNT_OFF_INCREMENT: 15, //      count not a multiple of the market's increment (whole contracts if configured)
  COUNT_ABOVE_MAX: 16, //          count above limits.orderCountMax
  NOTIONAL_ABOVE_MAX: 17, //       order cost above limits.orderNotionalMax (Margin: price x count, either side)
  REDUCE_ONLY_NOT_REDUCING: 18, // reduce-only order on a flat position or in the position's direction
  MARKET_POSITION_LIMIT: 19, //    worst-case position in this market (all resting on one side fill) above limit
  SUBACCOUNT_POSITION_LIMIT: 20, // sum over markets of worst-case positions of the subaccount above limit
  SUBACCOUNT_NOTIONAL_LIMIT: 21, // cost of all resting orders of the subaccount above limit
  OPEN_ORDERS_LIMIT: 22, //        live orders of the user at limits.openOrdersMax
  POST_ONLY_CROSS: 23, //          post-only bid >= best YES ask, or post-only ask <= best YES bid (local book)
  SELF_CROSS: 24, //               bid >= own resting ask (or ask <= own resting bid), same market and subaccount
  ORDER_GROUP_UNKNOWN: 25, //      order-group handle not registered (or deleted)
  ORDER_GROUP_TRIGGERED: 26, //    group triggered by the venue: new orders blocked until reset
  ORDER_GROUP_LIMIT: 27, //        matched in the rolling 15 s window + this order above the group's contracts limit
  ORDER_GROUP_COUNT_MAX: 28, //    creating a group above limits.orderGroupsMax (100,000 per user)
  RATE_LIMITED: 29, //             write tokens short (creates may not dip into the cancel reserve)
  // Verdicts of the OMS on a cancel / amend / decrease (OMS_DENIES), reported to strategies on the same channel:
  ORDER_UNKNOWN: 30, //            no such order in the OMS, or another strategy's
  ORDER_NOT_LIVE: 31, //           the order is already filled, cancelled or rejected
  ORDER_BUSY: 32, //               a request on the order is in flight or its fate is unknown: try again once it settles
  // Portfolio risk (issue 16): figures the worker pool publishes (src/workers/portfolio), read by the gate without waiting.
  PORTFOLIO_RISK_STALE: 33, //     the last portfolio risk snapshot is older than limits.portfolioStaleMs (or none yet): no order that adds risk
  WORST_LOSS_SUBACCOUNT_LIMIT: 34, // subaccount's worst-case loss (snapshot + risk added since + this order) above limits.worstLossSubaccountMax
  WORST_LOSS_EVENT_LIMIT: 35, //   event's worst-case loss over every outcome (snapshot + added since + this order) above limits.worstLossEventMax
  // RFQ quotes (issue 15; QuoteIntent, RiskGate.checkQuote):
  RFQ_UNKNOWN: 36, //              quote on an RFQ the runtime has not seen open on `communications` (or already closed)
  QUOTE_PRICES_CROSSED: 37, //     yes_bid + no_bid >= $1 (the quoter pays $1 or more for a contract whichever side is taken), or both bids 0
  QUOTE_OPEN_LIMIT: 38, //         our quotes not yet closed at limits.openQuotesMax
  RESTRICTED_KEY_MAKER_ONLY: 39, // restricted key: only the maker lifecycle (quote, cancel, confirm), never create an RFQ or accept a quote
  QUOTE_UNKNOWN: 40, //            cancel / confirm of a quote the quote book does not have (or another strategy's)
  QUOTE_NOT_ACTIONABLE: 41, //     cancel of a quote no longer open, confirm of a quote not accepted (or with a request in flight)
  // The Margin exchange (issue 17): perpetuals priced on a tick, margined, with exit triggers.
  REDUCE_ONLY_RESTING: 42, //      Margin reduce-only order that could rest: it must be immediate_or_cancel or fill_or_kill
  PRICE_AWAY_FROM_MARK: 43, //     Margin price further from the mark than limits allow
  MARGIN_MARK_UNKNOWN: 44, //      Margin market without a mark price yet: margin and notional checks cannot run
  MARGIN_INSUFFICIENT: 45, //      initial margin of the worst-case positions above the subaccount's available balance
  LEVERAGE_ABOVE_MAX: 46, //       worst-case notional over the subaccount's balance above the configured leverage
  NOTIONAL_RISK_LIMIT: 47, //      worst-case |position| x mark above the market's notional risk limit
  ROUTE_EXCHANGE_MISMATCH: 48, //  the intent's route serves another exchange than the market's
  TRIGGER_INVALID: 49, //          exit trigger malformed: price off tick, on the wrong side of the mark, no position to exit
  TRIGGER_COUNT_ABOVE_POSITION: 50, // exit trigger counts (with the live ones) above the position they close
  TRIGGER_LIMIT: 51, //            one trigger per kind (isolated), 20 live brackets or one trailing stop (cross) reached
} as const;
export type Deny = (typeof Deny)[keyof typeof Deny];

/** Name of each code, indexed by code: `DENY_NAMES[Deny.BOOK_STALE] === 'BOOK_STALE'`. */
export const DENY_NAMES: readonly string[] = (() => {
  const names: string[] = [];
  for (const [name, code] of Object.entries(Deny)) names[code] = name;
  return Object.freeze(names);
})();

/** Number of codes including NONE; codes are dense 0..DENY_CODE_COUNT-1. */
export const DENY_CODE_COUNT = DENY_NAMES.length;

export function denyName(code: number): string {
  return code >= 0 && code < DENY_CODE_COUNT ? DENY_NAMES[code] : `UNKNOWN_${code}`;
}

/** The codes only the OMS gives (through the runtime's order port), never the gate; not in CHECK_ORDER. */
export const OMS_DENIES: readonly Deny[] = Object.freeze([Deny.ORDER_UNKNOWN, Deny.ORDER_NOT_LIVE, Deny.ORDER_BUSY]);

/**
 * The fixed order of evaluation for a new order: when several checks fail, the earliest wins.
 * Cheap, global and "stop everything" checks come first; the rate-limit check comes last because
 * it is the only one that takes something (tokens) and a denied intent must take nothing.
 * Cancels, decreases and cancel-all run a subset (see risk-gate.ts) in this same order.
 * This is a Predictions market's order; a Margin market's is MARGIN_CHECK_ORDER. The route check
 * (a NEW only) comes once the market, hence its exchange, is known.
 */
export const CHECK_ORDER: readonly Deny[] = Object.freeze([
  Deny.INTENT_INVALID,
  Deny.KILL_SWITCH,
  Deny.TRADING_HALTED,
  Deny.TRADING_REDUCING_ONLY,
  Deny.SUBACCOUNT_INVALID,
  Deny.SUBACCOUNT_LOCKED,
  Deny.MARKET_UNKNOWN,
  Deny.MARKET_NOT_OPEN,
  Deny.ROUTE_EXCHANGE_MISMATCH,
  Deny.BOOK_NOT_SYNCED,
  Deny.BOOK_STALE,
  Deny.PRICE_OUT_OF_RANGE,
  Deny.PRICE_OUT_OF_BAND,
  Deny.PRICE_OFF_GRID,
  Deny.COUNT_NOT_POSITIVE,
  Deny.COUNT_OFF_INCREMENT,
  Deny.COUNT_ABOVE_MAX,
  Deny.NOTIONAL_ABOVE_MAX,
  Deny.REDUCE_ONLY_NOT_REDUCING,
  Deny.MARKET_POSITION_LIMIT,
  Deny.SUBACCOUNT_POSITION_LIMIT,
  Deny.SUBACCOUNT_NOTIONAL_LIMIT,
  Deny.OPEN_ORDERS_LIMIT,
  Deny.PORTFOLIO_RISK_STALE,
  Deny.WORST_LOSS_SUBACCOUNT_LIMIT,
  Deny.WORST_LOSS_EVENT_LIMIT,
  Deny.POST_ONLY_CROSS,
  Deny.SELF_CROSS,
  Deny.ORDER_GROUP_UNKNOWN,
  Deny.ORDER_GROUP_TRIGGERED,
  Deny.ORDER_GROUP_LIMIT,
  Deny.ORDER_GROUP_COUNT_MAX,
  Deny.RATE_LIMITED,
]);

/**
 * The order of evaluation for a quote action (RiskGate.checkQuote), first failing wins. QUOTE_NEW:
 * shape, kill, halted, subaccount, maker-only, market, book, prices (range, band, tick, crossed),
 * count (positive, increment, max), notional, worst-case position, open quotes, post-only, rate.
 * QUOTE_CONFIRM (the last check before the venue executes): the same minus book, grid and
 * post-only (the price was checked at creation and the book may have moved by design).
 * QUOTE_CANCEL: shape, subaccount, rate (it may spend the cancel reserve).
 * RFQ_UNKNOWN, QUOTE_UNKNOWN and QUOTE_NOT_ACTIONABLE are the quote book's, given before the gate.
 */
export const QUOTE_CHECK_ORDER: readonly Deny[] = Object.freeze([
  Deny.INTENT_INVALID,
  Deny.KILL_SWITCH,
  Deny.TRADING_HALTED,
  Deny.TRADING_REDUCING_ONLY,
  Deny.SUBACCOUNT_INVALID,
  Deny.SUBACCOUNT_LOCKED,
  Deny.RESTRICTED_KEY_MAKER_ONLY,
  Deny.MARKET_UNKNOWN,
  Deny.MARKET_NOT_OPEN,
  Deny.BOOK_NOT_SYNCED,
  Deny.PRICE_OUT_OF_RANGE,
  Deny.PRICE_OUT_OF_BAND,
  Deny.PRICE_OFF_GRID,
  Deny.QUOTE_PRICES_CROSSED,
  Deny.COUNT_NOT_POSITIVE,
  Deny.COUNT_OFF_INCREMENT,
  Deny.COUNT_ABOVE_MAX,
  Deny.NOTIONAL_ABOVE_MAX,
  Deny.MARKET_POSITION_LIMIT,
  Deny.SUBACCOUNT_NOTIONAL_LIMIT,
  Deny.QUOTE_OPEN_LIMIT,
  Deny.POST_ONLY_CROSS,
  Deny.RATE_LIMITED,
]);

/** The codes the quote book gives before the gate (never the gate itself). */
export const QUOTE_BOOK_DENIES: readonly Deny[] = Object.freeze([Deny.RFQ_UNKNOWN, Deny.QUOTE_UNKNOWN, Deny.QUOTE_NOT_ACTIONABLE]);

/**
 * The order of evaluation for a NEW or AMEND on a Margin market (the gate branches once, on the
 * market's exchange, after the kill switch and halted). Shared head with CHECK_ORDER up to the
 * book; then the price (> 0, on the tick, optional band around the mark; no $1 cap), the count
 * (whole contracts), the order notional (price x count, no complement), reduce-only (must reduce,
 * must be IOC/FOK), then the risk the order adds, only when it raises the market's worst-case
 * |position| (reduce-only never does): marks known, worst-case positions, the market's notional
 * risk limit, initial margin against the subaccount's Margin balance, leverage; then open orders,
 * post-only and self-cross (plain prices), the order group and the rate tokens, last as always.
 * No portfolio checks (a binary worst-case loss) and no resting-cost limit: margin is the bound.
 */
export const MARGIN_CHECK_ORDER: readonly Deny[] = Object.freeze([
  Deny.INTENT_INVALID,
  Deny.KILL_SWITCH,
  Deny.TRADING_HALTED,
  Deny.TRADING_REDUCING_ONLY,
  Deny.SUBACCOUNT_INVALID,
  Deny.SUBACCOUNT_LOCKED,
  Deny.MARKET_UNKNOWN,
  Deny.MARKET_NOT_OPEN,
  Deny.ROUTE_EXCHANGE_MISMATCH,
  Deny.BOOK_NOT_SYNCED,
  Deny.BOOK_STALE,
  Deny.PRICE_OUT_OF_RANGE,
  Deny.PRICE_OFF_GRID,
  Deny.PRICE_AWAY_FROM_MARK,
  Deny.COUNT_NOT_POSITIVE,
  Deny.COUNT_OFF_INCREMENT,
  Deny.COUNT_ABOVE_MAX,
  Deny.NOTIONAL_ABOVE_MAX,
  Deny.REDUCE_ONLY_NOT_REDUCING,
  Deny.REDUCE_ONLY_RESTING,
  Deny.MARGIN_MARK_UNKNOWN,
  Deny.MARKET_POSITION_LIMIT,
  Deny.SUBACCOUNT_POSITION_LIMIT,
  Deny.NOTIONAL_RISK_LIMIT,
  Deny.MARGIN_INSUFFICIENT,
  Deny.LEVERAGE_ABOVE_MAX,
  Deny.OPEN_ORDERS_LIMIT,
  Deny.POST_ONLY_CROSS,
  Deny.SELF_CROSS,
  Deny.ORDER_GROUP_UNKNOWN,
  Deny.ORDER_GROUP_TRIGGERED,
  Deny.ORDER_GROUP_LIMIT,
  Deny.RATE_LIMITED,
]);

/**
 * The order of evaluation for an exit trigger (RiskGate.checkTrigger), first failing wins. SET:
 * shape, kill switch, halted, subaccount, Margin market known, mark known (bracket legs), the
 * trigger's form (legs or trail, prices on the tick, count, anchor, client id, isolated rules, a
 * position to close, legs on the right side of the mark), count within the position (and with
 * the live brackets), live-trigger room, rate tokens. UPDATE: the same without kill switch,
 * halted and room. DELETE: shape, subaccount, rate tokens only (removing a trigger is never refused).
 */
export const TRIGGER_CHECK_ORDER: readonly Deny[] = Object.freeze([
  Deny.INTENT_INVALID,
  Deny.KILL_SWITCH,
  Deny.TRADING_HALTED,
  Deny.SUBACCOUNT_INVALID,
  Deny.SUBACCOUNT_LOCKED,
  Deny.MARKET_UNKNOWN,
  Deny.MARGIN_MARK_UNKNOWN,
  Deny.TRIGGER_INVALID,
  Deny.TRIGGER_COUNT_ABOVE_POSITION,
  Deny.TRIGGER_LIMIT,
  Deny.RATE_LIMITED,
]);

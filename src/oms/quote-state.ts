/**
 * Our quotes on RFQs: their states, the events that move them, and the one table of moves (STYLE
 * §6), compiled once into a dense Int8Array. The venue's states are open, cancelled, accepted,
 * confirmed and executed (interface-spec communications; only the last three are durable); ours
 * add the requests in flight (PENDING_NEW, PENDING_CANCEL, PENDING_CONFIRM) and REJECTED (the
 * create was refused, the quote never existed). A pair missing from the table is logged by the
 * quote book, the quote kept in its state and reconciled from GET /communications/quotes.
 * This file owns the codes and the table only.
 */

export const QuoteState = {
  PENDING_NEW: 0,
  OPEN: 1,
  PENDING_CANCEL: 2,
  CANCELLED: 3,
  ACCEPTED: 4,
  PENDING_CONFIRM: 5,
  CONFIRMED: 6,
  EXECUTED: 7,
  REJECTED: 8,
} as const;
export type QuoteState = (typeof QuoteState)[keyof typeof QuoteState];

/** Names plugins and the journal see (QuoteView.status). */
export type QuoteStatusName = 'pending' | 'open' | 'cancelling' | 'cancelled' | 'accepted' | 'confirming' | 'confirmed' | 'executed' | 'rejected';
export const QUOTE_STATE_NAMES: readonly QuoteStatusName[] = Object.freeze([
  'pending', 'open', 'cancelling', 'cancelled', 'accepted', 'confirming', 'confirmed', 'executed', 'rejected',
] as const);

export const QuoteEvent = {
  CREATE_ACK: 0, //        POST /communications/quotes answered 201 {id}
  CREATE_REJECT: 1, //     answered 4xx: the quote never existed
  WS_CREATED: 2, //        quote_created
  CANCEL_SENT: 3,
  CANCEL_ACK: 4, //        DELETE answered 204
  CANCEL_REJECT: 5, //     DELETE refused for another reason than expiry (invalid_quote_status: accepted meanwhile)
  WS_ACCEPTED: 6, //       quote_accepted: the RFQ creator took a side; we must confirm within the window
  CONFIRM_SENT: 7,
  CONFIRM_ACK: 8, //       PUT .../confirm answered 204
  CONFIRM_REJECT: 9, //    confirm refused (insufficient_balance, ...): still accepted until the window closes
  EXPIRED: 10, //          quote_expired answer, rfq_deleted, replaced by our newer quote, confirm window passed
  WS_EXECUTED: 11, //      quote_executed
  VENUE_OPEN: 12, //       reconciliation: the venue's status (GET /communications/quotes)
  VENUE_ACCEPTED: 13,
  VENUE_CONFIRMED: 14,
  VENUE_EXECUTED: 15,
  VENUE_CANCELLED: 16, //  cancelled, or absent from the venue (a roll cleared it: 404 afterwards)
} as const;
export type QuoteEvent = (typeof QuoteEvent)[keyof typeof QuoteEvent];
export const QUOTE_EVENT_NAMES: readonly string[] = Object.freeze(Object.keys(QuoteEvent));

const STATE_COUNT = QUOTE_STATE_NAMES.length;
const EVENT_COUNT = QUOTE_EVENT_NAMES.length;

export function isQuoteTerminal(state: QuoteState): boolean {
  return state === QuoteState.CANCELLED || state === QuoteState.EXECUTED || state === QuoteState.REJECTED;
}

export interface QuoteTransitionRow {
  readonly state: QuoteState;
  readonly event: QuoteEvent;
  readonly next: QuoteState;
  readonly note: string;
}

const S = QuoteState;
const E = QuoteEvent;
const row = (state: QuoteState, event: QuoteEvent, next: QuoteState, note = ''): QuoteTransitionRow => ({ state, event, next, note });

// prettier-ignore
const ROWS: QuoteTransitionRow[] = [
  //  state               event               next                 note
  row(S.PENDING_NEW,      E.CREATE_ACK,       S.OPEN),
  row(S.PENDING_NEW,      E.CREATE_REJECT,    S.REJECTED),
  row(S.PENDING_NEW,      E.WS_CREATED,       S.OPEN,              'quote_created before the HTTP answer: the socket won the race'),
  row(S.PENDING_NEW,      E.WS_ACCEPTED,      S.ACCEPTED,          'accepted before our HTTP answer arrived'),
  row(S.PENDING_NEW,      E.EXPIRED,          S.CANCELLED,         'the RFQ closed while our create was in flight'),
  row(S.OPEN,             E.CREATE_ACK,       S.OPEN,              'the answer after quote_created'),
  row(S.OPEN,             E.WS_CREATED,       S.OPEN),
  row(S.OPEN,             E.CANCEL_SENT,      S.PENDING_CANCEL),
  row(S.OPEN,             E.WS_ACCEPTED,      S.ACCEPTED),
  row(S.OPEN,             E.EXPIRED,          S.CANCELLED),
  row(S.PENDING_CANCEL,   E.CANCEL_ACK,       S.CANCELLED),
  row(S.PENDING_CANCEL,   E.CANCEL_REJECT,    S.OPEN,              'refused: the quote book reconciles it (the accept message may follow)'),
  row(S.PENDING_CANCEL,   E.WS_ACCEPTED,      S.ACCEPTED,          'accept before our cancel: the creator was first; we may still decline to confirm'),
  row(S.PENDING_CANCEL,   E.EXPIRED,          S.CANCELLED),
  row(S.ACCEPTED,         E.CREATE_ACK,       S.ACCEPTED,          'the create answer after the accept message'),
  row(S.ACCEPTED,         E.CONFIRM_SENT,     S.PENDING_CONFIRM),
  row(S.ACCEPTED,         E.CANCEL_REJECT,    S.ACCEPTED,          'our cancel crossed the accept'),
  row(S.ACCEPTED,         E.CANCEL_ACK,       S.CANCELLED,         'a cancel sent before the accept won at the venue'),
  row(S.ACCEPTED,         E.EXPIRED,          S.CANCELLED,         'the confirm window passed, or the RFQ was deleted'),
  row(S.ACCEPTED,         E.WS_EXECUTED,      S.EXECUTED,          'confirmed by another session of ours'),
  row(S.PENDING_CONFIRM,  E.CONFIRM_ACK,      S.CONFIRMED),
  row(S.PENDING_CONFIRM,  E.CONFIRM_REJECT,   S.ACCEPTED),
  row(S.PENDING_CONFIRM,  E.WS_EXECUTED,      S.EXECUTED,          'quote_executed before the confirm answer (the venue executes at once)'),
  row(S.PENDING_CONFIRM,  E.EXPIRED,          S.CANCELLED,         'confirmed too late'),
  row(S.CONFIRMED,        E.WS_EXECUTED,      S.EXECUTED),
  row(S.CONFIRMED,        E.EXPIRED,          S.CANCELLED,         'a post-only cross at execution cancels the quote'),
  row(S.EXECUTED,         E.CONFIRM_ACK,      S.EXECUTED,          'the confirm answer after quote_executed'),
  row(S.EXECUTED,         E.WS_EXECUTED,      S.EXECUTED,          'sent to both sides; a replay after reconnect'),
  row(S.CANCELLED,        E.CANCEL_ACK,       S.CANCELLED),
  row(S.CANCELLED,        E.EXPIRED,          S.CANCELLED),
  row(S.CANCELLED,        E.CANCEL_REJECT,    S.CANCELLED),
];
// Reconciliation: the venue's status is the truth for a quote that is not closed here.
for (let state = 0 as QuoteState; state < STATE_COUNT; state = (state + 1) as QuoteState) {
  if (isQuoteTerminal(state)) continue;
  ROWS.push(row(state, E.VENUE_OPEN, state === S.PENDING_CANCEL ? S.PENDING_CANCEL : S.OPEN, 'reconciled'));
  ROWS.push(row(state, E.VENUE_ACCEPTED, state === S.PENDING_CONFIRM ? S.PENDING_CONFIRM : S.ACCEPTED, 'reconciled'));
  ROWS.push(row(state, E.VENUE_CONFIRMED, S.CONFIRMED, 'reconciled'));
  ROWS.push(row(state, E.VENUE_EXECUTED, S.EXECUTED, 'reconciled'));
  ROWS.push(row(state, E.VENUE_CANCELLED, S.CANCELLED, 'reconciled (absent: cleared by a roll)'));
}
for (const state of [S.CANCELLED, S.EXECUTED]) {
  ROWS.push(row(state, E.VENUE_CANCELLED, state, 'already closed'));
  ROWS.push(row(state, E.VENUE_EXECUTED, S.EXECUTED, 'reconciled'));
}

export const QUOTE_TRANSITIONS: readonly QuoteTransitionRow[] = Object.freeze(ROWS);

const TABLE = new Int8Array(STATE_COUNT * EVENT_COUNT).fill(-1);
for (const r of QUOTE_TRANSITIONS) TABLE[r.state * EVENT_COUNT + r.event] = r.next;

/** The next state, or -1 when the table has no row for the pair. */
export function nextQuoteState(state: QuoteState, event: QuoteEvent): QuoteState | -1 {
  return TABLE[state * EVENT_COUNT + event] as QuoteState | -1;
}

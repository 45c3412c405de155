/**
 * The OMS's append-only journal: one JSON line per event (session start, intent sent, ack,
 * reject, unknown, cancel/amend/decrease sent and answered, WS state change, fill, reconcile,
 * kill switch), and `recover(path)` which rebuilds what a restarted runtime needs from it: every
 * order with its last known state and counts, every fill (de-duplication and positions), and the
 * highest session epoch and client-order-id counter (so no id is ever reused).
 *
 * Off the hot path: an append copies a few references and numbers into a preallocated entry of a
 * fixed ring (no string building, no I/O). `pump()` (the OMS's coarse tick) and `flush()` (on
 * stop; a promise of the file holding it) serialise the ring into lines as bytes and append them
 * to the file with one asynchronous write at a time, in order, through callbacks bound once (no
 * promise or closure per write); fsync after each write is optional. A full ring is serialised
 * early (order kept) rather than dropping entries. The session line is written synchronously at
 * start, before any order can be sent.
 *
 * Crash semantics: lines not flushed are lost; a torn last line is skipped by recover(). An intent
 * whose line was lost was sent by a session whose epoch is journaled, and the next session's epoch
 * is strictly greater, so ids stay unique; the lost order itself is found at the next start by its
 * id (our prefix, a journaled session: Oms.adoptLostOrders) and cancelled. Flush often (the tick)
 * to keep that window small.
 */

import { closeSync, existsSync, fchmodSync, fsync, openSync, readFileSync, write, writeSync, fsyncSync } from 'node:fs';
import { DOUBLE_ZERO, type BookSide, type Exchange, type Price, type TimeInForce } from '../core/index.ts';
import { parseClientOrderId } from './client-order-ids.ts';
import type { ClientOrderIds } from './client-order-ids.ts';
import { JournalBytes } from './journal-bytes.ts';
import { VENUE_ID_BYTES_MAX } from './venue-order-ids.ts';
import { ORDER_EVENT_NAMES, ORDER_STATE_NAMES, OrderState } from './order-state.ts';
import type { Order } from './order.ts';
import { QUOTE_EVENT_NAMES, QUOTE_STATE_NAMES, type QuoteState } from './quote-state.ts';

/** What the journal reads of a quote (quote-book.ts's Quote satisfies it). */
export interface JournaledQuote {
  readonly handle: number;
  readonly quoteId: string;
  readonly rfqId: string;
  readonly ticker: string;
  readonly state: number;
  readonly yesBid: number;
  readonly noBid: number;
  readonly count: number;
  readonly subaccount: number;
  readonly strategyId: number;
  readonly postOnly: boolean;
  readonly acceptedSide: 'yes' | 'no' | '';
}

/** Line kinds (the `k` field). */
export const JournalKind = {
  SESSION: 'session',
  INTENT: 'intent',
  ACK: 'ack', //            create / cancel / amend / decrease answered
  REJECT: 'reject',
  UNKNOWN: 'unknown',
  SENT: 'sent', //          cancel / amend / decrease sent
  STATE: 'state', //        WS user_order, timeout, table anomaly
  FILL: 'fill',
  RECONCILE: 'reconcile',
  KILL: 'kill', //          the kill switch engaged (operator or risk breach): persists across restarts
  RELEASE: 'release', //    the kill switch released by the operator
  QUOTE: 'quote', //        one of our RFQ quotes changed state (quote-book.ts)
} as const;
export type JournalKind = (typeof JournalKind)[keyof typeof JournalKind];

const FLAG_POST_ONLY = 1;
const FLAG_REDUCE_ONLY = 2;
const FLAG_TAKER = 4;
const FLAG_MARGIN = 8;

/** One preallocated ring slot; which fields mean what depends on `kind` (see #serialize). Exported for test/oms/record-layout.test.ts only. */
export class JournalEntry {
  kind: JournalKind = JournalKind.STATE;
  tsMs = DOUBLE_ZERO;
  clientOrderId = '';
  /** Set: the id is this session's, written as bytes from `idCounter` (the order's string never made); clientOrderId is then ''. */
  idWriter: ClientOrderIds | null = null;
  idCounter = 0;
  orderId = '';
  /** An order event's venue id copied as bytes from the order (its string never made); orderId is then ''. */
  readonly orderIdBytes = Buffer.alloc(VENUE_ID_BYTES_MAX);
  orderIdLength = 0;
  state = 0;
  event = -1;
  price = DOUBLE_ZERO;
  total = DOUBLE_ZERO;
  filled = DOUBLE_ZERO;
  remaining = DOUBLE_ZERO;
  text1 = '';
  text2 = '';
  text3 = '';
  text4: string | null = null;
  num1 = DOUBLE_ZERO;
  num2 = DOUBLE_ZERO;
  num3 = DOUBLE_ZERO;
  num4 = DOUBLE_ZERO;
  flags = 0;
}

export interface JournalOptions {
  /** Entries buffered between flushes before an early serialisation (default 4096). */
  capacity?: number;
  /** fsync after every write (default false: the OS page cache survives a process crash, not a power loss). */
  fsync?: boolean;
}

export class Journal {
  readonly path: string;
  readonly #fd: number;
  readonly #fsync: boolean;
  readonly #ring: JournalEntry[];
  #size = 0;
  /**
   * Two byte buffers: the ring is serialised into #filling while the file write of #writing (at
   * most one at a time) runs; a write takes whatever #filling holds and swaps them. No string is
   * built per line (journal-bytes.ts).
   */
  #filling = new JournalBytes(256 * 1024);
  #writing = new JournalBytes(256 * 1024);
  /** A file write of #writing (and its fsync) is in flight: one at a time, in order. */
  #inFlight = false;
  /** flush() callers, resolved when no write is in flight and nothing is left to write. */
  readonly #idleWaiters: (() => void)[] = [];
  // Bound once: a write allocates no closure or promise of ours (the OMS's tick writes every 100 ms).
  readonly #onWritten = (error: Error | null): void => {
    this.#writing.reset();
    if (error) this.#writeError = error;
    if (this.#fsync && !error) fsync(this.#fd, this.#onSynced);
    else this.#writeDone();
  };
  readonly #onSynced = (): void => this.#writeDone();
  #closed = false;
  #writeError: Error | null = null;
  /** Lines handed to the file so far (for tests and metrics). */
  linesWritten = 0;
  /** Appends after close() (late venue answers during shutdown): counted and dropped, never thrown at a caller. */
  droppedAfterClose = 0;
  readonly #discard = new JournalEntry();

  constructor(path: string, options: JournalOptions = {}) {
    this.path = path;
    // Order flow is private: 0600, tightened if an older run created the file readable by others.
    this.#fd = openSync(path, 'a', 0o600);
    fchmodSync(this.#fd, 0o600);
    this.#fsync = options.fsync ?? false;
    const capacity = options.capacity ?? 4096;
    this.#ring = new Array<JournalEntry>(capacity);
    for (let i = 0; i < capacity; i++) this.#ring[i] = new JournalEntry();
  }

  /** The last asynchronous write failure, if any (the OMS reports it; the journal keeps going). */
  get writeError(): Error | null {
    return this.#writeError;
  }

  /** Written synchronously: the session's epoch and counter must be durable before any order is sent. */
  writeSessionSync(tsMs: number, prefix: string, sessionEpochMs: number, lastCounter: number): void {
    this.#writeLineSync(JSON.stringify({ k: JournalKind.SESSION, t: tsMs, prefix, epoch: sessionEpochMs, counter: lastCounter }));
  }

  appendIntent(order: Order, tsMs: number): void {
    const e = this.#take();
    e.kind = JournalKind.INTENT;
    e.tsMs = tsMs;
    setOrderId(e, order);
    e.orderId = '';
    e.state = order.state;
    e.event = -1;
    e.price = order.price;
    e.total = order.totalCount;
    e.filled = 0;
    e.remaining = order.remainingCount;
    e.text1 = order.ticker;
    e.text2 = order.side;
    e.text3 = order.timeInForce;
    e.text4 = order.orderGroupId;
    e.num1 = order.counter;
    e.num2 = order.subaccount;
    e.num3 = order.strategyId;
    e.num4 = 0;
    e.flags = (order.postOnly ? FLAG_POST_ONLY : 0) | (order.reduceOnly ? FLAG_REDUCE_ONLY : 0) | (order.exchange === 'margin' ? FLAG_MARGIN : 0);
  }

  /** An order event with the order's snapshot after it. `code`/`status`: reject or unknown details, '' / 0 otherwise. */
  appendOrderEvent(kind: JournalKind, order: Order, event: number, tsMs: number, code: string, status: number): void {
    const e = this.#take();
    e.kind = kind;
    e.tsMs = tsMs;
    setOrderId(e, order);
    setVenueId(e, order);
    e.state = order.state;
    e.event = event;
    e.price = order.price;
    e.total = order.totalCount;
    e.filled = order.filledCount;
    e.remaining = order.remainingCount;
    e.text1 = code;
    e.text2 = '';
    e.text3 = '';
    e.text4 = null;
    e.num1 = status;
    e.num2 = order.anomalies;
    e.num3 = 0;
    e.num4 = 0;
    e.flags = 0;
  }

  appendFill(
    tradeId: string,
    orderId: string,
    clientOrderId: string,
    ticker: string,
    side: BookSide,
    price: Price,
    count: number,
    feeCenticents: number,
    postPosition: number,
    subaccount: number,
    isTaker: boolean,
    tsMs: number,
  ): void {
    const e = this.#take();
    e.kind = JournalKind.FILL;
    e.tsMs = tsMs;
    e.clientOrderId = clientOrderId;
    e.orderId = orderId;
    e.state = 0;
    e.event = -1;
    e.price = price;
    e.total = 0;
    e.filled = count;
    e.remaining = 0;
    e.text1 = tradeId;
    e.text2 = ticker;
    e.text3 = side;
    e.text4 = null;
    e.num1 = feeCenticents;
    e.num2 = postPosition;
    e.num3 = subaccount;
    e.num4 = 0;
    e.flags = isTaker ? FLAG_TAKER : 0;
  }

  /** A quote's snapshot after `event` (quote-book.ts); `code` the venue's error code or ''. */
  appendQuote(quote: JournaledQuote, event: number, tsMs: number, code: string): void {
    const e = this.#take();
    e.kind = JournalKind.QUOTE;
    e.tsMs = tsMs;
    e.clientOrderId = '';
    e.orderId = quote.quoteId;
    e.state = quote.state;
    e.event = event;
    e.price = quote.yesBid;
    e.total = quote.noBid;
    e.filled = quote.count;
    e.remaining = 0;
    e.text1 = quote.rfqId;
    e.text2 = quote.ticker;
    e.text3 = code;
    e.text4 = quote.acceptedSide === '' ? null : quote.acceptedSide;
    e.num1 = quote.handle;
    e.num2 = quote.subaccount;
    e.num3 = quote.strategyId;
    e.num4 = 0;
    e.flags = quote.postOnly ? FLAG_POST_ONLY : 0;
  }

  /**
   * Written synchronously (#writeLineSync) like the session line: an engaged kill switch must
   * survive a crash that comes right after it. `source` says who engaged it ("operator", "risk", ...).
   */
  writeKillSync(tsMs: number, reason: string, source: string): void {
    this.#writeLineSync(JSON.stringify({ k: JournalKind.KILL, t: tsMs, reason, source }));
  }

  /** The operator's release of a persisted kill switch, with who or what released it. */
  writeReleaseSync(tsMs: number, by: string): void {
    this.#writeLineSync(JSON.stringify({ k: JournalKind.RELEASE, t: tsMs, by }));
  }

  #writeLineSync(line: string): void {
    if (this.#closed) {
      this.droppedAfterClose++;
      return;
    }
    // Earlier buffered lines go first so the file keeps event order.
    this.#drain();
    const bytes = this.#filling;
    bytes.utf8(line); // a reason or operator name may be any text
    bytes.raw('\n');
    writeSync(this.#fd, bytes.view());
    bytes.reset();
    if (this.#fsync) fsyncSync(this.#fd);
    this.linesWritten++;
  }

  /** Serialises what is buffered and appends it; resolves when it (and every earlier write) is on the file. */
  flush(): Promise<void> {
    this.pump();
    if (!this.#inFlight) return Promise.resolve();
    return new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Serialises what is buffered and starts its write (after the one in flight); returns at once, no promise (the OMS's tick). */
  pump(): void {
    this.#drain();
    this.#startWrite();
  }

  /** Flushes, fsyncs and closes the file. Further appends are counted in droppedAfterClose and dropped. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.flush();
    this.#closed = true;
    if (this.#fsync) fsyncSync(this.#fd);
    closeSync(this.#fd);
  }

  #take(): JournalEntry {
    if (this.#closed) {
      this.droppedAfterClose++;
      return this.#discard;
    }
    if (this.#size === this.#ring.length) {
      this.pump(); // overload: serialise now, keep order, never drop
    }
    const e = this.#ring[this.#size++];
    e.idWriter = null; // only an order's entries write their ids as bytes (setOrderId, setVenueId)
    e.orderIdLength = 0;
    return e;
  }

  #drain(): void {
    if (this.#size === 0) return;
    for (let i = 0; i < this.#size; i++) serializeInto(this.#filling, this.#ring[i]);
    this.linesWritten += this.#size;
    this.#size = 0;
  }

  /** One write at a time, in order: the next takes everything drained by the time the previous (and its fsync) is done. */
  #startWrite(): void {
    if (this.#inFlight || this.#filling.length === 0) return;
    const bytes = this.#filling;
    this.#filling = this.#writing;
    this.#writing = bytes;
    this.#inFlight = true;
    write(this.#fd, bytes.bytes, 0, bytes.length, null, this.#onWritten);
  }

  #writeDone(): void {
    this.#inFlight = false;
    if (this.#filling.length > 0) {
      this.#startWrite();
      return;
    }
    const waiters = this.#idleWaiters;
    if (waiters.length === 0) return;
    const resolved = waiters.splice(0);
    for (const resolve of resolved) resolve();
  }
}

/**
 * One entry as one JSON line written as bytes into `w`: the same text JSON.stringify gives for the
 * object literal {k, t, ...} in this key order (absent optional keys left out), without the
 * literal, the generic stringifier or any intermediate string (journal-bytes.ts says why).
 * test/oms/journal.test.ts reads the lines back.
 */
function serializeInto(w: JournalBytes, e: JournalEntry): void {
  w.raw('{"k":');
  w.str(e.kind);
  w.raw(',"t":');
  const tsMs = e.tsMs;
  if (tsMs >= 0 && Number.isSafeInteger(tsMs)) w.numSplit(Math.floor(tsMs / 1_000_000), tsMs % 1_000_000);
  else w.num(tsMs);
  switch (e.kind) {
    case JournalKind.INTENT:
      serializeIntent(w, e);
      break;
    case JournalKind.FILL:
      serializeFill(w, e);
      break;
    case JournalKind.QUOTE:
      serializeQuote(w, e);
      break;
    default:
      serializeOrderEvent(w, e);
  }
  w.raw('}\n');
}

/** The entry's client order id: the order's own bytes when it writes them, else its text. */
function setOrderId(e: JournalEntry, order: Order): void {
  e.idWriter = order.ids;
  e.idCounter = order.counter;
  e.clientOrderId = order.ids === null ? order.clientOrderId : '';
}

/** The order's venue id into the entry: its bytes copied when it has them (no string made), else its text. */
function setVenueId(e: JournalEntry, order: Order): void {
  const n = order.writeOrderId(e.orderIdBytes, 0);
  e.orderIdLength = n > 0 ? n : 0;
  e.orderId = n > 0 ? '' : order.orderId;
}

function writeVenueId(w: JournalBytes, e: JournalEntry): void {
  if (e.orderIdLength > 0) w.quotedBytes(e.orderIdBytes, e.orderIdLength);
  else w.str(e.orderId);
}

function writeClientOrderId(w: JournalBytes, e: JournalEntry): void {
  if (e.idWriter !== null) w.clientOrderId(e.idWriter, e.idCounter);
  else w.str(e.clientOrderId);
}

function serializeIntent(w: JournalBytes, e: JournalEntry): void {
  w.raw(',"coid":'); writeClientOrderId(w, e);
  w.raw(',"n":'); w.num(e.num1);
  w.raw(',"ticker":'); w.str(e.text1);
  w.raw(',"side":'); w.str(e.text2);
  w.raw(',"px":'); w.num(e.price);
  w.raw(',"cnt":'); w.num(e.total);
  w.raw(',"sub":'); w.num(e.num2);
  w.raw(',"tif":'); w.str(e.text3);
  w.raw(',"po":'); w.bool((e.flags & FLAG_POST_ONLY) !== 0);
  w.raw(',"ro":'); w.bool((e.flags & FLAG_REDUCE_ONLY) !== 0);
  w.raw(',"grp":');
  if (e.text4 === null) w.raw('null');
  else w.str(e.text4);
  w.raw(',"strat":'); w.num(e.num3);
  // Predictions lines stay as they were; a Margin order says so (its reads and route are Margin's).
  if ((e.flags & FLAG_MARGIN) !== 0) w.raw(',"ex":"margin"');
}

function serializeFill(w: JournalBytes, e: JournalEntry): void {
  w.raw(',"tid":'); w.str(e.text1);
  w.raw(',"oid":'); w.str(e.orderId);
  w.raw(',"coid":'); writeClientOrderId(w, e);
  w.raw(',"ticker":'); w.str(e.text2);
  w.raw(',"side":'); w.str(e.text3);
  w.raw(',"px":'); w.num(e.price);
  w.raw(',"cnt":'); w.num(e.filled);
  w.raw(',"fee":'); w.num(e.num1);
  w.raw(',"post":');
  if (e.num2 === Number.MIN_SAFE_INTEGER) w.raw('null');
  else w.num(e.num2);
  w.raw(',"sub":'); w.num(e.num3);
  w.raw(',"taker":'); w.bool((e.flags & FLAG_TAKER) !== 0);
}

function serializeQuote(w: JournalBytes, e: JournalEntry): void {
  w.raw(',"h":'); w.num(e.num1);
  w.raw(',"qid":'); w.str(e.orderId);
  w.raw(',"rfq":'); w.str(e.text1);
  w.raw(',"ticker":'); w.str(e.text2);
  w.raw(',"st":'); w.str(QUOTE_STATE_NAMES[e.state] ?? 'pending');
  w.raw(',"ev":'); w.str(QUOTE_EVENT_NAMES[e.event] ?? '');
  w.raw(',"yes":'); w.num(e.price);
  w.raw(',"no":'); w.num(e.total);
  w.raw(',"cnt":'); w.num(e.filled);
  w.raw(',"sub":'); w.num(e.num2);
  w.raw(',"strat":'); w.num(e.num3);
  w.raw(',"po":'); w.bool((e.flags & FLAG_POST_ONLY) !== 0);
  w.raw(',"side":');
  if (e.text4 === null) w.raw('null');
  else w.str(e.text4);
  if (e.text3 !== '') {
    w.raw(',"code":');
    w.str(e.text3);
  }
}

function serializeOrderEvent(w: JournalBytes, e: JournalEntry): void {
  w.raw(',"coid":'); writeClientOrderId(w, e);
  w.raw(',"oid":'); writeVenueId(w, e);
  const state = ORDER_STATE_NAMES[e.state];
  if (state !== undefined) {
    w.raw(',"st":');
    w.str(state);
  }
  if (e.event < 0) {
    w.raw(',"ev":null');
  } else if (ORDER_EVENT_NAMES[e.event] !== undefined) {
    w.raw(',"ev":');
    w.str(ORDER_EVENT_NAMES[e.event]);
  }
  w.raw(',"px":'); w.num(e.price);
  w.raw(',"tot":'); w.num(e.total);
  w.raw(',"fil":'); w.num(e.filled);
  w.raw(',"rem":'); w.num(e.remaining);
  if (e.text1 !== '') {
    w.raw(',"code":');
    w.str(e.text1);
  }
  if (e.num1 !== 0) {
    w.raw(',"status":');
    w.num(e.num1);
  }
  if (e.num2 !== 0) {
    w.raw(',"anomalies":');
    w.num(e.num2);
  }
}

// ---- recovery ------------------------------------------------------------------------------------

export interface RecoveredOrder {
  clientOrderId: string;
  counter: number;
  orderId: string;
  ticker: string;
  /** The exchange it trades on ("ex" on the intent line; absent: Predictions). */
  exchange: Exchange;
  side: BookSide;
  price: Price;
  totalCount: number;
  filledCount: number;
  remainingCount: number;
  state: OrderState;
  timeInForce: TimeInForce;
  postOnly: boolean;
  reduceOnly: boolean;
  subaccount: number;
  orderGroupId: string | null;
  strategyId: number;
  createdAtMs: number;
  lastEventMs: number;
}

export interface RecoveredFill {
  tradeId: string;
  orderId: string;
  clientOrderId: string;
  ticker: string;
  side: BookSide;
  price: Price;
  count: number;
  feeCenticents: number;
  /** Signed position after the fill, or null when the venue did not say. */
  postPosition: number | null;
  subaccount: number;
  isTaker: boolean;
  tsMs: number;
}

export interface RecoveredJournal {
  path: string;
  /** Lines parsed. */
  lines: number;
  /** Lines that did not parse (a torn last line after a crash; anything else is logged by the caller). */
  badLines: number;
  prefix: string | null;
  sessionEpochMsMax: number;
  /** Every session's epoch, from the session lines (written synchronously, before any order: never lost). */
  sessionEpochs?: number[];
  counterMax: number;
  /** Every order ever journaled, with its last known state and counts, in intent order. */
  orders: RecoveredOrder[];
  fills: RecoveredFill[];
  /** The kill switch engaged by an operator or a risk breach and not released since; null when none. */
  kill: RecoveredKill | null;
  /** Our RFQ quotes with their last journaled state (absent in journals built by hand). */
  quotes?: RecoveredQuote[];
}

export interface RecoveredQuote {
  quoteId: string;
  rfqId: string;
  ticker: string;
  state: QuoteState;
  yesBid: number;
  noBid: number;
  count: number;
  subaccount: number;
  strategyId: number;
  postOnly: boolean;
  acceptedSide: 'yes' | 'no' | '';
  tsMs: number;
}

export interface RecoveredKill {
  reason: string;
  source: string;
  tsMs: number;
}

const STATE_BY_NAME = new Map<string, OrderState>(ORDER_STATE_NAMES.map((name, code) => [name, code as OrderState]));

/** Reads a journal (missing file: an empty result) and rebuilds orders, fills and counters. Synchronous: start-up only. */
export function recover(journalPath: string): RecoveredJournal {
  const result: RecoveredJournal = {
    path: journalPath,
    lines: 0,
    badLines: 0,
    prefix: null,
    sessionEpochMsMax: 0,
    sessionEpochs: [],
    counterMax: 0,
    orders: [],
    fills: [],
    kill: null,
    quotes: [],
  };
  if (!existsSync(journalPath)) return result;
  const byId = new Map<string, RecoveredOrder>();
  const quotes = new Map<string, RecoveredQuote>();
  const text = readFileSync(journalPath, 'utf8');
  for (const line of text.split('\n')) {
    if (line.length === 0) continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      result.badLines++;
      continue;
    }
    if (record === null || typeof record !== 'object') {
      result.badLines++;
      continue;
    }
    result.lines++;
    if (record.k === JournalKind.QUOTE) applyQuoteLine(quotes, record);
    else applyLine(result, byId, record);
  }
  result.orders = [...byId.values()];
  result.quotes = [...quotes.values()];
  return result;
}

function num(value: unknown, fallback = 0): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function str(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
}

function applyLine(result: RecoveredJournal, byId: Map<string, RecoveredOrder>, r: Record<string, unknown>): void {
  const kind = r.k;
  const t = num(r.t);
  if (kind === JournalKind.SESSION) {
    result.prefix = str(r.prefix, result.prefix ?? '');
    result.sessionEpochMsMax = Math.max(result.sessionEpochMsMax, num(r.epoch));
    result.sessionEpochs?.push(num(r.epoch));
    result.counterMax = Math.max(result.counterMax, num(r.counter));
    return;
  }
  if (kind === JournalKind.KILL) {
    // Kill lines without a source were written by every normal stop before the stop and the kill
    // switch were told apart: they never meant "keep trading off".
    if (typeof r.source === 'string') result.kill = { reason: str(r.reason), source: r.source, tsMs: t };
    return;
  }
  if (kind === JournalKind.RELEASE) {
    result.kill = null;
    return;
  }
  if (kind === JournalKind.FILL) {
    result.fills.push({
      tradeId: str(r.tid),
      orderId: str(r.oid),
      clientOrderId: str(r.coid),
      ticker: str(r.ticker),
      side: r.side === 'ask' ? 'ask' : 'bid',
      price: num(r.px) as Price,
      count: num(r.cnt),
      feeCenticents: num(r.fee),
      postPosition: typeof r.post === 'number' ? r.post : null,
      subaccount: num(r.sub),
      isTaker: r.taker === true,
      tsMs: t,
    });
    return;
  }
  const coid = str(r.coid);
  if (coid === '') return;
  if (kind === JournalKind.INTENT) {
    const counter = num(r.n);
    result.counterMax = Math.max(result.counterMax, counter);
    const parsed = parseClientOrderId(coid);
    if (parsed !== null) {
      result.counterMax = Math.max(result.counterMax, parsed.counter);
      result.sessionEpochMsMax = Math.max(result.sessionEpochMsMax, parsed.sessionEpochMs);
    }
    const count = num(r.cnt);
    byId.set(coid, {
      clientOrderId: coid,
      counter,
      orderId: '',
      ticker: str(r.ticker),
      exchange: r.ex === 'margin' ? 'margin' : 'predictions',
      side: r.side === 'ask' ? 'ask' : 'bid',
      price: num(r.px) as Price,
      totalCount: count,
      filledCount: 0,
      remainingCount: count,
      state: OrderState.PENDING_NEW,
      timeInForce: (str(r.tif, 'good_till_canceled') as TimeInForce),
      postOnly: r.po === true,
      reduceOnly: r.ro === true,
      subaccount: num(r.sub),
      orderGroupId: typeof r.grp === 'string' ? r.grp : null,
      strategyId: num(r.strat),
      createdAtMs: t,
      lastEventMs: t,
    });
    return;
  }
  const order = byId.get(coid);
  if (order === undefined) return; // an event whose intent line was lost: nothing to rebuild it from
  if (typeof r.oid === 'string' && r.oid !== '') order.orderId = r.oid;
  const state = STATE_BY_NAME.get(str(r.st));
  if (state !== undefined) order.state = state;
  if (typeof r.px === 'number') order.price = r.px as Price;
  if (typeof r.tot === 'number') order.totalCount = r.tot;
  if (typeof r.fil === 'number') order.filledCount = r.fil;
  if (typeof r.rem === 'number') order.remainingCount = r.rem;
  order.lastEventMs = t;
}

const QUOTE_STATE_BY_NAME = new Map<string, QuoteState>(QUOTE_STATE_NAMES.map((name, code) => [name, code as QuoteState]));

/** A quote line: keyed by quote id once the venue gave one (the pending line of the same handle is dropped then). */
function applyQuoteLine(quotes: Map<string, RecoveredQuote>, r: Record<string, unknown>): void {
  const quoteId = str(r.qid);
  const rfqId = str(r.rfq);
  const pendingKey = `pending:${rfqId}:${num(r.h)}`;
  if (quoteId !== '') quotes.delete(pendingKey);
  const side = r.side === 'yes' || r.side === 'no' ? r.side : '';
  quotes.set(quoteId === '' ? pendingKey : quoteId, {
    quoteId,
    rfqId,
    ticker: str(r.ticker),
    state: QUOTE_STATE_BY_NAME.get(str(r.st)) ?? 0,
    yesBid: num(r.yes),
    noBid: num(r.no),
    count: num(r.cnt),
    subaccount: num(r.sub),
    strategyId: num(r.strat),
    postOnly: r.po === true,
    acceptedSide: side,
    tsMs: num(r.t),
  });
}

/**
 * The runtime's exit-trigger table (Margin exchange, interface-spec "Exit trigger rules"): one
 * record per stop-loss / take-profit bracket or trailing stop we set, keyed by client_trigger_id
 * (appending creates: count or anchor) or by (position, kind) for the whole-position trigger of a
 * kind, and by the venue's trigger id once known. `submit` runs the injected gate check, sends
 * through the venue port and records the answer; `reconcile` replaces the view of one position
 * from the venue's list; `triggerOfOrder` links a system order the venue fired (order_source
 * system, order_reason take_profit_stop_loss) to its trigger. Implements core's LiveTriggersView,
 * which the gate's trigger limits read.
 *
 * States follow the venue's status, plus two of our own for a write in flight (SENDING) and one
 * whose fate is unknown (UNCERTAIN). Status is not monotonic: an order-anchored trigger returns to
 * pending_on_entry after closing its current quantity while the anchor lives, and only a filled
 * trigger with no anchor_order_id is done. Live = neither done nor ended (failed, canceled, gone);
 * in-flight and uncertain writes count as live, so two concurrent submits cannot both pass the gate.
 *
 * The port (ExitTriggerVenue), the wire record and the error class live here, not in exec, for the
 * same reason as order-route.ts: exec implements the port and imports oms, never the reverse.
 * Off the hot path: async and allocation are fine. Never decides prices or whether to protect a
 * position (the strategy does), never checks limits itself (the gate does).
 */

import { COUNT_INVALID, PRICE_INVALID, TriggerAction, assert, unreachable } from '../core/index.ts';
import type { Count, ExitTriggerIntent, ExitTriggerKind, LiveTriggersView, Price } from '../core/index.ts';

// ---- the wire record and the port (implemented by src/exec/margin/exit-trigger-client.ts) ----

/** ExitTriggerStatus; 'unknown' also stands for a status this build does not know. */
export type ExitTriggerStatus = 'pending_on_entry' | 'active' | 'filled' | 'failed' | 'canceled' | 'unknown';
export type ExitTriggerLeg = 'stop_loss' | 'take_profit';

/** ExitTrigger as the venue reports it, in core units; absent fields are '' / PRICE_INVALID / 0. */
export interface WireExitTrigger {
  triggerId: string; // id
  ticker: string;
  kind: ExitTriggerKind;
  status: ExitTriggerStatus;
  statusReason: string; // ExitTriggerReason ('' when absent): user_canceled, position_closed, ...
  triggeredLeg: ExitTriggerLeg | null;
  /** Order placed the last time it fired; an anchored trigger keeps it after returning to pending_on_entry. */
  triggeredOrderId: string;
  /** Cleared by the venue once the anchor order is terminal. */
  anchorOrderId: string;
  clientTriggerId: string;
  stopLossPrice: Price;
  takeProfitPrice: Price;
  trailAmount: Price;
  trailBps: number; // 0: none
  watermarkPrice: Price;
  effectiveStopPrice: Price;
  /** Contracts it closes (1/100 units); 0: the whole position; anchored: the anchor's cumulative fill. */
  count: Count;
  filledCount: Count;
  createdTimeMs: number;
  updatedTimeMs: number;
}

/** The venue calls the table makes (ExitTriggerClient in src/exec/margin). Each rejects with ExitTriggerError. */
export interface ExitTriggerVenue {
  /** PUT .../exit_trigger (SET: a bracket or trailing stop; isolated or cross by intent.isolated). */
  set(ticker: string, intent: Readonly<ExitTriggerIntent>): Promise<WireExitTrigger>;
  /** PUT /margin/cross/positions/{ticker}/exit_trigger/{trigger_id}: one bracket's legs (PRICE_INVALID: cleared). */
  update(ticker: string, subaccount: number, triggerId: string, stopLossPrice: Price, takeProfitPrice: Price): Promise<WireExitTrigger>;
  /** DELETE .../exit_trigger[?kind=]: every live trigger of the position (of one kind when not null). */
  cancel(ticker: string, subaccount: number, isolated: boolean, kind: ExitTriggerKind | null): Promise<void>;
  /** DELETE /margin/cross/positions/{ticker}/exit_trigger/{trigger_id}: one bracket. */
  cancelById(ticker: string, subaccount: number, triggerId: string): Promise<void>;
  /** GET .../exit_trigger[?kind=]: the position's live triggers. */
  list(ticker: string, subaccount: number, isolated: boolean, kind: ExitTriggerKind | null): Promise<WireExitTrigger[]>;
}

/**
 * How a trigger write ended when it did not succeed:
 * - refused: not sent (a rule broken before sending, or the table is full); nothing written;
 * - rejected: the venue said no (4xx, incl. 429); nothing written;
 * - unknown: timeout, disconnect, 5xx or an unreadable 2xx; the write may have happened (reconcile).
 */
export type ExitTriggerOutcome = 'refused' | 'rejected' | 'unknown';

/** Venue codes the trigger routes are known to answer (the list is not closed: match on `code`). */
export const EXIT_TRIGGER_VENUE_CODES = Object.freeze({
  ANCHOR_ORDER_UNAVAILABLE: 'anchor_order_unavailable', // 409: anchor not validated now; nothing written, retry is safe
  CLIENT_TRIGGER_ID_USED: 'idempotency_key_already_used', // 409: client_trigger_id belongs to another position
  COUNT_EXCEEDS_POSITION: 'exit_trigger_count_exceeds_position', // 400: live brackets' counts would not fit the position
  CONFLICT: 'exit_trigger_conflict', // 409: whole vs partial brackets, or a second trailing stop
  LIMIT_REACHED: 'exit_trigger_limit_reached', // 409: 20 live brackets
  POSITION_NOT_FOUND: 'position_not_found', // 404: no position to protect
  NOT_FOUND: 'not_found', // 404: trigger id not live on the position
  BAD_REQUEST: 'bad_request', // 400: a field rule (shape)
});

export class ExitTriggerError extends Error {
  /** The venue's error code when it sent one; else an ExecErrorCode (no answer) or a refusal code. */
  readonly code: string;
  readonly status: number; // HTTP status, 0 when there was no answer
  readonly outcome: ExitTriggerOutcome;
  readonly details: string;
  constructor(outcome: ExitTriggerOutcome, code: string, message: string, status = 0, details = '') {
    super(message);
    this.name = 'ExitTriggerError';
    this.outcome = outcome;
    this.code = code;
    this.status = status;
    this.details = details;
  }
}

// ---- the table ----

/** A record's state: the venue's status, or ours while a write is in flight or its fate unknown. */
export const TriggerState = {
  SENDING: 0, //          sent, no answer yet (live: the gate counts it)
  UNCERTAIN: 1, //        the write's fate is unknown (timeout, 5xx): live until reconcile says otherwise
  PENDING_ON_ENTRY: 2, // awaiting (further) anchor fills; can follow ACTIVE
  ACTIVE: 3, //           evaluated against the mark
  FILLED: 4, //           done only when anchorOrderId is '' (an anchored one may return to pending)
  FAILED: 5, //           its order was rejected (terminal)
  CANCELED: 6, //         by us, position closed or flipped, entry not filled (terminal)
  GONE: 7, //             no longer listed by the venue, not told how it ended (terminal)
  UNKNOWN: 8, //          the venue reports 'unknown' (live: never assume a trigger gone)
} as const;
export type TriggerState = (typeof TriggerState)[keyof typeof TriggerState];

export const TRIGGER_STATE_NAMES: Readonly<Record<TriggerState, string>> = Object.freeze({
  [TriggerState.SENDING]: 'sending',
  [TriggerState.UNCERTAIN]: 'uncertain',
  [TriggerState.PENDING_ON_ENTRY]: 'pending_on_entry',
  [TriggerState.ACTIVE]: 'active',
  [TriggerState.FILLED]: 'filled',
  [TriggerState.FAILED]: 'failed',
  [TriggerState.CANCELED]: 'canceled',
  [TriggerState.GONE]: 'gone',
  [TriggerState.UNKNOWN]: 'unknown',
});

const STATE_OF_STATUS: Readonly<Record<ExitTriggerStatus, TriggerState>> = Object.freeze({
  pending_on_entry: TriggerState.PENDING_ON_ENTRY,
  active: TriggerState.ACTIVE,
  filled: TriggerState.FILLED,
  failed: TriggerState.FAILED,
  canceled: TriggerState.CANCELED,
  unknown: TriggerState.UNKNOWN,
});

/** One trigger as the table knows it. Fields are the last answer's; the table alone writes them. */
export class TrackedTrigger {
  readonly seq: number;
  /** client_trigger_id key (appending creates) or the whole-position key of its kind. */
  readonly key: string;
  readonly market: number; // registry index, -1 when the ticker is not registered
  readonly ticker: string;
  readonly subaccount: number;
  readonly isolated: boolean;
  readonly kind: ExitTriggerKind;
  readonly clientTriggerId: string; // '' for a whole-position trigger
  /** Ever anchored (its count follows the anchor's fills; the venue keeps it out of the count-fit rule). */
  anchored: boolean;
  strategyId: number;
  triggerId = ''; // '' until the venue answered
  state: TriggerState = TriggerState.SENDING;
  statusReason = '';
  triggeredLeg: ExitTriggerLeg | null = null;
  triggeredOrderId = '';
  anchorOrderId = '';
  stopLossPrice: Price = PRICE_INVALID;
  takeProfitPrice: Price = PRICE_INVALID;
  trailAmount: Price = PRICE_INVALID;
  trailBps = 0;
  /** 0: the whole position (venue convention); COUNT_INVALID never (an intent's "whole" is sent as absent). */
  count: Count = 0 as Count;
  filledCount: Count = 0 as Count;
  updatedTimeMs = 0;
  /** triggeredOrderId was inferred by linkOrder (the venue never showed it). */
  orderLinkInferred = false;

  constructor(seq: number, key: string, market: number, ticker: string, subaccount: number, isolated: boolean, kind: ExitTriggerKind, clientTriggerId: string, anchored: boolean, strategyId: number) {
    this.seq = seq;
    this.key = key;
    this.market = market;
    this.ticker = ticker;
    this.subaccount = subaccount;
    this.isolated = isolated;
    this.kind = kind;
    this.clientTriggerId = clientTriggerId;
    this.anchored = anchored;
    this.strategyId = strategyId;
  }

  /** Whole-position trigger (no count, no anchor). */
  get whole(): boolean {
    return this.clientTriggerId === '';
  }

  /** Done: filled with no anchor left (interface-spec: the only done state of an anchored trigger). */
  get done(): boolean {
    return this.state === TriggerState.FILLED && this.anchorOrderId === '';
  }

  /** Ended without being done: failed, canceled, or no longer listed. */
  get ended(): boolean {
    return this.state === TriggerState.FAILED || this.state === TriggerState.CANCELED || this.state === TriggerState.GONE;
  }

  get live(): boolean {
    return !this.done && !this.ended;
  }
}

/** Gate check, RiskGate.checkTrigger's shape: a deny code, 0 (Deny.NONE) when allowed. */
export type TriggerGate = (intent: Readonly<ExitTriggerIntent>, live: LiveTriggersView) => number;

/** What the table needs of the market registry (MarketRegistry fits). */
export interface TriggerMarkets {
  tickerAt(index: number): string;
  indexOf(ticker: string): number;
}

export interface ExitTriggerTableOptions {
  venue: ExitTriggerVenue;
  gate: TriggerGate;
  markets: TriggerMarkets;
  /** Absolute position (1/100 contracts) of a slot: what a whole-position bracket counts as in bracketCountSum. */
  positionOf: (market: number, subaccount: number, isolated: boolean) => number;
  /** Records kept (live and finished); finished ones are evicted first. */
  capacity: number;
}

export const EXIT_TRIGGER_TABLE_DEFAULTS = Object.freeze({ capacity: 4_096 });

/** submit's answer: denied by the gate (deny > 0, nothing sent), or the record and the error if any. */
export interface TriggerSubmitResult {
  deny: number;
  /** The trigger the write concerns (null when denied, refused, or a rejected create left none). */
  record: Readonly<TrackedTrigger> | null;
  error: ExitTriggerError | null;
}

export interface ExitTriggerTableStats {
  submitted: number;
  denied: number;
  rejected: number;
  uncertain: number;
  evictedFinished: number;
  /** Live records evicted by reconcile answers when the table was full of live ones (raise capacity). */
  evictedLive: number;
}

const SEP = '\u0000';

function positionKey(ticker: string, subaccount: number, isolated: boolean): string {
  return `${ticker}${SEP}${subaccount}${SEP}${isolated ? 'i' : 'c'}`;
}

function wholeKey(ticker: string, subaccount: number, isolated: boolean, kind: ExitTriggerKind): string {
  return `w${SEP}${positionKey(ticker, subaccount, isolated)}${SEP}${kind}`;
}

/** client_trigger_id is single-use per account: the key alone names the trigger. */
function clientKey(clientTriggerId: string): string {
  return `c${SEP}${clientTriggerId}`;
}

export class ExitTriggerTable implements LiveTriggersView {
  readonly stats: ExitTriggerTableStats = { submitted: 0, denied: 0, rejected: 0, uncertain: 0, evictedFinished: 0, evictedLive: 0 };
  readonly #options: ExitTriggerTableOptions;
  /** Every record by seq, in creation order (eviction order among live ones). */
  readonly #all = new Map<number, TrackedTrigger>();
  /** Finished (done or ended) records in the order they finished: evicted first. */
  readonly #finished = new Map<number, TrackedTrigger>();
  readonly #byKey = new Map<string, TrackedTrigger>();
  readonly #byTriggerId = new Map<string, TrackedTrigger>();
  readonly #byPosition = new Map<string, Set<TrackedTrigger>>();
  readonly #byOrderId = new Map<string, TrackedTrigger>();
  readonly #orderIdsOf = new Map<TrackedTrigger, string[]>();
  #seq = 0;

  constructor(options: ExitTriggerTableOptions) {
    assert(Number.isSafeInteger(options.capacity) && options.capacity >= 1, 'ExitTriggerTable: capacity must be a positive integer');
    this.#options = options;
  }

  get size(): number {
    return this.#all.size;
  }

  // ---- LiveTriggersView (the gate's reads) ----

  bracketCount(market: number, subaccount: number, isolated: boolean): number {
    let n = 0;
    for (const record of this.#ofPosition(market, subaccount, isolated)) if (record.kind === 'bracket' && record.live) n++;
    return n;
  }

  /**
   * Sum of the live brackets' counts still to close (count - filled), as the venue's fit rule
   * counts them: a whole-position bracket counts as the position; anchored brackets are left out
   * (their size follows the anchor's fills, the venue does not fit them to the position).
   */
  bracketCountSum(market: number, subaccount: number, isolated: boolean): number {
    let sum = 0;
    for (const record of this.#ofPosition(market, subaccount, isolated)) {
      if (record.kind !== 'bracket' || !record.live || record.anchored) continue;
      if (record.whole) sum += Math.abs(this.#options.positionOf(market, subaccount, isolated));
      else sum += Math.max(0, record.count - record.filledCount);
    }
    return sum;
  }

  trailingCount(market: number, subaccount: number, isolated: boolean): number {
    let n = 0;
    for (const record of this.#ofPosition(market, subaccount, isolated)) if (record.kind === 'trailing' && record.live) n++;
    return n;
  }

  // ---- reads ----

  byTriggerId(triggerId: string): Readonly<TrackedTrigger> | null {
    return this.#byTriggerId.get(triggerId) ?? null;
  }

  byClientTriggerId(clientTriggerId: string): Readonly<TrackedTrigger> | null {
    return this.#byKey.get(clientKey(clientTriggerId)) ?? null;
  }

  /** The whole-position trigger of a kind the table last knew for the position (live or not). */
  wholeOf(ticker: string, subaccount: number, isolated: boolean, kind: ExitTriggerKind): Readonly<TrackedTrigger> | null {
    return this.#byKey.get(wholeKey(ticker, subaccount, isolated, kind)) ?? null;
  }

  /** Records of one position, in creation order. */
  triggersOf(ticker: string, subaccount: number, isolated: boolean): Readonly<TrackedTrigger>[] {
    return [...(this.#byPosition.get(positionKey(ticker, subaccount, isolated)) ?? [])].sort((a, b) => a.seq - b.seq);
  }

  /**
   * The trigger that fired `orderId` (a system order with order_reason take_profit_stop_loss), or
   * null when no answer or reconcile has shown it yet: the OMS then reconciles the order's position
   * and asks again. Every triggered_order_id seen is kept (an anchored trigger fires more than once).
   */
  triggerOfOrder(orderId: string): Readonly<TrackedTrigger> | null {
    return this.#byOrderId.get(orderId) ?? null;
  }

  // ---- writes ----

  /** Gate, then the venue, then the answer recorded. Never throws for a venue outcome: see the result. */
  async submit(intent: Readonly<ExitTriggerIntent>): Promise<TriggerSubmitResult> {
    const deny = this.#options.gate(intent, this);
    if (deny !== 0) {
      this.stats.denied++;
      return { deny, record: null, error: null };
    }
    this.stats.submitted++;
    const ticker = this.#options.markets.tickerAt(intent.market);
    switch (intent.action) {
      case TriggerAction.SET:
        return this.#set(ticker, intent);
      case TriggerAction.UPDATE:
        return this.#update(ticker, intent);
      case TriggerAction.DELETE:
        return this.#delete(ticker, intent);
      default:
        return unreachable(intent.action);
    }
  }

  /**
   * Links a system order with order_reason take_profit_stop_loss to its trigger: exact when an
   * answer showed its triggered_order_id; else the position is reconciled (cross, and isolated for
   * subaccount 0) and, if that does not show it, the one trigger of the position that left the
   * venue's list unclaimed is taken (orderLinkInferred). The venue's order names no trigger and
   * GET lists live triggers only, so a trigger that closed in full is never seen with its order:
   * inference is the only way, and it gives null when ambiguous (two triggers ended unclaimed,
   * e.g. a bracket filled and the trailing stop cancelled as position_closed). Rejects with
   * ExitTriggerError when a list call fails.
   */
  async linkOrder(orderId: string, ticker: string, subaccount: number): Promise<Readonly<TrackedTrigger> | null> {
    const known = this.#byOrderId.get(orderId);
    if (known !== undefined) return known;
    await this.reconcile(ticker, subaccount, false);
    if (subaccount === 0) await this.reconcile(ticker, subaccount, true);
    const after = this.#byOrderId.get(orderId);
    if (after !== undefined) return after;
    let candidate: TrackedTrigger | null = null;
    for (const isolated of subaccount === 0 ? [false, true] : [false]) {
      for (const record of this.#byPosition.get(positionKey(ticker, subaccount, isolated)) ?? []) {
        if (record.state !== TriggerState.GONE || record.orderLinkInferred) continue;
        if (candidate !== null) return null; // ambiguous
        candidate = record;
      }
    }
    if (candidate === null) return null;
    candidate.orderLinkInferred = true;
    candidate.triggeredOrderId = orderId;
    this.#linkOrder(candidate, orderId);
    return candidate;
  }

  /**
   * GET the position's live triggers and make the table agree: listed ones updated or adopted
   * (strategyId -1), unlisted live ones GONE (the venue lists live triggers only and does not say
   * how they ended). Rejects with ExitTriggerError when the list fails (the table is unchanged).
   */
  async reconcile(ticker: string, subaccount: number, isolated: boolean): Promise<Readonly<TrackedTrigger>[]> {
    const listed = await this.#options.venue.list(ticker, subaccount, isolated, null);
    const seen = new Set<TrackedTrigger>();
    for (const wire of listed) seen.add(this.#record(wire, subaccount, isolated, -1));
    for (const record of [...(this.#byPosition.get(positionKey(ticker, subaccount, isolated)) ?? [])]) {
      // A write in flight may not have reached the venue yet: its answer will settle it.
      if (seen.has(record) || record.state === TriggerState.SENDING || !record.live) continue;
      this.#setState(record, TriggerState.GONE);
    }
    return [...seen];
  }

  // ---- internals ----

  async #set(ticker: string, intent: Readonly<ExitTriggerIntent>): Promise<TriggerSubmitResult> {
    const appending = intent.count !== COUNT_INVALID || intent.anchorOrderId !== '';
    const key = appending ? clientKey(intent.clientTriggerId) : wholeKey(ticker, intent.subaccount, intent.isolated, intent.kind);
    const existing = this.#byKey.get(key);
    // A replayed client_trigger_id or a live whole-position trigger: the venue answers with that
    // trigger, so no new record (the answer updates the existing one).
    let created: TrackedTrigger | null = null;
    if (existing === undefined || (!appending && !existing.live)) {
      created = this.#add(key, intent.market, ticker, intent.subaccount, intent.isolated, intent.kind, appending ? intent.clientTriggerId : '', intent.anchorOrderId !== '', intent.strategyId);
      if (created === null) return { deny: 0, record: null, error: new ExitTriggerError('refused', 'trigger_table_full', 'not sent: the trigger table is full of live triggers') };
    }
    try {
      const wire = await this.#options.venue.set(ticker, intent);
      const record = this.#record(wire, intent.subaccount, intent.isolated, intent.strategyId, created);
      return { deny: 0, record, error: null };
    } catch (error) {
      // A replay's error (e.g. the key used on another position) leaves the existing record as it was.
      return { deny: 0, record: this.#failed(error, created), error: asTriggerError(error) };
    }
  }

  async #update(ticker: string, intent: Readonly<ExitTriggerIntent>): Promise<TriggerSubmitResult> {
    try {
      const wire = await this.#options.venue.update(ticker, intent.subaccount, intent.triggerId, intent.stopLossPrice, intent.takeProfitPrice);
      return { deny: 0, record: this.#record(wire, intent.subaccount, false, intent.strategyId), error: null };
    } catch (error) {
      this.#count(error);
      return { deny: 0, record: this.#byTriggerId.get(intent.triggerId) ?? null, error: asTriggerError(error) };
    }
  }

  async #delete(ticker: string, intent: Readonly<ExitTriggerIntent>): Promise<TriggerSubmitResult> {
    const byId = intent.triggerId !== '';
    try {
      if (byId) await this.#options.venue.cancelById(ticker, intent.subaccount, intent.triggerId);
      else await this.#options.venue.cancel(ticker, intent.subaccount, intent.isolated, intent.kind);
    } catch (error) {
      this.#count(error);
      return { deny: 0, record: byId ? this.#byTriggerId.get(intent.triggerId) ?? null : null, error: asTriggerError(error) };
    }
    let last: TrackedTrigger | null = null;
    if (byId) {
      last = this.#byTriggerId.get(intent.triggerId) ?? null;
      if (last !== null && last.live) this.#cancelled(last);
    } else {
      for (const record of [...(this.#byPosition.get(positionKey(ticker, intent.subaccount, intent.isolated)) ?? [])]) {
        // An in-flight create may land after the DELETE: leave it to its answer (or reconcile).
        if (record.kind !== intent.kind || !record.live || record.state === TriggerState.SENDING) continue;
        this.#cancelled(record);
        last = record;
      }
    }
    return { deny: 0, record: last, error: null };
  }

  #cancelled(record: TrackedTrigger): void {
    record.statusReason = 'user_canceled';
    this.#setState(record, TriggerState.CANCELED);
  }

  /** A failed write: a rejected create leaves no record; an unknown one stays UNCERTAIN (live). */
  #failed(error: unknown, created: TrackedTrigger | null): TrackedTrigger | null {
    const outcome = this.#count(error);
    if (created === null) return null;
    if (outcome === 'unknown') {
      this.#setState(created, TriggerState.UNCERTAIN);
      return created;
    }
    this.#remove(created);
    return null;
  }

  #count(error: unknown): ExitTriggerOutcome {
    const outcome = asTriggerError(error).outcome;
    if (outcome === 'unknown') this.stats.uncertain++;
    else this.stats.rejected++;
    return outcome;
  }

  /**
   * Records a venue answer: found by trigger id, else by its key (client_trigger_id, or the
   * whole-position key of its kind), else adopted as a new record. A whole-position key that now
   * names another trigger id (the venue replaced it: position flipped, or the old one finished)
   * moves to the new record.
   */
  #record(wire: WireExitTrigger, subaccount: number, isolated: boolean, strategyId: number, created: TrackedTrigger | null = null): TrackedTrigger {
    const key = wire.clientTriggerId !== '' ? clientKey(wire.clientTriggerId) : wholeKey(wire.ticker, subaccount, isolated, wire.kind);
    let record = this.#byTriggerId.get(wire.triggerId) ?? null;
    if (record === null) {
      const keyed = created ?? this.#byKey.get(key) ?? null;
      if (keyed !== null && (keyed.triggerId === '' || keyed.triggerId === wire.triggerId)) record = keyed;
      else {
        if (keyed !== null && keyed.live) this.#setState(keyed, TriggerState.GONE); // replaced by the venue
        if (created !== null && created !== keyed) this.#remove(created);
        record = this.#add(key, this.#options.markets.indexOf(wire.ticker), wire.ticker, subaccount, isolated, wire.kind, wire.clientTriggerId, wire.anchorOrderId !== '', strategyId, true)!;
      }
    } else if (created !== null && created !== record) {
      this.#remove(created); // answered with a trigger we already hold
    }
    if (record.triggerId === '') {
      record.triggerId = wire.triggerId;
      this.#byTriggerId.set(wire.triggerId, record);
    }
    this.#byKey.set(key, record);
    this.#apply(record, wire);
    return record;
  }

  #apply(record: TrackedTrigger, wire: WireExitTrigger): void {
    record.statusReason = wire.statusReason;
    record.triggeredLeg = wire.triggeredLeg;
    record.anchorOrderId = wire.anchorOrderId;
    if (wire.anchorOrderId !== '') record.anchored = true;
    record.stopLossPrice = wire.stopLossPrice;
    record.takeProfitPrice = wire.takeProfitPrice;
    record.trailAmount = wire.trailAmount;
    record.trailBps = wire.trailBps;
    record.count = wire.count;
    record.filledCount = wire.filledCount;
    record.updatedTimeMs = wire.updatedTimeMs;
    if (wire.triggeredOrderId !== '' && wire.triggeredOrderId !== record.triggeredOrderId) {
      record.triggeredOrderId = wire.triggeredOrderId;
      this.#linkOrder(record, wire.triggeredOrderId);
    }
    this.#setState(record, STATE_OF_STATUS[wire.status]);
  }

  #linkOrder(record: TrackedTrigger, orderId: string): void {
    if (this.#byOrderId.has(orderId)) return;
    this.#byOrderId.set(orderId, record);
    const ids = this.#orderIdsOf.get(record);
    if (ids === undefined) this.#orderIdsOf.set(record, [orderId]);
    else ids.push(orderId);
  }

  /** State change; keeps the finished index (FILLED with an anchor is not finished: it may re-arm). */
  #setState(record: TrackedTrigger, state: TriggerState): void {
    record.state = state;
    if (record.live) this.#finished.delete(record.seq);
    else if (!this.#finished.has(record.seq)) this.#finished.set(record.seq, record);
  }

  /** A new record; null when the table is full of live records and `force` is false (a submit). */
  #add(key: string, market: number, ticker: string, subaccount: number, isolated: boolean, kind: ExitTriggerKind, clientTriggerId: string, anchored: boolean, strategyId: number, force = false): TrackedTrigger | null {
    if (this.#all.size >= this.#options.capacity && !this.#evictOne(force)) return null;
    const record = new TrackedTrigger(++this.#seq, key, market, ticker, subaccount, isolated, kind, clientTriggerId, anchored, strategyId);
    this.#all.set(record.seq, record);
    this.#byKey.set(key, record);
    const position = positionKey(ticker, subaccount, isolated);
    let set = this.#byPosition.get(position);
    if (set === undefined) this.#byPosition.set(position, (set = new Set()));
    set.add(record);
    return record;
  }

  /** Evicts the oldest finished record, else (only when `live` is allowed) the oldest record. */
  #evictOne(live: boolean): boolean {
    for (const record of this.#finished.values()) {
      this.#remove(record);
      this.stats.evictedFinished++;
      return true;
    }
    if (!live) return false;
    for (const record of this.#all.values()) {
      this.#remove(record);
      this.stats.evictedLive++;
      return true;
    }
    return false;
  }

  #remove(record: TrackedTrigger): void {
    this.#all.delete(record.seq);
    this.#finished.delete(record.seq);
    if (this.#byKey.get(record.key) === record) this.#byKey.delete(record.key);
    if (record.triggerId !== '' && this.#byTriggerId.get(record.triggerId) === record) this.#byTriggerId.delete(record.triggerId);
    const position = positionKey(record.ticker, record.subaccount, record.isolated);
    const set = this.#byPosition.get(position);
    if (set !== undefined) {
      set.delete(record);
      if (set.size === 0) this.#byPosition.delete(position);
    }
    for (const orderId of this.#orderIdsOf.get(record) ?? []) this.#byOrderId.delete(orderId);
    this.#orderIdsOf.delete(record);
  }

  #ofPosition(market: number, subaccount: number, isolated: boolean): Iterable<TrackedTrigger> {
    if (market < 0) return [];
    return this.#byPosition.get(positionKey(this.#options.markets.tickerAt(market), subaccount, isolated)) ?? [];
  }
}

/** Anything a venue port threw, as an ExitTriggerError (a non-coded throw is an unknown outcome). */
function asTriggerError(error: unknown): ExitTriggerError {
  if (error instanceof ExitTriggerError) return error;
  return new ExitTriggerError('unknown', 'EXEC_BAD_RESPONSE', `exit trigger venue call failed: ${(error as Error)?.message ?? String(error)}`);
}

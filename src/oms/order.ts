/**
 * One order as the OMS tracks it: identity, the immutable request, the venue-reported counts and
 * the mutable state (changed only through transitions.ts). It is also the record a route encodes
 * (it satisfies the port's NewOrder), so an intent is copied into exactly one record. Every field
 * is assigned in the constructor (one hidden class). Records are pooled (order-pool.ts): `reinit`
 * makes one a new order, and `generation` counts its reuses. Its identity fields are therefore
 * writable here, and read-only everywhere else (`Readonly<Order>`, OrderView). This file owns the
 * record and the fill arithmetic on it; it never sends, journals or decides a state.
 *
 * Fill arithmetic. Fill messages and aggregate reports (create/amend acks, user_order, listOrders)
 * race each other, so both are kept:
 *   fillSum      sum of the de-duplicated fill messages
 *   venueFilled  highest fill count an aggregate reported
 *   filled       max(fillSum, venueFilled)
 * An aggregate (F, R) sets remaining = R valid at F fills; a later fill lowers remaining only by
 * what it adds beyond `filled`, so a fill already counted in an ack is never subtracted twice.
 */

import { DOUBLE_ZERO, type BookSide, type Count, type Exchange, type Price, type TimeInForce } from '../core/index.ts';
import { OrderState } from './order-state.ts';
import type { SelfTradePrevention } from './order-route.ts';
import type { ClientOrderIds } from './client-order-ids.ts';
import { VenueIdStore } from './venue-order-ids.ts';

export class Order {
  /** Dense number among the orders the OMS tracks (reused once one is forgotten); the gate books by it. */
  readonly slot: number;
  /** The id as text: given (an order of an earlier session, adopted, reserved), or made from `ids` and `counter` when first asked for. */
  #clientOrderId = '';
  /**
   * The session's id maker when the id is this session's `<head><counter>` and its string need not
   * exist: requests and the journal write its bytes (writeClientOrderId), the OMS finds the order
   * by its counter, and `clientOrderId` makes the string only when something reads it.
   */
  ids: ClientOrderIds | null = null;
  counter = 0;
  /**
   * Where the venue's order id is kept: the pool's store (one flat byte array for every record's
   * id, venue-order-ids.ts) at `venueIdSlot`, as bytes when storable; the text is made from the
   * bytes when first read. A record made outside a pool has a store of its own.
   */
  readonly #venueIds: VenueIdStore;
  readonly venueIdSlot: number;
  ticker = '';
  /** Market index; -1 for an order recovered from the journal (the gate finds it by ticker). */
  market = -1;
  side: BookSide = 'bid';
  price = DOUBLE_ZERO as Price;
  /** Current total size: initial count, changed by amend and decrease (1/100 contract). */
  totalCount = DOUBLE_ZERO;
  fillSum = DOUBLE_ZERO;
  venueFilled = DOUBLE_ZERO;
  filledCount = DOUBLE_ZERO;
  remainingCount = DOUBLE_ZERO;
  state: OrderState = OrderState.PENDING_NEW;
  timeInForce: TimeInForce = 'good_till_canceled';
  postOnly = false;
  reduceOnly = false;
  selfTradePrevention: SelfTradePrevention = 'taker_at_cross';
  /** Unix seconds, 0 = none (the wire's expiration_ts). */
  readonly expirationTs = 0;
  /** Times this record was handed back to its pool (order-pool.ts): a holder compares it to tell its order from a later one in the same record. */
  generation = 0;
  subaccount = 0;
  orderGroupId: string | null = null;
  /** The intent's order-group handle, -1 when none or recovered (the gate finds it by id). */
  groupHandle = -1;
  strategyId = 0;
  createdAtMs = DOUBLE_ZERO;
  /** When the last request for this order was sent (pending timeout). */
  sentAtMs = DOUBLE_ZERO;
  lastEventMs = DOUBLE_ZERO;
  /** When the order last entered UNKNOWN (the grace period runs from here). */
  unknownSinceMs = DOUBLE_ZERO;
  /** Amend in flight: target price and resting count. */
  pendingPrice = DOUBLE_ZERO as Price;
  pendingCount = DOUBLE_ZERO;
  /** The total (filled + resting) the last amend asked for, 1/100 contract: an ack short of it with nothing left was closed, not filled. */
  pendingTotal = DOUBLE_ZERO;
  /** A cancel asked for while it could not be sent (no order id yet, or another request pending). */
  cancelWanted = false;
  /** Ask the venue about this order at the next reconciliation (unknown fate or a missing table pair). */
  needsReconcile = false;
  /** Table pairs that were missing for this order (logged). */
  anomalies = 0;
  fees = DOUBLE_ZERO;
  /** The order-entry route it went out on (the router's index); every later request for it takes the same one. */
  route = 0;
  /** The exchange it trades on (its route's): reconciliation reads that exchange. */
  exchange: Exchange = 'predictions';
  /** When it last became terminal (the OMS forgets it terminalRetentionMs later). */
  terminalAtMs = DOUBLE_ZERO;
  /** Waiting in the OMS's queue of changes to report to its strategy. */
  updateQueued = false;
  /** In the OMS's list of live orders (live-orders.ts), and its neighbours there. */
  inLive = false;
  livePrev: Order | null = null;
  liveNext: Order | null = null;

  /** A blank record for `slot` (order-pool.ts, which passes its store of venue ids); reinit makes it an order. */
  constructor(slot: number, venueIds: VenueIdStore | null = null) {
    this.slot = slot;
    this.#venueIds = venueIds ?? new VenueIdStore(1);
    this.venueIdSlot = venueIds === null ? 0 : slot;
    this.#venueIds.ensure(this.venueIdSlot);
  }

  /**
   * The record made a new order (order-pool.ts reuses it): every field the constructor and the
   * field initialisers set, set again, so nothing of the order it held before remains. The slot
   * stays the record's. Returns the record.
   */
  reinit(
    clientOrderId: string,
    counter: number,
    ticker: string,
    market: number,
    side: BookSide,
    price: Price,
    count: number,
    timeInForce: TimeInForce,
    postOnly: boolean,
    reduceOnly: boolean,
    selfTradePrevention: SelfTradePrevention,
    subaccount: number,
    orderGroupId: string | null,
    groupHandle: number,
    strategyId: number,
    nowMs: number,
    ids: ClientOrderIds | null = null,
  ): this {
    this.#clientOrderId = clientOrderId;
    this.ids = clientOrderId === '' ? ids : null;
    this.counter = counter;
    this.#venueIds.clear(this.venueIdSlot);
    this.ticker = ticker;
    this.market = market;
    this.side = side;
    this.price = price;
    this.totalCount = count;
    this.fillSum = 0;
    this.venueFilled = 0;
    this.filledCount = 0;
    this.remainingCount = count;
    this.state = OrderState.PENDING_NEW;
    this.timeInForce = timeInForce;
    this.postOnly = postOnly;
    this.reduceOnly = reduceOnly;
    this.selfTradePrevention = selfTradePrevention;
    this.subaccount = subaccount;
    this.orderGroupId = orderGroupId;
    this.groupHandle = groupHandle;
    this.strategyId = strategyId;
    this.createdAtMs = nowMs;
    this.sentAtMs = nowMs;
    this.lastEventMs = nowMs;
    this.unknownSinceMs = 0;
    this.pendingPrice = price;
    this.pendingCount = 0;
    this.pendingTotal = 0;
    this.cancelWanted = false;
    this.needsReconcile = false;
    this.anomalies = 0;
    this.fees = 0;
    this.route = 0;
    this.exchange = 'predictions';
    this.terminalAtMs = 0;
    this.updateQueued = false;
    this.inLive = false;
    this.livePrev = null;
    this.liveNext = null;
    return this;
  }

  /**
   * A venue aggregate: `filled` fills so far and `remaining` resting, consistent with each other.
   * `closed` when the venue closed the order (cancel, IOC rest): the total then stays what it was,
   * so a closed order with fills is not mistaken for a complete one.
   */
  applyAggregate(filled: number, remaining: number, closed: boolean): void {
    if (filled > this.venueFilled) this.venueFilled = filled;
    if (this.venueFilled > this.filledCount) this.filledCount = this.venueFilled;
    // The aggregate's remaining is valid at `filled`; fills we counted beyond it still apply.
    const beyond = this.filledCount - filled;
    const left = remaining - (beyond > 0 ? beyond : 0);
    this.remainingCount = left > 0 ? left : 0;
    if (!closed) this.totalCount = this.filledCount + this.remainingCount;
    else if (this.filledCount > this.totalCount) this.totalCount = this.filledCount;
  }

  /** A new (de-duplicated) fill message of `count`. Returns the count it added beyond what aggregates already reported. */
  applyFill(count: number): number {
    this.fillSum += count;
    const before = this.filledCount;
    if (this.fillSum > this.filledCount) this.filledCount = this.fillSum;
    const added = this.filledCount - before;
    const left = this.remainingCount - added;
    this.remainingCount = left > 0 ? left : 0;
    if (this.filledCount > this.totalCount) this.totalCount = this.filledCount;
    return added;
  }

  /** The client order id as text, made here the first time it is asked for (one string per order at most; none on the order path). */
  get clientOrderId(): string {
    if (this.#clientOrderId === '' && this.ids !== null) this.#clientOrderId = this.ids.format(this.counter);
    return this.#clientOrderId;
  }

  /**
   * NewOrder's byte writer: this session's id written at `at` from the head and the counter (the
   * characters need no JSON escape), the offset after them; -1 when the id is text of elsewhere
   * (the caller writes `clientOrderId` as a JSON string).
   */
  writeClientOrderId(out: Buffer, at: number): number {
    return this.ids === null ? -1 : this.ids.writeInto(out, at, this.counter);
  }

  /** The venue's order id as text ('' before the venue named the order), made from its bytes the first time it is asked for. */
  get orderId(): string {
    return this.#venueIds.text(this.venueIdSlot);
  }

  /** Whether the venue has named the order (no string made). */
  get hasOrderId(): boolean {
    return this.#venueIds.length(this.venueIdSlot) !== 0;
  }

  /** The venue's id given as text (a feed message, a read, the journal): kept as bytes too when storable; '' clears it. */
  setOrderIdText(text: string): void {
    this.#venueIds.setText(this.venueIdSlot, text);
  }

  /** The venue's id given as bytes (an answer read off the wire): copied, no string made; false (nothing set) when not storable. */
  setOrderIdBytes(source: Uint8Array, start: number, end: number): boolean {
    return this.#venueIds.setBytes(this.venueIdSlot, source, start, end);
  }

  /** The port's VenueOrderRef writer: the id's characters (no quotes; no JSON escape needed) at `at`, the offset after them; -1 when it is text only or not known. */
  writeOrderId(out: Uint8Array, at: number): number {
    return this.#venueIds.write(this.venueIdSlot, out, at);
  }

  /** Whether the venue's id is `text` (no string made). */
  orderIdIs(text: string): boolean {
    return this.#venueIds.is(this.venueIdSlot, text);
  }

  /** Whether the venue's id is the Latin-1 text of bytes[start, end). */
  orderIdIsBytes(source: Uint8Array, start: number, end: number): boolean {
    return this.#venueIds.isBytes(this.venueIdSlot, source, start, end);
  }

  /** The hash VenueIdIndex keeps the order under (venue-order-ids.ts); the id must be known. */
  venueIdHash(): number {
    return this.#venueIds.hash(this.venueIdSlot);
  }

  /** The handle a strategy may keep instead of the id's text: the counter of an order this session placed, 0 for any other. */
  get handle(): number {
    return this.ids === null ? 0 : this.counter;
  }

  /** The count a create sends (the port's NewOrder.count): the total, which is the initial count until an answer arrives. */
  get count(): Count {
    return this.totalCount as Count;
  }

  /** Complete: every contract of the current total is filled. */
  get complete(): boolean {
    return this.filledCount >= this.totalCount && this.totalCount > 0;
  }
}

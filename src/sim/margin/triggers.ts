/**
 * Exit triggers on Margin positions (interface-spec.md "Exit trigger rules", margin-api.openapi.yaml
 * ExitTrigger): stop-loss / take-profit brackets and trailing stops, evaluated against the engine's
 * mark after every settle pass (the engine calls `evaluate` once marks are current).
 *
 * Slots: a trigger belongs to one position slot, `cross` (user, subaccount, ticker) or `isolated`.
 * The simulator has no isolated margin mode (the seed gives no way to open one), so the isolated
 * slot watches the caller's primary-subaccount position with the isolated rules: one trigger per
 * kind, always closing in full, no count / anchor / client_trigger_id.
 *
 * Rules (cross): up to 20 live brackets whose counts fit the position, one live trailing stop; a
 * write without count or anchor upserts the whole-position trigger of its kind; a write with count
 * or anchor_order_id appends and needs client_trigger_id (replay returns the first result, the key
 * on another position is 409); an anchor that cannot be validated is 409 anchor_order_unavailable
 * before anything is written. Order-anchored brackets size to the anchor's cumulative fill: pending
 * until it fills, active while fills are unprotected, back to pending after closing them while the
 * anchor lives; the anchor is cleared when it reaches a terminal state, and only then can the
 * trigger be `filled`.
 *
 * Firing: a reduce-only IOC system order (order_reason take_profit_stop_loss) against the book,
 * priced 50% through the mark like liquidations, with self-trade prevention taker_at_cross so a
 * trigger never cancels the owner's resting orders. A trigger waits while the side it would hit
 * is empty; a partial close stays active and fires again at the next evaluation.
 *
 * Memory: a trigger that ends (filled, failed, canceled) leaves the live list at the next prune
 * and joins a ring of the last TERMINAL_TRIGGERS_RETAINED ended triggers (an engine option); the
 * one it displaces is forgotten, by id and by client_trigger_id. No route reads an ended trigger by
 * id (the spec's GETs list live triggers only); the ring serves client_trigger_id replays, so a
 * replay of a key whose trigger ended that many terminations ago creates a new trigger.
 */

import { mulDivFloor, mulDivRound, PPM } from './arith.ts';
import type { BookSide } from './book.ts';
import type { MarginEngine } from './margin-engine.ts';
import { marginError, type MarginError } from './records.ts';

export type TriggerKind = 'bracket' | 'trailing';
export type TriggerStatus = 'pending_on_entry' | 'active' | 'filled' | 'failed' | 'canceled';
export type TriggerReason = 'user_canceled' | 'position_closed' | 'entry_not_filled' | 'order_rejected' | 'position_flipped';
export type TriggerLeg = 'stop_loss' | 'take_profit';
export type TriggerSlot = 'cross' | 'isolated';

/** Live brackets a non-isolated position may hold. */
export const CROSS_BRACKETS_MAX = 20;
/** Trigger orders reach at most this far through the mark, ppm (as liquidations). */
const TRIGGER_BAND_PPM = 500_000;
const CONTRACT_UNITS = 100;
/** Ended triggers kept for client_trigger_id replays: a memory bound (a few hundred bytes each, well under 1 MB). */
export const TERMINAL_TRIGGERS_RETAINED = 1024;
const BPS = 10_000;

export interface ExitTriggerRecord {
  readonly seq: number;
  readonly id: string;
  readonly userId: string;
  readonly subaccount: number;
  readonly ticker: string;
  readonly slot: TriggerSlot;
  readonly kind: TriggerKind;
  /** Closes the whole position (no count, no anchor). */
  readonly whole: boolean;
  status: TriggerStatus;
  reason: TriggerReason | null;
  triggeredLeg: TriggerLeg | null;
  triggeredOrderId: string | null;
  anchorOrderId: string | null;
  /** Ever anchored (the size keeps following the anchor's final fill after it is cleared). */
  readonly anchored: boolean;
  readonly clientTriggerId: string | null;
  stopLoss: number | null;
  takeProfit: number | null;
  trailAmount: number | null;
  trailBps: number | null;
  /** Trailing: the most favourable mark seen (peak for longs, trough for shorts). */
  watermark: number | null;
  /** +1 protects a long (closes by selling), -1 a short. */
  readonly direction: 1 | -1;
  /** Contracts to close (count units); 0 for whole; the anchor's cumulative fill when anchored. */
  count: number;
  filled: number;
  readonly createdMs: number;
  updatedMs: number;
}

export interface SetTriggerRequest {
  kind: TriggerKind;
  stopLoss: number | null;
  takeProfit: number | null;
  trailAmount: number | null;
  trailBps: number | null;
  count: number | null;
  anchorOrderId: string | null;
  clientTriggerId: string | null;
}

export interface PositionSlot {
  userId: string;
  subaccount: number;
  ticker: string;
  slot: TriggerSlot;
}

const ERR_ANCHOR = marginError(409, 'anchor_order_unavailable', 'the anchor order cannot currently be validated; nothing was written, retrying is safe', 'anchor_order_id');

function isLive(trigger: ExitTriggerRecord): boolean {
  return trigger.status === 'pending_on_entry' || trigger.status === 'active';
}

export class ExitTriggers {
  readonly #engine: MarginEngine;
  #live: ExitTriggerRecord[] = [];
  /** Ring of the latest ended triggers (oldest at #retiredNext once full); see "Memory" above. */
  readonly #retired: (ExitTriggerRecord | null)[];
  #retiredNext = 0;
  /** Live and retained ended triggers by id. */
  readonly #byId = new Map<string, ExitTriggerRecord>();
  /** `userId|client_trigger_id` → the trigger the key created. */
  readonly #byClientKey = new Map<string, ExitTriggerRecord>();
  #seq = 0;
  #fireSeq = 0;

  constructor(engine: MarginEngine, terminalRetained: number = TERMINAL_TRIGGERS_RETAINED) {
    if (!Number.isSafeInteger(terminalRetained) || terminalRetained < 1) throw new Error('exit triggers: terminalRetained must be a positive integer');
    this.#engine = engine;
    this.#retired = new Array<ExitTriggerRecord | null>(terminalRetained).fill(null);
  }

  /** A live trigger or one of the retained ended ones; null when unknown or forgotten. */
  get(id: string): ExitTriggerRecord | null {
    return this.#byId.get(id) ?? null;
  }

  /** Triggers held in memory (live plus retained ended ones): at most live + the ring's capacity. */
  get storedCount(): number {
    return this.#byId.size;
  }

  /** Live triggers of a slot, optionally of one kind, in creation order. */
  list(at: PositionSlot, kind: TriggerKind | null): ExitTriggerRecord[] {
    this.#engine.advance();
    return this.#live.filter((t) => inSlot(t, at) && (kind === null || t.kind === kind));
  }

  /** PUT on the collection route: upsert the whole-position trigger of its kind, or append (count / anchor). */
  set(at: PositionSlot, request: SetTriggerRequest): ExitTriggerRecord | MarginError {
    const engine = this.#engine;
    engine.advance();
    const market = engine.markets.get(at.ticker);
    if (market === undefined) return marginError(404, 'market_not_found', 'market not found');
    const shape = checkShape(at.slot, request);
    if (shape !== null) return shape;
    const appending = request.count !== null || request.anchorOrderId !== null;
    if (appending) {
      const first = this.#byClientKey.get(`${at.userId}|${request.clientTriggerId}`);
      if (first !== undefined) {
        if (first.subaccount !== at.subaccount || first.ticker !== at.ticker || first.slot !== at.slot) {
          return marginError(409, 'idempotency_key_already_used', 'client_trigger_id was used for another position', 'client_trigger_id');
        }
        return first; // replay: the first result, in whatever state it reached
      }
    }
    let direction: 1 | -1;
    if (request.anchorOrderId !== null) {
      const anchor = engine.orders.get(request.anchorOrderId);
      if (anchor === undefined || anchor.userId !== at.userId || anchor.subaccount !== at.subaccount || anchor.ticker !== at.ticker) return ERR_ANCHOR;
      if (anchor.status !== 'resting' || anchor.reduceOnly || anchor.source !== 'user') return ERR_ANCHOR;
      direction = anchor.side === 'bid' ? 1 : -1;
    } else {
      const held = this.#held(at);
      if (held === 0) return marginError(404, 'position_not_found', 'no open position to protect', 'ticker');
      direction = held > 0 ? 1 : -1;
    }
    const live = this.#live.filter((t) => inSlot(t, at));
    if (!appending) {
      const existing = live.find((t) => t.kind === request.kind && t.whole);
      if (existing !== undefined) {
        if (existing.direction === direction) {
          this.#applyPrices(existing, request);
          existing.updatedMs = engine.now();
          this.#settleNow();
          return existing;
        }
        this.#terminate(existing, 'canceled', 'position_flipped');
      }
      if (request.kind === 'bracket') {
        if (live.some((t) => t.kind === 'bracket' && isLive(t) && !t.whole)) {
          return marginError(409, 'exit_trigger_conflict', 'a partial or order-anchored bracket already covers part of the position; cancel it first or supply count');
        }
      } else if (live.some((t) => t.kind === 'trailing' && isLive(t))) {
        return marginError(409, 'exit_trigger_conflict', 'the position already holds a trailing stop');
      }
    } else {
      const brackets = live.filter((t) => t.kind === 'bracket' && isLive(t));
      if (brackets.length >= CROSS_BRACKETS_MAX) return marginError(409, 'exit_trigger_limit_reached', `a position holds at most ${CROSS_BRACKETS_MAX} live brackets`);
      if (request.count !== null) {
        if (brackets.some((t) => t.whole)) return marginError(409, 'exit_trigger_conflict', 'a whole-position bracket already covers the position', 'count');
        let covered = 0;
        for (const t of brackets) if (!t.anchored) covered += t.count - t.filled;
        if (covered + request.count > Math.abs(this.#held(at))) {
          return marginError(400, 'exit_trigger_count_exceeds_position', 'the live brackets\' counts would not fit the position', 'count');
        }
      }
    }
    return this.#create(at, request, direction);
  }

  /** PUT on /{trigger_id}: new leg prices for one live bracket (an omitted leg is cleared). */
  update(at: PositionSlot, id: string, stopLoss: number | null, takeProfit: number | null): ExitTriggerRecord | MarginError {
    this.#engine.advance();
    const trigger = this.#byId.get(id);
    if (trigger === undefined || !inSlot(trigger, at) || !isLive(trigger) || trigger.kind !== 'bracket') return marginError(404, 'not_found', 'exit trigger not found');
    if (stopLoss === null && takeProfit === null) return marginError(400, 'bad_request', 'at least one leg is required; cancel with DELETE');
    trigger.stopLoss = stopLoss;
    trigger.takeProfit = takeProfit;
    trigger.updatedMs = this.#engine.now();
    this.#settleNow();
    return trigger;
  }

  /** DELETE on the collection: cancels the slot's live triggers (of one kind); returns how many. */
  cancel(at: PositionSlot, kind: TriggerKind | null): number {
    this.#engine.advance();
    let cancelled = 0;
    for (const trigger of this.#live) {
      if (!inSlot(trigger, at) || (kind !== null && trigger.kind !== kind) || !isLive(trigger)) continue;
      this.#terminate(trigger, 'canceled', 'user_canceled');
      cancelled++;
    }
    this.#prune();
    return cancelled;
  }

  /** DELETE on /{trigger_id}: one live bracket. */
  cancelOne(at: PositionSlot, id: string): true | MarginError {
    this.#engine.advance();
    const trigger = this.#byId.get(id);
    if (trigger === undefined || !inSlot(trigger, at) || !isLive(trigger) || trigger.kind !== 'bracket') return marginError(404, 'not_found', 'exit trigger not found');
    this.#terminate(trigger, 'canceled', 'user_canceled');
    this.#prune();
    return true;
  }

  /**
   * The engine's hook, once marks are current in each settle pass: follows anchors, ratchets
   * trailing watermarks and fires triggers whose level the mark reached. True when an order traded.
   */
  evaluate(): boolean {
    if (this.#live.length === 0) return false;
    let traded = false;
    for (const trigger of this.#live) {
      if (!isLive(trigger)) continue;
      this.#followAnchor(trigger);
      if (trigger.status !== 'active') continue;
      const held = this.#held(trigger) * trigger.direction;
      if (held <= 0) {
        this.#terminate(trigger, 'canceled', held === 0 ? 'position_closed' : 'position_flipped');
        continue;
      }
      const mark = this.#engine.markets.get(trigger.ticker)!.mark;
      const leg = this.#reached(trigger, mark);
      if (leg !== null && this.#fire(trigger, leg, held)) traded = true;
    }
    this.#prune();
    return traded;
  }

  /** Effective stop of a trailing trigger (price units), null before a watermark exists. */
  effectiveStop(trigger: ExitTriggerRecord): number | null {
    if (trigger.watermark === null) return null;
    const trail = trigger.trailAmount ?? mulDivRound(trigger.watermark, trigger.trailBps ?? 0, BPS);
    return trigger.watermark - trigger.direction * trail;
  }

  // ---- internals ----------------------------------------------------------------------------

  #create(at: PositionSlot, request: SetTriggerRequest, direction: 1 | -1): ExitTriggerRecord {
    const nowMs = this.#engine.now();
    const anchored = request.anchorOrderId !== null;
    const trigger: ExitTriggerRecord = {
      seq: ++this.#seq,
      id: `et-${this.#seq}-${(this.#seq * 2_654_435_761 >>> 0).toString(16)}`,
      userId: at.userId,
      subaccount: at.subaccount,
      ticker: at.ticker,
      slot: at.slot,
      kind: request.kind,
      whole: request.count === null && !anchored,
      status: anchored ? 'pending_on_entry' : 'active',
      reason: null,
      triggeredLeg: null,
      triggeredOrderId: null,
      anchorOrderId: request.anchorOrderId,
      anchored,
      clientTriggerId: request.clientTriggerId,
      stopLoss: null,
      takeProfit: null,
      trailAmount: null,
      trailBps: null,
      watermark: request.kind === 'trailing' ? this.#engine.markets.get(at.ticker)!.mark : null,
      direction,
      count: request.count ?? 0,
      filled: 0,
      createdMs: nowMs,
      updatedMs: nowMs,
    };
    this.#applyPrices(trigger, request);
    this.#live.push(trigger);
    this.#byId.set(trigger.id, trigger);
    if (request.clientTriggerId !== null) this.#byClientKey.set(`${at.userId}|${request.clientTriggerId}`, trigger);
    this.#settleNow();
    return trigger;
  }

  #applyPrices(trigger: ExitTriggerRecord, request: SetTriggerRequest): void {
    trigger.stopLoss = request.stopLoss;
    trigger.takeProfit = request.takeProfit;
    trigger.trailAmount = request.trailAmount;
    trigger.trailBps = request.trailBps;
  }

  /** Evaluates at once (a level the mark already passed fires now), as the next mark tick would. */
  #settleNow(): void {
    this.#engine.advance();
  }

  /** Signed position of the slot's subaccount in the ticker. */
  #held(at: { userId: string; subaccount: number; ticker: string }): number {
    return this.#engine.account(at.userId, at.subaccount)?.positions.get(at.ticker)?.count ?? 0;
  }

  #followAnchor(trigger: ExitTriggerRecord): void {
    if (trigger.anchorOrderId === null) return;
    const anchor = this.#engine.orders.get(trigger.anchorOrderId)!;
    if (anchor.filled !== trigger.count) {
      trigger.count = anchor.filled;
      trigger.updatedMs = this.#engine.now();
    }
    const terminal = anchor.status !== 'resting';
    if (terminal) {
      trigger.anchorOrderId = null;
      trigger.updatedMs = this.#engine.now();
      if (anchor.filled === 0) {
        this.#terminate(trigger, 'canceled', 'entry_not_filled');
        return;
      }
    }
    if (trigger.count > trigger.filled) {
      if (trigger.status !== 'active') {
        trigger.status = 'active';
        trigger.updatedMs = this.#engine.now();
      }
    } else if (terminal) {
      this.#terminate(trigger, 'filled', null); // every fill of the finished anchor is closed
    }
  }

  /** The leg the mark reached (ratcheting a trailing watermark first), or null. */
  #reached(trigger: ExitTriggerRecord, mark: number): TriggerLeg | null {
    const long = trigger.direction === 1;
    if (trigger.kind === 'trailing') {
      const watermark = trigger.watermark ?? mark;
      const better = long ? Math.max(watermark, mark) : Math.min(watermark, mark);
      if (better !== trigger.watermark) {
        trigger.watermark = better;
        trigger.updatedMs = this.#engine.now();
      }
      const stop = this.effectiveStop(trigger)!;
      return (long ? mark <= stop : mark >= stop) ? 'stop_loss' : null;
    }
    if (trigger.stopLoss !== null && (long ? mark <= trigger.stopLoss : mark >= trigger.stopLoss)) return 'stop_loss';
    if (trigger.takeProfit !== null && (long ? mark >= trigger.takeProfit : mark <= trigger.takeProfit)) return 'take_profit';
    return null;
  }

  /** Sends the closing order; true when it traded. `held` > 0 is the position in the protected direction. */
  #fire(trigger: ExitTriggerRecord, leg: TriggerLeg, held: number): boolean {
    const engine = this.#engine;
    const market = engine.markets.get(trigger.ticker)!;
    const side: BookSide = trigger.direction === 1 ? 'ask' : 'bid';
    const hit: BookSide = side === 'ask' ? 'bid' : 'ask';
    if (market.book.best(hit) === null) return false; // nothing to close against: wait for liquidity
    const quantity = trigger.whole ? held : Math.min(trigger.count - trigger.filled, held);
    if (quantity <= 0) return false;
    const band = mulDivFloor(market.mark, TRIGGER_BAND_PPM, PPM);
    const tick = market.spec.tickSize;
    const price = side === 'ask' ? Math.ceil(Math.max(tick, market.mark - band) / tick) * tick : Math.floor((market.mark + band) / tick) * tick;
    const result = engine.create(trigger.userId, trigger.subaccount, {
      ticker: trigger.ticker,
      clientOrderId: `exit-trigger-${trigger.id}-${++this.#fireSeq}`,
      side,
      count: Math.ceil(quantity / CONTRACT_UNITS) * CONTRACT_UNITS,
      price,
      timeInForce: 'immediate_or_cancel',
      selfTradePrevention: 'taker_at_cross',
      postOnly: false,
      reduceOnly: true,
      cancelOrderOnPause: false,
      expirationTs: null,
    }, 'system', 'take_profit_stop_loss');
    trigger.updatedMs = engine.now();
    if ('isError' in result) {
      this.#terminate(trigger, 'failed', 'order_rejected');
      return false;
    }
    const filled = result.execution.filled;
    trigger.triggeredLeg = leg;
    trigger.triggeredOrderId = result.order.orderId;
    trigger.filled += filled;
    const heldAfter = this.#held(trigger) * trigger.direction;
    const closed = trigger.whole ? heldAfter <= 0 : trigger.filled >= trigger.count || heldAfter <= 0;
    if (closed) {
      if (trigger.anchorOrderId !== null) trigger.status = 'pending_on_entry'; // the anchor may still fill
      else this.#terminate(trigger, 'filled', null);
    }
    return filled > 0;
  }

  #terminate(trigger: ExitTriggerRecord, status: 'filled' | 'failed' | 'canceled', reason: TriggerReason | null): void {
    trigger.status = status;
    trigger.reason = reason;
    trigger.updatedMs = this.#engine.now();
  }

  /** Moves ended triggers from the live list into the retained ring. */
  #prune(): void {
    if (!this.#live.some((t) => !isLive(t))) return;
    for (const trigger of this.#live) if (!isLive(trigger)) this.#retire(trigger);
    this.#live = this.#live.filter(isLive);
  }

  #retire(trigger: ExitTriggerRecord): void {
    const evicted = this.#retired[this.#retiredNext];
    if (evicted !== null) {
      this.#byId.delete(evicted.id);
      const key = `${evicted.userId}|${evicted.clientTriggerId}`;
      if (evicted.clientTriggerId !== null && this.#byClientKey.get(key) === evicted) this.#byClientKey.delete(key);
    }
    this.#retired[this.#retiredNext] = trigger;
    this.#retiredNext = (this.#retiredNext + 1) % this.#retired.length;
  }
}

function inSlot(trigger: ExitTriggerRecord, at: PositionSlot): boolean {
  return trigger.userId === at.userId && trigger.subaccount === at.subaccount && trigger.ticker === at.ticker && trigger.slot === at.slot;
}

/** Field rules of SetCross/SetIsolatedExitTriggerRequest that need no state. */
function checkShape(slot: TriggerSlot, request: SetTriggerRequest): MarginError | null {
  const bad = (message: string, field?: string): MarginError => marginError(400, 'bad_request', message, field);
  for (const [value, field] of [[request.stopLoss, 'stop_loss_price'], [request.takeProfit, 'take_profit_price'], [request.trailAmount, 'trail_amount']] as const) {
    if (value !== null && value <= 0) return bad(`${field} must be positive`, field);
  }
  if (request.kind === 'bracket') {
    if (request.trailAmount !== null || request.trailBps !== null) return bad('trail_amount and trail_bps belong to kind trailing', request.trailAmount !== null ? 'trail_amount' : 'trail_bps');
    if (request.stopLoss === null && request.takeProfit === null) return bad('a bracket needs stop_loss_price and/or take_profit_price; cancel with DELETE');
  } else {
    if (request.stopLoss !== null || request.takeProfit !== null) return bad('stop_loss_price and take_profit_price belong to kind bracket', request.stopLoss !== null ? 'stop_loss_price' : 'take_profit_price');
    if ((request.trailAmount === null) === (request.trailBps === null)) return bad('a trailing stop needs exactly one of trail_amount or trail_bps');
    if (request.count !== null || request.anchorOrderId !== null) return bad('count and anchor_order_id apply to brackets only', request.count !== null ? 'count' : 'anchor_order_id');
  }
  if (slot === 'isolated' && (request.count !== null || request.anchorOrderId !== null || request.clientTriggerId !== null)) {
    return bad('isolated triggers close in full: count, anchor_order_id and client_trigger_id are not accepted');
  }
  if (request.count !== null && request.anchorOrderId !== null) return bad('count and anchor_order_id are mutually exclusive', 'count');
  if (request.count !== null && (request.count <= 0 || request.count % CONTRACT_UNITS !== 0)) return marginError(400, 'invalid_order_size', 'count must be a positive whole number of contracts', 'count');
  const appending = request.count !== null || request.anchorOrderId !== null;
  if (appending && request.clientTriggerId === null) return bad('client_trigger_id is required on a create with count or anchor_order_id', 'client_trigger_id');
  if (!appending && request.clientTriggerId !== null) return bad('client_trigger_id is accepted only on a create with count or anchor_order_id', 'client_trigger_id');
  return null;
}

/**
 * The run-time handle on fault injection: tests add and remove rules, switch profiles and trigger
 * one-off actions (close every connection, overflow a subscription); the REST and WebSocket
 * servers ask it, per request or per message, whether a fault fires. Decisions are deterministic
 * for a given seed and sequence of matches: the PRNG is drawn only when a rule's probability is
 * below 1. The controller never touches sockets itself; the servers attach actuators for the
 * one-off actions.
 */

import { SeededRandom } from '../../core/index.ts';
import { FAULT_PROFILES } from './fault-profiles.ts';
import {
  FaultRuleError, isFixFault, isRestFault, validateFaultRule, type FaultRule, type FixFaultKind, type RestFaultKind, type WsFaultKind,
} from './fault-rule.ts';

interface ActiveRule {
  id: string;
  rule: FaultRule;
  matched: number;
  fired: number;
}

/** What the REST server must do with one request. Reused record: read it before the next call. */
export interface RestFaultDecision {
  kind: RestFaultKind | null;
  ruleId: string;
  status: number;
  delayMs: number;
  mode: 'error' | 'hang' | 'close';
}

/** What the WebSocket server must do with one outgoing data message. Reused record. */
export interface WsFaultDecision {
  kind: WsFaultKind | null;
  ruleId: string;
  closeCode: number;
}

/** Filters for the one-off WebSocket actions. */
export interface WsActionFilter {
  keyId?: string;
  channel?: string;
  sid?: number;
}

/** Implemented by the WebSocket server so the controller's one-off actions reach real sockets. */
export interface WsFaultActuator {
  /** Closes matching connections; returns how many. */
  closeConnections(filter: WsActionFilter, closeCode: number | null): number;
  /** Sends error 25 on matching subscriptions and ends them; returns how many. */
  overflowSubscriptions(filter: WsActionFilter): number;
}

/** What the FIX acceptor must do with one message. Reused record. */
export interface FixFaultDecision {
  kind: FixFaultKind | null;
  ruleId: string;
  applied: boolean;
}

/** Where the FIX acceptor asks: an outbound application message, an inbound one, an order request. */
export type FixFaultPoint = 'outbound' | 'inbound' | 'order';

/** Filters for the one-off FIX action. */
export interface FixActionFilter {
  keyId?: string;
  session?: string;
}

/** Implemented by the FIX acceptor so the controller's one-off action reaches real sockets. */
export interface FixFaultActuator {
  /** Drops matching FIX connections without a Logout; returns how many. */
  dropConnections(filter: FixActionFilter): number;
}

export interface FaultRuleInfo {
  id: string;
  rule: FaultRule;
  matched: number;
  fired: number;
}

/** Route facts the REST server hands to the controller. */
export interface RestFaultQuery {
  method: string;
  /** Template relative to /trade-api/v2, e.g. `/portfolio/events/orders/{order_id}`. */
  routeTemplate: string;
  /** Raw path relative to /trade-api/v2. */
  relativePath: string;
  keyId: string | null;
  /** True for order-entry mutations (the only routes ambiguous_order targets). */
  orderEntry: boolean;
}

export class FaultController {
  readonly #random: SeededRandom;
  readonly #rules: ActiveRule[] = [];
  readonly #actuators: WsFaultActuator[] = [];
  readonly #rest: RestFaultDecision = { kind: null, ruleId: '', status: 0, delayMs: 0, mode: 'error' };
  readonly #ws: WsFaultDecision = { kind: null, ruleId: '', closeCode: 0 };
  readonly #fix: FixFaultDecision = { kind: null, ruleId: '', applied: false };
  readonly #fixActuators: FixFaultActuator[] = [];
  #nextId = 1;
  #profile = 'none';
  /** Fast-path flags: the servers skip the controller when no rule of that family exists. */
  restActive = false;
  wsActive = false;
  fixActive = false;

  constructor(seed: number, profile = 'none') {
    this.#random = new SeededRandom(seed);
    this.useProfile(profile);
  }

  get profile(): string {
    return this.#profile;
  }

  /** Replaces every rule with the named profile's. Throws FaultRuleError for an unknown name. */
  useProfile(name: string): void {
    const rules = FAULT_PROFILES[name];
    if (rules === undefined) throw new FaultRuleError(`unknown fault profile ${JSON.stringify(name)}; known: ${Object.keys(FAULT_PROFILES).join(', ')}`);
    this.clear();
    for (const rule of rules) this.add({ ...rule, target: rule.target === undefined ? undefined : { ...rule.target } });
    this.#profile = name;
  }

  /** Adds a rule and returns its id. */
  add(rule: FaultRule): string {
    validateFaultRule(rule);
    const id = `fault-${this.#nextId++}`;
    this.#rules.push({ id, rule, matched: 0, fired: 0 });
    this.#refreshFlags();
    return id;
  }

  remove(id: string): boolean {
    const index = this.#rules.findIndex((entry) => entry.id === id);
    if (index < 0) return false;
    this.#rules.splice(index, 1);
    this.#refreshFlags();
    return true;
  }

  clear(): void {
    this.#rules.length = 0;
    this.#profile = 'none';
    this.#refreshFlags();
  }

  list(): FaultRuleInfo[] {
    return this.#rules.map((entry) => ({ id: entry.id, rule: entry.rule, matched: entry.matched, fired: entry.fired }));
  }

  /** How many times a rule has fired (0 for an unknown id). */
  firedCount(id: string): number {
    return this.#rules.find((entry) => entry.id === id)?.fired ?? 0;
  }

  reseed(seed: number): void {
    this.#random.reseed(seed);
  }

  // ---- one-off actions ------------------------------------------------------------------------

  /** Closes WebSocket connections now (all, or those matching); returns how many. */
  closeConnections(filter: WsActionFilter = {}, closeCode: number | null = null): number {
    let count = 0;
    for (const actuator of this.#actuators) count += actuator.closeConnections(filter, closeCode);
    return count;
  }

  /** Sends error 25 on matching live subscriptions now and ends them; returns how many. */
  overflowSubscriptions(filter: WsActionFilter = {}): number {
    let count = 0;
    for (const actuator of this.#actuators) count += actuator.overflowSubscriptions(filter);
    return count;
  }

  /** Drops FIX connections now (all, or those matching), without a Logout; returns how many. */
  dropFixConnections(filter: FixActionFilter = {}): number {
    let count = 0;
    for (const actuator of this.#fixActuators) count += actuator.dropConnections(filter);
    return count;
  }

  /** Called by the FIX acceptor at start-up. */
  attachFix(actuator: FixFaultActuator): () => void {
    this.#fixActuators.push(actuator);
    return () => {
      const index = this.#fixActuators.indexOf(actuator);
      if (index >= 0) this.#fixActuators.splice(index, 1);
    };
  }

  /** Called by the WebSocket server at start-up. */
  attachWs(actuator: WsFaultActuator): () => void {
    this.#actuators.push(actuator);
    return () => {
      const index = this.#actuators.indexOf(actuator);
      if (index >= 0) this.#actuators.splice(index, 1);
    };
  }

  // ---- decisions ------------------------------------------------------------------------------

  /** Decision for one REST request; `kind` null means no fault. */
  decideRest(query: RestFaultQuery): Readonly<RestFaultDecision> {
    const decision = this.#rest;
    decision.kind = null;
    if (!this.restActive) return decision;
    for (const entry of this.#rules) {
      const rule = entry.rule;
      if (!isRestFault(rule.kind)) continue;
      if (rule.kind === 'ambiguous_order' && !query.orderEntry) continue;
      if (!this.#restMatches(rule, query)) continue;
      if (!this.#fires(entry)) continue;
      decision.kind = rule.kind;
      decision.ruleId = entry.id;
      decision.status = rule.status ?? (rule.kind === 'ambiguous_order' ? 500 : 503);
      decision.delayMs = rule.delayMs ?? 0;
      decision.mode = rule.mode ?? 'error';
      return decision;
    }
    return decision;
  }

  /**
   * Decision for one data message about to go to a subscription. `isDelta` marks orderbook_delta
   * messages, the only ones the drop and reorder faults touch.
   */
  decideWs(channel: string, marketTicker: string, keyId: string, isDelta: boolean): Readonly<WsFaultDecision> {
    const decision = this.#ws;
    decision.kind = null;
    if (!this.wsActive) return decision;
    for (const entry of this.#rules) {
      const rule = entry.rule;
      if (isRestFault(rule.kind) || isFixFault(rule.kind)) continue;
      if ((rule.kind === 'ws_drop_delta' || rule.kind === 'ws_reorder_delta') && !isDelta) continue;
      const target = rule.target;
      if (target !== undefined) {
        if (target.channel !== undefined && target.channel !== channel) continue;
        if (target.marketTicker !== undefined && target.marketTicker !== marketTicker) continue;
        if (target.keyId !== undefined && target.keyId !== keyId) continue;
      }
      if (!this.#fires(entry)) continue;
      decision.kind = rule.kind as WsFaultKind;
      decision.ruleId = entry.id;
      decision.closeCode = rule.closeCode ?? 0;
      return decision;
    }
    return decision;
  }

  /**
   * Decision for one FIX message of session kind `session` (TargetCompID) and key `keyId`:
   * `outbound` application messages meet fix_drop_outbound, `inbound` ones fix_disconnect, and
   * order requests (35=D/F/G) fix_exchange_unavailable.
   */
  decideFix(point: FixFaultPoint, session: string, msgType: string, keyId: string): Readonly<FixFaultDecision> {
    const decision = this.#fix;
    decision.kind = null;
    if (!this.fixActive) return decision;
    for (const entry of this.#rules) {
      const rule = entry.rule;
      if (!isFixFault(rule.kind)) continue;
      const kindPoint: FixFaultPoint = rule.kind === 'fix_drop_outbound' ? 'outbound' : rule.kind === 'fix_disconnect' ? 'inbound' : 'order';
      if (kindPoint !== point) continue;
      const target = rule.target;
      if (target !== undefined) {
        if (target.session !== undefined && target.session !== session) continue;
        if (target.msgType !== undefined && target.msgType !== msgType) continue;
        if (target.keyId !== undefined && target.keyId !== keyId) continue;
      }
      if (!this.#fires(entry)) continue;
      decision.kind = rule.kind;
      decision.ruleId = entry.id;
      decision.applied = rule.applied ?? false;
      return decision;
    }
    return decision;
  }

  #restMatches(rule: FaultRule, query: RestFaultQuery): boolean {
    const target = rule.target;
    if (target === undefined) return true;
    if (target.method !== undefined && target.method.toUpperCase() !== query.method) return false;
    if (target.keyId !== undefined && target.keyId !== query.keyId) return false;
    const path = target.path;
    if (path === undefined) return true;
    if (typeof path === 'string') return path === query.routeTemplate || path === query.relativePath;
    path.lastIndex = 0;
    return path.test(query.relativePath);
  }

  /** Counts a match and decides whether it fires (skip, times, probability, in that order). */
  #fires(entry: ActiveRule): boolean {
    const target = entry.rule.target;
    entry.matched++;
    if (target !== undefined) {
      if (target.skip !== undefined && entry.matched <= target.skip) return false;
      if (target.times !== undefined && entry.fired >= target.times) return false;
      if (target.probability !== undefined && target.probability < 1 && this.#random.nextFloat() >= target.probability) return false;
    }
    entry.fired++;
    return true;
  }

  #refreshFlags(): void {
    let rest = false;
    let ws = false;
    let fix = false;
    for (const entry of this.#rules) {
      if (isRestFault(entry.rule.kind)) rest = true;
      else if (isFixFault(entry.rule.kind)) fix = true;
      else ws = true;
    }
    this.restActive = rest;
    this.wsActive = ws;
    this.fixActive = fix;
  }
}

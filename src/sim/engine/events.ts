/**
 * The engine's one emission point: the listener list (what the WebSocket hub, the activity bench
 * and tests subscribe with) and one method per event kind, so every part emits through here and
 * the order listeners see events in is the causal order the parts call these methods in. It also
 * counts book deltas (the activity generator bounds a step with the count). It never decides
 * anything and never changes engine state; listeners are called synchronously, and records handed
 * to them (orders, fills, trades, positions) are live or reused: listeners copy what they keep.
 */

import type { Count, Price } from '../../core/index.ts';
import type { EngineListener, MarketLifecycleType, OrderGroupEventType, Position, Quote, QuoteEvent, Rfq, RfqEvent, Trade, Fill, UpdateReason } from './types.ts';
import type { EngineOrder } from './engine-order.ts';
import type { EventState } from './event-state.ts';
import type { MarketState } from './market-state.ts';
import type { OrderGroupState } from './order-group-state.ts';
import { PRICE_ONE as PRICE_ONE_IMPORTED } from './money.ts';

const NOOP = (): void => {};
// Module-local alias: under tsx (CommonJS) an imported binding is a getter call per use.
const PRICE_ONE = PRICE_ONE_IMPORTED;

export class EngineEvents {
  readonly #listeners: EngineListener[] = [];
  #bookUpdates = 0;

  /** Book deltas emitted so far, listeners or not. */
  get bookUpdateCount(): number {
    return this.#bookUpdates;
  }

  /** Adds a listener (missing methods are no-ops); returns its unsubscribe function. */
  subscribe(listener: Partial<EngineListener>): () => void {
    const full: EngineListener = {
      onBookDelta: listener.onBookDelta?.bind(listener) ?? NOOP,
      onTrade: listener.onTrade?.bind(listener) ?? NOOP,
      onFill: listener.onFill?.bind(listener) ?? NOOP,
      onUserOrder: listener.onUserOrder?.bind(listener) ?? NOOP,
      onPosition: listener.onPosition?.bind(listener) ?? NOOP,
      onOrderGroup: listener.onOrderGroup?.bind(listener) ?? NOOP,
      onMarketLifecycle: listener.onMarketLifecycle?.bind(listener) ?? NOOP,
      onEventLifecycle: listener.onEventLifecycle?.bind(listener) ?? NOOP,
      onRfq: listener.onRfq?.bind(listener) ?? NOOP,
      onQuote: listener.onQuote?.bind(listener) ?? NOOP,
    };
    this.#listeners.push(full);
    return () => {
      const at = this.#listeners.indexOf(full);
      if (at !== -1) this.#listeners.splice(at, 1);
    };
  }

  /** `order`'s resting size on its level changed by `delta` (Count, signed); side and price as the book feed shows them. */
  bookDelta(order: EngineOrder, delta: number, reason: UpdateReason, tsMs: number): void {
    this.#bookUpdates++;
    const listeners = this.#listeners;
    if (listeners.length === 0) return;
    const market = order.market;
    const isYes = order.sideCode === 0;
    const price = (isYes ? order.price : PRICE_ONE - order.price) as Price;
    for (let i = 0; i < listeners.length; i++) listeners[i].onBookDelta(market, isYes ? 'yes' : 'no', price, delta as Count, order, reason, tsMs);
  }

  trade(market: MarketState, trade: Trade): void {
    const listeners = this.#listeners;
    for (let i = 0; i < listeners.length; i++) listeners[i].onTrade(market, trade);
  }

  /** One side of an execution: the fill to every listener, then the position it left. */
  fillAndPosition(userId: string, fill: Fill, order: EngineOrder, position: Position): void {
    const listeners = this.#listeners;
    for (let i = 0; i < listeners.length; i++) listeners[i].onFill(userId, fill, order);
    for (let i = 0; i < listeners.length; i++) listeners[i].onPosition(userId, position);
  }

  position(userId: string, position: Position): void {
    const listeners = this.#listeners;
    for (let i = 0; i < listeners.length; i++) listeners[i].onPosition(userId, position);
  }

  userOrder(order: EngineOrder): void {
    const listeners = this.#listeners;
    for (let i = 0; i < listeners.length; i++) listeners[i].onUserOrder(order.userId, order);
  }

  orderGroup(group: OrderGroupState, eventType: OrderGroupEventType, tsMs: number): void {
    if (this.#listeners.length === 0) return;
    const event = { eventType, orderGroupId: group.orderGroupId, subaccount: group.subaccount, contractsLimit: group.contractsLimit, tsMs };
    for (const listener of this.#listeners) listener.onOrderGroup(group.userId, event);
  }

  marketLifecycle(market: MarketState, eventType: MarketLifecycleType, tsMs: number): void {
    if (this.#listeners.length === 0) return;
    const event = { eventType, market, tsMs };
    for (const listener of this.#listeners) listener.onMarketLifecycle(event);
  }

  eventLifecycle(event: EventState, tsMs: number): void {
    for (const listener of this.#listeners) listener.onEventLifecycle({ event, tsMs });
  }

  rfq(type: RfqEvent['type'], rfq: Rfq, tsMs: number): void {
    if (this.#listeners.length === 0) return;
    const event: RfqEvent = { type, rfq, tsMs };
    for (const listener of this.#listeners) listener.onRfq(event);
  }

  quote(type: QuoteEvent['type'], quote: Quote, rfq: Rfq, tsMs: number): void {
    if (this.#listeners.length === 0) return;
    const event: QuoteEvent = { type, quote, rfq, tsMs };
    for (const listener of this.#listeners) listener.onQuote(event);
  }
}

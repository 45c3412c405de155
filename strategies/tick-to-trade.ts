/**
 * The tick-to-trade bench strategy: on a book update of its market it sends exactly one order
 * intent, so each such frame is followed by one order written to the wire. `trigger` picks the
 * updates: 'touch' (default) only those that move the best bid or ask, as a strategy reacting to
 * the market does; its own far bid never moves the touch, so it does not feed on its own orders.
 * 'every' reacts to every update, its own orders' included: a saturation test whose order rate
 * is bounded only by the round trip and the rate limit, not a latency measurement.
 * It keeps a post-only bid `offsetTicks` under the best bid (never near the touch, so it does not
 * trade), alternating between two adjacent levels so every intent is a real change. Two modes:
 * - `replace` (default): each update places a new bid (the timed intent); the previous one is
 *   cancelled when the new one is acknowledged; while the newest bid is not yet acknowledged (in
 *   flight, or a create the router holds for the write budget) it sends nothing (`skipped`). An
 *   update that finds the newest bid acknowledged before its onOrderUpdate came (a book frame
 *   read with the user_order message, ahead of the OMS's delivery) cancels the owed previous bid
 *   right after its own create, so no bid is ever forgotten while resting.
 *   Creates and cancels go out on presignable paths.
 * - `amend`: each update amends the one resting bid; while a request on it is in flight it sends
 *   nothing (counted in `skipped`). The amend path carries the order id, so exec signs it inline.
 * Counts are bounded by `maxIntents`. Orders are kept by their handle (no id string made per
 * order), by the id's text only when an order has no handle (a create the router held).
 * Owns the bench's trigger only; every order goes through ctx (risk gate, then OMS).
 */

import { Deny, OrderFlags, definePlugin, isHeldOrder, isLiveOrder, isPendingOrder, requireCount } from '../src/strategy/index.ts';
import type { Count, OrderView, Strategy, StrategyBook, StrategyContext } from '../src/strategy/index.ts';

export interface TickToTradeParams {
  mode: 'replace' | 'amend';
  trigger: 'touch' | 'every';
  size: string;
  /** Levels under the best bid (or under the best ask when there is no bid). */
  offsetTicks: number;
  /** Intents this deployment may send in all. */
  maxIntents: number;
}

export const paramsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    mode: { enum: ['replace', 'amend'], default: 'replace', description: 'new order + cancel the last, or amend one order' },
    trigger: { enum: ['touch', 'every'], default: 'touch', description: 'react to best bid/ask changes only, or to every book update' },
    size: { type: 'string', pattern: '^[0-9]{1,9}(\\.[0-9]{1,2})?$', default: '1.00', description: 'contracts' },
    offsetTicks: { type: 'integer', minimum: 1, maximum: 10_000, default: 10, description: 'levels away from the touch' },
    maxIntents: { type: 'integer', minimum: 0, default: 1_000_000, description: 'intents in all' },
  },
} as const;

export class TickToTrade implements Strategy {
  readonly #size: Count;
  readonly #offset: number;
  readonly #maxIntents: number;
  readonly #replace: boolean;
  readonly #everyUpdate: boolean;
  #lastBidLevel = -2;
  #lastAskLevel = -2;
  /** The newest bid and the one it replaces: a handle, or the id's text when it has none; 0 for none. */
  #order: string | number = 0;
  #previous: string | number = 0;
  #flip = 0;
  intents = 0;
  skipped = 0;
  denied = 0;
  lastDeny: Deny = Deny.NONE;

  constructor(params: Readonly<TickToTradeParams>) {
    this.#size = requireCount(params.size, 'size');
    this.#offset = params.offsetTicks;
    this.#maxIntents = params.maxIntents;
    this.#replace = params.mode === 'replace';
    this.#everyUpdate = params.trigger === 'every';
  }

  onBook(book: StrategyBook, ctx: StrategyContext): void {
    if (this.intents >= this.#maxIntents || !book.synced) return;
    if (!this.#everyUpdate) {
      if (book.bestBidLevel === this.#lastBidLevel && book.bestAskLevel === this.#lastAskLevel) return;
      this.#lastBidLevel = book.bestBidLevel;
      this.#lastAskLevel = book.bestAskLevel;
    }
    const anchor = book.bestBidLevel >= 0 ? book.bestBidLevel : book.bestAskLevel - 1;
    if (anchor < 0) return;
    // Two adjacent levels far under the touch; each amend moves between them.
    let level = anchor - this.#offset - this.#flip;
    if (level < 0) level = this.#flip;
    const price = book.grid.priceAt(level);
    const order = this.#order === 0 ? null : ctx.order(this.#order);
    let deny: Deny;
    if (this.#replace) {
      // One order in flight at a time, as in amend mode: the venue's pace bounds ours. A held
      // create is in flight too (not sent yet): placing past it would pile up bids.
      if (order !== null && (isPendingOrder(order.state) || isHeldOrder(order.state))) {
        this.skipped++;
        return;
      }
      deny = ctx.place(book.ticker, 'bid', price, this.#size, OrderFlags.POST_ONLY);
      if (deny === Deny.NONE) {
        // The previous bid is cancelled once the new one is acknowledged (onOrderUpdate), so the
        // cancel's work never delays the timed create's socket write.
        const owed = this.#previous;
        if (order !== null && isLiveOrder(order.state)) this.#previous = this.#order;
        this.#order = lastOrder(ctx);
        // The newest bid was acknowledged but its update has not come yet: the cancel it owed
        // goes now, after the create's write, rather than being forgotten.
        if (owed !== 0 && owed !== this.#previous) cancelIfLive(owed, ctx);
      }
      this.#count(deny);
      return;
    }
    if (order === null || !isLiveOrder(order.state)) {
      deny = ctx.place(book.ticker, 'bid', price, this.#size, OrderFlags.POST_ONLY);
      if (deny === Deny.NONE) this.#order = lastOrder(ctx);
    } else if (isPendingOrder(order.state)) {
      this.skipped++;
      return;
    } else {
      if (order.price === price) {
        // Already there: take the other level so the intent is a real change.
        this.#flip ^= 1;
        level = anchor - this.#offset - this.#flip;
        if (level < 0) level = this.#flip;
      }
      deny = ctx.amend(this.#order, book.grid.priceAt(level), this.#size);
    }
    this.#count(deny);
  }

  #count(deny: Deny): void {
    this.intents++;
    this.lastDeny = deny;
    if (deny !== Deny.NONE) this.denied++;
    this.#flip ^= 1;
  }

  onOrderUpdate(order: OrderView, ctx: StrategyContext): void {
    if (this.#previous === 0 || !isOrder(order, this.#order) || isPendingOrder(order.state)) return;
    const ref = this.#previous;
    this.#previous = 0;
    cancelIfLive(ref, ctx);
  }

  onStop(ctx: StrategyContext): void {
    ctx.log.info({ intents: this.intents, skipped: this.skipped, denied: this.denied }, 'tick-to-trade stopped');
  }
}

export default definePlugin<TickToTradeParams>({
  name: 'tick-to-trade',
  paramsSchema,
  create: (params) => new TickToTrade(params),
});

/** The last placed order's handle, or its id's text when it has none. */
function lastOrder(ctx: StrategyContext): string | number {
  return ctx.lastOrderHandle > 0 ? ctx.lastOrderHandle : ctx.lastClientOrderId;
}

/** Cancels the order `ref` names unless it is gone or already closed. */
function cancelIfLive(ref: string | number, ctx: StrategyContext): void {
  const order = ctx.order(ref);
  if (order !== null && isLiveOrder(order.state)) ctx.cancel(ref);
}

/** Whether `order` is the one `ref` names. */
function isOrder(order: OrderView, ref: string | number): boolean {
  return typeof ref === 'number' ? order.handle === ref : order.clientOrderId === ref;
}

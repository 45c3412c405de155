/**
 * What the exposure ledger currently holds for each order, so the gate can move the ledger by the
 * exact difference whenever the OMS reports an order changed: its remainder at its price while
 * live, plus the amend target while an amend is in flight (either may trade), nothing once ended.
 * The OMS numbers its orders densely (`slot`, reused once an order is forgotten); the bookings are
 * typed arrays indexed by it, so the gate keeps its books without a field on the OMS's order.
 * An order on a Margin market is booked in the Margin ledger (margin-exposure.ts), decided once
 * when the order is first booked, so no sum mixes the two exchanges' subaccounts.
 * This file owns the per-order bookings and the check that they add up; the ledgers own the sums.
 */

import { OrderState, assert, isLive } from '../core/index.ts';
import type { BookSide, Price } from '../core/index.ts';
import type { ExposureLedger } from './exposure-ledger.ts';
import { marginNotional } from './margin-exposure.ts';
import type { MarginExposure } from './margin-exposure.ts';
import type { QuoteBookings } from './quote-bookings.ts';
import type { RiskMarkets } from './risk-markets.ts';

/** What the gate reads of an order (the OMS's Order satisfies it). */
export interface BookedOrder {
  /** Dense number from the OMS, unique among the orders it tracks. */
  readonly slot: number;
  /** Market index, -1 when the order came from a journal before its market was registered. */
  readonly market: number;
  readonly ticker: string;
  readonly subaccount: number;
  readonly side: BookSide;
  readonly price: Price;
  readonly remainingCount: number;
  readonly state: number;
  readonly pendingPrice: Price;
  readonly pendingCount: number;
}

const SLOTS_INITIAL = 1024;

/** What both ledgers take from the bookings (ExposureLedger and MarginExposure satisfy it). */
interface RestingLedger {
  addResting(market: number, subaccount: number, side: BookSide, price: Price, count: number, orders: number): void;
  removeResting(market: number, subaccount: number, side: BookSide, price: Price, count: number, orders: number): void;
  adjustOpenOrders(delta: number): void;
}

interface MarginSum {
  bid: number;
  ask: number;
  bidNotional: number;
  askNotional: number;
  market: number;
  subaccount: number;
}

export class OrderBookings {
  #market = new Int32Array(SLOTS_INITIAL).fill(-1);
  #price = new Float64Array(SLOTS_INITIAL);
  #count = new Float64Array(SLOTS_INITIAL);
  #pendingPrice = new Float64Array(SLOTS_INITIAL);
  #pendingCount = new Float64Array(SLOTS_INITIAL);
  #open = new Uint8Array(SLOTS_INITIAL);
  /** 1 when the order is booked in the Margin ledger. */
  #margin = new Uint8Array(SLOTS_INITIAL);

  /** Moves the ledger of the order's exchange to what `order` is now. */
  sync(order: BookedOrder, predictions: ExposureLedger, markets: RiskMarkets, margin: MarginExposure | null = null): void {
    const slot = order.slot;
    if (slot >= this.#market.length) this.#grow(slot);
    let market = this.#market[slot];
    if (market < 0) {
      market = order.market >= 0 ? order.market : markets.handleOf(order.ticker);
      if (market < 0) return; // a market the gate does not know: nothing to book
      this.#market[slot] = market;
      this.#margin[slot] = margin !== null && markets.at(market)?.isMargin === true ? 1 : 0;
    }
    const ledger: RestingLedger = this.#margin[slot] === 1 ? margin! : predictions;
    const live = isLive(order.state as OrderState);
    const wantCount = live ? order.remainingCount : 0;
    const bookedCount = this.#count[slot];
    const bookedPrice = this.#price[slot] as Price;
    if (bookedCount !== wantCount || bookedPrice !== order.price) {
      if (bookedCount > 0) ledger.removeResting(market, order.subaccount, order.side, bookedPrice, bookedCount, 0);
      if (wantCount > 0) ledger.addResting(market, order.subaccount, order.side, order.price, wantCount, 0);
      this.#count[slot] = wantCount;
      this.#price[slot] = order.price;
    }
    const wantPending = order.state === OrderState.PENDING_AMEND ? order.pendingCount : 0;
    const bookedPending = this.#pendingCount[slot];
    const bookedPendingPrice = this.#pendingPrice[slot] as Price;
    if (bookedPending !== wantPending || bookedPendingPrice !== order.pendingPrice) {
      if (bookedPending > 0) ledger.removeResting(market, order.subaccount, order.side, bookedPendingPrice, bookedPending, 0);
      if (wantPending > 0) ledger.addResting(market, order.subaccount, order.side, order.pendingPrice, wantPending, 0);
      this.#pendingCount[slot] = wantPending;
      this.#pendingPrice[slot] = order.pendingPrice;
    }
    const open = live ? 1 : 0;
    if (open !== this.#open[slot]) {
      ledger.adjustOpenOrders(live ? 1 : -1);
      this.#open[slot] = open;
    }
    // An ended order books nothing: its slot starts clean when the OMS gives it to another order.
    if (!live && wantPending === 0) this.#market[slot] = -1;
  }

  /**
   * The ledger equals the sum of the live orders (STYLE §4: a broken invariant is a bug, so it
   * throws): each booked at its current remainder and price, resting bids and asks per market and
   * subaccount what those orders book, the open-order count their number. O(orders); off the hot
   * path (about once a second).
   */
  assertMatches(orders: Iterable<BookedOrder>, ledger: ExposureLedger, quotes: QuoteBookings | null = null, margin: MarginExposure | null = null): void {
    const sums = new Map<number, { bid: number; ask: number; market: number; subaccount: number }>();
    const marginSums = new Map<number, MarginSum>();
    quotes?.addTo(sums); // open quotes are booked in the same counts (quote-bookings.ts)
    let open = 0;
    let marginOpen = 0;
    for (const order of orders) {
      const slot = order.slot;
      const market = slot < this.#market.length ? this.#market[slot] : -1;
      if (market < 0) continue;
      assert(this.#count[slot] === order.remainingCount, 'OrderBookings: an order is booked at another remainder');
      assert(this.#count[slot] === 0 || this.#price[slot] === order.price, 'OrderBookings: an order is booked at another price');
      const key = market * 64 + order.subaccount;
      const booked = this.#count[slot] + this.#pendingCount[slot];
      if (this.#margin[slot] === 1) {
        marginOpen++;
        let sum = marginSums.get(key);
        if (sum === undefined) marginSums.set(key, (sum = { bid: 0, ask: 0, bidNotional: 0, askNotional: 0, market, subaccount: order.subaccount }));
        const notional = marginNotional(this.#price[slot], this.#count[slot]) + marginNotional(this.#pendingPrice[slot], this.#pendingCount[slot]);
        if (order.side === 'bid') {
          sum.bid += booked;
          sum.bidNotional += notional;
        } else {
          sum.ask += booked;
          sum.askNotional += notional;
        }
        continue;
      }
      open++;
      let sum = sums.get(key);
      if (sum === undefined) sums.set(key, (sum = { bid: 0, ask: 0, market, subaccount: order.subaccount }));
      if (order.side === 'bid') sum.bid += booked;
      else sum.ask += booked;
    }
    assert(ledger.openOrders === open, 'OrderBookings: open orders differ from the live orders');
    for (const sum of sums.values()) {
      const slot = ledger.slot(sum.market, sum.subaccount);
      assert(slot !== null, 'OrderBookings: a live order has no ledger slot');
      assert(slot.restingBid === sum.bid, 'OrderBookings: resting bids differ from the live orders and open quotes');
      assert(slot.restingAsk === sum.ask, 'OrderBookings: resting asks differ from the live orders and open quotes');
    }
    if (margin !== null) assertMarginMatches(margin, marginSums, marginOpen);
  }

  #grow(slot: number): void {
    let size = this.#market.length * 2;
    while (size <= slot) size *= 2;
    const market = new Int32Array(size).fill(-1);
    market.set(this.#market);
    this.#market = market;
    this.#price = grown(this.#price, size);
    this.#count = grown(this.#count, size);
    this.#pendingPrice = grown(this.#pendingPrice, size);
    this.#pendingCount = grown(this.#pendingCount, size);
    const open = new Uint8Array(size);
    open.set(this.#open);
    this.#open = open;
    const margin = new Uint8Array(size);
    margin.set(this.#margin);
    this.#margin = margin;
  }
}

function grown(from: Float64Array, size: number): Float64Array<ArrayBuffer> {
  const to = new Float64Array(size);
  to.set(from);
  return to;
}

/** The Margin half of the ledger check: counts, notional and own prices of every Margin slot. */
function assertMarginMatches(margin: MarginExposure, marginSums: Map<number, MarginSum>, marginOpen: number): void {
  assert(margin.openOrders === marginOpen, 'OrderBookings: Margin open orders differ from the live Margin orders');
  // Every Margin slot, not only those with live orders: a slot whose orders all ended must rest nothing.
  for (let index = 0; index < margin.slotCount; index++) {
    const slot = margin.slotAt(index);
    const sum = marginSums.get(slot.market * 64 + slot.subaccount);
    assert(slot.restingBid === (sum === undefined ? 0 : sum.bid), 'OrderBookings: Margin resting bids differ from the live orders');
    assert(slot.restingAsk === (sum === undefined ? 0 : sum.ask), 'OrderBookings: Margin resting asks differ from the live orders');
    // Notional sums are exact for whole contracts; the tolerance only absorbs float order of addition.
    assert(Math.abs(slot.bidNotional - (sum === undefined ? 0 : sum.bidNotional)) < 1e-6, 'OrderBookings: Margin resting bid notional differs from the live orders');
    assert(Math.abs(slot.askNotional - (sum === undefined ? 0 : sum.askNotional)) < 1e-6, 'OrderBookings: Margin resting ask notional differs from the live orders');
    let bidLevelSum = 0;
    let bestBid = -1;
    for (let i = 0; i < slot.bidLevels; i++) {
      bidLevelSum += slot.bidCounts[i];
      if (slot.bidPrices[i] > bestBid) bestBid = slot.bidPrices[i];
    }
    let askLevelSum = 0;
    let bestAsk = -1;
    for (let i = 0; i < slot.askLevels; i++) {
      askLevelSum += slot.askCounts[i];
      if (bestAsk === -1 || slot.askPrices[i] < bestAsk) bestAsk = slot.askPrices[i];
    }
    assert(bidLevelSum === slot.restingBid, 'OrderBookings: Margin own bid prices do not add up to the resting bids');
    assert(askLevelSum === slot.restingAsk, 'OrderBookings: Margin own ask prices do not add up to the resting asks');
    assert(slot.bestBid === bestBid, 'OrderBookings: Margin best own bid is not the highest own bid');
    assert(slot.bestAsk === bestAsk, 'OrderBookings: Margin best own ask is not the lowest own ask');
  }
}

/**
 * The gate's view of exposure on the Margin exchange (perpetuals): per (market, subaccount) the
 * signed position in contracts (+ long), the resting count of each side, the worst-case position
 * if every resting order of one side filled, the resting notional of each side, and the own
 * resting prices (for the self-cross check); per Margin subaccount the sum of worst cases, the
 * resting notional and the list of its slots (the margin checks walk it); the live Margin orders.
 *
 * Kept apart from ExposureLedger because subaccount numbers are per exchange: Margin subaccount 3
 * is not Predictions subaccount 3, so no sum may mix them. No price grid: a Margin market has a
 * tick and unbounded prices, and few own orders per slot, so own resting prices live in a small
 * unsorted (price, count) list scanned linearly, the best price cached.
 *
 * Writers are the OMS's order events through the gate (order-bookings.ts), fills and venue
 * positions, exactly as for ExposureLedger; the gate only reads. A slot is allocated on its first
 * write, never during a check. Money is in centicents (1/10,000 $): a Margin count is whole
 * contracts (a multiple of 100), so price x count / 100 is an exact integer, and a $100,000 price
 * (1e9) x 1M contracts is 1e15, inside 2^53 where the micro-dollar product (1e17) would not be.
 */

import { DOUBLE_ZERO, PRICE_INVALID, assert } from '../core/index.ts';
import type { BookSide, Price } from '../core/index.ts';
import { worstOf } from './exposure-ledger.ts';

const SUBACCOUNT_COUNT = 64;
/** Own resting prices per side a slot holds before growing (a few orders per market is the norm). */
const PRICES_INITIAL = 8;

/** Notional of `count` (1/100 contract) at `price` (1/10,000 $), centicents; no complement on Margin. */
export function marginNotional(price: number, count: number): number {
  // count / 100 first: whole contracts keep the product exact far beyond price x count.
  return price * (count / 100);
}

export class MarginSlot {
  readonly market: number;
  readonly subaccount: number;
  /** Signed, 1/100 contract, + long. */
  position = DOUBLE_ZERO;
  restingBid = DOUBLE_ZERO;
  restingAsk = DOUBLE_ZERO;
  /** max(|position + restingBid|, |position - restingAsk|). */
  worst = DOUBLE_ZERO;
  /** Resting notional of each side (price x count), centicents. */
  bidNotional = DOUBLE_ZERO;
  askNotional = DOUBLE_ZERO;
  /** Highest own resting bid / lowest own resting ask; PRICE_INVALID when none. */
  bestBid: Price = PRICE_INVALID;
  bestAsk: Price = PRICE_INVALID;
  /** Own resting (price, count) pairs per side, unsorted; entries [0, levels) are in use. */
  bidPrices: Float64Array<ArrayBuffer> = new Float64Array(PRICES_INITIAL);
  bidCounts: Float64Array<ArrayBuffer> = new Float64Array(PRICES_INITIAL);
  bidLevels = 0;
  askPrices: Float64Array<ArrayBuffer> = new Float64Array(PRICES_INITIAL);
  askCounts: Float64Array<ArrayBuffer> = new Float64Array(PRICES_INITIAL);
  askLevels = 0;
  constructor(market: number, subaccount: number) {
    this.market = market;
    this.subaccount = subaccount;
  }
}

export class MarginExposure {
  readonly #slots: (MarginSlot | null)[] = [];
  /** Per Margin subaccount: its slots, in allocation order (the margin checks walk them, a few markets). */
  readonly #bySubaccount: MarginSlot[][] = [];
  readonly #worstSum = new Float64Array(SUBACCOUNT_COUNT);
  readonly #restingNotional = new Float64Array(SUBACCOUNT_COUNT);
  readonly #slotList: MarginSlot[] = [];
  #openOrders = 0;
  #version = 0;

  constructor() {
    for (let subaccount = 0; subaccount < SUBACCOUNT_COUNT; subaccount++) this.#bySubaccount.push([]);
  }

  /** Hot path read: null when nothing was ever recorded for (market, subaccount). */
  slot(market: number, subaccount: number): MarginSlot | null {
    const index = market * SUBACCOUNT_COUNT + subaccount;
    return index >= 0 && index < this.#slots.length ? this.#slots[index] : null;
  }

  /** The slots of a Margin subaccount (read-only; the array is the ledger's own, never copied). */
  slotsOf(subaccount: number): readonly MarginSlot[] {
    return this.#bySubaccount[subaccount];
  }

  worstSum(subaccount: number): number {
    return this.#worstSum[subaccount];
  }

  /** Resting notional of the subaccount's Margin orders, centicents. */
  restingNotional(subaccount: number): number {
    return this.#restingNotional[subaccount];
  }

  /** Live Margin orders of the user. */
  get openOrders(): number {
    return this.#openOrders;
  }

  /** Bumped on every change of a position or a resting count. */
  get version(): number {
    return this.#version;
  }

  get slotCount(): number {
    return this.#slotList.length;
  }

  slotAt(index: number): MarginSlot {
    return this.#slotList[index];
  }

  position(market: number, subaccount: number): number {
    const slot = this.slot(market, subaccount);
    return slot === null ? 0 : slot.position;
  }

  /** Adds `count` resting at `price` on `side`; `orders` is +1 for a new live order, 0 otherwise. */
  addResting(market: number, subaccount: number, side: BookSide, price: Price, count: number, orders: number): void {
    const slot = this.#slotFor(market, subaccount);
    const notional = marginNotional(price, count);
    if (side === 'bid') {
      slot.restingBid += count;
      slot.bidNotional += notional;
      addLevel(slot, true, price, count);
      if (slot.bestBid === PRICE_INVALID || price > slot.bestBid) slot.bestBid = price;
    } else {
      slot.restingAsk += count;
      slot.askNotional += notional;
      addLevel(slot, false, price, count);
      if (slot.bestAsk === PRICE_INVALID || price < slot.bestAsk) slot.bestAsk = price;
    }
    this.#restingNotional[subaccount] += notional;
    this.#openOrders += orders;
    this.#rework(slot, subaccount);
  }

  /** Removes what addResting added; `orders` is -1 when the order stops being live. */
  removeResting(market: number, subaccount: number, side: BookSide, price: Price, count: number, orders: number): void {
    const slot = this.slot(market, subaccount);
    assert(slot !== null, 'MarginExposure.removeResting: no slot');
    const notional = marginNotional(price, count);
    if (side === 'bid') {
      assert(slot.restingBid >= count, 'MarginExposure.removeResting: bid count below zero');
      slot.restingBid -= count;
      slot.bidNotional -= notional;
      if (removeLevel(slot, true, price, count) && price === slot.bestBid) slot.bestBid = bestOf(slot.bidPrices, slot.bidLevels, true);
    } else {
      assert(slot.restingAsk >= count, 'MarginExposure.removeResting: ask count below zero');
      slot.restingAsk -= count;
      slot.askNotional -= notional;
      if (removeLevel(slot, false, price, count) && price === slot.bestAsk) slot.bestAsk = bestOf(slot.askPrices, slot.askLevels, false);
    }
    this.#restingNotional[subaccount] -= notional;
    this.#openOrders += orders;
    assert(this.#openOrders >= 0, 'MarginExposure.removeResting: open orders below zero');
    this.#rework(slot, subaccount);
  }

  /** Counts a Margin order becoming live (+1) or ending (-1) without moving any count. */
  adjustOpenOrders(delta: number): void {
    this.#openOrders += delta;
    assert(this.#openOrders >= 0, 'MarginExposure.adjustOpenOrders: open orders below zero');
  }

  /** A fill moves the position; the OMS removes the filled count from resting separately. */
  applyFill(market: number, subaccount: number, side: BookSide, count: number): void {
    const slot = this.#slotFor(market, subaccount);
    slot.position += side === 'bid' ? count : -count;
    this.#rework(slot, subaccount);
  }

  /** The venue's position (positions channel, GET /margin/positions, the journal) replaces ours. */
  setPosition(market: number, subaccount: number, position: number): void {
    assert(Number.isSafeInteger(position) && position > Number.MIN_SAFE_INTEGER, 'MarginExposure.setPosition: not a position');
    const slot = this.#slotFor(market, subaccount);
    slot.position = position;
    this.#rework(slot, subaccount);
  }

  /** Own resting count at `price` on `side` (tests and the ledger check; linear in the slot's prices). */
  restingAt(market: number, subaccount: number, side: BookSide, price: Price): number {
    const slot = this.slot(market, subaccount);
    if (slot === null) return 0;
    const prices = side === 'bid' ? slot.bidPrices : slot.askPrices;
    const counts = side === 'bid' ? slot.bidCounts : slot.askCounts;
    const levels = side === 'bid' ? slot.bidLevels : slot.askLevels;
    for (let i = 0; i < levels; i++) if (prices[i] === price) return counts[i];
    return 0;
  }

  #rework(slot: MarginSlot, subaccount: number): void {
    // Wrapped below 2^30: a count past V8's small-integer range would change the field's
    // representation and deprecate this class's map mid-run (see #addedMicroTotal in exposure-ledger.ts);
    // readers only compare versions for equality.
    this.#version = (this.#version + 1) & 0x3fffffff;
    const worst = worstOf(slot.position, slot.restingBid, slot.restingAsk);
    this.#worstSum[subaccount] += worst - slot.worst;
    slot.worst = worst;
  }

  #slotFor(market: number, subaccount: number): MarginSlot {
    assert(subaccount >= 0 && subaccount < SUBACCOUNT_COUNT, 'MarginExposure: subaccount outside 0-63');
    assert(market >= 0, 'MarginExposure: no market');
    const index = market * SUBACCOUNT_COUNT + subaccount;
    if (index < this.#slots.length) {
      const slot = this.#slots[index];
      if (slot !== null) return slot;
    }
    while (this.#slots.length <= index) this.#slots.push(null);
    const slot = new MarginSlot(market, subaccount);
    this.#slots[index] = slot;
    this.#slotList.push(slot);
    this.#bySubaccount[subaccount].push(slot);
    return slot;
  }
}

function addLevel(slot: MarginSlot, bid: boolean, price: number, count: number): void {
  let prices = bid ? slot.bidPrices : slot.askPrices;
  let counts = bid ? slot.bidCounts : slot.askCounts;
  const levels = bid ? slot.bidLevels : slot.askLevels;
  for (let i = 0; i < levels; i++) {
    if (prices[i] === price) {
      counts[i] += count;
      return;
    }
  }
  if (levels === prices.length) {
    // Growth happens on an order event (never in a check): more distinct own prices than ever before.
    prices = grown(prices, levels * 2);
    counts = grown(counts, levels * 2);
    if (bid) {
      slot.bidPrices = prices;
      slot.bidCounts = counts;
    } else {
      slot.askPrices = prices;
      slot.askCounts = counts;
    }
  }
  prices[levels] = price;
  counts[levels] = count;
  if (bid) slot.bidLevels = levels + 1;
  else slot.askLevels = levels + 1;
}

/** Removes `count` at `price`; true when the price's last count left (the best may have to move). */
function removeLevel(slot: MarginSlot, bid: boolean, price: number, count: number): boolean {
  const prices = bid ? slot.bidPrices : slot.askPrices;
  const counts = bid ? slot.bidCounts : slot.askCounts;
  const levels = bid ? slot.bidLevels : slot.askLevels;
  for (let i = 0; i < levels; i++) {
    if (prices[i] !== price) continue;
    const left = (counts[i] -= count);
    assert(left >= 0, 'MarginExposure.removeResting: price level below zero');
    if (left > 0) return false;
    // Swap the last entry in: the list is unsorted.
    prices[i] = prices[levels - 1];
    counts[i] = counts[levels - 1];
    if (bid) slot.bidLevels = levels - 1;
    else slot.askLevels = levels - 1;
    return true;
  }
  assert(false, 'MarginExposure.removeResting: no own resting order at the price');
}

function bestOf(prices: Float64Array, levels: number, highest: boolean): Price {
  if (levels === 0) return PRICE_INVALID;
  let best = prices[0];
  for (let i = 1; i < levels; i++) if (highest ? prices[i] > best : prices[i] < best) best = prices[i];
  return best as Price;
}

function grown(from: Float64Array, size: number): Float64Array<ArrayBuffer> {
  const to = new Float64Array(size);
  to.set(from);
  return to;
}

/**
 * What the exposure ledger holds for each of our open quotes, so an open quote counts against the
 * limits like a resting order: a quote may execute on either side until the RFQ's creator takes
 * one, and on the taken side until it is confirmed or closed. Our YES bid at p books a bid of the
 * quote's count at p; our NO bid at q books a YES ask at 1 - q (buying NO is selling YES, at the
 * same cost q per contract). Portfolio risk reads the ledger, so it sees them too.
 *
 * The quote book reports every change of a quote (BookedQuote.exposedSides says which bids may
 * still execute); the ledger moves by the exact difference, and nothing is booked once the quote
 * closes (its execution's fills then move the position through the OMS). Not open orders: a
 * quote adds no count to the user's open-order limit. This file owns the per-quote bookings and
 * their part of the ledger check; the ledger owns the sums.
 */

import { PRICE_ONE } from '../core/index.ts';
import type { Price } from '../core/index.ts';
import type { ExposureLedger } from './exposure-ledger.ts';

/** Our YES bid may still execute. */
export const QUOTE_SIDE_YES = 1;
/** Our NO bid may still execute. */
export const QUOTE_SIDE_NO = 2;

/** What the gate reads of a quote (the quote book's Quote satisfies it). */
export interface BookedQuote {
  readonly handle: number;
  /** Market index. */
  readonly market: number;
  readonly subaccount: number;
  readonly yesBid: Price;
  readonly noBid: Price;
  /** Contracts we may buy on the side taken (1/100 contract). */
  readonly count: number;
  /** QUOTE_SIDE_YES | QUOTE_SIDE_NO: the bids that may still execute; 0 once the quote is closed. */
  readonly exposedSides: number;
}

interface Booking {
  market: number;
  subaccount: number;
  yesBid: Price;
  noBid: Price;
  count: number;
  sides: number;
}

export class QuoteBookings {
  readonly #byHandle = new Map<number, Booking>();

  get size(): number {
    return this.#byHandle.size;
  }

  /** Moves the ledger from what `quote` had booked to what it exposes now. */
  sync(quote: BookedQuote, ledger: ExposureLedger): void {
    const sides = quote.market >= 0 && quote.count > 0 ? quote.exposedSides : 0;
    const booked = this.#byHandle.get(quote.handle);
    if (booked !== undefined) {
      if (booked.sides === sides && booked.count === quote.count) return;
      unbook(booked, ledger);
      this.#byHandle.delete(quote.handle);
    }
    if (sides === 0) return;
    const booking: Booking = { market: quote.market, subaccount: quote.subaccount, yesBid: quote.yesBid, noBid: quote.noBid, count: quote.count, sides };
    book(booking, ledger);
    this.#byHandle.set(quote.handle, booking);
  }

  /** Contracts `handle` has booked as a bid (its YES side) and as an ask (its NO side); 0 when none. */
  bookedBid(handle: number): number {
    const booked = this.#byHandle.get(handle);
    return booked !== undefined && (booked.sides & QUOTE_SIDE_YES) !== 0 ? booked.count : 0;
  }

  bookedAsk(handle: number): number {
    const booked = this.#byHandle.get(handle);
    return booked !== undefined && (booked.sides & QUOTE_SIDE_NO) !== 0 ? booked.count : 0;
  }

  /** Adds every booking's counts to `sums` (market * 64 + subaccount -> bid, ask), for the ledger check. */
  addTo(sums: Map<number, { bid: number; ask: number; market: number; subaccount: number }>): void {
    for (const booked of this.#byHandle.values()) {
      const key = booked.market * 64 + booked.subaccount;
      let sum = sums.get(key);
      if (sum === undefined) sums.set(key, (sum = { bid: 0, ask: 0, market: booked.market, subaccount: booked.subaccount }));
      if ((booked.sides & QUOTE_SIDE_YES) !== 0) sum.bid += booked.count;
      if ((booked.sides & QUOTE_SIDE_NO) !== 0) sum.ask += booked.count;
    }
  }
}

function book(booking: Booking, ledger: ExposureLedger): void {
  if ((booking.sides & QUOTE_SIDE_YES) !== 0) ledger.addResting(booking.market, booking.subaccount, 'bid', booking.yesBid, booking.count, 0);
  if ((booking.sides & QUOTE_SIDE_NO) !== 0) ledger.addResting(booking.market, booking.subaccount, 'ask', (PRICE_ONE - booking.noBid) as Price, booking.count, 0);
}

function unbook(booking: Booking, ledger: ExposureLedger): void {
  if ((booking.sides & QUOTE_SIDE_YES) !== 0) ledger.removeResting(booking.market, booking.subaccount, 'bid', booking.yesBid, booking.count, 0);
  if ((booking.sides & QUOTE_SIDE_NO) !== 0) ledger.removeResting(booking.market, booking.subaccount, 'ask', (PRICE_ONE - booking.noBid) as Price, booking.count, 0);
}

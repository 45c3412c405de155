/**
 * The quote router: the one way from a strategy's quote action to the wire, the same hops as the
 * order router, on one reused QuoteIntent:
 *
 *   NEW:     quote book knows the RFQ? -> gate.checkQuote -> quoteBook.accept (journaled) -> route.create
 *   CANCEL:  quoteBook.readyToCancel  -> gate.checkQuote -> quoteBook.cancelSent  -> route.cancel
 *   CONFIRM: quoteBook.readyToConfirm -> gate.checkQuote (the last look) -> quoteBook.confirmSent -> route.confirm
 *
 * The route's answers go straight to the quote book (route.setListener(quoteBook)). Synchronous;
 * the route's REST call runs after the caller returns (its promise is the route's). This file
 * decides the order of hops only.
 */

import type { Price } from '../core/index.ts';
import { QuoteBook, QuoteResult } from '../oms/index.ts';
import type { Quote, QuoteEntry } from '../oms/index.ts';
import { Deny, QuoteAction, QuoteIntent } from '../risk/index.ts';
import type { RiskGate } from '../risk/index.ts';
import type { QuotePort, QuoteView, RfqView } from '../strategy/index.ts';

export interface QuoteRouterOptions {
  gate: RiskGate;
  quotes: QuoteBook;
  route: QuoteEntry;
}

export class QuoteRouter implements QuotePort {
  readonly gate: RiskGate;
  readonly quotes: QuoteBook;
  readonly route: QuoteEntry;
  lastQuoteHandle = -1;
  /** Quote actions (new, cancel, confirm) the gate denied: the status's rfq.denied. */
  quotesDenied = 0;
  readonly #intent = new QuoteIntent();

  constructor(options: QuoteRouterOptions) {
    this.gate = options.gate;
    this.quotes = options.quotes;
    this.route = options.route;
    this.route.setListener(this.quotes);
    this.quotes.setEntry(this.route);
  }

  quote(strategyId: number, subaccount: number, rfqId: string, yesBid: Price, noBid: Price, postOnly: boolean): Deny {
    const book = this.quotes;
    const rfq = book.rfq(rfqId);
    if (rfq === undefined) return Deny.RFQ_UNKNOWN;
    const gate = this.gate;
    const market = gate.marketHandle(rfq.marketTicker);
    const intent = this.#intent;
    intent.action = QuoteAction.NEW;
    intent.handle = -1;
    intent.market = market;
    intent.yesBid = yesBid;
    intent.noBid = noBid;
    intent.count = QuoteBook.quoteCount(rfq, yesBid, noBid);
    intent.acceptedSide = '';
    intent.postOnly = postOnly;
    intent.subaccount = subaccount;
    intent.strategyId = strategyId;
    const deny = gate.checkQuote(intent);
    if (deny !== Deny.NONE) return this.#denied(deny);
    const quote = book.accept(rfqId, rfq.marketTicker, market, yesBid, noBid, intent.count, postOnly, subaccount, strategyId);
    this.lastQuoteHandle = quote.handle;
    this.route.create(quote);
    return Deny.NONE;
  }

  cancelQuote(strategyId: number, handle: number): Deny {
    const book = this.quotes;
    const ready = book.readyToCancel(handle, strategyId);
    if (ready !== QuoteResult.READY) return ready === QuoteResult.UNKNOWN ? Deny.QUOTE_UNKNOWN : Deny.QUOTE_NOT_ACTIONABLE;
    const quote = book.quote(handle)!;
    const deny = this.gate.checkQuote(this.#fill(QuoteAction.CANCEL, quote));
    if (deny !== Deny.NONE) return this.#denied(deny);
    book.cancelSent(quote);
    this.route.cancel(quote);
    return Deny.NONE;
  }

  confirmQuote(strategyId: number, handle: number): Deny {
    const book = this.quotes;
    const ready = book.readyToConfirm(handle, strategyId);
    if (ready !== QuoteResult.READY) return ready === QuoteResult.UNKNOWN ? Deny.QUOTE_UNKNOWN : Deny.QUOTE_NOT_ACTIONABLE;
    const quote = book.quote(handle)!;
    const deny = this.gate.checkQuote(this.#fill(QuoteAction.CONFIRM, quote));
    if (deny !== Deny.NONE) return this.#denied(deny);
    book.confirmSent(quote);
    this.route.confirm(quote);
    return Deny.NONE;
  }

  quoteView(handle: number): QuoteView | null {
    return this.quotes.quote(handle) ?? null;
  }

  rfq(rfqId: string): RfqView | null {
    return this.quotes.rfq(rfqId) ?? null;
  }

  openQuotes(strategyId: number, out: QuoteView[]): number {
    // Per RFQ (rfq-maker asks before each quote): the book's open list by index, no array or iterator made.
    const book = this.quotes;
    const open = book.openCount;
    let n = 0;
    for (let i = 0; i < open; i++) {
      const quote = book.openQuoteAt(i);
      if (quote.strategyId === strategyId) out[n++] = quote;
    }
    return n;
  }

  #denied(deny: Deny): Deny {
    this.quotesDenied++;
    return deny;
  }

  #fill(action: QuoteAction, quote: Quote): QuoteIntent {
    const intent = this.#intent;
    intent.action = action;
    intent.handle = quote.handle;
    // A quote recovered from the journal carries no handle of this run: look its market up again.
    intent.market = quote.market >= 0 ? quote.market : this.gate.marketHandle(quote.ticker);
    intent.yesBid = quote.yesBid;
    intent.noBid = quote.noBid;
    intent.count = quote.count;
    intent.acceptedSide = quote.acceptedSide;
    intent.postOnly = quote.postOnly;
    intent.subaccount = quote.subaccount;
    intent.strategyId = quote.strategyId;
    return intent;
  }
}

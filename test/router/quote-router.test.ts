// Goal: the quote router's hops (src/router/quote-router.ts): the quote book's own verdicts come
// first (RFQ_UNKNOWN, QUOTE_UNKNOWN, QUOTE_NOT_ACTIONABLE) and take no token; a gate deny leaves
// no quote tracked and sends nothing; an allowed quote is tracked PENDING_NEW before the route
// sends it; cancel and confirm go out only from the right state, with the quote's own fields;
// and the strategy context refuses RFQs outside its markets. Also the REST body and list parsing.
// Method: a real RiskGate and QuoteBook over a ManualClock, a fake route recording its calls.

import { describe, expect, it } from 'vitest';
import { CENTICENTS_INVALID, ManualClock, PriceGrid, parsePrice } from '../../src/core/index.ts';
import type { Count, Price } from '../../src/core/index.ts';
import { encodeCreateQuote, parseWireQuote } from '../../src/exec/index.ts';
import { QuoteBook, QuoteState } from '../../src/oms/index.ts';
import type { QuoteEntry, QuoteListener, QuoteRequest, WireQuote } from '../../src/oms/index.ts';
import { Deny, RiskGate, riskLimits } from '../../src/risk/index.ts';
import { QuoteRouter } from '../../src/router/index.ts';

class FakeRoute implements QuoteEntry {
  sent: string[] = [];
  setListener(_listener: QuoteListener): void {}
  create(q: QuoteRequest): void {
    this.sent.push(`create ${q.rfqId} ${q.yesBid} ${q.noBid} ${q.postOnly}`);
  }
  cancel(q: QuoteRequest): void {
    this.sent.push(`cancel ${q.quoteId}`);
  }
  confirm(q: QuoteRequest): void {
    this.sent.push(`confirm ${q.quoteId}`);
  }
  async listQuotes(): Promise<WireQuote[]> {
    return [];
  }
}

function setup() {
  const clock = new ManualClock(1_000_000);
  const gate = new RiskGate({ limits: riskLimits({ rateTier: 'premier' }), clock });
  const book = { synced: true, updatedAtMs: 0, bestBid: () => parsePrice('0.45'), bestAsk: () => parsePrice('0.55') };
  gate.addMarket('KX-A', PriceGrid.fromStructure('linear_cent'), book);
  const quotes = new QuoteBook({ clock, journal: null, onOpenCount: (n) => gate.setOpenQuotes(n) });
  const route = new FakeRoute();
  const router = new QuoteRouter({ gate, quotes, route });
  quotes.onRfq({ eventType: 'created', id: 'rfq-1', creatorId: '', marketTicker: 'KX-A', eventTicker: '', contracts: 1000 as Count, targetCost: CENTICENTS_INVALID, tsMs: 0 });
  return { gate, quotes, route, router, clock };
}

const p = (text: string): Price => parsePrice(text);

describe('quote router', () => {
  it('quote: book verdicts first, then the gate, then tracked and sent', () => {
    const { gate, quotes, route, router, clock } = setup();
    const tokens = (): number => gate.budget.writeTokens(clock.nowMs());
    const full = tokens();
    expect(router.quote(1, 0, 'rfq-none', p('0.48'), p('0.48'), true)).toBe(Deny.RFQ_UNKNOWN);
    expect(router.quote(1, 0, 'rfq-1', p('0.485'), p('0.48'), true)).toBe(Deny.PRICE_OFF_GRID);
    expect([tokens(), quotes.openCount, route.sent]).toEqual([full, 0, []]);
    expect(router.quote(1, 0, 'rfq-1', p('0.48'), p('0.47'), true)).toBe(Deny.NONE);
    expect(tokens()).toBe(full - 2);
    const quote = quotes.quote(router.lastQuoteHandle)!;
    expect([quote.state, quote.count, quote.strategyId, quote.ticker]).toEqual([QuoteState.PENDING_NEW, 1000, 1, 'KX-A']);
    expect(route.sent).toEqual(['create rfq-1 4800 4700 true']);
  });

  it('cancel and confirm only from the right state and only for the owner', () => {
    const { quotes, route, router } = setup();
    router.quote(1, 0, 'rfq-1', p('0.48'), p('0.47'), false);
    const handle = router.lastQuoteHandle;
    expect(router.cancelQuote(1, handle)).toBe(Deny.QUOTE_NOT_ACTIONABLE); // still pending
    quotes.onQuoteCreateAck(handle, 'q-1');
    expect(router.cancelQuote(2, handle)).toBe(Deny.QUOTE_UNKNOWN);
    expect(router.confirmQuote(1, handle)).toBe(Deny.QUOTE_NOT_ACTIONABLE); // not accepted
    expect(router.cancelQuote(1, handle)).toBe(Deny.NONE);
    expect(quotes.quote(handle)!.state).toBe(QuoteState.PENDING_CANCEL);
    quotes.onQuoteMessage({ eventType: 'accepted', quoteId: 'q-1', rfqId: 'rfq-1', acceptedSide: 'yes', contractsAccepted: 1000 as Count, orderId: '', clientOrderId: '', subaccount: -1 });
    expect(router.confirmQuote(1, handle)).toBe(Deny.NONE);
    expect(route.sent).toEqual(['create rfq-1 4800 4700 false', 'cancel q-1', 'confirm q-1']);
    expect(router.openQuotes(1, [])).toBe(1);
  });
});

describe('REST quote route wire', () => {
  it('encodes the create body and parses a listed quote', () => {
    const body = encodeCreateQuote({ handle: 1, quoteId: '', rfqId: 'rfq-"1', ticker: 'KX-A', yesBid: 4800 as Price, noBid: 0 as Price, postOnly: true, subaccount: 3 }, false);
    expect(JSON.parse(body)).toEqual({ rfq_id: 'rfq-"1', yes_bid: '0.4800', no_bid: '0.0000', rest_remainder: false, post_only: true, subaccount: 3 });
    expect(parseWireQuote({ id: 'q', rfq_id: 'r', market_ticker: 'KX-A', status: 'accepted', yes_bid_dollars: '0.4800', no_bid_dollars: '0.4700', accepted_side: 'no', creator_subaccount: 2, accepted_ts: '2026-09-01T00:00:00Z' }))
      .toEqual({ quoteId: 'q', rfqId: 'r', marketTicker: 'KX-A', status: 'accepted', yesBid: 4800, noBid: 4700, acceptedSide: 'no', subaccount: 2, acceptedMs: Date.UTC(2026, 8, 1) });
    expect(() => parseWireQuote({ id: 'q', status: 'weird' })).toThrow(/bad response/);
  });

  it('openQuotes: a strategy sees its own quotes not yet closed, in handle order, written into its array', () => {
    const { quotes, router } = setup();
    expect(router.quote(1, 0, 'rfq-1', p('0.48'), p('0.47'), true)).toBe(Deny.NONE);
    const first = router.lastQuoteHandle;
    expect(router.quote(2, 0, 'rfq-1', p('0.47'), p('0.47'), true)).toBe(Deny.NONE);
    const other = router.lastQuoteHandle;
    expect(router.quote(1, 0, 'rfq-1', p('0.46'), p('0.47'), true)).toBe(Deny.NONE);
    const third = router.lastQuoteHandle;
    const out: { handle: number }[] = [];
    expect(router.openQuotes(1, out as never)).toBe(2);
    expect(out.map((q) => q.handle)).toEqual([first, third]);
    quotes.onQuoteCreateReject(first, 'NOT_FOUND', 404);
    expect(router.openQuotes(1, out as never)).toBe(1);
    expect(out[0]!.handle).toBe(third);
    expect(router.openQuotes(2, out as never)).toBe(1);
    expect(out[0]!.handle).toBe(other);
  });
});


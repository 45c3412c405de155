// Goal: the risk gate's quote checks (RiskGate.checkQuote, QUOTE_CHECK_ORDER in deny.ts): every
// code a quote action can get is reachable and returned for the reason it names; a NO bid is
// checked on the YES grid as 1 - price; a restricted key runs the maker lifecycle only (quote,
// cancel, confirm) and never the taker's (RFQ create, accept); token costs are rest.md's (quote
// create and delete 2, confirm 10), a withdrawal may spend the cancel reserve, and a denied
// action takes no token; the check order decides when several checks fail.
// Method: a gate over a ManualClock and a fake book, one scenario per code, a ladder quote that
// breaks every check and is repaired one at a time; token counts read from the gate's budget.
// Open quotes booked in the exposure ledger (onQuoteChange): both bids while open, the taken side
// once accepted, nothing once closed; they count against a later quote's limits and the ledger
// check, and a confirm does not count its own booking twice.

import { describe, expect, it } from 'vitest';
import { ManualClock, parsePrice, parseSignedCount, PRICE_INVALID, PriceGrid } from '../../src/core/index.ts';
import type { Count, Price } from '../../src/core/index.ts';
import { Deny, QUOTE_CHECK_ORDER, QuoteAction, QuoteIntent, RiskGate, TradingState, denyName, riskLimits } from '../../src/risk/index.ts';
import type { BookView, RiskLimits } from '../../src/risk/index.ts';

class FakeBook implements BookView {
  synced = true;
  updatedAtMs = 0;
  bid: Price = parsePrice('0.45');
  ask: Price = parsePrice('0.55');
  bestBid(): Price {
    return this.bid;
  }
  bestAsk(): Price {
    return this.ask;
  }
}

const p = (text: string): Price => parsePrice(text);
const c = (text: string): Count => parseSignedCount(text);
const START_MS = 1_000_000;

function world(overrides: Partial<RiskLimits> = {}, grid = PriceGrid.fromStructure('linear_cent')) {
  const clock = new ManualClock(START_MS);
  const gate = new RiskGate({ limits: riskLimits({ rateTier: 'premier', ...overrides }), clock });
  const book = new FakeBook();
  const market = gate.addMarket('KX-A', grid, book);
  const intent = new QuoteIntent();
  intent.action = QuoteAction.NEW;
  intent.market = market;
  intent.yesBid = p('0.48');
  intent.noBid = p('0.48');
  intent.count = c('10');
  intent.postOnly = true;
  return { gate, clock, book, market, intent };
}

type World = ReturnType<typeof world>;

const SCENARIOS: Record<string, () => { code: Deny; w: World }> = {
  INTENT_INVALID: () => { const w = world(); w.intent.action = 9 as never; return { code: w.gate.checkQuote(w.intent), w }; },
  KILL_SWITCH: () => { const w = world(); w.gate.kill(); return { code: w.gate.checkQuote(w.intent), w }; },
  TRADING_HALTED: () => { const w = world(); w.gate.setTradingState(TradingState.HALTED); return { code: w.gate.checkQuote(w.intent), w }; },
  TRADING_REDUCING_ONLY: () => { const w = world(); w.gate.setTradingState(TradingState.REDUCING); return { code: w.gate.checkQuote(w.intent), w }; },
  SUBACCOUNT_INVALID: () => { const w = world(); w.intent.subaccount = 64; return { code: w.gate.checkQuote(w.intent), w }; },
  SUBACCOUNT_LOCKED: () => { const w = world({ restrictedSubaccount: 3 }); w.intent.subaccount = 2; return { code: w.gate.checkQuote(w.intent), w }; },
  RESTRICTED_KEY_MAKER_ONLY: () => { const w = world({ restrictedSubaccount: 3 }); w.intent.subaccount = 3; w.intent.action = QuoteAction.ACCEPT; return { code: w.gate.checkQuote(w.intent), w }; },
  MARKET_UNKNOWN: () => { const w = world(); w.intent.market = 7; return { code: w.gate.checkQuote(w.intent), w }; },
  MARKET_NOT_OPEN: () => { const w = world(); w.gate.setMarketOpen(w.market, false); return { code: w.gate.checkQuote(w.intent), w }; },
  BOOK_NOT_SYNCED: () => { const w = world(); w.book.synced = false; return { code: w.gate.checkQuote(w.intent), w }; },
  PRICE_OUT_OF_RANGE: () => { const w = world(); w.intent.noBid = p('1.00'); return { code: w.gate.checkQuote(w.intent), w }; },
  PRICE_OUT_OF_BAND: () => {
    const w = world({}, PriceGrid.fromPriceRanges([{ start: '0.1000', end: '0.9000', step: '0.0100' }]));
    w.intent.noBid = p('0.95'); // YES-equivalent 0.05, under the band
    return { code: w.gate.checkQuote(w.intent), w };
  },
  PRICE_OFF_GRID: () => { const w = world(); w.intent.yesBid = p('0.485'); return { code: w.gate.checkQuote(w.intent), w }; },
  QUOTE_PRICES_CROSSED: () => { const w = world(); w.intent.yesBid = p('0.52'); w.intent.noBid = p('0.48'); w.intent.postOnly = false; return { code: w.gate.checkQuote(w.intent), w }; },
  COUNT_NOT_POSITIVE: () => { const w = world(); w.intent.count = 0 as Count; return { code: w.gate.checkQuote(w.intent), w }; },
  COUNT_OFF_INCREMENT: () => { const w = world({ wholeContractsOnly: true }); w.intent.count = c('10.5'); return { code: w.gate.checkQuote(w.intent), w }; },
  COUNT_ABOVE_MAX: () => { const w = world({ orderCountMax: c('5') }); return { code: w.gate.checkQuote(w.intent), w }; },
  NOTIONAL_ABOVE_MAX: () => { const w = world({ orderNotionalMax: 40_000 as never }); return { code: w.gate.checkQuote(w.intent), w }; }, // $4 < 10 x 0.48
  MARKET_POSITION_LIMIT: () => { const w = world({ marketPositionMax: c('8') }); return { code: w.gate.checkQuote(w.intent), w }; },
  SUBACCOUNT_NOTIONAL_LIMIT: () => { const w = world({ subaccountNotionalMax: 40_000 as never }); return { code: w.gate.checkQuote(w.intent), w }; }, // $4 < 10 x 0.48
  QUOTE_OPEN_LIMIT: () => { const w = world({ openQuotesMax: 2 }); w.gate.setOpenQuotes(2); return { code: w.gate.checkQuote(w.intent), w }; },
  POST_ONLY_CROSS: () => { const w = world(); w.book.ask = p('0.48'); return { code: w.gate.checkQuote(w.intent), w }; },
  RATE_LIMITED: () => {
    const w = world({ rateTier: 'custom', writeTokensPerSecond: 1, writeCapacityTokens: 5, readTokensPerSecond: 1, cancelReserveShare: 0 });
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.NONE);
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.NONE); // 2 + 2 of 5
    return { code: w.gate.checkQuote(w.intent), w };
  },
};

describe('risk gate: quote actions', () => {
  it('passes the baseline quote', () => {
    const w = world();
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.NONE);
  });

  it('has a scenario for every code of QUOTE_CHECK_ORDER', () => {
    expect(QUOTE_CHECK_ORDER.map(denyName).filter((name) => !(name in SCENARIOS))).toEqual([]);
  });

  for (const name of Object.keys(SCENARIOS)) {
    it(`${name}: denied with its own code and a detail naming the check`, () => {
      const { code, w } = SCENARIOS[name]();
      expect(denyName(code)).toBe(name);
      expect(w.gate.detail.code).toBe(code);
      expect(w.gate.detail.subject.length).toBeGreaterThan(0);
    });
  }

  it('checks the NO bid on the YES grid as 1 - price, and a 0 bid declines its side', () => {
    const w = world({}, PriceGrid.fromStructure('deci_cent'));
    w.intent.yesBid = 0 as Price;
    w.intent.noBid = p('0.481');
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.NONE);
    w.intent.yesBid = 0 as Price;
    w.intent.noBid = 0 as Price;
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.QUOTE_PRICES_CROSSED);
    // post-only NO side: NO bid 0.55 >= best NO ask (1 - 0.45)
    const x = world();
    x.intent.noBid = p('0.55');
    x.intent.yesBid = p('0.40');
    expect(x.gate.checkQuote(x.intent)).toBe(Deny.POST_ONLY_CROSS);
    expect(x.gate.detail.subject).toBe('book.bestBid');
  });

  it('restricted key: the maker lifecycle passes, the taker lifecycle is denied', () => {
    const w = world({ restrictedSubaccount: 3 });
    w.intent.subaccount = 3;
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.NONE);
    w.intent.action = QuoteAction.CONFIRM;
    w.intent.acceptedSide = 'yes';
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.NONE);
    w.intent.action = QuoteAction.CANCEL;
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.NONE);
    w.intent.action = QuoteAction.RFQ_CREATE;
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.RESTRICTED_KEY_MAKER_ONLY);
    w.intent.action = QuoteAction.ACCEPT;
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.RESTRICTED_KEY_MAKER_ONLY);
    // A full-account key may (the runtime offers neither action to strategies yet).
    const full = world();
    full.intent.action = QuoteAction.ACCEPT;
    expect(full.gate.checkQuote(full.intent)).toBe(Deny.NONE);
  });

  it('takes rest.md token costs: create 2, cancel 2 (from the reserve too), confirm 10; a denied action takes nothing', () => {
    const w = world({ rateTier: 'custom', writeTokensPerSecond: 1, writeCapacityTokens: 20, readTokensPerSecond: 1, cancelReserveShare: 0.5 });
    const tokens = (): number => w.gate.budget.writeTokens(w.clock.nowMs());
    expect(tokens()).toBe(20);
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.NONE);
    expect(tokens()).toBe(18);
    w.intent.action = QuoteAction.CONFIRM;
    w.intent.acceptedSide = 'no';
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.RATE_LIMITED); // 18 - 10 would dip into the reserve of 10
    expect(tokens()).toBe(18);
    w.intent.action = QuoteAction.NEW;
    for (let i = 0; i < 4; i++) expect(w.gate.checkQuote(w.intent)).toBe(Deny.NONE);
    expect(tokens()).toBe(10);
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.RATE_LIMITED); // the reserve is the cancels'
    w.intent.action = QuoteAction.CANCEL;
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.NONE);
    expect(tokens()).toBe(8);
    w.intent.action = QuoteAction.NEW;
    w.intent.count = 0 as Count;
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.COUNT_NOT_POSITIVE);
    expect(tokens()).toBe(8);
  });

  it('confirm: the last look checks the side taken against the position now, not the book', () => {
    const w = world({ marketPositionMax: c('15') });
    w.intent.action = QuoteAction.CONFIRM;
    w.intent.acceptedSide = 'no'; // we buy YES 10
    w.book.synced = false; // a confirm does not need the book (the price was fixed at creation)
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.NONE);
    w.gate.onPosition('KX-A', 0, c('6'));
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.MARKET_POSITION_LIMIT); // 6 + 10 > 15
    w.intent.acceptedSide = 'yes'; // we buy NO 10: 6 - 10 = -4
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.NONE);
    w.intent.acceptedSide = '';
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.INTENT_INVALID);
  });

  it('reports the earliest failing check of QUOTE_CHECK_ORDER when several fail', () => {
    const w = world({ orderCountMax: c('5'), openQuotesMax: 0 });
    w.intent.yesBid = p('0.485'); // off grid
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.PRICE_OFF_GRID);
    w.intent.yesBid = p('0.48');
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.COUNT_ABOVE_MAX);
    w.intent.count = c('5');
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.QUOTE_OPEN_LIMIT);
  });

  it('leaves PRICE_INVALID bids as out of range rather than declined', () => {
    const w = world();
    w.intent.yesBid = PRICE_INVALID;
    expect(w.gate.checkQuote(w.intent)).toBe(Deny.PRICE_OUT_OF_RANGE);
  });

  describe('open quotes in the exposure ledger', () => {
    interface Q { handle: number; market: number; subaccount: number; yesBid: Price; noBid: Price; count: number; exposedSides: number }
    const quoteOf = (w: World, handle: number, sides = 3): Q => ({ handle, market: w.market, subaccount: 0, yesBid: p('0.48'), noBid: p('0.47'), count: c('10'), exposedSides: sides });

    it('books both bids while open, the side taken once accepted, nothing once closed', () => {
      const w = world();
      const quote = quoteOf(w, 1);
      w.gate.onQuoteChange(quote);
      const slot = w.gate.exposure.slot(w.market, 0)!;
      expect([slot.restingBid, slot.restingAsk]).toEqual([c('10'), c('10')]);
      expect(w.gate.exposure.restingMicro(0)).toBe(10 * 480_000 + 10 * 470_000); // $4.80 YES and $4.70 NO, micro-dollars
      expect(w.gate.exposure.openOrders).toBe(0); // a quote is not an order
      w.gate.onQuoteChange({ ...quote, exposedSides: 2 }); // the creator took YES: we may buy NO
      expect([slot.restingBid, slot.restingAsk]).toEqual([0, c('10')]);
      w.gate.assertLedger([]);
      w.gate.onQuoteChange({ ...quote, exposedSides: 0 });
      expect([slot.restingBid, slot.restingAsk, w.gate.exposure.restingMicro(0)]).toEqual([0, 0, 0]);
      w.gate.assertLedger([]);
    });

    it('an open quote counts against the next quote: each alone passes, together they exceed the position limit', () => {
      const w = world({ marketPositionMax: c('15') });
      expect(w.gate.checkQuote(w.intent)).toBe(Deny.NONE);
      w.gate.onQuoteChange(quoteOf(w, 1));
      expect(w.gate.checkQuote(w.intent)).toBe(Deny.MARKET_POSITION_LIMIT); // 10 booked + 10 > 15
      w.gate.onQuoteChange(quoteOf(w, 1, 0)); // the first closed
      expect(w.gate.checkQuote(w.intent)).toBe(Deny.NONE);
    });

    it('a confirm takes its own booking out before adding the side taken', () => {
      const w = world({ marketPositionMax: c('15') });
      w.gate.onQuoteChange(quoteOf(w, 7, 1)); // accepted: we may buy YES 10
      w.intent.action = QuoteAction.CONFIRM;
      w.intent.acceptedSide = 'no';
      w.intent.handle = 7;
      expect(w.gate.checkQuote(w.intent)).toBe(Deny.NONE); // 10, not 20
      w.intent.handle = -1; // the same confirm without its booking named counts it twice
      expect(w.gate.checkQuote(w.intent)).toBe(Deny.MARKET_POSITION_LIMIT);
    });

    it('the ledger check fails when the ledger and the bookings disagree', () => {
      const w = world();
      w.gate.onQuoteChange(quoteOf(w, 1));
      w.gate.exposure.addResting(w.market, 0, 'bid', p('0.40'), c('1'), 0);
      expect(() => w.gate.assertLedger([])).toThrow(/resting bids differ/);
    });
  });
});

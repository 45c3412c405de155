// Goal: prove every deny code of the risk gate is reachable and returned for the reason it names,
// that the fixed check order decides which code wins when several apply, that cancels keep a rate
// reserve creates cannot spend, and that a check reuses its detail record and never writes the intent.
// Method: a gate over a ManualClock and a fake book (the BookView contract), one scenario per Deny
// code (the table is iterated so a new code without a scenario fails), a "ladder" intent that breaks
// every check at once and is repaired one check at a time, and direct reads of the reused records.

import { describe, expect, it } from 'vitest';
import { createIntent, IntentKind, ManualClock, parsePrice, parseSignedCount, PRICE_INVALID, PriceGrid } from '../../src/core/index.ts';
import type { Count, OrderIntent, Price } from '../../src/core/index.ts';
import { CHECK_ORDER, DENY_NAMES, MARGIN_CHECK_ORDER, OMS_DENIES, QUOTE_BOOK_DENIES, QUOTE_CHECK_ORDER, TRIGGER_CHECK_ORDER, Deny, PortfolioField, PortfolioView, RiskGate, TradingState, denyName, portfolioSnapshotLength, riskLimits } from '../../src/risk/index.ts';
import type { BookView, RiskLimits } from '../../src/risk/index.ts';

class FakeBook implements BookView {
  synced = true;
  updatedAtMs = 0;
  bid: Price = PRICE_INVALID;
  ask: Price = PRICE_INVALID;
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

interface World {
  gate: RiskGate;
  clock: ManualClock;
  book: FakeBook;
  market: number;
  intent: OrderIntent;
}

function world(overrides: Partial<RiskLimits> = {}, grid = PriceGrid.fromStructure('linear_cent')): World {
  const clock = new ManualClock(START_MS);
  const gate = new RiskGate({ limits: riskLimits({ rateTier: 'premier', ...overrides }), clock });
  const book = new FakeBook();
  book.updatedAtMs = START_MS;
  const market = gate.addMarket('KX-A', grid, book);
  const intent = createIntent();
  intent.kind = IntentKind.NEW;
  intent.market = market;
  intent.side = 'bid';
  intent.price = p('0.50');
  intent.count = c('10');
  return { gate, clock, book, market, intent };
}

/** A published portfolio snapshot: subaccount 0's and event 0's worst-case loss (micro-dollars), packed at `packedAtMs`, with the gate's added-cost counters as they are now. */
function portfolioSnapshot(gate: RiskGate, packedAtMs: number, subLossMicro: number, eventLossMicro: number): Float64Array {
  const values = new Float64Array(portfolioSnapshotLength(1));
  values[PortfolioField.GENERATION] = 1;
  values[PortfolioField.PACKED_AT_MS] = packedAtMs;
  values[PortfolioField.EVENT_COUNT] = 1;
  values[PortfolioField.ADDED_TOTAL_AT_PACK] = gate.exposure.addedMicroTotal;
  for (let s = 0; s < 64; s++) values[PortfolioField.SUB_ADDED + s] = gate.exposure.addedMicro(s);
  values[PortfolioField.SUB_LOSS] = subLossMicro;
  values[PortfolioField.EVENTS] = eventLossMicro;
  return values;
}

/** One scenario per deny code: builds a world, breaks exactly the check the code names, returns the verdict. */
const SCENARIOS: Record<string, () => { code: Deny; w: World }> = {
  INTENT_INVALID: () => {
    const w = world();
    w.intent.side = 'buy' as never;
    return { code: w.gate.check(w.intent), w };
  },
  KILL_SWITCH: () => {
    const w = world();
    w.gate.kill();
    return { code: w.gate.check(w.intent), w };
  },
  TRADING_HALTED: () => {
    const w = world();
    w.gate.setTradingState(TradingState.HALTED);
    return { code: w.gate.check(w.intent), w };
  },
  TRADING_REDUCING_ONLY: () => {
    const w = world();
    w.gate.exposure.setPosition(w.market, 0, c('5'));
    w.gate.setTradingState(TradingState.REDUCING);
    // An ask of 5 reduces a long 5; a bid adds to it.
    w.intent.side = 'ask';
    w.intent.count = c('5');
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    w.intent.count = c('6'); // would flip the position: not reducing
    return { code: w.gate.check(w.intent), w };
  },
  SUBACCOUNT_INVALID: () => {
    const w = world();
    w.intent.subaccount = 64;
    return { code: w.gate.check(w.intent), w };
  },
  SUBACCOUNT_LOCKED: () => {
    const w = world({ restrictedSubaccount: 3 });
    w.intent.subaccount = 2;
    return { code: w.gate.check(w.intent), w };
  },
  MARKET_UNKNOWN: () => {
    const w = world();
    w.intent.market = 42;
    return { code: w.gate.check(w.intent), w };
  },
  MARKET_NOT_OPEN: () => {
    const w = world();
    w.gate.setMarketOpen(w.market, false);
    return { code: w.gate.check(w.intent), w };
  },
  ROUTE_EXCHANGE_MISMATCH: () => {
    const w = world();
    w.gate.setRouteExchange(1, 'margin');
    w.intent.route = 1; // a Margin route for a Predictions market
    return { code: w.gate.check(w.intent), w };
  },
  BOOK_NOT_SYNCED: () => {
    const w = world();
    w.book.synced = false;
    return { code: w.gate.check(w.intent), w };
  },
  BOOK_STALE: () => {
    const w = world({ bookStaleMs: 1000 });
    w.clock.advance(1001);
    return { code: w.gate.check(w.intent), w };
  },
  PRICE_OUT_OF_RANGE: () => {
    const w = world();
    w.intent.price = p('1');
    return { code: w.gate.check(w.intent), w };
  },
  PRICE_OUT_OF_BAND: () => {
    const w = world({}, PriceGrid.fromPriceRanges([{ start: '0.1000', end: '0.9000', step: '0.0100' }]));
    w.intent.price = p('0.05');
    return { code: w.gate.check(w.intent), w };
  },
  PRICE_OFF_GRID: () => {
    const w = world();
    w.intent.price = p('0.505');
    return { code: w.gate.check(w.intent), w };
  },
  COUNT_NOT_POSITIVE: () => {
    const w = world();
    w.intent.count = c('0');
    return { code: w.gate.check(w.intent), w };
  },
  COUNT_OFF_INCREMENT: () => {
    const w = world({ wholeContractsOnly: true });
    w.intent.count = c('1.5');
    return { code: w.gate.check(w.intent), w };
  },
  COUNT_ABOVE_MAX: () => {
    const w = world({ orderCountMax: c('100') });
    w.intent.count = c('100.01');
    return { code: w.gate.check(w.intent), w };
  },
  NOTIONAL_ABOVE_MAX: () => {
    // An ask at 0.20 costs 0.80 per contract (the NO side): 10 x 0.80 = $8 > $7.99.
    const w = world({ orderNotionalMax: 79_900 as never });
    w.intent.side = 'ask';
    w.intent.price = p('0.20');
    return { code: w.gate.check(w.intent), w };
  },
  REDUCE_ONLY_NOT_REDUCING: () => {
    const w = world();
    w.intent.reduceOnly = true; // flat position: nothing to reduce
    return { code: w.gate.check(w.intent), w };
  },
  MARKET_POSITION_LIMIT: () => {
    const w = world({ marketPositionMax: c('100') });
    w.gate.exposure.setPosition(w.market, 0, c('50'));
    w.gate.exposure.addResting(w.market, 0, 'bid', p('0.40'), c('45'), 1);
    w.intent.count = c('5'); // worst long = 50 + 45 + 5 = 100: allowed
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    w.intent.count = c('6');
    return { code: w.gate.check(w.intent), w };
  },
  SUBACCOUNT_POSITION_LIMIT: () => {
    const w = world({ subaccountPositionMax: c('100') });
    const other = w.gate.addMarket('KX-B', PriceGrid.fromStructure('linear_cent'), new FakeBook());
    w.gate.exposure.setPosition(other, 0, c('-95')); // worst 95 in another market of subaccount 0
    w.intent.count = c('6');
    return { code: w.gate.check(w.intent), w };
  },
  SUBACCOUNT_NOTIONAL_LIMIT: () => {
    const w = world({ subaccountNotionalMax: 100_000 as never }); // $10
    w.gate.exposure.addResting(w.market, 0, 'bid', p('0.10'), c('60'), 1); // $6 resting
    w.intent.price = p('0.41'); // 10 x 0.41 = $4.10 -> $10.10
    return { code: w.gate.check(w.intent), w };
  },
  OPEN_ORDERS_LIMIT: () => {
    const w = world({ openOrdersMax: 2 });
    w.gate.exposure.addResting(w.market, 0, 'bid', p('0.10'), c('1'), 1);
    w.gate.exposure.addResting(w.market, 1, 'bid', p('0.10'), c('1'), 1);
    return { code: w.gate.check(w.intent), w };
  },
  POST_ONLY_CROSS: () => {
    const w = world();
    w.book.ask = p('0.50');
    w.intent.postOnly = true;
    return { code: w.gate.check(w.intent), w };
  },
  SELF_CROSS: () => {
    const w = world();
    w.gate.exposure.addResting(w.market, 0, 'ask', p('0.50'), c('3'), 1);
    return { code: w.gate.check(w.intent), w };
  },
  ORDER_GROUP_UNKNOWN: () => {
    const w = world();
    w.intent.orderGroup = 7;
    return { code: w.gate.check(w.intent), w };
  },
  ORDER_GROUP_TRIGGERED: () => {
    const w = world();
    const group = w.gate.addOrderGroup('g-1', 0, c('100'));
    w.gate.groups.at(group)!.triggered = true;
    w.intent.orderGroup = group;
    return { code: w.gate.check(w.intent), w };
  },
  ORDER_GROUP_LIMIT: () => {
    const w = world();
    const group = w.gate.addOrderGroup('g-1', 0, c('100'));
    w.gate.groups.at(group)!.addMatched(c('95'), START_MS - 5_000);
    w.intent.orderGroup = group;
    w.intent.count = c('6');
    return { code: w.gate.check(w.intent), w };
  },
  ORDER_GROUP_COUNT_MAX: () => {
    const w = world({ orderGroupsMax: 2 });
    w.gate.addOrderGroup('g-1', 0, c('100'));
    w.gate.addOrderGroup('g-2', 0, c('100'));
    w.intent.kind = IntentKind.GROUP_CREATE;
    w.intent.market = -1;
    w.intent.count = c('100');
    return { code: w.gate.check(w.intent), w };
  },
  PORTFOLIO_RISK_STALE: () => {
    const w = world({ portfolioStaleMs: 1_000 });
    const view = new PortfolioView();
    w.gate.setPortfolio(view);
    expect(w.gate.check(w.intent)).toBe(Deny.PORTFOLIO_RISK_STALE); // none published yet
    view.publish(portfolioSnapshot(w.gate, START_MS, 0, 0));
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    w.clock.advance(1_001);
    w.book.updatedAtMs = w.clock.nowMs();
    return { code: w.gate.check(w.intent), w };
  },
  WORST_LOSS_SUBACCOUNT_LIMIT: () => {
    const w = world({ worstLossSubaccountMax: 100_000 as never }); // $10
    const view = new PortfolioView();
    w.gate.setPortfolio(view);
    view.publish(portfolioSnapshot(w.gate, START_MS, 4_000_000, 0)); // $4 at risk already
    expect(w.gate.check(w.intent)).toBe(Deny.NONE); // + 10 x $0.50 = $9
    view.publish(portfolioSnapshot(w.gate, START_MS, 6_000_000, 0)); // $6 + $5 > $10
    return { code: w.gate.check(w.intent), w };
  },
  WORST_LOSS_EVENT_LIMIT: () => {
    const w = world({ worstLossEventMax: 100_000 as never }); // $10
    const view = new PortfolioView();
    view.setEventOf(w.market, 0);
    w.gate.setPortfolio(view);
    view.publish(portfolioSnapshot(w.gate, START_MS, 0, 6_000_000));
    return { code: w.gate.check(w.intent), w };
  },
  RATE_LIMITED: () => {
    const w = world({ rateTier: 'basic', cancelReserveShare: 0.2 }); // 100 tokens, 20 reserved
    for (let i = 0; i < 8; i++) expect(w.gate.check(w.intent)).toBe(Deny.NONE); // 80 tokens
    return { code: w.gate.check(w.intent), w };
  },
};

/** Codes only quote actions give (the gate's checkQuote or the quote book): test/risk/quote-gate.test.ts has their scenarios. */
const QUOTE_ONLY: readonly Deny[] = [
  ...QUOTE_BOOK_DENIES,
  ...QUOTE_CHECK_ORDER.filter((code) => !CHECK_ORDER.includes(code)),
  // Codes only Margin orders and exit triggers give: test/risk/margin-gate.test.ts and margin-triggers.test.ts have their scenarios.
  ...[...MARGIN_CHECK_ORDER, ...TRIGGER_CHECK_ORDER].filter((code, i, all) => !CHECK_ORDER.includes(code) && !QUOTE_CHECK_ORDER.includes(code) && all.indexOf(code) === i),
];

describe('risk gate: one scenario per deny code', () => {
  it('has a scenario for every code of the Deny table, and the table is dense and named', () => {
    const missing = DENY_NAMES.filter((name, code) => name !== 'NONE' && !OMS_DENIES.includes(code as Deny) && !QUOTE_ONLY.includes(code as Deny) && !(name in SCENARIOS));
    expect(missing).toEqual([]);
    expect(Object.keys(SCENARIOS).filter((name) => !(name in Deny))).toEqual([]);
    DENY_NAMES.forEach((name, code) => expect(Deny[name as keyof typeof Deny]).toBe(code));
    expect(Deny.NONE).toBe(0);
    // Every code is the gate's (in CHECK_ORDER) or the OMS's (test/router/router-port.test.ts), never both;
    // or a quote action's only (QUOTE_CHECK_ORDER / QUOTE_BOOK_DENIES, test/risk/quote-gate.test.ts).
    expect([...CHECK_ORDER, ...OMS_DENIES, ...QUOTE_ONLY].sort((a, b) => a - b)).toEqual(DENY_NAMES.map((_, code) => code).slice(1));
  });

  for (const name of DENY_NAMES) {
    if (name === 'NONE' || OMS_DENIES.includes(Deny[name as keyof typeof Deny]) || QUOTE_ONLY.includes(Deny[name as keyof typeof Deny])) continue;
    it(`${name}: denied with its own code and a detail naming the check`, () => {
      const scenario = SCENARIOS[name];
      expect(scenario, `no scenario for ${name}`).toBeDefined();
      const { code, w } = scenario();
      expect(denyName(code)).toBe(name);
      expect(w.gate.lastDeny).toBe(code);
      expect(w.gate.detail.code).toBe(code);
      expect(w.gate.detail.subject.length).toBeGreaterThan(0);
    });
  }

  it('passes the baseline intent of every scenario world', () => {
    const w = world();
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
  });
});

describe('risk gate: fixed check order', () => {
  it('reports the earliest failing check while an intent breaking every check is repaired one check at a time', () => {
    const clock = new ManualClock(START_MS);
    const gate = new RiskGate({
      clock,
      limits: riskLimits({
        rateTier: 'basic', //          100 write tokens, 20 reserved for cancels
        restrictedSubaccount: 0,
        bookStaleMs: 1_000,
        wholeContractsOnly: true,
        orderCountMax: c('1000'),
        orderNotionalMax: 4_000_000 as never, // $400
        marketPositionMax: c('500'),
        subaccountPositionMax: c('1000'),
        subaccountNotionalMax: 5_000_000 as never, // $500
        openOrdersMax: 1,
        worstLossSubaccountMax: 5_000_000 as never, // $500
        worstLossEventMax: 5_000_000 as never, // $500
        portfolioStaleMs: 1_000,
      }),
    });
    const portfolio = new PortfolioView(); // nothing published: stale
    const book = new FakeBook();
    book.synced = false;
    book.updatedAtMs = START_MS - 5_000; // stale
    book.ask = p('0.50');
    const banded = PriceGrid.fromPriceRanges([{ start: '0.1000', end: '0.9000', step: '0.0100' }]);
    const market = gate.addMarket('KX-A', banded, book, { open: false });
    const other = gate.addMarket('KX-B', banded, new FakeBook());
    portfolio.setEventOf(market, 0);
    gate.setPortfolio(portfolio);
    gate.exposure.setPosition(other, 0, c('700'));
    gate.exposure.addResting(other, 0, 'ask', p('0.50'), c('300'), 1); // $150 resting, one open order
    const group = gate.addOrderGroup('g-1', 0, c('500'));
    gate.groups.at(group)!.triggered = true;
    for (let i = 0; i < 8; i++) expect(gate.budget.tryTakeWrite(10, false, START_MS)).toBe(true); // creates now short
    gate.kill();

    const intent = createIntent();
    intent.kind = IntentKind.NEW;
    intent.side = 'x' as never;
    intent.market = 99;
    intent.subaccount = 64;
    intent.price = p('0');
    intent.count = c('0');
    intent.reduceOnly = true;
    intent.postOnly = true;
    intent.orderGroup = 99;
    gate.setRouteExchange(1, 'margin');
    intent.route = 1;

    const seen: Deny[] = [];
    const expectNext = (code: Deny, repair: () => void): void => {
      expect(denyName(gate.check(intent))).toBe(denyName(code));
      seen.push(code);
      repair();
    };
    expectNext(Deny.INTENT_INVALID, () => (intent.side = 'bid'));
    expectNext(Deny.KILL_SWITCH, () => gate.releaseKillSwitch()); // stays halted
    expectNext(Deny.TRADING_HALTED, () => gate.setTradingState(TradingState.REDUCING));
    expectNext(Deny.TRADING_REDUCING_ONLY, () => gate.setTradingState(TradingState.ACTIVE));
    expectNext(Deny.SUBACCOUNT_INVALID, () => (intent.subaccount = 1));
    expectNext(Deny.SUBACCOUNT_LOCKED, () => (intent.subaccount = 0));
    expectNext(Deny.MARKET_UNKNOWN, () => (intent.market = market));
    expectNext(Deny.MARKET_NOT_OPEN, () => gate.setMarketOpen(market, true));
    expectNext(Deny.ROUTE_EXCHANGE_MISMATCH, () => (intent.route = 0));
    expectNext(Deny.BOOK_NOT_SYNCED, () => (book.synced = true));
    expectNext(Deny.BOOK_STALE, () => (book.updatedAtMs = START_MS));
    expectNext(Deny.PRICE_OUT_OF_RANGE, () => (intent.price = p('0.05')));
    expectNext(Deny.PRICE_OUT_OF_BAND, () => (intent.price = p('0.505')));
    expectNext(Deny.PRICE_OFF_GRID, () => (intent.price = p('0.50')));
    expectNext(Deny.COUNT_NOT_POSITIVE, () => (intent.count = c('999.5')));
    expectNext(Deny.COUNT_OFF_INCREMENT, () => (intent.count = c('1001')));
    expectNext(Deny.COUNT_ABOVE_MAX, () => (intent.count = c('1000')));
    expectNext(Deny.NOTIONAL_ABOVE_MAX, () => (intent.count = c('800'))); // $400
    expectNext(Deny.REDUCE_ONLY_NOT_REDUCING, () => (intent.reduceOnly = false));
    // worst long here: 0 + 800 > 500
    expectNext(Deny.MARKET_POSITION_LIMIT, () => gate.exposure.setPosition(market, 0, c('-300'))); // worst 300 -> 500
    // subaccount: other market worst 700 + 500 > 1000
    expectNext(Deny.SUBACCOUNT_POSITION_LIMIT, () => gate.exposure.setPosition(other, 0, c('0'))); // other worst 300
    // resting $150 + $400 > $500
    expectNext(Deny.SUBACCOUNT_NOTIONAL_LIMIT, () => gate.exposure.removeResting(other, 0, 'ask', p('0.50'), c('200'), 0));
    expectNext(Deny.OPEN_ORDERS_LIMIT, () => gate.exposure.removeResting(other, 0, 'ask', p('0.50'), c('100'), -1));
    // $200 at risk in the subaccount + $400 > $500
    expectNext(Deny.PORTFOLIO_RISK_STALE, () => portfolio.publish(portfolioSnapshot(gate, START_MS, 200_000_000, 200_000_000)));
    expectNext(Deny.WORST_LOSS_SUBACCOUNT_LIMIT, () => portfolio.publish(portfolioSnapshot(gate, START_MS, 0, 200_000_000)));
    expectNext(Deny.WORST_LOSS_EVENT_LIMIT, () => portfolio.publish(portfolioSnapshot(gate, START_MS, 0, 0)));
    expectNext(Deny.POST_ONLY_CROSS, () => {
      intent.postOnly = false;
      gate.exposure.addResting(market, 0, 'ask', p('0.50'), c('1'), 0); // own ask at our bid price
    });
    expectNext(Deny.SELF_CROSS, () => gate.exposure.removeResting(market, 0, 'ask', p('0.50'), c('1'), 0));
    expectNext(Deny.ORDER_GROUP_UNKNOWN, () => (intent.orderGroup = group));
    expectNext(Deny.ORDER_GROUP_TRIGGERED, () => gate.groups.at(group)!.reset());
    expectNext(Deny.ORDER_GROUP_LIMIT, () => (gate.groups.at(group)!.contractsLimit = c('1000')));
    expectNext(Deny.RATE_LIMITED, () => {
      clock.advance(500); // +50 tokens
      book.updatedAtMs = clock.nowMs();
    });
    expect(gate.check(intent)).toBe(Deny.NONE);

    // Every code a NEW can produce appeared, in CHECK_ORDER order (GROUP_COUNT_MAX is creation-only).
    expect(seen).toEqual(CHECK_ORDER.filter((code) => code !== Deny.ORDER_GROUP_COUNT_MAX));
  });
});

describe('risk gate: rate-limit reserve', () => {
  it('lets cancels and cancel-all spend the reserve when creates are exhausted, and refills with time', () => {
    const w = world({ rateTier: 'basic', cancelReserveShare: 0.2 }); // capacity 100, reserve 20
    let creates = 0;
    for (let i = 0; i < 100 && w.gate.check(w.intent) === Deny.NONE; i++) creates++;
    expect(creates).toBe(8); // 80 tokens: the reserve of 20 is untouched
    expect(w.gate.lastDeny).toBe(Deny.RATE_LIMITED);

    const cancel = createIntent();
    cancel.kind = IntentKind.CANCEL;
    cancel.market = w.market;
    cancel.clientOrderId = 'x-1';
    let cancels = 0;
    for (let i = 0; i < 100 && w.gate.check(cancel) === Deny.NONE; i++) cancels++;
    expect(cancels).toBe(10); // 20 reserved tokens / 2 per cancel
    expect(w.gate.check(cancel)).toBe(Deny.RATE_LIMITED);

    w.clock.advance(20); // basic refills 100 tokens/s: +2 tokens
    const cancelAll = createIntent();
    cancelAll.kind = IntentKind.CANCEL_ALL;
    cancelAll.subaccount = -1;
    expect(w.gate.check(cancelAll)).toBe(Deny.NONE);
    expect(w.gate.check(w.intent)).toBe(Deny.RATE_LIMITED); // creates still wait for the reserve to refill

    w.clock.advance(1000);
    w.book.updatedAtMs = w.clock.nowMs();
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
  });

  it('keeps cancels flowing through the kill switch and halted state', () => {
    const w = world();
    w.gate.kill();
    const cancel = createIntent();
    cancel.kind = IntentKind.CANCEL;
    expect(w.gate.check(cancel)).toBe(Deny.NONE);
    const decrease = createIntent();
    decrease.kind = IntentKind.DECREASE;
    decrease.market = w.market;
    decrease.count = c('1');
    expect(w.gate.check(decrease)).toBe(Deny.NONE);
    expect(w.gate.check(w.intent)).toBe(Deny.KILL_SWITCH);
  });

  it('refuses cancel-all of every subaccount from a restricted key', () => {
    const w = world({ restrictedSubaccount: 4 });
    const cancelAll = createIntent();
    cancelAll.kind = IntentKind.CANCEL_ALL;
    cancelAll.subaccount = -1;
    expect(w.gate.check(cancelAll)).toBe(Deny.SUBACCOUNT_LOCKED);
    cancelAll.subaccount = 4;
    expect(w.gate.check(cancelAll)).toBe(Deny.NONE);
  });

  it('drops the non-reserve tokens when the venue answers 429', () => {
    const w = world({ rateTier: 'basic' });
    w.gate.budget.onVenueRateLimited(START_MS);
    expect(w.gate.check(w.intent)).toBe(Deny.RATE_LIMITED);
    const cancel = createIntent();
    cancel.kind = IntentKind.CANCEL;
    expect(w.gate.check(cancel)).toBe(Deny.NONE);
  });
});

describe('risk gate: amend and reducing semantics', () => {
  it('replaces the amended order exposure instead of adding to it', () => {
    const w = world({ marketPositionMax: c('100') });
    w.gate.exposure.addResting(w.market, 0, 'bid', p('0.40'), c('80'), 1);
    const amend = createIntent();
    amend.kind = IntentKind.AMEND;
    amend.market = w.market;
    amend.side = 'bid';
    amend.price = p('0.45');
    amend.count = c('100');
    amend.prevPrice = p('0.40');
    amend.prevCount = c('80');
    expect(w.gate.check(amend)).toBe(Deny.NONE); // 80 replaced by 100, not 180
    amend.count = c('101');
    expect(w.gate.check(amend)).toBe(Deny.MARKET_POSITION_LIMIT);
  });

  it('allows an order that lowers an exposure already above a lowered limit', () => {
    const w = world({ marketPositionMax: c('100') });
    w.gate.exposure.setPosition(w.market, 0, c('150'));
    w.intent.side = 'ask';
    w.intent.count = c('20');
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    w.intent.side = 'bid';
    expect(w.gate.check(w.intent)).toBe(Deny.MARKET_POSITION_LIMIT);
  });

  it('counts other resting orders of the same side when deciding what reduces', () => {
    const w = world();
    w.gate.exposure.setPosition(w.market, 0, c('-10'));
    w.gate.exposure.addResting(w.market, 0, 'bid', p('0.30'), c('6'), 1);
    w.gate.setTradingState(TradingState.REDUCING);
    w.intent.price = p('0.20');
    w.intent.count = c('4');
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    w.intent.count = c('5');
    expect(w.gate.check(w.intent)).toBe(Deny.TRADING_REDUCING_ONLY);
  });

  it('compares post-only asks with the best YES bid', () => {
    const w = world();
    w.book.bid = p('0.48');
    w.intent.side = 'ask';
    w.intent.postOnly = true;
    w.intent.price = p('0.48');
    expect(w.gate.check(w.intent)).toBe(Deny.POST_ONLY_CROSS);
    expect(w.gate.detail.limit).toBe(p('0.48'));
    w.intent.price = p('0.49');
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
  });
});

describe('risk gate: no allocation per check', () => {
  it('reuses one detail record across denies, leaves it alone on NONE and never writes the intent', () => {
    const w = world({ orderCountMax: c('5') });
    const detail = w.gate.detail;
    const intent = Object.freeze({ ...w.intent, count: c('6') }); // a write would throw in strict mode
    expect(w.gate.check(intent)).toBe(Deny.COUNT_ABOVE_MAX);
    expect(w.gate.detail).toBe(detail);
    expect(detail).toMatchObject({ code: Deny.COUNT_ABOVE_MAX, subject: 'limits.orderCountMax', limit: c('5'), actual: c('6') });

    const ok = Object.freeze({ ...w.intent, count: c('5') });
    expect(w.gate.check(ok)).toBe(Deny.NONE);
    expect(w.gate.detail).toBe(detail);
    expect(detail.code).toBe(Deny.COUNT_ABOVE_MAX); // set only on deny

    const offGrid = Object.freeze({ ...w.intent, price: p('0.505') });
    expect(w.gate.check(offGrid)).toBe(Deny.PRICE_OFF_GRID);
    expect(w.gate.detail).toBe(detail);
    expect(Object.keys(detail).sort()).toEqual(['actual', 'code', 'limit', 'subject']); // stable shape
  });
});

describe('risk gate: rehearse (the keep-warm\'s check on the real state)', () => {
  it('gives check()\'s verdict without its budget, and leaves the tokens, lastDeny and the detail record as they were', () => {
    const w = world({ orderCountMax: c('5') });
    const gate = w.gate;
    expect(gate.check({ ...w.intent, count: c('6') })).toBe(Deny.COUNT_ABOVE_MAX); // the last real deny
    const tokens = gate.budget.writeTokens(START_MS);
    const remembered = { ...gate.detail };
    // A verdict for each kind of outcome: passes, denied by a limit, denied by the book.
    const cases: [Partial<OrderIntent>, Deny][] = [
      [{ count: c('5') }, Deny.NONE],
      [{ price: p('0.505') }, Deny.PRICE_OFF_GRID],
      [{ count: c('7') }, Deny.COUNT_ABOVE_MAX],
    ];
    for (const [change, verdict] of cases) {
      const intent = Object.freeze({ ...w.intent, ...change });
      expect(gate.rehearse(intent)).toBe(verdict);
      expect(gate.checkWithoutBudget(intent)).toBe(verdict);
      gate.lastDeny = Deny.COUNT_ABOVE_MAX; // checkWithoutBudget reports; rehearse must not
      Object.assign(gate.detail, remembered);
    }
    w.book.synced = false;
    expect(gate.rehearse(w.intent)).toBe(Deny.BOOK_NOT_SYNCED);
    expect(gate.lastDeny).toBe(Deny.COUNT_ABOVE_MAX);
    expect({ ...gate.detail }).toEqual(remembered);
    expect(gate.budget.writeTokens(START_MS)).toBe(tokens); // nothing taken
    // The budget still works as before: a real check takes its cost.
    w.book.synced = true;
    expect(gate.check({ ...w.intent, count: c('5') })).toBe(Deny.NONE);
    expect(gate.budget.writeTokens(START_MS)).toBeLessThan(tokens);
  });

  it('does not let an order through the budget it would be denied by: the budget is the one check it skips', () => {
    const w = world({ rateTier: 'basic' }); // capacity 100 tokens, a create costs 10
    const gate = w.gate;
    let passed = 0;
    for (let i = 0; i < 20; i++) if (gate.check(w.intent) === Deny.NONE) passed++;
    expect(passed).toBeLessThan(20);
    expect(gate.check(w.intent)).toBe(Deny.RATE_LIMITED);
    expect(gate.rehearse(w.intent)).toBe(Deny.NONE);
    expect(gate.check(w.intent)).toBe(Deny.RATE_LIMITED);
    expect(gate.lastDeny).toBe(Deny.RATE_LIMITED);
  });
});

describe('risk gate: market grid and close time changes', () => {
  it('after a move to a finer grid, checks prices on it and still sees own resting orders for self-cross', () => {
    const w = world();
    w.gate.exposure.addResting(w.market, 0, 'ask', p('0.52'), c('3'), 1);
    w.intent.price = p('0.505');
    expect(w.gate.check(w.intent)).toBe(Deny.PRICE_OFF_GRID);
    w.gate.setMarketGrid(w.market, PriceGrid.fromStructure('deci_cent'));
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    // The own ask placed on the old grid moved to its level on the new one: a bid at it self-crosses.
    w.intent.price = p('0.52');
    expect(w.gate.check(w.intent)).toBe(Deny.SELF_CROSS);
    // An own ask at a price only the finer grid has is seen too, and removing it clears the cross.
    w.gate.exposure.addResting(w.market, 0, 'ask', p('0.515'), c('1'), 1);
    w.intent.price = p('0.516');
    expect(w.gate.check(w.intent)).toBe(Deny.SELF_CROSS);
    w.gate.exposure.removeResting(w.market, 0, 'ask', p('0.515'), c('1'), -1);
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
  });

  it('denies new orders from the market close time on (MARKET_NOT_OPEN), cancels still pass', () => {
    const w = world();
    w.gate.setMarketCloseTime(w.market, START_MS + 1_000);
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    w.clock.advance(1_000);
    expect(w.gate.check(w.intent)).toBe(Deny.MARKET_NOT_OPEN);
    expect(w.gate.detail).toMatchObject({ subject: 'market.closeMs', limit: START_MS + 1_000 });
    w.intent.kind = IntentKind.CANCEL;
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
  });
});

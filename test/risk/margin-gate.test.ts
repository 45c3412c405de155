// Goal: the risk gate's Margin order checks (MARGIN_CHECK_ORDER in deny.ts): every code is reachable
// on a Margin market for the reason it names, the fixed order decides which wins, prices have no $1
// cap and no complement (notional, post-only, self-cross), reduce-only must be IOC/FOK, the notional
// of a $100,000 contract stays exact where price x count would pass 2^53, the margin checks sum over
// the Margin subaccount's markets at the mark, a Margin order never touches the Predictions sums of the
// same subaccount number (nor the reverse), and the Margin ledger follows the OMS's order events,
// fills and positions, checked by assertLedger.
// Method: a gate over a ManualClock and a fake book; a BTC perpetual with a $0.01 tick and a $100,000
// mark, an ETH perpetual at $4,000; figures computed by hand in the comments (centicents: 1/10,000 $;
// counts 1/100 contract); a ladder intent that breaks every check at once and is repaired one at a time.

import { describe, expect, it } from 'vitest';
import { IntentKind, ManualClock, OrderState, PRICE_INVALID, PriceGrid, createIntent, parsePrice, parseSignedCount } from '../../src/core/index.ts';
import type { BookSide, Count, OrderIntent, Price } from '../../src/core/index.ts';
import { Deny, MARGIN_CHECK_ORDER, RiskGate, TradingState, denyName, marginNotional, riskLimits } from '../../src/risk/index.ts';
import type { BookView, BookedOrder, RiskLimits } from '../../src/risk/index.ts';

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
const MARGIN_ROUTE = 1;
const BTC_TICK = 100; // $0.01
const BTC_MARK = p('100000'); // 1e9
const ETH_MARK = p('4000'); // 4e7

/** Limits sized for $100,000 contracts: $1M per order, 100 contracts per market. */
const MARGIN_LIMITS: Partial<RiskLimits> = {
  rateTier: 'premier',
  orderNotionalMax: 10_000_000_000 as never, // $1,000,000
  marketPositionMax: c('100'),
  subaccountPositionMax: c('1000'),
};

interface World {
  gate: RiskGate;
  clock: ManualClock;
  book: FakeBook;
  btc: number;
  eth: number;
  intent: OrderIntent;
}

function world(overrides: Partial<RiskLimits> = {}): World {
  const clock = new ManualClock(START_MS);
  const gate = new RiskGate({ limits: riskLimits({ ...MARGIN_LIMITS, ...overrides }), clock });
  const book = new FakeBook();
  book.updatedAtMs = START_MS;
  gate.setRouteExchange(MARGIN_ROUTE, 'margin');
  const btc = gate.addMarginMarket('BTC-PERP', BTC_TICK, book);
  const eth = gate.addMarginMarket('ETH-PERP', BTC_TICK, new FakeBook());
  gate.setMarketMark(btc, BTC_MARK);
  gate.setMarketMark(eth, ETH_MARK);
  gate.setMarginBalance(0, 500_000_000); // $50,000
  const intent = createIntent();
  intent.kind = IntentKind.NEW;
  intent.market = btc;
  intent.side = 'bid';
  intent.price = BTC_MARK;
  intent.count = c('1');
  intent.route = MARGIN_ROUTE;
  return { gate, clock, book, btc, eth, intent };
}

/** The OMS's order as the gate reads it; `set` changes a field and reports the change like the OMS. */
class Order implements BookedOrder {
  slot: number;
  market: number;
  ticker = '';
  subaccount: number;
  side: BookSide;
  price: Price;
  remainingCount: number;
  state: number = OrderState.PENDING_NEW;
  pendingPrice: Price = PRICE_INVALID;
  pendingCount = 0;
  constructor(slot: number, market: number, subaccount: number, side: BookSide, price: Price, count: number) {
    this.slot = slot;
    this.market = market;
    this.subaccount = subaccount;
    this.side = side;
    this.price = price;
    this.remainingCount = count;
  }
}

/** Books a live Margin (or Predictions) order through the gate's OMS seam. */
function rest(gate: RiskGate, slot: number, market: number, side: BookSide, price: Price, count: number, subaccount = 0): Order {
  const order = new Order(slot, market, subaccount, side, price, count);
  gate.onOrderChange(order);
  order.state = OrderState.RESTING;
  gate.onOrderChange(order);
  return order;
}

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
    w.gate.setTradingState(TradingState.REDUCING);
    w.gate.onPosition('BTC-PERP', 0, c('2')); // long 2: a bid adds
    return { code: w.gate.check(w.intent), w };
  },
  SUBACCOUNT_INVALID: () => {
    const w = world();
    w.intent.subaccount = 64;
    return { code: w.gate.check(w.intent), w };
  },
  SUBACCOUNT_LOCKED: () => {
    const w = world({ restrictedSubaccount: 3 });
    return { code: w.gate.check(w.intent), w };
  },
  MARKET_UNKNOWN: () => {
    const w = world();
    w.intent.market = 99;
    return { code: w.gate.check(w.intent), w };
  },
  MARKET_NOT_OPEN: () => {
    const w = world();
    w.gate.setMarketOpen(w.btc, false);
    return { code: w.gate.check(w.intent), w };
  },
  ROUTE_EXCHANGE_MISMATCH: () => {
    const w = world();
    w.intent.route = 0; // undeclared: a Predictions route
    return { code: w.gate.check(w.intent), w };
  },
  BOOK_NOT_SYNCED: () => {
    const w = world();
    w.book.synced = false;
    return { code: w.gate.check(w.intent), w };
  },
  BOOK_STALE: () => {
    const w = world({ bookStaleMs: 500 });
    w.clock.advance(501);
    return { code: w.gate.check(w.intent), w };
  },
  PRICE_OUT_OF_RANGE: () => {
    const w = world();
    w.intent.price = 0 as Price;
    return { code: w.gate.check(w.intent), w };
  },
  PRICE_OFF_GRID: () => {
    const w = world();
    w.intent.price = (BTC_MARK + 50) as Price; // half a tick
    return { code: w.gate.check(w.intent), w };
  },
  PRICE_AWAY_FROM_MARK: () => {
    const w = world({ marginPriceBandBps: 500 });
    w.intent.price = p('106000'); // 6% above the mark
    return { code: w.gate.check(w.intent), w };
  },
  COUNT_NOT_POSITIVE: () => {
    const w = world();
    w.intent.count = c('0');
    return { code: w.gate.check(w.intent), w };
  },
  COUNT_OFF_INCREMENT: () => {
    const w = world();
    w.intent.count = c('1.5');
    return { code: w.gate.check(w.intent), w };
  },
  COUNT_ABOVE_MAX: () => {
    const w = world({ orderCountMax: c('2') });
    w.intent.count = c('3');
    return { code: w.gate.check(w.intent), w };
  },
  NOTIONAL_ABOVE_MAX: () => {
    const w = world();
    w.intent.count = c('11'); // $1.1M > $1M
    return { code: w.gate.check(w.intent), w };
  },
  REDUCE_ONLY_NOT_REDUCING: () => {
    const w = world();
    w.intent.reduceOnly = true; // flat
    w.intent.timeInForce = 'immediate_or_cancel';
    return { code: w.gate.check(w.intent), w };
  },
  REDUCE_ONLY_RESTING: () => {
    const w = world();
    w.gate.onPosition('BTC-PERP', 0, c('-2'));
    w.intent.reduceOnly = true; // reduces the short, but good_till_canceled would rest
    return { code: w.gate.check(w.intent), w };
  },
  MARGIN_MARK_UNKNOWN: () => {
    const w = world();
    w.gate.setMarketMark(w.btc, PRICE_INVALID);
    return { code: w.gate.check(w.intent), w };
  },
  MARKET_POSITION_LIMIT: () => {
    const w = world();
    w.gate.onPosition('BTC-PERP', 0, c('100'));
    return { code: w.gate.check(w.intent), w }; // worst 101 > 100 contracts
  },
  SUBACCOUNT_POSITION_LIMIT: () => {
    const w = world({ subaccountPositionMax: c('50') });
    w.gate.onPosition('ETH-PERP', 0, c('50'));
    w.gate.setMarginBalance(0, 1e12);
    return { code: w.gate.check(w.intent), w }; // 50 + 1 > 50
  },
  NOTIONAL_RISK_LIMIT: () => {
    const w = world();
    w.gate.setNotionalRiskLimit(w.btc, 50_000_000); // $5,000: one $100,000 contract is above
    return { code: w.gate.check(w.intent), w };
  },
  MARGIN_INSUFFICIENT: () => {
    const w = world();
    w.gate.setMarginBalance(0, 99_999_999); // 10% of $100,000 is $10,000 = 100,000,000
    return { code: w.gate.check(w.intent), w };
  },
  LEVERAGE_ABOVE_MAX: () => {
    const w = world({ marginLeverageMax: 2 });
    w.gate.setMarginRate(w.btc, 10_000); // 1%: the margin fits, 2x does not ($100,000 > 2 x $40,000)
    w.gate.setMarginBalance(0, 400_000_000);
    return { code: w.gate.check(w.intent), w };
  },
  OPEN_ORDERS_LIMIT: () => {
    const w = world({ openOrdersMax: 1 });
    rest(w.gate, 0, w.eth, 'bid', ETH_MARK, c('1'));
    return { code: w.gate.check(w.intent), w };
  },
  POST_ONLY_CROSS: () => {
    const w = world();
    w.book.ask = BTC_MARK;
    w.intent.postOnly = true;
    return { code: w.gate.check(w.intent), w };
  },
  SELF_CROSS: () => {
    const w = world();
    rest(w.gate, 0, w.btc, 'ask', BTC_MARK, c('1'));
    return { code: w.gate.check(w.intent), w };
  },
  ORDER_GROUP_UNKNOWN: () => {
    const w = world();
    w.intent.orderGroup = 5;
    return { code: w.gate.check(w.intent), w };
  },
  ORDER_GROUP_TRIGGERED: () => {
    const w = world();
    w.intent.orderGroup = w.gate.addOrderGroup('g', 0, c('10'));
    w.gate.groups.at(w.intent.orderGroup)!.triggered = true;
    return { code: w.gate.check(w.intent), w };
  },
  ORDER_GROUP_LIMIT: () => {
    const w = world();
    w.intent.orderGroup = w.gate.addOrderGroup('g', 0, c('1'));
    w.gate.onFill(w.btc, '', 0, 'bid', c('1'), w.intent.orderGroup, null, START_MS);
    w.gate.setMarginBalance(0, 1e12);
    return { code: w.gate.check(w.intent), w };
  },
  RATE_LIMITED: () => {
    const w = world({ rateTier: 'basic' });
    w.gate.setMarginBalance(0, 1e12);
    for (let i = 0; i < 8; i++) expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    return { code: w.gate.check(w.intent), w };
  },
};

describe('margin gate: one scenario per code of MARGIN_CHECK_ORDER', () => {
  it('has a scenario for every code', () => {
    expect(MARGIN_CHECK_ORDER.map(denyName).filter((name) => !(name in SCENARIOS))).toEqual([]);
  });

  for (const name of Object.keys(SCENARIOS)) {
    it(`${name}: denied with its own code and a detail naming the check`, () => {
      const { code, w } = SCENARIOS[name]();
      expect(denyName(code)).toBe(name);
      expect(w.gate.detail.code).toBe(code);
      expect(w.gate.detail.subject.length).toBeGreaterThan(0);
    });
  }

  it('passes the baseline intent: one $100,000 contract on $50,000 of balance', () => {
    const w = world();
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
  });
});

describe('margin gate: prices, counts and notional', () => {
  it('has no $1 cap and checks the tick, not a grid', () => {
    const w = world();
    expect(w.gate.check(w.intent)).toBe(Deny.NONE); // $100,000
    w.intent.price = (BTC_MARK + BTC_TICK) as Price;
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    w.intent.price = (BTC_MARK + 1) as Price;
    expect(w.gate.check(w.intent)).toBe(Deny.PRICE_OFF_GRID);
    expect(w.gate.detail).toMatchObject({ subject: 'market.tick', limit: BTC_TICK, actual: BTC_MARK + 1 });
    w.intent.price = 1.5 as Price;
    expect(w.gate.check(w.intent)).toBe(Deny.PRICE_OUT_OF_RANGE);
    w.intent.price = -100 as Price;
    expect(w.gate.check(w.intent)).toBe(Deny.PRICE_OUT_OF_RANGE);
  });

  it('bands the price around the mark in basis points, both sides, and skips the band without a mark', () => {
    const w = world({ marginPriceBandBps: 500 });
    w.intent.price = p('105000'); // exactly 5%: inside
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    w.intent.price = p('94999.99'); // 500.001 bps below
    expect(w.gate.check(w.intent)).toBe(Deny.PRICE_AWAY_FROM_MARK);
    expect(w.gate.detail.subject).toBe('limits.marginPriceBandBps');
    w.intent.price = p('106000');
    expect(w.gate.check(w.intent)).toBe(Deny.PRICE_AWAY_FROM_MARK);
    expect(w.gate.detail.actual).toBe(600);
    w.gate.setMarketMark(w.btc, PRICE_INVALID);
    expect(w.gate.check(w.intent)).toBe(Deny.MARGIN_MARK_UNKNOWN); // the band needs the mark; the margin checks deny later
  });

  it('prices notional as price x count for either side (no complement), exactly, at $100,000 x 1M contracts', () => {
    // price 1e9 x count 1e8 is 1e17 micro-dollars, beyond 2^53; in centicents over whole contracts it is 1e15, exact.
    expect(BTC_MARK * c('1000000')).toBeGreaterThan(Number.MAX_SAFE_INTEGER);
    expect(marginNotional(BTC_MARK, c('1000000'))).toBe(1e15);
    const big = { orderCountMax: c('2000000'), orderNotionalMax: 1e15 as never, marketPositionMax: c('2000000'), subaccountPositionMax: c('2000000') };
    const w = world(big);
    w.gate.setMarginBalance(0, 1e15); // 10% margin 1e14; leverage 1
    w.intent.count = c('1000000'); // $100,000,000,000 = 1e15 centicents: at the limit
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    w.intent.count = c('1000001'); // one contract above: 1e15 + 1e9
    expect(w.gate.check(w.intent)).toBe(Deny.NOTIONAL_ABOVE_MAX);
    expect(w.gate.detail.actual).toBe((1e15 + 1e9) * 100); // micro-dollars, like Predictions' detail
    w.intent.side = 'ask'; // the same notional: a Margin ask is not a NO purchase at 1 - price
    expect(w.gate.check(w.intent)).toBe(Deny.NOTIONAL_ABOVE_MAX);
    w.intent.count = c('1000000');
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    // The ledger holds it exactly too.
    rest(w.gate, 0, w.btc, 'bid', BTC_MARK, c('1000000'));
    expect(w.gate.marginExposure.slot(w.btc, 0)!.bidNotional).toBe(1e15);
    expect(w.gate.marginExposure.restingNotional(0)).toBe(1e15);
  });

  it('wants whole contracts', () => {
    const w = world();
    w.intent.count = c('0.01');
    expect(w.gate.check(w.intent)).toBe(Deny.COUNT_OFF_INCREMENT);
    expect(w.gate.detail).toMatchObject({ limit: 100, actual: 1 });
    expect(() => w.gate.addMarginMarket('SOL-PERP', 100, null, { countIncrement: 1 })).toThrow(/whole contracts/);
  });
});

describe('margin gate: reduce-only', () => {
  it('must reduce the position and must be immediate_or_cancel or fill_or_kill', () => {
    const w = world();
    w.gate.onPosition('BTC-PERP', 0, c('5'));
    w.intent.reduceOnly = true;
    w.intent.side = 'bid'; // adds to the long
    w.intent.timeInForce = 'immediate_or_cancel';
    expect(w.gate.check(w.intent)).toBe(Deny.REDUCE_ONLY_NOT_REDUCING);
    w.intent.side = 'ask';
    w.intent.timeInForce = 'good_till_canceled';
    expect(w.gate.check(w.intent)).toBe(Deny.REDUCE_ONLY_RESTING);
    expect(w.gate.detail.subject).toBe('intent.timeInForce');
    w.intent.timeInForce = 'immediate_or_cancel';
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    w.intent.timeInForce = 'fill_or_kill';
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
  });

  it('adds no risk: passes without a mark, above the position (the venue caps it) and without margin', () => {
    const w = world();
    w.gate.onPosition('BTC-PERP', 0, c('5'));
    w.gate.setMarketMark(w.btc, PRICE_INVALID);
    w.gate.setMarginBalance(0, 0);
    w.intent.side = 'ask';
    w.intent.reduceOnly = true;
    w.intent.timeInForce = 'immediate_or_cancel';
    w.intent.price = p('50000'); // $550,000 of notional: inside the order cap
    w.intent.count = c('11'); // above the long 5: the venue caps it
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    w.intent.reduceOnly = false; // the same order not reduce-only: short 6 > long 5, needs the mark
    expect(w.gate.check(w.intent)).toBe(Deny.MARGIN_MARK_UNKNOWN);
  });
});

describe('margin gate: margin, leverage and notional risk limit at the mark', () => {
  it('sums initial margin over the subaccount\'s Margin markets at their marks', () => {
    // ETH long 50 at $4,000 = $200,000 notional, 10% = $20,000 of margin; BTC at $100,000, 10% = $10,000 a contract.
    const w = world();
    w.gate.onPosition('ETH-PERP', 0, c('50'));
    w.intent.count = c('3'); // $20,000 + $30,000 = $50,000: the balance exactly
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    w.intent.count = c('4'); // $60,000
    expect(w.gate.check(w.intent)).toBe(Deny.MARGIN_INSUFFICIENT);
    expect(w.gate.detail).toMatchObject({ subject: 'margin.balance', limit: 500_000_000, actual: 600_000_000 });
    // A lower BTC rate (5%: 20x) makes room for the margin: 20,000 + 4 x 5,000 = $40,000; but notional
    // $200,000 + $400,000 = $600,000 is 12x the balance, above 10x.
    w.gate.setMarginRate(w.btc, 50_000);
    expect(w.gate.check(w.intent)).toBe(Deny.LEVERAGE_ABOVE_MAX);
    expect(w.gate.detail).toMatchObject({ subject: 'limits.marginLeverageMax', limit: 10, actual: 12 });
    // The marks move: ETH at $2,000 halves its notional: $100,000 + $400,000 = 10x exactly.
    w.gate.setMarketMark(w.eth, p('2000'));
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
  });

  it('counts resting orders of each side as filled, and lets through an order that does not raise the worst case', () => {
    const w = world();
    rest(w.gate, 0, w.btc, 'bid', p('99000'), c('4')); // worst long 4: margin $40,000
    w.intent.price = p('99000');
    expect(w.gate.check(w.intent)).toBe(Deny.NONE); // 5 x $10,000 = $50,000
    w.intent.count = c('2');
    expect(w.gate.check(w.intent)).toBe(Deny.MARGIN_INSUFFICIENT); // 6 x $10,000
    w.intent.side = 'ask'; // worst short 2 < worst long 4: no margin added
    w.intent.price = p('101000');
    w.gate.setMarginBalance(0, 0);
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    w.intent.count = c('5'); // worst short 5 > 4
    expect(w.gate.check(w.intent)).toBe(Deny.MARGIN_INSUFFICIENT);
  });

  it('denies every new risk while the balance is unknown (0)', () => {
    const w = world();
    w.gate.setMarginBalance(0, 0);
    expect(w.gate.check(w.intent)).toBe(Deny.MARGIN_INSUFFICIENT);
  });

  it('takes the default initial margin from the limits: explicit ppm, else 1e6 / marginLeverageMax', () => {
    expect(world().gate.marginRate(0)).toBe(100_000);
    expect(world({ marginLeverageMax: 3 }).gate.marginRate(0)).toBe(333_334);
    expect(world({ marginDefaultInitialMarginPpm: 250_000 }).gate.marginRate(0)).toBe(250_000);
  });

  it('caps |worst-case position| x mark per market at its notional risk limit, per ticker or by default', () => {
    const w = world();
    w.gate.setMarginBalance(0, 1e12);
    w.gate.onPosition('BTC-PERP', 0, c('2'));
    w.gate.setDefaultNotionalRiskLimit(3_000_000_000); // $300,000: 3 contracts at the mark
    expect(w.gate.check(w.intent)).toBe(Deny.NONE); // 3 x $100,000
    w.intent.count = c('2');
    expect(w.gate.check(w.intent)).toBe(Deny.NOTIONAL_RISK_LIMIT);
    expect(w.gate.detail).toMatchObject({ subject: 'market.notionalRiskLimit', limit: 3_000_000_000, actual: 4_000_000_000 });
    w.gate.setNotionalRiskLimit(w.btc, 4_000_000_000); // the ticker's own value wins
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    expect(w.gate.notionalRiskLimit(w.eth)).toBe(3_000_000_000);
    w.gate.setNotionalRiskLimit(w.gate.marketHandle('SOL-PERP'), 1); // a ticker the gate does not trade: ignored
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
  });

  it('needs the mark of every market holding risk in the subaccount', () => {
    const w = world();
    w.gate.onPosition('ETH-PERP', 0, c('1'));
    w.gate.setMarketMark(w.eth, PRICE_INVALID);
    expect(w.gate.check(w.intent)).toBe(Deny.MARGIN_MARK_UNKNOWN);
    expect(w.gate.detail.actual).toBe(w.eth);
    w.gate.onPosition('ETH-PERP', 0, c('0')); // nothing to price there any more
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
  });
});

describe('margin gate: exchanges apart', () => {
  it('a Margin order and a Predictions order of the same subaccount number never share sums', () => {
    const w = world({ subaccountPositionMax: c('60'), openOrdersMax: 1 });
    const yes = w.gate.addMarket('KX-A', PriceGrid.fromStructure('linear_cent'), new FakeBook());
    // Predictions subaccount 0: 1,000 contracts, one open order.
    w.gate.exposure.setPosition(yes, 0, c('1000'));
    rest(w.gate, 10, yes, 'bid', p('0.50'), c('10'));
    expect(w.gate.exposure.openOrders).toBe(1);
    // Margin subaccount 0: one contract passes the 60-contract subaccount cap and the one-open-order cap.
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    const btcOrder = rest(w.gate, 11, w.btc, 'bid', BTC_MARK, c('1'));
    expect(w.gate.exposure.worstSum(0)).toBe(c('1010'));
    expect(w.gate.exposure.restingMicro(0)).toBe(5_000_000); // $5: the Predictions order only
    expect(w.gate.exposure.openOrders).toBe(1);
    expect(w.gate.exposure.slot(w.btc, 0)).toBeNull();
    expect(w.gate.marginExposure.worstSum(0)).toBe(c('1'));
    expect(w.gate.marginExposure.openOrders).toBe(1);
    expect(w.gate.marginExposure.slot(yes, 0)).toBeNull();
    // Fills and positions go to the ledger of their market's exchange.
    w.gate.onFill(w.btc, 'BTC-PERP', 0, 'bid', c('1'), -1, null, START_MS);
    w.gate.onFill(-1, 'KX-A', 0, 'ask', c('3'), -1, null, START_MS);
    expect(w.gate.marginExposure.position(w.btc, 0)).toBe(c('1'));
    expect(w.gate.exposure.position(yes, 0)).toBe(c('997'));
    btcOrder.remainingCount = 0;
    btcOrder.state = OrderState.FILLED;
    w.gate.onOrderChange(btcOrder);
    // Predictions: the Margin position does not count against the Predictions subaccount either.
    const predictions = createIntent();
    predictions.market = yes;
    predictions.price = p('0.40');
    predictions.count = c('1');
    predictions.price = p('0.60');
    predictions.side = 'ask'; // within the worst case (long 997 + 10 resting): only the open-order cap can stop it
    w.gate.setRouteExchange(0, 'predictions');
    expect(w.gate.check(predictions)).toBe(Deny.OPEN_ORDERS_LIMIT); // its own open order: the Margin one is filled
  });

  it('checks the route\'s exchange on a NEW only, in both directions', () => {
    const w = world();
    const yes = w.gate.addMarket('KX-A', PriceGrid.fromStructure('linear_cent'), new FakeBook());
    w.intent.route = 0;
    expect(w.gate.check(w.intent)).toBe(Deny.ROUTE_EXCHANGE_MISMATCH);
    expect(w.gate.detail).toMatchObject({ subject: 'route.exchange', actual: 0 });
    w.intent.route = 7; // never declared: Predictions
    expect(w.gate.check(w.intent)).toBe(Deny.ROUTE_EXCHANGE_MISMATCH);
    w.gate.setRouteExchange(7, 'margin');
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    // An amend goes out on the order's own route.
    w.intent.kind = IntentKind.AMEND;
    w.intent.route = 0;
    w.intent.prevPrice = BTC_MARK;
    w.intent.prevCount = c('1');
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    // A Predictions order on a Margin route.
    const predictions = createIntent();
    predictions.market = yes;
    predictions.price = p('0.40');
    predictions.count = c('1');
    predictions.route = 7;
    expect(w.gate.check(predictions)).toBe(Deny.ROUTE_EXCHANGE_MISMATCH);
    predictions.route = 0;
    expect(w.gate.check(predictions)).toBe(Deny.NONE);
  });

  it('keeps quotes (a Predictions workflow) off Margin markets', async () => {
    const { QuoteAction, QuoteIntent } = await import('../../src/risk/index.ts');
    const w = world();
    const quote = new QuoteIntent();
    quote.action = QuoteAction.NEW;
    quote.market = w.btc;
    quote.yesBid = p('0.40');
    quote.noBid = p('0.40');
    quote.count = c('1');
    expect(w.gate.checkQuote(quote)).toBe(Deny.MARKET_UNKNOWN);
    expect(w.gate.detail.subject).toBe('market.exchange');
  });
});

describe('margin gate: post-only and self-cross on plain prices', () => {
  it('compares a bid with the best ask and an ask with the best bid, prices above $1, no complement', () => {
    const w = world();
    w.gate.setMarginBalance(0, 1e12);
    w.book.ask = p('100000.50');
    w.book.bid = p('99999.50');
    w.intent.postOnly = true;
    w.intent.price = p('100000.50');
    expect(w.gate.check(w.intent)).toBe(Deny.POST_ONLY_CROSS);
    expect(w.gate.detail).toMatchObject({ subject: 'book.bestAsk', limit: p('100000.50'), actual: p('100000.50') });
    w.intent.price = p('100000.49');
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    w.intent.side = 'ask';
    w.intent.price = p('99999.50');
    expect(w.gate.check(w.intent)).toBe(Deny.POST_ONLY_CROSS);
    expect(w.gate.detail.subject).toBe('book.bestBid');
    w.intent.price = p('99999.51');
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
  });

  it('sees own resting prices of the same market and subaccount only, and follows cancels and fills', () => {
    const w = world();
    w.gate.setMarginBalance(0, 1e12);
    const high = rest(w.gate, 0, w.btc, 'ask', p('100001'), c('1'));
    const low = rest(w.gate, 1, w.btc, 'ask', p('100000.50'), c('2'));
    rest(w.gate, 2, w.btc, 'ask', p('99000'), c('1'), 1); // subaccount 1: not ours here
    rest(w.gate, 3, w.eth, 'ask', p('10'), c('1')); // another market
    w.intent.price = p('100000.50');
    expect(w.gate.check(w.intent)).toBe(Deny.SELF_CROSS);
    expect(w.gate.detail).toMatchObject({ subject: 'own.bestAsk', limit: p('100000.50') });
    w.intent.price = p('100000.49');
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    // The low ask fills one contract, then is cancelled: the best own ask moves back to $100,001.
    w.gate.onFill(w.btc, '', 0, 'ask', c('1'), -1, null, START_MS);
    low.remainingCount = c('1');
    w.gate.onOrderChange(low);
    w.intent.price = p('100000.50');
    expect(w.gate.check(w.intent)).toBe(Deny.SELF_CROSS);
    low.state = OrderState.CANCELED;
    w.gate.onOrderChange(low);
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    w.intent.price = p('100001');
    expect(w.gate.check(w.intent)).toBe(Deny.SELF_CROSS);
    high.state = OrderState.CANCELED;
    w.gate.onOrderChange(high);
    expect(w.gate.check(w.intent)).toBe(Deny.NONE);
    // An own bid: an ask at or below it self-crosses.
    rest(w.gate, 4, w.btc, 'bid', p('99000'), c('1'));
    w.intent.side = 'ask';
    w.intent.price = p('99000');
    expect(w.gate.check(w.intent)).toBe(Deny.SELF_CROSS);
    expect(w.gate.detail.subject).toBe('own.bestBid');
  });
});

describe('margin gate: the Margin ledger from the OMS\'s events', () => {
  it('follows sends, partial fills, amends and cancels, and assertLedger agrees at every step', () => {
    const w = world();
    const gate = w.gate;
    const ledger = gate.marginExposure;
    const bid = new Order(0, w.btc, 0, 'bid', p('99000'), c('3'));
    gate.onOrderChange(bid); // sent: in flight counts as resting
    const ask = rest(gate, 1, w.btc, 'ask', p('101000'), c('2'));
    const eth = rest(gate, 2, w.eth, 'bid', p('3990'), c('10'));
    const live = (): BookedOrder[] => [bid, ask, eth].filter((o) => o.state !== OrderState.CANCELED && o.state !== OrderState.FILLED);
    gate.assertLedger(live());
    let slot = ledger.slot(w.btc, 0)!;
    expect(slot).toMatchObject({ restingBid: c('3'), restingAsk: c('2'), bestBid: p('99000'), bestAsk: p('101000'), worst: c('3') });
    expect(slot.bidNotional).toBe(3 * 990_000_000); // 3 x $99,000 in centicents
    expect(slot.askNotional).toBe(2 * 1_010_000_000);
    expect(ledger.openOrders).toBe(3);
    expect(ledger.worstSum(0)).toBe(c('13'));
    // The bid rests, fills 1: position +1, 2 left.
    bid.state = OrderState.RESTING;
    gate.onOrderChange(bid);
    gate.onFill(w.btc, '', 0, 'bid', c('1'), -1, null, START_MS);
    bid.remainingCount = c('2');
    gate.onOrderChange(bid);
    gate.assertLedger(live());
    slot = ledger.slot(w.btc, 0)!;
    expect(slot).toMatchObject({ position: c('1'), restingBid: c('2'), worst: c('3') }); // max(|1+2|, |1-2|)
    expect(slot.bidNotional).toBe(2 * 990_000_000);
    // Amend in flight to $99,500 x 4: both the old and the target may trade.
    bid.state = OrderState.PENDING_AMEND;
    bid.pendingPrice = p('99500');
    bid.pendingCount = c('4');
    gate.onOrderChange(bid);
    gate.assertLedger(live());
    expect(ledger.slot(w.btc, 0)!).toMatchObject({ restingBid: c('6'), bestBid: p('99500') });
    // Amend acked: the order is the target only.
    bid.state = OrderState.RESTING;
    bid.price = p('99500');
    bid.remainingCount = c('4');
    bid.pendingPrice = PRICE_INVALID;
    bid.pendingCount = 0;
    gate.onOrderChange(bid);
    gate.assertLedger(live());
    expect(ledger.slot(w.btc, 0)!).toMatchObject({ restingBid: c('4'), bestBid: p('99500') });
    expect(ledger.restingAt(w.btc, 0, 'bid', p('99000'))).toBe(0);
    // Cancels: nothing rests, the open orders go, the position stays.
    bid.state = OrderState.CANCELED;
    ask.state = OrderState.CANCELED;
    gate.onOrderChange(bid);
    gate.onOrderChange(ask);
    gate.assertLedger(live());
    expect(ledger.slot(w.btc, 0)!).toMatchObject({ position: c('1'), restingBid: 0, restingAsk: 0, bestBid: PRICE_INVALID, bestAsk: PRICE_INVALID, bidNotional: 0, askNotional: 0, worst: c('1') });
    expect(ledger.openOrders).toBe(1);
    expect(ledger.restingNotional(0)).toBe(10 * 39_900_000);
    // The venue's position replaces ours.
    gate.onPosition('BTC-PERP', 0, c('-2'));
    expect(ledger.position(w.btc, 0)).toBe(c('-2'));
  });

  it('assertLedger throws when the Margin ledger is not the sum of the live orders', () => {
    const w = world();
    const order = rest(w.gate, 0, w.btc, 'bid', p('99000'), c('3'));
    w.gate.assertLedger([order]);
    expect(() => w.gate.assertLedger([])).toThrow(/open orders/);
    w.gate.marginExposure.addResting(w.btc, 0, 'bid', p('98000'), c('1'), 0); // booked by no order
    expect(() => w.gate.assertLedger([order])).toThrow(/Margin resting bids/);
    w.gate.marginExposure.removeResting(w.btc, 0, 'bid', p('98000'), c('1'), 0);
    w.gate.assertLedger([order]);
    // A Predictions-only ledger call path never books a Margin market.
    expect(() => w.gate.exposure.addResting(w.btc, 0, 'bid', p('0.5'), c('1'), 0)).toThrow(/Margin market/);
  });

  it('refuses to go below zero or remove a price it does not hold', () => {
    const w = world();
    const ledger = w.gate.marginExposure;
    ledger.addResting(w.btc, 0, 'ask', p('101000'), c('1'), 1);
    expect(() => ledger.removeResting(w.btc, 0, 'ask', p('101000'), c('2'), -1)).toThrow(/below zero/);
    expect(() => ledger.removeResting(w.btc, 0, 'bid', p('101000'), c('0'), 0)).toThrow(/no own resting order/);
    expect(() => ledger.removeResting(w.btc, 5, 'ask', p('101000'), c('1'), -1)).toThrow(/no slot/);
  });

  it('keeps the best own prices through many distinct prices (the list grows on an order event)', () => {
    const w = world();
    const ledger = w.gate.marginExposure;
    for (let i = 0; i < 20; i++) ledger.addResting(w.btc, 0, 'bid', (BTC_MARK - i * BTC_TICK) as Price, c('1'), 1);
    expect(ledger.slot(w.btc, 0)!.bestBid).toBe(BTC_MARK);
    for (let i = 0; i < 19; i++) ledger.removeResting(w.btc, 0, 'bid', (BTC_MARK - i * BTC_TICK) as Price, c('1'), -1);
    expect(ledger.slot(w.btc, 0)!.bestBid).toBe(BTC_MARK - 19 * BTC_TICK);
    expect(ledger.slot(w.btc, 0)!.restingBid).toBe(c('1'));
  });
});

describe('margin gate: fixed check order', () => {
  it('reports the earliest failing check while an intent breaking every check is repaired one check at a time', () => {
    const clock = new ManualClock(START_MS);
    const gate = new RiskGate({
      clock,
      limits: riskLimits({
        rateTier: 'basic', // 100 write tokens, 20 reserved for cancels
        restrictedSubaccount: 0,
        bookStaleMs: 1_000,
        orderCountMax: c('20'),
        orderNotionalMax: 10_000_000_000 as never, // $1,000,000
        marketPositionMax: c('10'),
        subaccountPositionMax: c('12'),
        openOrdersMax: 1,
        marginLeverageMax: 4,
        marginPriceBandBps: 1_000, // 10%
      }),
    });
    const book = new FakeBook();
    book.synced = false;
    book.updatedAtMs = START_MS - 5_000;
    book.ask = p('100000');
    gate.setRouteExchange(MARGIN_ROUTE, 'margin');
    const btc = gate.addMarginMarket('BTC-PERP', BTC_TICK, book, { open: false });
    const eth = gate.addMarginMarket('ETH-PERP', BTC_TICK, new FakeBook());
    gate.setMarketMark(btc, BTC_MARK); // ETH's mark is not known yet
    gate.setMarginBalance(0, 1_000_000_000); // $100,000
    gate.onPosition('ETH-PERP', 0, c('5'));
    const ethOrder = rest(gate, 0, eth, 'ask', p('4100'), c('1')); // one open Margin order
    const group = gate.addOrderGroup('g-1', 0, c('5'));
    gate.groups.at(group)!.triggered = true;
    for (let i = 0; i < 8; i++) expect(gate.budget.tryTakeWrite(10, false, START_MS)).toBe(true);
    gate.kill();

    const intent = createIntent();
    intent.kind = IntentKind.NEW;
    intent.side = 'x' as never;
    intent.market = 99; // unknown: the shared head runs until MARKET_UNKNOWN
    intent.subaccount = 64;
    intent.route = 0;
    intent.price = 0 as Price;
    intent.count = c('0');
    intent.reduceOnly = true;
    intent.postOnly = true;
    intent.orderGroup = 99;

    const seen: Deny[] = [];
    const expectNext = (code: Deny, repair: () => void): void => {
      expect(denyName(gate.check(intent))).toBe(denyName(code));
      seen.push(code);
      repair();
    };
    expectNext(Deny.INTENT_INVALID, () => (intent.side = 'bid'));
    expectNext(Deny.KILL_SWITCH, () => gate.releaseKillSwitch());
    expectNext(Deny.TRADING_HALTED, () => gate.setTradingState(TradingState.REDUCING));
    expectNext(Deny.TRADING_REDUCING_ONLY, () => gate.setTradingState(TradingState.ACTIVE));
    expectNext(Deny.SUBACCOUNT_INVALID, () => (intent.subaccount = 1));
    expectNext(Deny.SUBACCOUNT_LOCKED, () => (intent.subaccount = 0));
    expectNext(Deny.MARKET_UNKNOWN, () => (intent.market = btc)); // from here on, the Margin branch
    expectNext(Deny.MARKET_NOT_OPEN, () => gate.setMarketOpen(btc, true));
    expectNext(Deny.ROUTE_EXCHANGE_MISMATCH, () => (intent.route = MARGIN_ROUTE));
    expectNext(Deny.BOOK_NOT_SYNCED, () => (book.synced = true));
    expectNext(Deny.BOOK_STALE, () => (book.updatedAtMs = START_MS));
    expectNext(Deny.PRICE_OUT_OF_RANGE, () => (intent.price = p('100000.005')));
    expectNext(Deny.PRICE_OFF_GRID, () => (intent.price = p('111000'))); // 11% above the mark
    expectNext(Deny.PRICE_AWAY_FROM_MARK, () => (intent.price = p('100000')));
    expectNext(Deny.COUNT_NOT_POSITIVE, () => (intent.count = c('20.5')));
    expectNext(Deny.COUNT_OFF_INCREMENT, () => (intent.count = c('21')));
    expectNext(Deny.COUNT_ABOVE_MAX, () => (intent.count = c('11'))); // $1.1M
    expectNext(Deny.NOTIONAL_ABOVE_MAX, () => (intent.count = c('10'))); // flat: a reduce-only bid reduces nothing
    expectNext(Deny.REDUCE_ONLY_NOT_REDUCING, () => gate.onPosition('BTC-PERP', 0, c('-1')));
    expectNext(Deny.REDUCE_ONLY_RESTING, () => (intent.reduceOnly = false));
    // worst long -1 + 10 = 9 > 1: the risk checks run, and ETH (worst 5) has no mark
    expectNext(Deny.MARGIN_MARK_UNKNOWN, () => gate.setMarketMark(eth, ETH_MARK));
    // worst long -1 + 10 = 9 <= 10; let the position be long instead: 2 + 10 = 12 > 10
    gate.onPosition('BTC-PERP', 0, c('2'));
    expectNext(Deny.MARKET_POSITION_LIMIT, () => gate.onPosition('BTC-PERP', 0, c('-2'))); // worst 8 (long), 2 short
    // subaccount: ETH worst 5 (position 5, resting ask 1: |5 - 1| = 4, 5 + 0 = 5) + 8 = 13 > 12
    expectNext(Deny.SUBACCOUNT_POSITION_LIMIT, () => gate.onPosition('ETH-PERP', 0, c('4'))); // 4 + 8 = 12
    gate.setNotionalRiskLimit(btc, 700_000_000 * 10); // $700,000 < 8 x $100,000
    expectNext(Deny.NOTIONAL_RISK_LIMIT, () => gate.setNotionalRiskLimit(btc, 8_000_000_000));
    // margin at 25% (1e6 / 4): ETH 4 x $4,000 = $16,000 -> $4,000; BTC 8 x $100,000 = $800,000 -> $200,000 > $100,000
    expectNext(Deny.MARGIN_INSUFFICIENT, () => gate.setMarginRate(btc, 100_000)); // $80,000 + $4,000 = $84,000
    // leverage: $816,000 / $100,000 = 8.16 > 4
    expectNext(Deny.LEVERAGE_ABOVE_MAX, () => gate.setMarginBalance(0, 3_000_000_000)); // $300,000: 2.72x
    expectNext(Deny.OPEN_ORDERS_LIMIT, () => {
      ethOrder.state = OrderState.CANCELED;
      gate.onOrderChange(ethOrder);
    });
    expectNext(Deny.POST_ONLY_CROSS, () => {
      intent.postOnly = false;
      gate.marginExposure.addResting(btc, 0, 'ask', p('100000'), c('1'), 0); // own ask at our bid (worst short 3 < 8)
    });
    expectNext(Deny.SELF_CROSS, () => gate.marginExposure.removeResting(btc, 0, 'ask', p('100000'), c('1'), 0));
    expectNext(Deny.ORDER_GROUP_UNKNOWN, () => (intent.orderGroup = group));
    expectNext(Deny.ORDER_GROUP_TRIGGERED, () => gate.groups.at(group)!.reset());
    expectNext(Deny.ORDER_GROUP_LIMIT, () => (gate.groups.at(group)!.contractsLimit = c('100')));
    expectNext(Deny.RATE_LIMITED, () => {
      clock.advance(500);
      book.updatedAtMs = clock.nowMs();
    });
    expect(gate.check(intent)).toBe(Deny.NONE);
    expect(seen).toEqual(MARGIN_CHECK_ORDER);
  });
});

describe('margin gate: registration', () => {
  it('registers a Margin market in the shared registry with its exchange and tick, and keeps the Predictions path', () => {
    const w = world();
    const info = w.gate.markets.registry.at(w.btc)!;
    expect(info.exchange).toBe('margin');
    expect(info.tick).toBe(BTC_TICK);
    expect(info.grid).toBeNull();
    expect(w.gate.markets.at(w.btc)!.countIncrement).toBe(100);
    expect(w.gate.marketHandle('BTC-PERP')).toBe(w.btc);
    expect(() => w.gate.addMarket('BTC-PERP', PriceGrid.fromStructure('linear_cent'), null)).toThrow(/Margin market/);
    expect(() => w.gate.addMarginMarket('BTC-PERP2', 0, null)).toThrow(/tick/);
    expect(() => w.gate.setMarginRate(99, 1)).toThrow(/not a Margin market/);
  });
});

describe('margin gate: limits', () => {
  it('validates the Margin fields with the others, each naming its field', async () => {
    const { RiskLimitsError, DEFAULT_RISK_LIMITS, defaultInitialMarginPpm } = await import('../../src/risk/index.ts');
    expect(DEFAULT_RISK_LIMITS).toMatchObject({ marginLeverageMax: 10, marginPriceBandBps: 0, marginDefaultInitialMarginPpm: 0 });
    expect(defaultInitialMarginPpm(DEFAULT_RISK_LIMITS)).toBe(100_000);
    expect(defaultInitialMarginPpm(riskLimits({ marginLeverageMax: 0.5 }))).toBe(1_000_000); // capped at 100%
    try {
      riskLimits({ marginLeverageMax: 0, marginPriceBandBps: -1, marginDefaultInitialMarginPpm: 1_000_001 });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(RiskLimitsError);
      const problems = (error as InstanceType<typeof RiskLimitsError>).problems.join('\n');
      expect(problems).toMatch(/marginLeverageMax/);
      expect(problems).toMatch(/marginPriceBandBps/);
      expect(problems).toMatch(/marginDefaultInitialMarginPpm/);
    }
    expect(() => riskLimits({ marginLeverageMax: Infinity })).toThrow(/marginLeverageMax/);
    expect(() => riskLimits({ marginPriceBandBps: 2.5 })).toThrow(/marginPriceBandBps/);
  });
});

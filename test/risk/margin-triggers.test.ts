// Goal: the risk gate's exit-trigger checks (RiskGate.checkTrigger, TRIGGER_CHECK_ORDER in deny.ts)
// follow interface-spec's exit trigger rules: a bracket has a leg, a trailing stop exactly one of
// amount and basis points; prices are on the tick and stop-loss / take-profit on the losing / winning
// side of the mark; count is whole contracts, exclusive with an anchor, and with the anchor needs a
// client trigger id; isolated positions hold one trigger per kind and take no count or anchor; cross
// positions hold 20 brackets whose counts fit the position and one trailing stop; the kill switch
// and halted stop SETs only; DELETE is never refused but for its shape and its tokens.
// Method: a gate with a BTC perpetual ($0.01 tick, $100,000 mark) and a fake LiveTriggersView; one
// scenario per code of TRIGGER_CHECK_ORDER, hand-made cases per rule, and a ladder that breaks every
// check at once and is repaired one check at a time.

import { describe, expect, it } from 'vitest';
import { COUNT_INVALID, ManualClock, PRICE_INVALID, PriceGrid, TriggerAction, createTriggerIntent, parsePrice, parseSignedCount } from '../../src/core/index.ts';
import type { Count, ExitTriggerIntent, LiveTriggersView, Price } from '../../src/core/index.ts';
import { CROSS_BRACKETS_MAX, Deny, RiskGate, TRIGGER_CHECK_ORDER, TradingState, denyName, riskLimits } from '../../src/risk/index.ts';
import type { RiskLimits } from '../../src/risk/index.ts';

const p = (text: string): Price => parsePrice(text);
const c = (text: string): Count => parseSignedCount(text);
const START_MS = 1_000_000;
const TICK = 100; // $0.01
const MARK = p('100000');

/** The trigger table's view, as plain numbers the test sets (one position: market, subaccount, mode). */
class FakeLive implements LiveTriggersView {
  brackets = 0;
  bracketSum = 0;
  trailing = 0;
  asked = 0;
  bracketCount(): number {
    this.asked++;
    return this.brackets;
  }
  bracketCountSum(): number {
    this.asked++;
    return this.bracketSum;
  }
  trailingCount(): number {
    this.asked++;
    return this.trailing;
  }
}

interface World {
  gate: RiskGate;
  clock: ManualClock;
  btc: number;
  live: FakeLive;
  intent: ExitTriggerIntent;
}

/** Long 2 BTC on a cross position; a bracket SET with stop-loss $95,000 and take-profit $110,000. */
function world(overrides: Partial<RiskLimits> = {}): World {
  const clock = new ManualClock(START_MS);
  const gate = new RiskGate({ limits: riskLimits({ rateTier: 'premier', ...overrides }), clock });
  const btc = gate.addMarginMarket('BTC-PERP', TICK, null);
  gate.setMarketMark(btc, MARK);
  gate.onPosition('BTC-PERP', 0, c('2'));
  const intent = createTriggerIntent();
  intent.action = TriggerAction.SET;
  intent.market = btc;
  intent.kind = 'bracket';
  intent.stopLossPrice = p('95000');
  intent.takeProfitPrice = p('110000');
  return { gate, clock, btc, live: new FakeLive(), intent };
}

function check(w: World): Deny {
  return w.gate.checkTrigger(w.intent, w.live);
}

/** A cross append: one contract, with the client id an append needs. */
function append(w: World, count = c('1')): void {
  w.intent.count = count;
  w.intent.clientTriggerId = 'ct-1';
}

const SCENARIOS: Record<string, () => { code: Deny; w: World }> = {
  INTENT_INVALID: () => {
    const w = world();
    w.intent.kind = 'oco' as never;
    return { code: check(w), w };
  },
  KILL_SWITCH: () => {
    const w = world();
    w.gate.kill();
    return { code: check(w), w };
  },
  TRADING_HALTED: () => {
    const w = world();
    w.gate.setTradingState(TradingState.HALTED);
    return { code: check(w), w };
  },
  SUBACCOUNT_INVALID: () => {
    const w = world();
    w.intent.subaccount = -1;
    return { code: check(w), w };
  },
  SUBACCOUNT_LOCKED: () => {
    const w = world({ restrictedSubaccount: 2 });
    return { code: check(w), w };
  },
  MARKET_UNKNOWN: () => {
    const w = world();
    w.intent.market = 42;
    return { code: check(w), w };
  },
  MARGIN_MARK_UNKNOWN: () => {
    const w = world();
    w.gate.setMarketMark(w.btc, PRICE_INVALID);
    return { code: check(w), w };
  },
  TRIGGER_INVALID: () => {
    const w = world();
    w.intent.stopLossPrice = p('100000'); // at the mark: a long's stop must be below it
    return { code: check(w), w };
  },
  TRIGGER_COUNT_ABOVE_POSITION: () => {
    const w = world();
    append(w, c('3')); // long 2
    return { code: check(w), w };
  },
  TRIGGER_LIMIT: () => {
    const w = world();
    w.intent.kind = 'trailing';
    w.intent.stopLossPrice = PRICE_INVALID;
    w.intent.takeProfitPrice = PRICE_INVALID;
    w.intent.trailBps = 200;
    append(w);
    w.live.trailing = 1;
    return { code: check(w), w };
  },
  RATE_LIMITED: () => {
    const w = world({ rateTier: 'basic' });
    for (let i = 0; i < 8; i++) expect(check(w)).toBe(Deny.NONE);
    return { code: check(w), w };
  },
};

describe('exit triggers: one scenario per code of TRIGGER_CHECK_ORDER', () => {
  it('has a scenario for every code', () => {
    expect(TRIGGER_CHECK_ORDER.map(denyName).filter((name) => !(name in SCENARIOS))).toEqual([]);
  });

  for (const name of Object.keys(SCENARIOS)) {
    it(`${name}: denied with its own code and a detail naming the check`, () => {
      const { code, w } = SCENARIOS[name]();
      expect(denyName(code)).toBe(name);
      expect(w.gate.detail.code).toBe(code);
      expect(w.gate.detail.subject.length).toBeGreaterThan(0);
    });
  }

  it('passes the baseline: a whole-position bracket around the mark on a long', () => {
    const w = world();
    expect(check(w)).toBe(Deny.NONE);
  });
});

describe('exit triggers: legs and the mark', () => {
  it('a bracket needs a leg; either leg alone will do', () => {
    const w = world();
    w.intent.stopLossPrice = PRICE_INVALID;
    w.intent.takeProfitPrice = PRICE_INVALID;
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
    expect(w.gate.detail.subject).toBe('trigger.legs');
    w.intent.stopLossPrice = p('99999.99');
    expect(check(w)).toBe(Deny.NONE);
    w.intent.stopLossPrice = PRICE_INVALID;
    w.intent.takeProfitPrice = p('100000.01');
    expect(check(w)).toBe(Deny.NONE);
  });

  it('long: stop below and take-profit above the mark; short: the reverse; the mark itself is neither', () => {
    const w = world();
    w.intent.takeProfitPrice = MARK;
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
    expect(w.gate.detail).toMatchObject({ subject: 'trigger.takeProfitPrice', limit: MARK, actual: MARK });
    w.gate.onPosition('BTC-PERP', 0, c('-2'));
    w.intent.stopLossPrice = p('95000');
    w.intent.takeProfitPrice = p('110000');
    expect(check(w)).toBe(Deny.TRIGGER_INVALID); // a short's stop below the mark
    expect(w.gate.detail.subject).toBe('trigger.stopLossPrice');
    w.intent.stopLossPrice = p('110000');
    w.intent.takeProfitPrice = p('95000');
    expect(check(w)).toBe(Deny.NONE);
    // The mark moves above the short's stop: the same trigger is now on the wrong side.
    w.gate.setMarketMark(w.btc, p('111000'));
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
  });

  it('prices must be positive and on the tick, with no $1 cap', () => {
    const w = world();
    w.intent.stopLossPrice = (p('95000') + 1) as Price;
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
    expect(w.gate.detail).toMatchObject({ subject: 'trigger.stopLossPrice', limit: TICK });
    w.intent.stopLossPrice = 0 as Price;
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
    w.intent.stopLossPrice = p('95000');
    w.intent.takeProfitPrice = p('110000.001');
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
    expect(w.gate.detail.subject).toBe('trigger.takeProfitPrice');
  });

  it('a trailing stop takes exactly one of an amount and 1..9,999 basis points, never legs, and needs no mark', () => {
    const w = world();
    w.intent.kind = 'trailing';
    expect(check(w)).toBe(Deny.TRIGGER_INVALID); // the bracket's legs are still set
    expect(w.gate.detail.subject).toBe('trigger.legs');
    w.intent.stopLossPrice = PRICE_INVALID;
    w.intent.takeProfitPrice = PRICE_INVALID;
    expect(check(w)).toBe(Deny.TRIGGER_INVALID); // neither
    expect(w.gate.detail.subject).toBe('trigger.trail');
    w.intent.trailAmount = p('500');
    w.intent.trailBps = 50;
    expect(check(w)).toBe(Deny.TRIGGER_INVALID); // both
    w.intent.trailBps = 0;
    w.gate.setMarketMark(w.btc, PRICE_INVALID);
    expect(check(w)).toBe(Deny.NONE); // $500 behind the watermark
    w.intent.trailAmount = 0 as Price;
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
    w.intent.trailAmount = PRICE_INVALID;
    for (const [bps, code] of [[1, Deny.NONE], [9_999, Deny.NONE], [10_000, Deny.TRIGGER_INVALID], [-5, Deny.TRIGGER_INVALID], [2.5, Deny.TRIGGER_INVALID]] as const) {
      w.intent.trailBps = bps;
      expect(denyName(check(w))).toBe(denyName(code));
    }
    // A bracket may not carry a trail.
    w.intent.kind = 'bracket';
    w.intent.trailBps = 100;
    w.intent.stopLossPrice = p('95000');
    w.gate.setMarketMark(w.btc, MARK);
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
    expect(w.gate.detail.subject).toBe('trigger.trail');
  });

  it('needs a position to close unless anchored; anchored on a flat position, the legs must agree on a side', () => {
    const w = world();
    w.gate.onPosition('BTC-PERP', 0, c('0'));
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
    expect(w.gate.detail.subject).toBe('position');
    w.intent.anchorOrderId = 'venue-order-1';
    w.intent.clientTriggerId = 'ct-1';
    expect(check(w)).toBe(Deny.NONE); // stop below, take-profit above: the anchor buys
    w.intent.stopLossPrice = p('105000');
    w.intent.takeProfitPrice = p('95000');
    expect(check(w)).toBe(Deny.NONE); // the anchor sells
    w.intent.takeProfitPrice = p('106000'); // both above the mark: no side loses at one and wins at the other
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
    expect(w.gate.detail.subject).toBe('trigger.legs');
  });
});

describe('exit triggers: count, anchor and client id', () => {
  it('count: whole contracts, within the position, exclusive with an anchor, with a client trigger id', () => {
    const w = world();
    w.intent.count = c('1');
    expect(check(w)).toBe(Deny.TRIGGER_INVALID); // an append without its client id
    expect(w.gate.detail.subject).toBe('trigger.clientTriggerId');
    w.intent.clientTriggerId = 'ct-1';
    expect(check(w)).toBe(Deny.NONE);
    w.intent.count = c('1.5');
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
    expect(w.gate.detail).toMatchObject({ subject: 'trigger.count', limit: 100, actual: 150 });
    w.intent.count = c('0');
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
    w.intent.count = c('2');
    expect(check(w)).toBe(Deny.NONE); // the whole long
    w.intent.count = c('3');
    expect(check(w)).toBe(Deny.TRIGGER_COUNT_ABOVE_POSITION);
    expect(w.gate.detail).toMatchObject({ subject: 'position', limit: c('2'), actual: c('3') });
    w.intent.count = c('1');
    w.intent.anchorOrderId = 'venue-order-1';
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
    expect(w.gate.detail.subject).toBe('trigger.anchorOrderId');
    w.intent.count = COUNT_INVALID;
    w.intent.clientTriggerId = '';
    expect(check(w)).toBe(Deny.TRIGGER_INVALID); // an anchor appends too
    expect(w.gate.detail.subject).toBe('trigger.clientTriggerId');
  });

  it('a short position counts by its size', () => {
    const w = world();
    w.gate.onPosition('BTC-PERP', 0, c('-3'));
    w.intent.stopLossPrice = p('105000');
    w.intent.takeProfitPrice = p('90000');
    append(w, c('3'));
    expect(check(w)).toBe(Deny.NONE);
    append(w, c('4'));
    expect(check(w)).toBe(Deny.TRIGGER_COUNT_ABOVE_POSITION);
  });
});

describe('exit triggers: isolated and cross limits', () => {
  it('isolated: one per kind, so a SET replaces and passes whatever is live; no count, no anchor; no update by id', () => {
    const w = world();
    w.intent.isolated = true;
    w.live.brackets = 1;
    w.live.bracketSum = c('2');
    w.live.trailing = 1;
    expect(check(w)).toBe(Deny.NONE);
    expect(w.live.asked).toBe(0); // a replacement takes no room
    append(w);
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
    expect(w.gate.detail.subject).toBe('trigger.isolated');
    w.intent.count = COUNT_INVALID;
    w.intent.anchorOrderId = 'venue-order-1';
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
    w.intent.anchorOrderId = '';
    w.intent.action = TriggerAction.UPDATE;
    w.intent.triggerId = 'trg-1';
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
    expect(w.gate.detail.subject).toBe('trigger.triggerId');
  });

  it('cross brackets: the live counts plus this one fit the position', () => {
    const w = world();
    w.live.brackets = 1;
    w.live.bracketSum = c('1');
    append(w, c('1')); // 1 + 1 = 2: the long
    expect(check(w)).toBe(Deny.NONE);
    append(w, c('2')); // 1 + 2 > 2
    expect(check(w)).toBe(Deny.TRIGGER_COUNT_ABOVE_POSITION);
    expect(w.gate.detail).toMatchObject({ subject: 'live.bracketCountSum', limit: c('2'), actual: c('3') });
  });

  it(`cross brackets: ${CROSS_BRACKETS_MAX} live at most; a SET without count or anchor replaces and takes no room`, () => {
    const w = world({ rateTier: 'prime' });
    w.gate.onPosition('BTC-PERP', 0, c('100'));
    append(w);
    w.live.brackets = CROSS_BRACKETS_MAX - 1;
    w.live.bracketSum = c('19');
    expect(check(w)).toBe(Deny.NONE); // the 20th
    w.live.brackets = CROSS_BRACKETS_MAX;
    w.live.bracketSum = c('20');
    expect(check(w)).toBe(Deny.TRIGGER_LIMIT);
    expect(w.gate.detail).toMatchObject({ subject: 'live.bracketCount', limit: 20, actual: 21 });
    w.intent.count = COUNT_INVALID;
    w.intent.anchorOrderId = 'venue-order-1'; // anchored appends count against the 20 as well
    expect(check(w)).toBe(Deny.TRIGGER_LIMIT);
    w.intent.anchorOrderId = '';
    expect(check(w)).toBe(Deny.NONE);
  });

  it('cross: one live trailing stop; a trailing SET without count replaces it', () => {
    const w = world();
    w.intent.kind = 'trailing';
    w.intent.stopLossPrice = PRICE_INVALID;
    w.intent.takeProfitPrice = PRICE_INVALID;
    w.intent.trailBps = 150;
    w.live.trailing = 1;
    w.live.brackets = CROSS_BRACKETS_MAX; // brackets do not limit trailing stops
    expect(check(w)).toBe(Deny.NONE);
    append(w);
    expect(check(w)).toBe(Deny.TRIGGER_LIMIT);
    expect(w.gate.detail).toMatchObject({ subject: 'live.trailingCount', limit: 1, actual: 2 });
    w.live.trailing = 0;
    expect(check(w)).toBe(Deny.NONE);
    append(w, c('3')); // above the long 2
    expect(check(w)).toBe(Deny.TRIGGER_COUNT_ABOVE_POSITION);
  });
});

describe('exit triggers: actions, states and tokens', () => {
  it('the kill switch and halted stop SETs only; reducing lets them through (a trigger only closes)', () => {
    const w = world();
    w.gate.setTradingState(TradingState.REDUCING);
    expect(check(w)).toBe(Deny.NONE);
    w.gate.kill();
    expect(check(w)).toBe(Deny.KILL_SWITCH);
    w.intent.action = TriggerAction.UPDATE;
    w.intent.triggerId = 'trg-1';
    expect(check(w)).toBe(Deny.NONE);
    w.intent.action = TriggerAction.DELETE;
    expect(check(w)).toBe(Deny.NONE);
    w.gate.releaseKillSwitch(); // still halted
    w.intent.action = TriggerAction.SET;
    expect(check(w)).toBe(Deny.TRADING_HALTED);
  });

  it('UPDATE names one cross trigger, checks its legs against the mark, and is never re-anchored', () => {
    const w = world();
    w.intent.action = TriggerAction.UPDATE;
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
    expect(w.gate.detail.subject).toBe('trigger.triggerId');
    w.intent.triggerId = 'trg-1';
    expect(check(w)).toBe(Deny.NONE);
    w.intent.stopLossPrice = p('101000');
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
    w.intent.stopLossPrice = p('95000');
    w.intent.anchorOrderId = 'venue-order-1';
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
    w.intent.anchorOrderId = '';
    w.live.brackets = CROSS_BRACKETS_MAX; // an update takes no room
    expect(check(w)).toBe(Deny.NONE);
    expect(w.live.asked).toBe(0);
  });

  it('DELETE is never refused but for its shape, subaccount and tokens: no market, mark or position needed', () => {
    const w = world({ rateTier: 'basic' });
    w.intent.action = TriggerAction.DELETE;
    w.intent.market = 42;
    w.intent.stopLossPrice = 7 as Price;
    w.gate.setTradingState(TradingState.HALTED);
    expect(check(w)).toBe(Deny.NONE);
    w.intent.subaccount = 64;
    expect(check(w)).toBe(Deny.SUBACCOUNT_INVALID);
    w.intent.subaccount = 0;
    w.intent.action = 9 as never;
    expect(check(w)).toBe(Deny.INTENT_INVALID);
    w.intent.action = TriggerAction.DELETE;
    // 10 tokens each, no cancel reserve: 100 of capacity, 20 reserved, one already spent.
    for (let i = 0; i < 7; i++) expect(check(w)).toBe(Deny.NONE);
    expect(check(w)).toBe(Deny.RATE_LIMITED);
    expect(w.gate.detail).toMatchObject({ subject: 'budget.write', actual: 10 });
  });

  it('only Margin markets take triggers', () => {
    const w = world();
    w.intent.market = w.gate.addMarket('KX-A', PriceGrid.fromStructure('linear_cent'), null);
    expect(check(w)).toBe(Deny.MARKET_UNKNOWN);
    expect(w.gate.detail.subject).toBe('market.exchange');
  });

  it('reads the position of its own subaccount on the Margin ledger, not the Predictions one', () => {
    const w = world();
    w.intent.subaccount = 1;
    expect(check(w)).toBe(Deny.TRIGGER_INVALID); // flat in Margin subaccount 1
    const yes = w.gate.addMarket('KX-A', PriceGrid.fromStructure('linear_cent'), null);
    w.gate.exposure.setPosition(yes, 1, c('5'));
    expect(check(w)).toBe(Deny.TRIGGER_INVALID);
    w.gate.onPosition('BTC-PERP', 1, c('1'));
    expect(check(w)).toBe(Deny.NONE);
  });
});

describe('exit triggers: fixed check order', () => {
  it('reports the earliest failing check while a trigger breaking every check is repaired one check at a time', () => {
    const clock = new ManualClock(START_MS);
    const gate = new RiskGate({ clock, limits: riskLimits({ rateTier: 'basic', restrictedSubaccount: 0 }) });
    const btc = gate.addMarginMarket('BTC-PERP', TICK, null);
    gate.onPosition('BTC-PERP', 0, c('2'));
    const live = new FakeLive();
    live.brackets = CROSS_BRACKETS_MAX;
    live.bracketSum = c('1');
    for (let i = 0; i < 8; i++) expect(gate.budget.tryTakeWrite(10, false, START_MS)).toBe(true);
    gate.kill();

    const intent = createTriggerIntent();
    intent.action = 5 as never;
    intent.market = 42;
    intent.subaccount = 64;
    intent.stopLossPrice = p('100500'); // above the mark once known: wrong for a long
    intent.takeProfitPrice = p('110000');
    intent.count = c('2'); // with the live 1: above the long 2
    intent.clientTriggerId = 'ct-1';

    const seen: Deny[] = [];
    const expectNext = (code: Deny, repair: () => void): void => {
      expect(denyName(gate.checkTrigger(intent, live))).toBe(denyName(code));
      seen.push(code);
      repair();
    };
    expectNext(Deny.INTENT_INVALID, () => (intent.action = TriggerAction.SET));
    expectNext(Deny.KILL_SWITCH, () => gate.releaseKillSwitch());
    expectNext(Deny.TRADING_HALTED, () => gate.setTradingState(TradingState.ACTIVE));
    expectNext(Deny.SUBACCOUNT_INVALID, () => (intent.subaccount = 3));
    expectNext(Deny.SUBACCOUNT_LOCKED, () => (intent.subaccount = 0));
    expectNext(Deny.MARKET_UNKNOWN, () => (intent.market = btc));
    expectNext(Deny.MARGIN_MARK_UNKNOWN, () => gate.setMarketMark(btc, MARK));
    expectNext(Deny.TRIGGER_INVALID, () => (intent.stopLossPrice = p('99500')));
    expectNext(Deny.TRIGGER_COUNT_ABOVE_POSITION, () => (intent.count = c('1')));
    expectNext(Deny.TRIGGER_LIMIT, () => (live.brackets = CROSS_BRACKETS_MAX - 1));
    expectNext(Deny.RATE_LIMITED, () => clock.advance(100)); // +10 tokens
    expect(gate.checkTrigger(intent, live)).toBe(Deny.NONE);
    expect(seen).toEqual(TRIGGER_CHECK_ORDER);
  });
});

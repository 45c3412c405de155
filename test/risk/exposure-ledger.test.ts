// Goal: the exposure ledger the OMS writes and the gate reads keeps exact resting counts, own best
// bid/ask levels, worst-case positions and resting cost, and refuses to go below zero.
// Method: drive one ledger with add/remove/fill/setPosition sequences and compare with values
// computed by hand; a random sequence is checked against a naive recomputation from a list of orders.

import { describe, expect, it } from 'vitest';
import { PriceGrid, parsePrice, parseSignedCount } from '../../src/core/index.ts';
import type { BookSide, Price } from '../../src/core/index.ts';
import { ExposureLedger, RiskMarkets, costMicro, worstOf } from '../../src/risk/index.ts';

const p = (t: string): Price => parsePrice(t);
const c = (t: string): number => parseSignedCount(t);

function ledger(): { ledger: ExposureLedger; a: number; b: number } {
  const markets = new RiskMarkets();
  const grid = PriceGrid.fromStructure('linear_cent');
  const a = markets.add('A', grid, null, true, 1);
  const b = markets.add('B', grid, null, true, 1);
  return { ledger: new ExposureLedger(markets), a, b };
}

describe('ExposureLedger', () => {
  it('tracks own best bid and ask as levels empty and refill', () => {
    const { ledger: l, a } = ledger();
    l.addResting(a, 0, 'bid', p('0.40'), c('1'), 1);
    l.addResting(a, 0, 'bid', p('0.45'), c('2'), 1);
    l.addResting(a, 0, 'ask', p('0.60'), c('1'), 1);
    l.addResting(a, 0, 'ask', p('0.55'), c('1'), 1);
    const slot = l.slot(a, 0)!;
    expect(slot.grid.priceAt(slot.bidBestLevel)).toBe(p('0.45'));
    expect(slot.grid.priceAt(slot.askBestLevel)).toBe(p('0.55'));
    l.removeResting(a, 0, 'bid', p('0.45'), c('2'), -1);
    l.removeResting(a, 0, 'ask', p('0.55'), c('1'), -1);
    expect(slot.grid.priceAt(slot.bidBestLevel)).toBe(p('0.40'));
    expect(slot.grid.priceAt(slot.askBestLevel)).toBe(p('0.60'));
    l.removeResting(a, 0, 'bid', p('0.40'), c('1'), -1);
    expect(slot.bidBestLevel).toBe(-1);
    expect(l.openOrders).toBe(1);
  });

  it('keeps worst cases per market and their sum per subaccount', () => {
    const { ledger: l, a, b } = ledger();
    l.setPosition(a, 2, c('10'));
    l.addResting(a, 2, 'ask', p('0.50'), c('25'), 1); // worst max(10, |10-25|=15) = 15
    l.applyFill(b, 2, 'ask', c('4')); // position -4: worst 4
    expect(l.slot(a, 2)!.worst).toBe(c('15'));
    expect(l.worstSum(2)).toBe(c('19'));
    expect(l.worstSum(0)).toBe(0);
    expect(l.restingMicro(2)).toBe(costMicro('ask', p('0.50'), c('25')));
  });

  it('asserts instead of going below zero', () => {
    const { ledger: l, a } = ledger();
    l.addResting(a, 0, 'bid', p('0.40'), c('1'), 1);
    expect(() => l.removeResting(a, 0, 'bid', p('0.40'), c('2'), -1)).toThrow(/below zero/);
    expect(() => l.removeResting(a, 1, 'bid', p('0.40'), c('1'), -1)).toThrow(/no slot/);
  });

  it('matches a naive recomputation over a random order stream', () => {
    const { ledger: l, a } = ledger();
    let seed = 12345;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const live: { side: BookSide; price: Price; count: number }[] = [];
    let position = 0;
    for (let step = 0; step < 2000; step++) {
      const action = random(3);
      if (action === 0 || live.length === 0) {
        const order = { side: (random(2) === 0 ? 'bid' : 'ask') as BookSide, price: (100 * (1 + random(99))) as Price, count: 1 + random(500) };
        live.push(order);
        l.addResting(a, 0, order.side, order.price, order.count, 1);
      } else if (action === 1) {
        const [order] = live.splice(random(live.length), 1);
        l.removeResting(a, 0, order.side, order.price, order.count, -1);
      } else {
        const order = live[random(live.length)];
        const fill = 1 + random(order.count);
        l.applyFill(a, 0, order.side, fill);
        position += order.side === 'bid' ? fill : -fill;
        l.removeResting(a, 0, order.side, order.price, fill, fill === order.count ? -1 : 0);
        order.count -= fill;
        if (order.count === 0) live.splice(live.indexOf(order), 1);
      }
      const bids = live.filter((o) => o.side === 'bid');
      const asks = live.filter((o) => o.side === 'ask');
      const slot = l.slot(a, 0)!;
      const restingBid = bids.reduce((s, o) => s + o.count, 0);
      const restingAsk = asks.reduce((s, o) => s + o.count, 0);
      expect(slot.restingBid).toBe(restingBid);
      expect(slot.restingAsk).toBe(restingAsk);
      expect(slot.position).toBe(position);
      expect(slot.worst).toBe(worstOf(position, restingBid, restingAsk));
      expect(slot.bidBestLevel === -1 ? -1 : slot.grid.priceAt(slot.bidBestLevel)).toBe(bids.length ? Math.max(...bids.map((o) => o.price)) : -1);
      expect(slot.askBestLevel === -1 ? -1 : slot.grid.priceAt(slot.askBestLevel)).toBe(asks.length ? Math.min(...asks.map((o) => o.price)) : -1);
      expect(l.openOrders).toBe(live.length);
      expect(l.restingMicro(0)).toBe(live.reduce((s, o) => s + costMicro(o.side, o.price, o.count), 0));
    }
  });
});

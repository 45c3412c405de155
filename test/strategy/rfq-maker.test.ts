// Goal: the rfq-maker plugin's pricing on hand-computed cases (strategies/rfq-maker.ts): YES bid
// at mid - edge snapped down, NO bid at 1 - (mid + edge snapped up), never crossing the touch, a
// side the grid cannot price declined; the last look before confirming; and its callbacks: an RFQ
// above maxContracts or on an unsynced book is not answered, an accepted quote still fair is
// confirmed, one the book moved against is left to lapse, quotes withdrawn when the book goes out of sync.
// Method: the pure functions on a small fake book over real grids; the strategy over a fake context
// that records its calls.

import { describe, expect, it } from 'vitest';
import { PRICE_INVALID, PriceGrid, parsePrice } from '../../src/core/index.ts';
import type { Price } from '../../src/core/index.ts';
import { Deny } from '../../src/strategy/index.ts';
import type { QuoteView, RfqView, StrategyContext } from '../../src/strategy/index.ts';
import plugin, { QuotePrices, RfqMaker, priceQuote, stillFair } from '../../strategies/rfq-maker.ts';

const p = (text: string): Price => parsePrice(text);

function book(bid: string | null, ask: string | null, grid = PriceGrid.fromStructure('linear_cent')) {
  return {
    ticker: 'KX-A',
    synced: true,
    grid,
    bestBid: (): Price => (bid === null ? PRICE_INVALID : p(bid)),
    bestAsk: (): Price => (ask === null ? PRICE_INVALID : p(ask)),
  };
}

function priced(b: ReturnType<typeof book>, edge: string): [number, number] {
  const out = new QuotePrices();
  priceQuote(b, edge === '0' ? 0 : p(edge), out);
  return [out.yesBid, out.noBid];
}

describe('rfq-maker pricing (hand-computed)', () => {
  it('mid +/- edge on the cent grid', () => {
    // bid 0.45 ask 0.55: mid 0.50; YES bid 0.48; YES ask 0.52 -> NO bid 0.48.
    expect(priced(book('0.45', '0.55'), '0.02')).toEqual([4800, 4800]);
    // bid 0.40 ask 0.43: mid 0.415; 0.405 down -> 0.40; 0.425 up -> 0.43 -> NO 0.57.
    expect(priced(book('0.40', '0.43'), '0.01')).toEqual([4000, 5700]);
    // edge 0, one-tick market 0.49/0.50: mid 0.495 -> YES 0.49, YES ask 0.50 -> NO 0.50.
    expect(priced(book('0.49', '0.50'), '0')).toEqual([4900, 5000]);
  });

  it('never crosses the touch, declines a side the grid cannot price, needs both sides of the book', () => {
    // Wide edge on a tight market: 0.60 - 0.30 = 0.30 is fine; 0.60 + 0.30 = 0.90 -> NO 0.10.
    expect(priced(book('0.59', '0.61'), '0.30')).toEqual([3000, 1000]);
    // mid 0.03, edge 0.05: YES target -0.02 has no grid price (declined); YES ask 0.08 -> NO 0.92.
    expect(priced(book('0.02', '0.04'), '0.05')).toEqual([0, 9200]);
    // mid 0.97, edge 0.05: YES ask 1.02 beyond the grid: NO side declined.
    expect(priced(book('0.96', '0.98'), '0.05')).toEqual([9200, 0]);
    expect(priced(book(null, '0.55'), '0.02')).toEqual([0, 0]);
    expect(priced(book('0.45', null), '0.02')).toEqual([0, 0]);
  });

  it('on a deci-cent grid the targets snap to 0.001', () => {
    // bid 0.451 ask 0.456: mid 0.4535; -0.0015 = 0.452 (on grid); +0.0015 = 0.455 -> NO 0.545.
    expect(priced(book('0.451', '0.456', PriceGrid.fromStructure('deci_cent')), '0.0015')).toEqual([4520, 5450]);
  });

  it('last look: the side taken is at or better than the current mid', () => {
    const quote = { yesBid: p('0.48'), noBid: p('0.48'), acceptedSide: 'no' as const };
    expect(stillFair(book('0.45', '0.55'), quote)).toBe(true); // buy YES 0.48 <= mid 0.50
    expect(stillFair(book('0.40', '0.50'), quote)).toBe(false); // mid 0.45 < 0.48
    expect(stillFair(book('0.40', '0.50'), { ...quote, acceptedSide: 'yes' })).toBe(true); // sell YES 0.52 >= 0.45
    expect(stillFair(book('0.50', '0.60'), { ...quote, acceptedSide: 'yes' })).toBe(false); // 0.52 < 0.55
    expect(stillFair(book('0.45', '0.55'), { ...quote, acceptedSide: '' })).toBe(false);
  });
});

describe('rfq-maker callbacks', () => {
  function harness(params: Record<string, unknown> = {}) {
    const calls: string[] = [];
    const b = book('0.45', '0.55');
    let open = 0;
    const ctx = {
      book: (ticker: string) => (ticker === 'KX-A' ? b : undefined),
      openQuotes: () => open,
      quote: (rfqId: string, yes: Price, no: Price, flags: number) => { calls.push(`quote ${rfqId} ${yes} ${no} ${flags}`); open++; return Deny.NONE; },
      confirmQuote: (handle: number) => { calls.push(`confirm ${handle}`); return Deny.NONE; },
      cancelAllQuotes: (ticker: string | null) => { calls.push(`withdraw ${ticker}`); return 0; },
    } as unknown as StrategyContext;
    const strategy = plugin.create({ edge: '0.0200', maxContracts: '20.00', maxOpenQuotes: 2, postOnly: true, ...params } as never) as RfqMaker;
    return { calls, ctx, strategy, b };
  }
  const rfq = (id: string, contracts: number): RfqView => ({ id, marketTicker: 'KX-A', eventTicker: 'KX', creatorId: '', contracts: contracts as never, targetCost: -1, tsMs: 0 });
  const accepted = (side: 'yes' | 'no'): QuoteView =>
    ({ handle: 5, quoteId: 'q', rfqId: 'r', ticker: 'KX-A', yesBid: p('0.48'), noBid: p('0.48'), count: 1000 as never, status: 'accepted', acceptedSide: side, subaccount: 0, strategyId: 1, lastCode: '' });

  it('quotes RFQs within its limits only', () => {
    const { calls, ctx, strategy, b } = harness();
    strategy.onRfq(rfq('r1', 1000), ctx, false);
    strategy.onRfq(rfq('big', 2001), ctx, false); // above 20.00
    strategy.onRfq(rfq('cost', 0), ctx, false); // target-cost RFQ
    strategy.onRfq(rfq('r1', 1000), ctx, true); // deleted
    b.synced = false;
    strategy.onRfq(rfq('unsynced', 100), ctx, false);
    b.synced = true;
    strategy.onRfq(rfq('r2', 100), ctx, false);
    strategy.onRfq(rfq('r3', 100), ctx, false); // 2 open already
    expect(calls).toEqual(['quote r1 4800 4800 1', 'quote r2 4800 4800 1']);
  });

  it('confirms an accepted quote still fair, lets one the book moved against lapse, withdraws on out of sync', () => {
    const { calls, ctx, strategy, b } = harness();
    strategy.onQuoteUpdate(accepted('no'), ctx);
    b.bestBid = () => p('0.40');
    b.bestAsk = () => p('0.50');
    strategy.onQuoteUpdate(accepted('no'), ctx); // buy YES 0.48 > mid 0.45: lapse
    strategy.onQuoteUpdate({ ...accepted('no'), status: 'open' }, ctx);
    strategy.onBookOutOfSync(b as never, ctx);
    expect(calls).toEqual(['confirm 5', 'withdraw KX-A']);
  });
});

/**
 * Goal: one registry gives every market one dense index for the process's life, found alike by
 * string and by the UTF-8 bytes a scanner hashed, and a regrid, an open flag or a close time is
 * written once and read by every hop (feed, gate) through the same record.
 * Method: the registry alone, then a Feed and a RiskGate built over one registry as the runtime's
 * graph builds them.
 */

import { describe, expect, it } from 'vitest';
import { ManualClock, PriceGrid } from '../../src/core/index.ts';
import { Feed } from '../../src/feed/index.ts';
import { MarketRegistry, hashBytes } from '../../src/market/index.ts';
import { RiskGate, riskLimits } from '../../src/risk/index.ts';

function findBytes(registry: MarketRegistry, ticker: string): number {
  const bytes = Buffer.from(ticker, 'utf8');
  return registry.find(bytes, 0, bytes.length, hashBytes(bytes, 0, bytes.length));
}

describe('MarketRegistry', () => {
  it('assigns dense indexes once and finds them by string and by bytes, at any count', () => {
    const registry = new MarketRegistry();
    const tickers = Array.from({ length: 3000 }, (_, i) => `KX-${i}-26DEC31-T${i % 97}`);
    tickers.push('UNI-\u00e9\u4e2d-\ud83d\ude00');
    tickers.forEach((ticker, i) => expect(registry.add(ticker).index).toBe(i));
    expect(registry.size).toBe(tickers.length);
    expect(registry.add(tickers[17]).index).toBe(17); // idempotent
    for (let i = 0; i < tickers.length; i += 7) {
      expect(registry.indexOf(tickers[i])).toBe(i);
      expect(findBytes(registry, tickers[i])).toBe(i);
      expect(registry.tickerAt(i)).toBe(tickers[i]);
    }
    expect(registry.indexOf('NOPE')).toBe(-1);
    expect(findBytes(registry, 'NOPE')).toBe(-1);
    expect(registry.at(-1)).toBeUndefined();
    expect(registry.at(tickers.length)).toBeUndefined();
  });

  it('a lone surrogate is registered and found by string, never by bytes', () => {
    const registry = new MarketRegistry();
    const odd = 'BAD-\ud800';
    expect(registry.add(odd).index).toBe(0);
    expect(registry.indexOf(odd)).toBe(0);
    expect(findBytes(registry, odd)).toBe(-1);
  });

  it('writes a regrid once and tells its listeners; an unchanged grid tells nobody', () => {
    const registry = new MarketRegistry();
    const market = registry.add('A');
    const coarse = PriceGrid.fromStructure('linear_cent');
    market.grid = coarse;
    const heard: number[] = [];
    registry.onRegrid((index) => heard.push(index));
    registry.regrid(0, coarse);
    expect(heard).toEqual([]);
    const fine = PriceGrid.fromStructure('deci_cent');
    registry.regrid(0, fine);
    expect(market.grid).toBe(fine);
    expect(heard).toEqual([0]);
  });

  it('the feed and the gate built over one registry share each market\'s index and facts', () => {
    const registry = new MarketRegistry();
    const clock = new ManualClock(1_800_000_000_000);
    const gate = new RiskGate({ limits: riskLimits({}), clock, markets: registry });
    const feed = new Feed({ url: 'ws://127.0.0.1:9/trade-api/ws/v2', auth: null, clock, markets: registry, staleBookMs: 0 });
    const grid = PriceGrid.fromStructure('linear_cent');
    const bookA = feed.addMarket('A', grid);
    const bookB = feed.addMarket('B', grid);
    const handleB = gate.addMarket('B', grid, bookB);
    const handleA = gate.addMarket('A', grid, bookA);
    expect([handleA, handleB]).toEqual([feed.market('A')!.index, feed.market('B')!.index]);
    // A lifecycle pause written by the feed is what the gate reads.
    feed.setMarketOpen('B', false);
    expect(gate.markets.at(handleB)!.open).toBe(false);
    gate.setMarketCloseTime(handleA, 5);
    expect(feed.market('A')!.info.closeMs).toBe(5);
    feed.stop();
  });
});

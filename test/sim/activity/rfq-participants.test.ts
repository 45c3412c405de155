/**
 * Goal: the RFQ participants are deterministic (same seed -> the same RFQs: market, size, combo or
 * not; another seed -> different ones), create combo RFQs too, answer a user's RFQ with a two-sided
 * quote around fair value within the configured delay, accept a user's quote on their own RFQ
 * (which executes when the user confirms: fills for both), and delete RFQs past their lifetime.
 * Method: an in-process engine on the shipped catalog with a manual clock; the participants are
 * stepped every 10 ms of that clock for a bounded number of steps.
 */

import { describe, expect, it } from 'vitest';
import { SimEngine, isSimError, loadCatalog, type Quote, type QuoteEvent, type RfqEvent } from '../../../src/sim/engine/index.ts';
import { RfqParticipants, type RfqParticipantsOptions } from '../../../src/sim/activity/index.ts';
import type { Centicents, Count, Price } from '../../../src/core/index.ts';

const START_MS = 1_790_000_000_000;
const USER = 'rfq-test-user';
const MARKET = 'KXDEMO-26DEC31-T50';

function world(seed: number, options: Partial<RfqParticipantsOptions> = {}) {
  const clock = { ms: START_MS };
  const engine = new SimEngine({ now: () => clock.ms, seed: 3, catalog: loadCatalog('config/markets.json') });
  engine.addUser(USER);
  engine.deposit(USER, 0, 0, 10_000_000_000 as Centicents);
  const rfqEvents: RfqEvent[] = [];
  const quoteEvents: QuoteEvent[] = [];
  engine.subscribe({ onRfq: (e) => rfqEvents.push({ ...e }), onQuote: (e) => quoteEvents.push({ ...e, quote: { ...e.quote } }) });
  const participants = new RfqParticipants(engine, { seed, rfqsPerMinute: 600, ...options });
  const advance = (ms: number): void => {
    for (let t = 0; t < ms; t += 10) {
      clock.ms += 10;
      participants.step(clock.ms);
    }
  };
  return { clock, engine, participants, advance, rfqEvents, quoteEvents };
}

function sequence(seed: number): string[] {
  const w = world(seed);
  w.advance(20_000);
  return w.participants.created().map((r) => `${r.marketTicker} ${r.contracts} ${r.targetCost} ${r.combo}`);
}

describe('RfqParticipants', () => {
  it('creates the same RFQs for a seed, other RFQs for another seed, combos among them', () => {
    const first = sequence(9);
    expect(first.length).toBeGreaterThan(50);
    expect(sequence(9)).toEqual(first);
    expect(sequence(10)).not.toEqual(first);
    expect(first.some((line) => line.endsWith(' true'))).toBe(true); // a combo market
    expect(first.some((line) => line.includes(' null false'))).toBe(true); // sized in contracts
  });

  it('quotes a user RFQ around fair value within the delay, never on its own', () => {
    const w = world(4, { rfqsPerMinute: 0, quoteDelayMsMin: 100, quoteDelayMsMax: 1_500 });
    const rfq = w.engine.createRfq(USER, { marketTicker: MARKET, contracts: 1_000 as Count, restRemainder: false });
    expect(isSimError(rfq)).toBe(false);
    if (isSimError(rfq)) return;
    w.advance(1_600);
    const quotes = w.quoteEvents.filter((e) => e.type === 'quote_created' && e.quote.rfqId === rfq.rfqId).map((e) => e.quote);
    expect(quotes.length).toBeGreaterThan(0);
    for (const quote of quotes) {
      // Fair value 0.50 (empty book: the catalog's initial price); 1 to 3 cents each side.
      expect(quote.yesBid).toBeGreaterThanOrEqual(4_700);
      expect(quote.yesBid).toBeLessThan(5_000);
      expect(10_000 - quote.noBid).toBeGreaterThan(5_000);
      expect(10_000 - quote.noBid).toBeLessThanOrEqual(5_300);
      expect(w.participants.userIds).toContain(quote.userId);
    }
    expect(w.rfqEvents.every((e) => e.type !== 'rfq_created' || e.rfq.userId === USER)).toBe(true);
  });

  it('accepts a fair quote on its RFQ; the user confirms and both get fills; unanswered RFQs are deleted', () => {
    const w = world(5, { acceptPerMille: 1_000, quoteWindowMs: 500, rfqLifetimeMs: 3_000, comboPerMille: 0, targetCostPerMille: 0 });
    w.advance(200);
    const created = w.participants.created();
    expect(created.length).toBeGreaterThan(0);
    const target = created[0];
    const market = w.engine.getMarket(target.marketTicker)!;
    const fair = market.spec.initialFairPrice;
    // Both sides at fair value: acceptable whichever side the requester wants.
    const yesBid = market.grid.snap(fair as Price, 'down');
    const yesAsk = market.grid.snap(fair as Price, 'up');
    const quote = w.engine.createQuote(USER, { rfqId: target.rfqId, yesBid, noBid: (10_000 - yesAsk) as Price, restRemainder: false });
    expect(isSimError(quote)).toBe(false);
    w.advance(600);
    const accepted = w.quoteEvents.find((e) => e.type === 'quote_accepted' && e.quote.quoteId === (quote as Quote).quoteId);
    expect(accepted).toBeDefined();
    const confirmed = w.engine.confirmQuote(USER, (quote as Quote).quoteId, target.rfqId, null);
    expect(isSimError(confirmed) ? confirmed.code : confirmed.status).toBe('executed');
    const position = w.engine.getPosition(USER, target.marketTicker);
    expect(Math.abs(position?.position ?? 0)).toBe(target.contracts);
    // Another RFQ nobody quoted is deleted once its lifetime passes.
    const other = created[1];
    w.advance(3_500);
    expect(w.engine.getRfq(other.rfqId)?.status).toBe('closed');
    expect(w.rfqEvents.some((e) => e.type === 'rfq_deleted' && e.rfq.rfqId === other.rfqId)).toBe(true);
  });
});

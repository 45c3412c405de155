// Goal: outcome_side / book_side conversions follow the spec exactly.
// Method: exhaustive tables over every action x side, plus the complement of every price.
import { describe, expect, it } from 'vitest';
import { bookSideOfOutcome, complementPrice, outcomeOfBookSide, outcomeSideOf, PRICE_ONE, type Price } from '../../src/core/index.ts';

describe('sides', () => {
  it('outcome side: buy-yes and sell-no give yes; buy-no and sell-yes give no', () => {
    expect(outcomeSideOf('buy', 'yes')).toBe('yes');
    expect(outcomeSideOf('sell', 'no')).toBe('yes');
    expect(outcomeSideOf('buy', 'no')).toBe('no');
    expect(outcomeSideOf('sell', 'yes')).toBe('no');
  });
  it('book side: bid is yes, ask is no, both ways', () => {
    expect(bookSideOfOutcome('yes')).toBe('bid');
    expect(bookSideOfOutcome('no')).toBe('ask');
    expect(outcomeOfBookSide('bid')).toBe('yes');
    expect(outcomeOfBookSide('ask')).toBe('no');
  });
  it('complementPrice is 1 - p and an involution', () => {
    expect(complementPrice(3000 as Price)).toBe(7000);
    for (let price = 0; price <= PRICE_ONE; price++) {
      expect(complementPrice(complementPrice(price as Price))).toBe(price);
    }
  });
});

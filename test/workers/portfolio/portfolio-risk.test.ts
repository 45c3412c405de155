// Goal: the portfolio risk arithmetic (src/workers/portfolio/portfolio-risk.ts) gives the
// worst-case loss and exposure a person computes by hand: a lone market with resting orders on
// both sides, a mutually exclusive event (one outcome YES at most, or none) against the same
// positions read as independent markets, and an event held by two subaccounts (the firm's loss
// nets them per outcome). Method: hand-packed inputs, figures worked out in the comments in
// dollars (1 $ = 1,000,000 micro-dollars), compared exactly.

import { describe, expect, it } from 'vitest';
import { PortfolioField as P } from '../../../src/risk/index.ts';
import { PortfolioInput, ROW_STRIDE, Row, computePortfolioRisk, inputOffsets, portfolioInputLength } from '../../../src/workers/index.ts';

const $ = (dollars: number): number => Math.round(dollars * 1_000_000);
const contracts = (n: number): number => n * 100;

interface RowSpec {
  market: number;
  subaccount: number;
  /** Signed contracts (+ YES). */
  position: number;
  /** Signed cost in YES terms, dollars. */
  cost: number;
  bidCost?: number;
  askCost?: number;
}

function pack(rows: RowSpec[], eventOfMarket: number[], mutual: boolean[]): Float64Array {
  const marketCount = eventOfMarket.length;
  const input = new Float64Array(portfolioInputLength(rows.length, mutual.length, marketCount));
  input[PortfolioInput.ROW_COUNT] = rows.length;
  input[PortfolioInput.EVENT_COUNT] = mutual.length;
  input[PortfolioInput.MARKET_COUNT] = marketCount;
  input[PortfolioInput.PACKED_AT_MS] = 123;
  mutual.forEach((flag, e) => (input[PortfolioInput.MUTUAL + e] = flag ? 1 : 0));
  const { eventOf, rows: at } = inputOffsets(mutual.length, marketCount);
  eventOfMarket.forEach((event, m) => (input[eventOf + m] = event));
  rows.forEach((row, i) => {
    const o = at + i * ROW_STRIDE;
    input[o + Row.MARKET] = row.market;
    input[o + Row.SUBACCOUNT] = row.subaccount;
    input[o + Row.POSITION] = contracts(row.position);
    input[o + Row.COST] = $(row.cost);
    input[o + Row.BID_COST] = $(row.bidCost ?? 0);
    input[o + Row.ASK_COST] = $(row.askCost ?? 0);
  });
  return input;
}

describe('portfolio risk: hand-computed portfolios', () => {
  it('one market of no event: positions at cost plus the resting orders that lose', () => {
    // Long 10 YES bought at $0.40 ($4.00), resting bid 5 @ $0.30 ($1.50), resting ask 2 @ $0.60 (NO cost 2 x $0.40 = $0.80).
    // YES: the long wins $6.00, the filled ask loses $0.80 -> loss -$5.20.  NO: $4.00 + $1.50 = $5.50.
    const out = computePortfolioRisk(pack([{ market: 0, subaccount: 0, position: 10, cost: 4, bidCost: 1.5, askCost: 0.8 }], [-1], []), 7);
    expect(out[P.GENERATION]).toBe(7);
    expect(out[P.PACKED_AT_MS]).toBe(123);
    expect(out[P.SUB_LOSS + 0]).toBe($(5.5));
    expect(out[P.SUB_EXPOSURE + 0]).toBe($(6.3)); // $4.00 + $1.50 + $0.80
    expect(out[P.EVENT_COUNT]).toBe(0);
  });

  it('a mutually exclusive event settles at most one market YES; the same positions as independent markets lose more', () => {
    // Short 10 YES of A and of B, each sold at $0.20 (cost -$2.00 each).
    // Exclusive: A YES -> A loses $8, B gains $2: $6; B YES the same; none YES: gains $4. Worst $6.
    // Independent: both could settle YES: $8 + $8 = $16.
    const rows: RowSpec[] = [
      { market: 0, subaccount: 1, position: -10, cost: -2 },
      { market: 1, subaccount: 1, position: -10, cost: -2 },
    ];
    const exclusive = computePortfolioRisk(pack(rows, [0, 0], [true]), 1);
    expect(exclusive[P.SUB_LOSS + 1]).toBe($(6));
    expect(exclusive[P.EVENTS + 0]).toBe($(6));
    expect(exclusive[P.SUB_EXPOSURE + 1]).toBe($(16)); // NO cost of each short: 10 x $1 - $2
    expect(exclusive[P.EVENTS + 1]).toBe($(16)); // the event's exposure column (eventCount 1)
    const independent = computePortfolioRisk(pack(rows, [0, 0], [false]), 1);
    expect(independent[P.SUB_LOSS + 1]).toBe($(16));
    expect(independent[P.EVENTS + 0]).toBe($(16));
  });

  it('longs of an exclusive event: the worst outcome can be "none of them"', () => {
    // Long 10 YES of A at $0.50 and of B at $0.30, long 10 NO of C (short YES sold at $0.20).
    // A YES: A +$5, B -$3, C +$2 -> loss -$4.  B YES: -$5 +$7 +$2 -> -$4.  C YES: -$5 -$3 -$8 -> $16.  none: -$5 -$3 +$2 -> $6.
    const rows: RowSpec[] = [
      { market: 0, subaccount: 0, position: 10, cost: 5 },
      { market: 1, subaccount: 0, position: 10, cost: 3 },
      { market: 2, subaccount: 0, position: -10, cost: -2 },
    ];
    expect(computePortfolioRisk(pack(rows, [0, 0, 0], [true]), 1)[P.SUB_LOSS]).toBe($(16));
    // Without C the worst is "none": $5 + $3 = $8 (A YES: -$5 + $3 = -$2; B YES: $5 - $7 = -$2).
    expect(computePortfolioRisk(pack(rows.slice(0, 2), [0, 0, 0], [true]), 1)[P.SUB_LOSS]).toBe($(8));
  });

  it('an event held by two subaccounts: each has its own worst case, the event nets them per outcome', () => {
    // Subaccount 1: short 10 A and short 10 B at $0.20 (as above: worst $6).
    // Subaccount 2: long 10 A at $0.50: worst $5 (A NO).
    // Event, both together: A YES: A (-8 + 5 = lose $3), B +$2 -> $1; B YES: A (+2 - 5 = lose $3), B -$8 -> $11; none: $3 - $2 = $1. Worst $11.
    const rows: RowSpec[] = [
      { market: 0, subaccount: 1, position: -10, cost: -2 },
      { market: 1, subaccount: 1, position: -10, cost: -2 },
      { market: 0, subaccount: 2, position: 10, cost: 5 },
    ];
    const out = computePortfolioRisk(pack(rows, [0, 0], [true]), 1);
    expect(out[P.SUB_LOSS + 1]).toBe($(6));
    expect(out[P.SUB_LOSS + 2]).toBe($(5));
    expect(out[P.EVENTS + 0]).toBe($(11));
    // Two events settle independently: a subaccount's worst case is the sum of its worst per event.
    const split = computePortfolioRisk(pack([...rows, { market: 2, subaccount: 2, position: 0, cost: 0, bidCost: 1.25 }], [0, 0, 1], [true, false]), 1);
    expect(split[P.SUB_LOSS + 2]).toBe($(6.25));
    expect(split[P.EVENTS + 1]).toBe($(1.25));
  });
});

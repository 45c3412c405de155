/**
 * Portfolio risk arithmetic: exposure and worst-case loss per subaccount and per event, from every
 * (market, subaccount) position at cost and the cost of its resting orders on each side. Runs in a
 * worker (portfolio-task.ts); pure, integers in micro-dollars (price 1/10,000 $ x count 1/100).
 *
 * Per (market, subaccount) row, with q the signed position (+ YES), C its signed cost in YES terms
 * (what the OMS's Position keeps: paid for YES bought, minus received for YES sold), B the cost of
 * the resting bids (YES price x count) and A the cost of the resting asks (NO price x count):
 *
 *   loss if the market settles YES:  Lyes = C - q x $1 + A   (the asks fill and their NO loses)
 *   loss if it settles NO:           Lno  = C + B            (the bids fill and their YES loses)
 *
 * Worst case means every resting order that would lose under an outcome fills, and none that would
 * win does (an adversarial fill). Outcomes of an event:
 *   - mutually exclusive (the event's `mutually_exclusive`): at most one market settles YES, so
 *     the outcomes are "market k YES, every other NO" for each k, and "all NO" (the event may
 *     resolve to none of the listed markets; counting it is the conservative reading):
 *       worst = sum(Lno) + max(0, max_k (Lyes_k - Lno_k))
 *   - otherwise each market settles on its own: worst = sum over markets of max(Lyes, Lno).
 * A market of no known event is an event of its own. A subaccount's worst-case loss is the sum
 * over events of its worst case on each (events settle independently); an event's is computed on
 * every subaccount's rows together (the firm's loss on it).
 *
 * Exposure (money at stake): a long YES position's cost, a long NO position's cost (q x -$1 + C,
 * i.e. |q| x $1 minus what selling YES brought), plus the resting orders' cost.
 *
 * Input layout (one Float64Array, moved to the worker and back):
 *   0 rowCount | 1 eventCount | 2 marketCount | 3 packedAtMs | 4 addedTotal | 5..7 spare
 *   8..71 addedMicro per subaccount | MUTUAL: eventCount flags | EVENT_OF: marketCount event indexes
 *   ROWS: rowCount x ROW_STRIDE (market, subaccount, position, costMicro, bidCostMicro, askCostMicro)
 * Output: a snapshot in src/risk/portfolio-view.ts's layout.
 */

import { PRICE_ONE, assert } from '../../core/index.ts';
import { PortfolioField as P, portfolioSnapshotLength } from '../../risk/index.ts';

export const PortfolioInput = {
  ROW_COUNT: 0,
  EVENT_COUNT: 1,
  MARKET_COUNT: 2,
  PACKED_AT_MS: 3,
  ADDED_TOTAL: 4,
  SUB_ADDED: 8,
  MUTUAL: 8 + 64,
} as const satisfies Record<string, number>;

export const ROW_STRIDE = 6;
export const Row = { MARKET: 0, SUBACCOUNT: 1, POSITION: 2, COST: 3, BID_COST: 4, ASK_COST: 5 } as const satisfies Record<string, number>;

const SUBACCOUNTS = 64;

/** Floats of an input with these sizes. */
export function portfolioInputLength(rowCount: number, eventCount: number, marketCount: number): number {
  return PortfolioInput.MUTUAL + eventCount + marketCount + rowCount * ROW_STRIDE;
}

/** Where the event-of-market column and the rows start. */
export function inputOffsets(eventCount: number, marketCount: number): { eventOf: number; rows: number } {
  const eventOf = PortfolioInput.MUTUAL + eventCount;
  return { eventOf, rows: eventOf + marketCount };
}

/** The snapshot for one input; `generation` numbers it. */
export function computePortfolioRisk(input: Float64Array, generation: number): Float64Array {
  const rowCount = input[PortfolioInput.ROW_COUNT];
  const eventCount = input[PortfolioInput.EVENT_COUNT];
  const marketCount = input[PortfolioInput.MARKET_COUNT];
  assert(input.length >= portfolioInputLength(rowCount, eventCount, marketCount), 'computePortfolioRisk: input shorter than its header says');
  const { eventOf, rows } = inputOffsets(eventCount, marketCount);
  const out = new Float64Array(portfolioSnapshotLength(eventCount));
  out[P.GENERATION] = generation;
  out[P.PACKED_AT_MS] = input[PortfolioInput.PACKED_AT_MS];
  out[P.EVENT_COUNT] = eventCount;
  out[P.ADDED_TOTAL_AT_PACK] = input[PortfolioInput.ADDED_TOTAL];
  for (let s = 0; s < SUBACCOUNTS; s++) out[P.SUB_ADDED + s] = input[PortfolioInput.SUB_ADDED + s];

  // Per (subaccount, mutually exclusive event): sum of Lno and the largest Lyes - Lno.
  const subEventNo = new Float64Array(SUBACCOUNTS * eventCount);
  const subEventGain = new Float64Array(SUBACCOUNTS * eventCount); // max(0, ...) starts at the "all NO" outcome
  // Per market, every subaccount together.
  const marketYes = new Float64Array(marketCount);
  const marketNo = new Float64Array(marketCount);
  const marketSeen = new Uint8Array(marketCount);
  const eventExposure = P.EVENTS + eventCount;

  for (let r = 0; r < rowCount; r++) {
    const at = rows + r * ROW_STRIDE;
    const market = input[at + Row.MARKET];
    const s = input[at + Row.SUBACCOUNT];
    assert(market >= 0 && market < marketCount && s >= 0 && s < SUBACCOUNTS, 'computePortfolioRisk: row out of range');
    const q = input[at + Row.POSITION];
    const cost = input[at + Row.COST];
    const bidCost = input[at + Row.BID_COST];
    const askCost = input[at + Row.ASK_COST];
    const lossYes = cost - q * PRICE_ONE + askCost;
    const lossNo = cost + bidCost;
    const positionCost = q > 0 ? cost : q < 0 ? cost - q * PRICE_ONE : 0;
    const exposure = positionCost + bidCost + askCost;
    const event = input[eventOf + market];
    out[P.SUB_EXPOSURE + s] += exposure;
    if (event >= 0) out[eventExposure + event] += exposure;
    if (event >= 0 && input[PortfolioInput.MUTUAL + event] === 1) {
      subEventNo[s * eventCount + event] += lossNo;
      const gain = lossYes - lossNo;
      if (gain > subEventGain[s * eventCount + event]) subEventGain[s * eventCount + event] = gain;
    } else {
      out[P.SUB_LOSS + s] += lossYes > lossNo ? lossYes : lossNo;
    }
    marketYes[market] += lossYes;
    marketNo[market] += lossNo;
    marketSeen[market] = 1;
  }
  for (let s = 0; s < SUBACCOUNTS; s++) {
    for (let e = 0; e < eventCount; e++) {
      const i = s * eventCount + e;
      out[P.SUB_LOSS + s] += subEventNo[i] + subEventGain[i];
    }
  }
  // Events, all subaccounts together.
  const eventNo = new Float64Array(eventCount);
  const eventGain = new Float64Array(eventCount);
  for (let m = 0; m < marketCount; m++) {
    if (marketSeen[m] === 0) continue;
    const event = input[eventOf + m];
    if (event < 0) continue;
    if (input[PortfolioInput.MUTUAL + event] === 1) {
      eventNo[event] += marketNo[m];
      const gain = marketYes[m] - marketNo[m];
      if (gain > eventGain[event]) eventGain[event] = gain;
    } else {
      out[P.EVENTS + event] += marketYes[m] > marketNo[m] ? marketYes[m] : marketNo[m];
    }
  }
  for (let e = 0; e < eventCount; e++) out[P.EVENTS + e] += eventNo[e] + eventGain[e];
  return out;
}

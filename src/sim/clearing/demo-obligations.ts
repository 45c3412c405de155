/**
 * The demo clearing member's backlog: obligations of the DEMO_CYCLES settlement cycles before the
 * current one, still outstanding, so a fresh `npm run sim` has something for
 * `npm run clearing -- obligations` to show. Synthetic but self-consistent (the sums reconcile the
 * way obligations.ts's do: detail pnl includes its funding, total = pnl - fees, obligation sums
 * its details, amount = pnl - fees - margin deltas), every detail array populated, and the oldest
 * cycle's first asset class holding DEMO_WIDE_SUBTRADERS x hourly funding rows per market, past
 * the 1,000-row inline cap, so paging shows. Deterministic from the seed and the start cycle. All
 * money is integer centicents. This file generates; backlog.ts keeps; the server serves.
 */

import { asCount, formatCount, SeededRandom } from '../../core/index.ts';
import { marginRender, type MarginEngine } from '../margin/index.ts';
import type { ClearingCredentials } from './credentials.ts';
import { obligationTotals } from './obligations.ts';
import type { FundingPaymentDetail, MaintenanceMarginDetail, Obligation, SettlementDetail } from './obligations.ts';

/** Earlier cycles in the backlog. */
export const DEMO_CYCLES = 3;
/** Subtraders in the oldest cycle's first asset class: 50 x 24 hourly times = 1,200 funding rows per market. */
export const DEMO_WIDE_SUBTRADERS = 50;
const DEMO_SUBTRADERS = 3;
const HOUR_MS = 3_600_000;

export interface DemoMarket {
  ticker: string;
  assetClass: string;
}

export interface DemoObligationsInput {
  seed: number;
  memberUserId: string;
  /** Start of the current settlement cycle, Unix ms; the backlog ends there. */
  cycleStartMs: number;
  cycleMs: number;
  markets: readonly DemoMarket[];
}

/** The backlog, ordered by asset class then id like obligationsOf. */
export function demoObligations(input: DemoObligationsInput): Obligation[] {
  const random = new SeededRandom((input.seed ^ 0x5eed_c1ea) >>> 0);
  const classes = [...new Set(input.markets.map((m) => m.assetClass))].sort();
  const out: Obligation[] = [];
  for (let back = DEMO_CYCLES; back >= 1; back--) {
    const cycleStartMs = input.cycleStartMs - back * input.cycleMs;
    classes.forEach((assetClass, index) => {
      const tickers = input.markets.filter((m) => m.assetClass === assetClass).map((m) => m.ticker).sort();
      const wide = back === DEMO_CYCLES && index === 0;
      out.push(demoObligation(random, input, cycleStartMs, assetClass, tickers, wide ? DEMO_WIDE_SUBTRADERS : DEMO_SUBTRADERS, wide));
    });
  }
  return out.sort((a, b) => (a.asset_class !== b.asset_class ? (a.asset_class < b.asset_class ? -1 : 1) : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function demoObligation(random: SeededRandom, input: DemoObligationsInput, cycleStartMs: number, assetClass: string, tickers: readonly string[], subtraders: number, wide: boolean): Obligation {
  const cycleEndMs = cycleStartMs + input.cycleMs;
  const hours = Math.max(1, Math.min(wide ? 24 : 4, Math.floor(input.cycleMs / HOUR_MS)));
  const stamp = cycleStartMs / 1000;
  const settlement: SettlementDetail[] = [];
  const funding: FundingPaymentDetail[] = [];
  for (let subtrader = 0; subtrader < subtraders; subtrader++) {
    for (const ticker of tickers) {
      const contracts = (1 + random.nextInt(50)) * (random.chance(1, 2) ? 1 : -1);
      const position = formatCount(asCount(contracts * 100));
      let fundingSum = 0;
      for (let hour = 1; hour <= hours; hour++) {
        const notional = Math.abs(contracts) * (500_000 + random.nextInt(500_000)); // $50-$100 a contract
        const amount = Math.round((notional * (random.nextInt(151) - 75)) / 10_000) * (contracts > 0 ? -1 : 1); // rate within +-0.75%
        fundingSum += amount;
        funding.push({
          id: `fp-${stamp}-${subtrader}-${ticker}-${hour}`,
          market_ticker: ticker,
          subtrader_id: String(subtrader),
          funding_time: marginRender.iso(Math.min(cycleStartMs + hour * HOUR_MS, cycleEndMs)),
          position_quantity_fp: position,
          notional_value_centicents: notional,
          funding_amount_centicents: amount,
        });
      }
      const pnl = random.nextInt(2_000_001) - 1_000_000 + fundingSum;
      const fees = random.nextInt(20_001);
      settlement.push({ id: `sd-${stamp}-${subtrader}-${ticker}`, market_ticker: ticker, subtrader_id: String(subtrader), position_quantity_fp: position, pnl_centicents: pnl, total_fees_centicents: fees, total_amount_centicents: pnl - fees });
    }
  }
  const margins: MaintenanceMarginDetail[] = [];
  for (let subtrader = 0; subtrader < subtraders; subtrader++) {
    const maintenance = random.nextInt(500_001);
    margins.push({ id: `mm-${stamp}-${subtrader}-${assetClass}`, subtrader_id: String(subtrader), maintenance_margin_centicents: maintenance, maintenance_margin_delta_centicents: random.nextInt(Math.floor(maintenance / 2) + 1) - Math.floor(maintenance / 4) });
  }
  settlement.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const { pnl, fees, maintenance, delta } = obligationTotals(settlement, margins);
  return {
    id: `obl-${stamp}-${assetClass}-${input.memberUserId}`,
    user_id: input.memberUserId,
    amount_centicents: small(pnl - fees - delta),
    fees_centicents: small(fees),
    maintenance_margin_centicents: small(maintenance),
    pnl_centicents: small(pnl),
    execution_time: marginRender.iso(cycleEndMs),
    last_updated_ts: marginRender.iso(cycleEndMs - 1000),
    asset_class: assetClass,
    receives: [],
    settlement_details: settlement,
    maintenance_margin_details: margins,
    funding_payments: funding,
  };
}

/**
 * A total as a small integer (int32). Node 24's V8 (13.6), once Maglev had recompiled
 * demoObligation after an allocation-site deopt, gave successive obligations the same boxed
 * numbers for these fields and overwrote them in place: an earlier obligation showed the last
 * one's totals (seen in CI on Node 24, reproduced in a fresh vitest fork, about 1 file in 40;
 * gone with --no-maglev or --no-allocation-site-pretenuring). A small integer is never boxed. The
 * demo's totals stay far below 2^31; a larger one would be a generator bug, so it throws rather
 * than wrap.
 */
function small(value: number): number {
  if ((value | 0) !== value) throw new RangeError(`demo obligation total ${value} is outside int32`);
  return value | 0;
}

/** Fills `memberUserId`'s backlog from the margin engine's catalog and current cycle (startSim). */
export function loadDemoObligations(store: ClearingCredentials, engine: MarginEngine, seed: number, memberUserId: string): number {
  const markets: DemoMarket[] = [];
  for (const market of engine.markets.values()) if (market.spec.assetClass !== null) markets.push({ ticker: market.spec.ticker, assetClass: market.spec.assetClass });
  const obligations = demoObligations({ seed, memberUserId, cycleStartMs: engine.cycleStartMs, cycleMs: engine.catalog.settlementCycleMs, markets });
  store.backlog.set(memberUserId, obligations);
  return obligations.length;
}

/**
 * The clearing member's view of the Margin exchange (interface-spec, clearing-member resources):
 * one obligation per asset class for the current settlement cycle, derived from the margin
 * engine's own fills, funding payments, marks and margin so the sums reconcile:
 *
 *   settlement detail (market, subtrader)  pnl = realized pnl of the cycle's fills
 *                                              + funding of the cycle
 *                                              + (unrealized now - unrealized at cycle start)
 *                                          total_amount = pnl - fees
 *   obligation  pnl = sum of detail pnl; fees = sum of detail fees;
 *               maintenance_margin = sum of maintenance margin details;
 *               amount = pnl - fees - sum of maintenance margin deltas (more margin: the member pays)
 *
 * A subtrader is a subaccount of the member (subtrader_id = its number). All money is integer
 * centicents. Obligations are ordered by asset class then id; none pending gives an empty array.
 * This file computes; clearing-server.ts renders and serves.
 */

import { asCount, formatCount } from '../../core/index.ts';
import type { MarginEngine } from '../margin/index.ts';
import { marginRender } from '../margin/index.ts';

/** Inline rows per detail array before *_truncated is set (interface-spec Limits). */
export const INLINE_DETAIL_ROWS_MAX = 1000;

export interface SettlementDetail {
  id: string;
  market_ticker: string;
  subtrader_id: string;
  position_quantity_fp: string;
  pnl_centicents: number;
  total_fees_centicents: number;
  total_amount_centicents: number;
}

export interface MaintenanceMarginDetail {
  id: string;
  subtrader_id: string;
  maintenance_margin_centicents: number;
  maintenance_margin_delta_centicents: number;
}

export interface FundingPaymentDetail {
  id: string;
  market_ticker: string;
  subtrader_id: string;
  funding_time: string;
  position_quantity_fp: string;
  notional_value_centicents: number;
  funding_amount_centicents: number;
}

export interface Obligation {
  id: string;
  user_id: string;
  amount_centicents: number;
  fees_centicents: number;
  maintenance_margin_centicents: number;
  pnl_centicents: number;
  execution_time: string;
  last_updated_ts: string;
  asset_class: string;
  receives: unknown[];
  settlement_details: SettlementDetail[];
  maintenance_margin_details: MaintenanceMarginDetail[];
  funding_payments: FundingPaymentDetail[];
}

/** Every pending obligation of `memberUserId`, full detail arrays (the server truncates). */
export function obligationsOf(engine: MarginEngine, memberUserId: string): Obligation[] {
  engine.advance();
  const cycleStart = engine.cycleStartMs;
  const cycleEnd = cycleStart + engine.catalog.settlementCycleMs;
  const classes = new Set<string>();
  for (const market of engine.markets.values()) if (market.spec.assetClass !== null) classes.add(market.spec.assetClass);
  const out: Obligation[] = [];
  for (const assetClass of [...classes].sort()) {
    const inClass = (ticker: string): boolean => engine.markets.get(ticker)?.spec.assetClass === assetClass;
    const details = new Map<string, SettlementDetail>();
    let lastUpdatedMs = cycleStart;
    const detailOf = (ticker: string, subaccount: number): SettlementDetail => {
      const key = `${ticker}|${subaccount}`;
      let detail = details.get(key);
      if (detail === undefined) {
        const position = engine.account(memberUserId, subaccount)?.positions.get(ticker);
        detail = {
          id: `sd-${cycleStart / 1000}-${subaccount}-${ticker}`,
          market_ticker: ticker,
          subtrader_id: String(subaccount),
          position_quantity_fp: formatCount(asCount(position?.count ?? 0)),
          pnl_centicents: 0,
          total_fees_centicents: 0,
          total_amount_centicents: 0,
        };
        details.set(key, detail);
      }
      return detail;
    };
    for (const fill of engine.fills) {
      if (fill.userId !== memberUserId || fill.createdMs < cycleStart || !inClass(fill.ticker)) continue;
      const detail = detailOf(fill.ticker, fill.subaccount);
      detail.pnl_centicents += fill.realizedPnl;
      detail.total_fees_centicents += fill.fee;
      lastUpdatedMs = Math.max(lastUpdatedMs, fill.createdMs);
    }
    const funding: FundingPaymentDetail[] = [];
    for (const payment of engine.fundingPayments) {
      if (payment.userId !== memberUserId || payment.fundingMs < cycleStart || !inClass(payment.ticker)) continue;
      detailOf(payment.ticker, payment.subaccount).pnl_centicents += payment.amount;
      lastUpdatedMs = Math.max(lastUpdatedMs, payment.fundingMs);
      funding.push({
        id: payment.id,
        market_ticker: payment.ticker,
        subtrader_id: String(payment.subaccount),
        funding_time: marginRender.iso(payment.fundingMs),
        position_quantity_fp: formatCount(asCount(payment.count)),
        notional_value_centicents: payment.notional,
        funding_amount_centicents: payment.amount,
      });
    }
    const margins: MaintenanceMarginDetail[] = [];
    for (const account of engine.accountsOf(memberUserId)) {
      let holds = false;
      for (const position of account.positions.values()) {
        if (position.count === 0 || !inClass(position.ticker)) continue;
        holds = true;
        const baseline = engine.baselineUnrealized.get(`${memberUserId}|${account.subaccount}|${position.ticker}`) ?? 0;
        detailOf(position.ticker, account.subaccount).pnl_centicents += engine.unrealizedOf(position) - baseline;
      }
      const previous = engine.baselineMaintenance.get(`${memberUserId}|${account.subaccount}|${assetClass}`);
      if (!holds && previous === undefined) continue;
      const now = engine.maintenanceOf(account, assetClass);
      margins.push({
        id: `mm-${cycleStart / 1000}-${account.subaccount}-${assetClass}`,
        subtrader_id: String(account.subaccount),
        maintenance_margin_centicents: now,
        maintenance_margin_delta_centicents: now - (previous ?? 0),
      });
    }
    if (details.size === 0 && margins.length === 0) continue;
    const settlement = [...details.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const detail of settlement) detail.total_amount_centicents = detail.pnl_centicents - detail.total_fees_centicents;
    const { pnl, fees, maintenance, delta } = obligationTotals(settlement, margins);
    out.push({
      id: `obl-${cycleStart / 1000}-${assetClass}-${memberUserId}`,
      user_id: memberUserId,
      amount_centicents: pnl - fees - delta,
      fees_centicents: fees,
      maintenance_margin_centicents: maintenance,
      pnl_centicents: pnl,
      execution_time: marginRender.iso(cycleEnd),
      last_updated_ts: marginRender.iso(lastUpdatedMs),
      asset_class: assetClass,
      receives: [],
      settlement_details: settlement,
      maintenance_margin_details: margins,
      funding_payments: funding,
    });
  }
  return out.sort((a, b) => (a.asset_class !== b.asset_class ? (a.asset_class < b.asset_class ? -1 : 1) : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** An obligation's sums over its details, centicents: the detail arrays must reconcile with its totals. */
export function obligationTotals(
  settlement: readonly SettlementDetail[], margins: readonly MaintenanceMarginDetail[],
): { pnl: number; fees: number; maintenance: number; delta: number } {
  let pnl = 0;
  let fees = 0;
  for (const detail of settlement) {
    pnl += detail.pnl_centicents;
    fees += detail.total_fees_centicents;
  }
  let maintenance = 0;
  let delta = 0;
  for (const margin of margins) {
    maintenance += margin.maintenance_margin_centicents;
    delta += margin.maintenance_margin_delta_centicents;
  }
  return { pnl, fees, maintenance, delta };
}

/**
 * Estimated funding at each asset class's next funding time for the member: the sum over its
 * positions of -(signed notional) x the in-progress rate estimate. Value shape (not shown in the
 * seed; ours): {estimated_funding_centicents, next_funding_time}.
 */
export function fundingEstimateOf(engine: MarginEngine, memberUserId: string): Record<string, { estimated_funding_centicents: number; next_funding_time: string }> {
  engine.advance();
  const out: Record<string, { estimated_funding_centicents: number; next_funding_time: string }> = {};
  const accounts = engine.accountsOf(memberUserId);
  for (const market of engine.markets.values()) {
    const assetClass = market.spec.assetClass;
    if (assetClass === null) continue;
    let entry = out[assetClass];
    if (entry === undefined) out[assetClass] = entry = { estimated_funding_centicents: 0, next_funding_time: marginRender.iso(market.nextFundingMs) };
    else if (marginRender.iso(market.nextFundingMs) < entry.next_funding_time) entry.next_funding_time = marginRender.iso(market.nextFundingMs);
    const rate = engine.fundingEstimatePpm(market);
    for (const account of accounts) {
      const position = account.positions.get(market.spec.ticker);
      if (position === undefined || position.count === 0) continue;
      entry.estimated_funding_centicents += engine.fundingAmountOf(position.count, market.mark, rate).amount;
    }
  }
  return out;
}

/**
 * What the `obligations` command prints: per obligation its own fields, the totals of its complete
 * detail arrays, and whether they reconcile. All sums are bigint centicents (exact at any size).
 * The table shows dollars with four decimals (exact: centicents are 1/10,000 dollar); the CSV
 * carries raw centicents so a spreadsheet or script reads the exact integers back.
 *
 * Reconciliation checks (the seed states the first; the others are the simulator's own identities,
 * src/sim/clearing/obligations.ts, and a reading of the seed's field notes):
 *   pnl            obligation pnl = sum of settlement detail pnl
 *   fees           obligation fees = sum of settlement detail total_fees
 *   margin         obligation maintenance_margin = sum of maintenance margin details
 *   detail_totals  each settlement detail total_amount = pnl - total_fees
 *   amount         obligation amount = pnl - fees - sum of maintenance margin deltas
 */

import type { CompleteObligation } from './detail-pager.ts';
import type { DetailArray, Obligation } from './obligations.ts';

export interface ObligationTotals {
  obligation: Obligation;
  paged: DetailArray[];
  settlementRows: number;
  settlementPnl: bigint;
  settlementFees: bigint;
  settlementTotal: bigint;
  marginRows: number;
  margin: bigint;
  marginDelta: bigint;
  fundingRows: number;
  funding: bigint;
  /** Names of the checks that failed; empty when everything reconciles. */
  mismatches: string[];
}

export function totalsOf(complete: CompleteObligation): ObligationTotals {
  const o = complete.obligation;
  let settlementPnl = 0n;
  let settlementFees = 0n;
  let settlementTotal = 0n;
  let detailTotalsOk = true;
  for (const d of o.settlementDetails) {
    settlementPnl += d.pnlCenticents;
    settlementFees += d.totalFeesCenticents;
    settlementTotal += d.totalAmountCenticents;
    if (d.totalAmountCenticents !== d.pnlCenticents - d.totalFeesCenticents) detailTotalsOk = false;
  }
  let margin = 0n;
  let marginDelta = 0n;
  for (const m of o.maintenanceMarginDetails) {
    margin += m.maintenanceMarginCenticents;
    marginDelta += m.maintenanceMarginDeltaCenticents;
  }
  let funding = 0n;
  for (const f of o.fundingPayments) funding += f.fundingAmountCenticents;
  const mismatches: string[] = [];
  if (o.pnlCenticents !== settlementPnl) mismatches.push('pnl');
  if (o.feesCenticents !== settlementFees) mismatches.push('fees');
  if (o.maintenanceMarginCenticents !== margin) mismatches.push('margin');
  if (!detailTotalsOk) mismatches.push('detail_totals');
  if (o.amountCenticents !== o.pnlCenticents - o.feesCenticents - marginDelta) mismatches.push('amount');
  return {
    obligation: o,
    paged: complete.paged,
    settlementRows: o.settlementDetails.length,
    settlementPnl,
    settlementFees,
    settlementTotal,
    marginRows: o.maintenanceMarginDetails.length,
    margin,
    marginDelta,
    fundingRows: o.fundingPayments.length,
    funding,
    mismatches,
  };
}

/** Centicents as dollars with four decimals, exactly: -23480n -> "-2.3480". */
export function formatDollars(centicents: bigint): string {
  const negative = centicents < 0n;
  const magnitude = negative ? -centicents : centicents;
  const whole = magnitude / 10_000n;
  const fraction = (magnitude % 10_000n).toString().padStart(4, '0');
  return `${negative ? '-' : ''}${whole.toString()}.${fraction}`;
}

export const CSV_COLUMNS = [
  'obligation_id', 'user_id', 'asset_class', 'execution_time', 'last_updated_ts',
  'amount_centicents', 'pnl_centicents', 'fees_centicents', 'maintenance_margin_centicents',
  'settlement_rows', 'settlement_pnl_centicents', 'settlement_fees_centicents', 'settlement_total_centicents',
  'margin_rows', 'margin_centicents', 'margin_delta_centicents',
  'funding_rows', 'funding_centicents',
  'paged', 'reconciled',
] as const;

function csvRow(t: ObligationTotals): string[] {
  const o = t.obligation;
  return [
    o.id, o.userId, o.assetClass, o.executionTime, o.lastUpdatedTs,
    o.amountCenticents.toString(), o.pnlCenticents.toString(), o.feesCenticents.toString(), o.maintenanceMarginCenticents.toString(),
    String(t.settlementRows), t.settlementPnl.toString(), t.settlementFees.toString(), t.settlementTotal.toString(),
    String(t.marginRows), t.margin.toString(), t.marginDelta.toString(),
    String(t.fundingRows), t.funding.toString(),
    t.paged.join(';'), t.mismatches.length === 0 ? 'yes' : `no:${t.mismatches.join(';')}`,
  ];
}

/** RFC 4180: quote a field holding a comma, quote, CR or LF; double inner quotes. */
function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function renderCsv(rows: readonly ObligationTotals[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const t of rows) lines.push(csvRow(t).map(csvField).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

const TABLE_COLUMNS = [
  ['OBLIGATION', 'left'], ['CLASS', 'left'], ['EXECUTION', 'left'],
  ['AMOUNT $', 'right'], ['PNL $', 'right'], ['FEES $', 'right'], ['MAINT MARGIN $', 'right'],
  ['SETTLE ROWS', 'right'], ['SETTLE PNL $', 'right'], ['SETTLE FEES $', 'right'],
  ['MM ROWS', 'right'], ['MM DELTA $', 'right'],
  ['FUNDING ROWS', 'right'], ['FUNDING $', 'right'],
  ['PAGED', 'left'], ['RECONCILED', 'left'],
] as const;

/** Control characters from the server never reach the terminal. */
function printable(text: string): string {
  return text.replace(/[\x00-\x1f\x7f]/g, '?');
}

export function renderTable(rows: readonly ObligationTotals[], memberHint: string): string {
  if (rows.length === 0) return `no active obligations${memberHint === '' ? '' : ` for ${memberHint}`}\n`;
  const cells = rows.map((t) => {
    const o = t.obligation;
    return [
      o.id, o.assetClass, o.executionTime,
      formatDollars(o.amountCenticents), formatDollars(o.pnlCenticents), formatDollars(o.feesCenticents), formatDollars(o.maintenanceMarginCenticents),
      String(t.settlementRows), formatDollars(t.settlementPnl), formatDollars(t.settlementFees),
      String(t.marginRows), formatDollars(t.marginDelta),
      String(t.fundingRows), formatDollars(t.funding),
      t.paged.length === 0 ? '-' : t.paged.join(','), t.mismatches.length === 0 ? 'yes' : `NO (${t.mismatches.join(',')})`,
    ].map(printable);
  });
  const widths = TABLE_COLUMNS.map(([title], i) => Math.max(title.length, ...cells.map((row) => row[i].length)));
  const line = (values: readonly string[]): string =>
    values.map((value, i) => (TABLE_COLUMNS[i][1] === 'right' ? value.padStart(widths[i]) : value.padEnd(widths[i]))).join('  ').trimEnd();
  const out = [line(TABLE_COLUMNS.map(([title]) => title)), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)];
  let amount = 0n;
  for (const t of rows) amount += t.obligation.amountCenticents;
  out.push('', `${rows.length} obligation(s); net amount ${formatDollars(amount)} $ (${amount.toString()} centicents; negative: the member pays)`);
  return `${out.join('\n')}\n`;
}

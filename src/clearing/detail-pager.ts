/**
 * Completes obligations whose inline detail arrays were capped (interface-spec Limits: 1,000 rows
 * per array, then *_truncated): for each truncated array it reads the matching detail route from
 * the first page to the last and replaces the inline rows with the full set. Bounded in pages
 * (pagesMax) and time (deadlineMs); a route that makes no progress (a cursor seen twice, an empty
 * page that still names a cursor), repeats a row id, or lacks a row the inline set had is a
 * CLEARING_PAGING error rather than a silently wrong total. Arrays that were not truncated are
 * taken as sent (no request).
 */

import { ClearingError } from './clearing-error.ts';
import { DETAIL_PAGE_LIMIT_MAX, type ClearingClient } from './clearing-client.ts';
import type { DetailArray, DetailRowOf, Obligation } from './obligations.ts';

export interface PagerOptions {
  /** Rows asked per page (1-1000). */
  pageLimit?: number;
  /** Pages read per array before giving up. */
  pagesMax?: number;
  /** Time for all paging of one call, ms. */
  deadlineMs?: number;
  now?: () => number;
}

export const PAGER_DEFAULTS = {
  pageLimit: DETAIL_PAGE_LIMIT_MAX,
  pagesMax: 10_000, // 10 million rows at the largest page
  deadlineMs: 300_000,
} as const;

/** An obligation with every detail row, and which arrays needed the paging routes. */
export interface CompleteObligation {
  obligation: Obligation;
  paged: DetailArray[];
}

interface Budget {
  deadlineAtMs: number;
  now: () => number;
  pageLimit: number;
  pagesMax: number;
}

function budgetOf(options: PagerOptions): Budget {
  const now = options.now ?? Date.now;
  return {
    now,
    deadlineAtMs: now() + (options.deadlineMs ?? PAGER_DEFAULTS.deadlineMs),
    pageLimit: options.pageLimit ?? PAGER_DEFAULTS.pageLimit,
    pagesMax: options.pagesMax ?? PAGER_DEFAULTS.pagesMax,
  };
}

/** Every row of one detail array of `obligationId`, read page by page; `inline` is checked against it. */
export async function readAllDetails<A extends DetailArray>(client: ClearingClient, obligationId: string, array: A, inline: readonly DetailRowOf[A][], options: PagerOptions = {}): Promise<DetailRowOf[A][]> {
  return readWithin(client, obligationId, array, inline, budgetOf(options));
}

async function readWithin<A extends DetailArray>(client: ClearingClient, obligationId: string, array: A, inline: readonly DetailRowOf[A][], budget: Budget): Promise<DetailRowOf[A][]> {
  const where = `${array} of obligation ${obligationId}`;
  const rows: DetailRowOf[A][] = [];
  const ids = new Set<string>();
  const cursors = new Set<string>();
  let cursor = '';
  for (let page = 0; ; page++) {
    if (page >= budget.pagesMax) throw new ClearingError('CLEARING_PAGING', `${where}: more than ${budget.pagesMax} pages`);
    if (budget.now() > budget.deadlineAtMs) throw new ClearingError('CLEARING_TIMEOUT', `${where}: paging deadline passed after ${page} pages`);
    const answer = await client.detailPage(obligationId, array, cursor, budget.pageLimit);
    for (const row of answer.rows) {
      if (ids.has(row.id)) throw new ClearingError('CLEARING_PAGING', `${where}: row ${row.id} sent twice`);
      ids.add(row.id);
      rows.push(row);
    }
    if (answer.cursor === '') break;
    if (answer.rows.length === 0) throw new ClearingError('CLEARING_PAGING', `${where}: an empty page still names a cursor`);
    if (cursors.has(answer.cursor)) throw new ClearingError('CLEARING_PAGING', `${where}: cursor repeated; the route makes no progress`);
    cursors.add(answer.cursor);
    cursor = answer.cursor;
  }
  for (const row of inline) {
    if (!ids.has(row.id)) throw new ClearingError('CLEARING_PAGING', `${where}: inline row ${row.id} missing from the paged set`);
  }
  return rows;
}

/** `obligation` with each truncated array replaced by its full set. */
export async function completeObligation(client: ClearingClient, obligation: Obligation, options: PagerOptions = {}): Promise<CompleteObligation> {
  return completeWithin(client, obligation, budgetOf(options));
}

async function completeWithin(client: ClearingClient, obligation: Obligation, budget: Budget): Promise<CompleteObligation> {
  const paged: DetailArray[] = [];
  const out: Obligation = { ...obligation };
  if (obligation.settlementDetailsTruncated) {
    out.settlementDetails = await readWithin(client, obligation.id, 'settlement_details', obligation.settlementDetails, budget);
    paged.push('settlement_details');
  }
  if (obligation.maintenanceMarginDetailsTruncated) {
    out.maintenanceMarginDetails = await readWithin(client, obligation.id, 'maintenance_margin_details', obligation.maintenanceMarginDetails, budget);
    paged.push('maintenance_margin_details');
  }
  if (obligation.fundingPaymentsTruncated) {
    out.fundingPayments = await readWithin(client, obligation.id, 'funding_payments', obligation.fundingPayments, budget);
    paged.push('funding_payments');
  }
  return { obligation: out, paged };
}

/** Every active obligation of the member with all detail rows (one deadline for the whole read). */
export async function readCompleteObligations(client: ClearingClient, options: PagerOptions = {}): Promise<CompleteObligation[]> {
  const budget = budgetOf(options);
  const obligations = await client.activeObligations();
  const out: CompleteObligation[] = [];
  for (const obligation of obligations) out.push(await completeWithin(client, obligation, budget));
  return out;
}

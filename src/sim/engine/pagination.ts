/**
 * Paging for list endpoints: opaque cursors, page sizes and the two page walks. A cursor names
 * the sort key of the last item returned (base64url of "k:<integer>"), the last page answers
 * cursor "". A cursor that does not decode restarts from the first page, as the exchange answers
 * a garbage cursor with a silent 200.
 */

import type { Page } from './types.ts';

export function encodeCursor(key: number): string {
  return Buffer.from(`k:${key}`, 'utf8').toString('base64url');
}

/** The key in the cursor, or -1 when absent or malformed. */
export function decodeCursor(cursor: string | null | undefined): number {
  if (cursor === undefined || cursor === null || cursor === '') return -1;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith('k:')) return -1;
  let value = 0;
  for (let i = 2; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return text.length > 2 && Number.isSafeInteger(value) ? value : -1;
}

/** Page size from a query: default when absent; -1 when outside 1..max. */
export function pageLimit(limit: number | null | undefined, defaultLimit: number, maxLimit: number): number {
  if (limit === undefined || limit === null) return defaultLimit;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > maxLimit) return -1;
  return limit;
}

/** Page newest first over an array sorted by ascending `seq`; the cursor is the last seq returned. */
export function newestFirst<T extends { seq: number }>(items: readonly T[], afterSeq: number, limit: number, match: (item: T) => boolean): Page<T> {
  let start = items.length - 1;
  if (afterSeq !== -1) {
    // Binary search: last index with seq < afterSeq.
    let lo = 0;
    let hi = items.length - 1;
    start = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (items[mid].seq < afterSeq) {
        start = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
  }
  const out: T[] = [];
  for (let i = start; i >= 0; i--) {
    if (!match(items[i])) continue;
    if (out.length === limit) return { items: out, cursor: encodeCursor(out[out.length - 1].seq) };
    out.push(items[i]);
  }
  return { items: out, cursor: '' };
}

/** Page in listing order; the cursor is the key of the last item returned. */
export function oldestFirst<T>(items: readonly T[], afterKey: number, limit: number, match: (item: T) => boolean, key: (item: T) => number): Page<T> {
  const out: T[] = [];
  for (let i = afterKey === -1 ? 0 : afterKey + 1; i < items.length; i++) {
    if (!match(items[i])) continue;
    if (out.length === limit) return { items: out, cursor: encodeCursor(key(out[out.length - 1])) };
    out.push(items[i]);
  }
  return { items: out, cursor: '' };
}

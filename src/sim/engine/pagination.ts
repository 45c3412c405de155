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

/**
 * Page in listing order over a subset sorted by ascending key (a filter's candidates, not the
 * whole list): binary search to the first key after the cursor, so a page costs O(log n + limit).
 */
export function oldestFirstSorted<T>(items: readonly T[], afterKey: number, limit: number, match: (item: T) => boolean, key: (item: T) => number): Page<T> {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (key(items[mid]) <= afterKey) lo = mid + 1;
    else hi = mid;
  }
  const out: T[] = [];
  for (let i = lo; i < items.length; i++) {
    if (!match(items[i])) continue;
    if (out.length === limit) return { items: out, cursor: encodeCursor(key(out[out.length - 1])) };
    out.push(items[i]);
  }
  return { items: out, cursor: '' };
}

/**
 * Page newest first over several unsorted lists at once (every market's trade ring): one pass that
 * keeps only the `limit + 1` newest matches in a min-heap on `seq`, so a page over T records costs
 * O(T log limit) and allocates O(limit), never a copy and sort of all T.
 */
export function newestAcross<T extends { seq: number }>(lists: readonly (readonly T[])[], afterSeq: number, limit: number, match: (item: T) => boolean): Page<T> {
  const heap: T[] = []; // min-heap by seq, at most limit + 1
  const keep = limit + 1;
  for (const list of lists) {
    for (let i = 0; i < list.length; i++) {
      const item = list[i];
      if (afterSeq !== -1 && item.seq >= afterSeq) continue;
      if (heap.length === keep && item.seq <= heap[0].seq) continue;
      if (!match(item)) continue;
      if (heap.length < keep) heapPush(heap, item);
      else heapReplaceTop(heap, item);
    }
  }
  heap.sort((a, b) => b.seq - a.seq);
  if (heap.length <= limit) return { items: heap, cursor: '' };
  heap.length = limit;
  return { items: heap, cursor: encodeCursor(heap[limit - 1].seq) };
}

function heapPush<T extends { seq: number }>(heap: T[], item: T): void {
  let i = heap.length;
  heap.push(item);
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent].seq <= item.seq) break;
    heap[i] = heap[parent];
    i = parent;
  }
  heap[i] = item;
}

function heapReplaceTop<T extends { seq: number }>(heap: T[], item: T): void {
  const n = heap.length;
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= n) break;
    const right = left + 1;
    const child = right < n && heap[right].seq < heap[left].seq ? right : left;
    if (heap[child].seq >= item.seq) break;
    heap[i] = heap[child];
    i = child;
  }
  heap[i] = item;
}

/**
 * Opaque cursors for list endpoints: a cursor names the sort key of the last item returned
 * (base64url of "k:<integer>"), the last page answers cursor "". A cursor that does not decode
 * restarts from the first page, as the exchange answers a garbage cursor with a silent 200.
 */

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

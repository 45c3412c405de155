/**
 * Subaccount restriction of API keys (spec/interface-spec.md, Authentication 2; rest.md §10): a
 * key locked to subaccount N reads and trades only N; an omitted subaccount means N; an explicit
 * other one is refused (403); orders outside N are reported as not found (404). A full-account key
 * may name any subaccount 0-63. This file owns the decision only; handlers choose the response.
 */

import type { ApiKeyRecord } from './api-key-store.ts';

/** Result of resolving a request's subaccount: the subaccount to act on, or -1 when refused. */
export const SUBACCOUNT_FORBIDDEN = -1;

/**
 * The subaccount a request acts on. `requested` is null when the request omitted it; `fallback`
 * is what an unrestricted key gets then (0 for writes, or null-meaning-all for some reads, which
 * the caller handles by passing its own fallback).
 */
export function resolveSubaccount(key: ApiKeyRecord | null, requested: number | null, fallback: number): number {
  if (key === null || key.subaccount === null) return requested ?? fallback;
  if (requested === null || requested === key.subaccount) return key.subaccount;
  return SUBACCOUNT_FORBIDDEN;
}

/** Whether the key may see or act on something that belongs to `subaccount`. */
export function keyCoversSubaccount(key: ApiKeyRecord, subaccount: number): boolean {
  return key.subaccount === null || key.subaccount === subaccount;
}

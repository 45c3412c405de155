/**
 * The budgeted read client capture and catalog backfill spend the account's read budget through:
 * the exec folder's AccountClient (signed, paced by the ReadPacer, 429s retried), its budget and
 * endpoint costs read from the venue as the runtime does (falling back to the Basic tier's).
 * Owns the client's lifetime for the tools; never writes.
 */

import type { KeyObject } from 'node:crypto';
import { systemClock } from '../core/index.ts';
import { ACCOUNT_CLIENT_DEFAULTS, AccountClient, type BudgetedRestClient } from '../exec/index.ts';
import { readAccountBudgets, readEndpointCosts } from '../runtime/account-budgets.ts';

export interface VenueReads {
  reads: BudgetedRestClient;
  /** The API prefix paths start with, e.g. /trade-api/v2. */
  apiPrefix: string;
  close(): Promise<void>;
}

/** `restUrl` includes the API prefix (http://127.0.0.1:9000/trade-api/v2). */
export async function openVenueReads(restUrl: string, keyId: string, privateKey: KeyObject, onWarning: (message: string) => void): Promise<VenueReads> {
  const account = new AccountClient({ ...ACCOUNT_CLIENT_DEFAULTS, baseUrl: restUrl, keyId, privateKey, clock: systemClock });
  const reads = account.reads;
  const prefix = account.prefix;
  const budgets = await readAccountBudgets(reads, prefix, 'auto', (error) => onWarning(`reading the account limits failed (${(error as Error).message}); using the Basic budget`));
  reads.pacer.setBudget(budgets.readPerSecond, budgets.readCapacity);
  const costs = await readEndpointCosts(reads, prefix, (error) => onWarning(`reading the endpoint costs failed (${(error as Error).message}); every read costs 10`));
  if (costs !== null) reads.setCosts(costs);
  return { reads, apiPrefix: prefix, close: () => account.close() };
}

/**
 * Money moves between a user's places (interface-spec "Predictions, portfolio and orders"):
 * intra-exchange-instance transfers (between Predictions shards, or between Predictions and the
 * Margin exchange), subaccount transfers on one shard, created subaccounts, and the target balance
 * allocation across shards. It owns the records of these moves; cash itself stays in the engine
 * (Predictions) and the margin engine (Margin), changed only through their own checks.
 *
 * A cross-shard transfer between subaccounts runs as up to three non-atomic steps, as the seed
 * says, and a step that fails leaves the earlier ones done:
 *
 *   1. source_subaccount -> primary, on the source shard   (skipped when the source is primary)
 *   2. primary on the source -> primary on the destination (needs transfers active on both shards)
 *   3. primary -> destination_subaccount, on the destination shard (skipped when primary)
 *
 * Amounts are integer centicents throughout.
 */

import { asCenticents } from '../../core/index.ts';
import { EXCHANGE_INDEXES, simError, type SimEngine, type SimError } from '../engine/index.ts';
import type { MarginEngine } from '../margin/index.ts';

export type ExchangeInstance = 'event_contract' | 'margined';

/** One place money sits: an instance, a shard (exchange index) and a subaccount. */
export interface Place {
  readonly instance: ExchangeInstance;
  readonly shard: number;
  readonly subaccount: number;
}

export type TransferStatus = 'pending' | 'complete';

export interface IntraTransferRecord {
  readonly transferId: string;
  readonly userId: string;
  readonly source: Place;
  readonly destination: Place;
  readonly amount: number; // centicents
  status: TransferStatus;
  /** Steps that ran to completion, in order (1-3); a `pending` record stopped after these. */
  readonly stepsDone: number[];
  readonly createdMs: number;
}

export interface SubaccountTransferRecord {
  readonly transferId: string;
  readonly clientTransferId: string;
  readonly userId: string;
  readonly fromSubaccount: number;
  readonly toSubaccount: number;
  readonly exchangeIndex: number;
  readonly amountCents: number;
  readonly createdMs: number;
}

export type RestingMarginReservation = 'max' | 'sum';

export interface TargetAllocation {
  readonly allocations: ReadonlyArray<{ exchangeIndex: number; percent: number }>;
  readonly reservation: RestingMarginReservation;
}

/** A failed step: which one, why, and the steps already done (they are not undone). */
export interface StepFailure {
  readonly transfer: IntraTransferRecord;
  readonly failedStep: number;
  readonly error: SimError;
}

/** Records kept per user: a bound on memory (oldest dropped first). */
export const TRANSFER_RECORDS_PER_USER_MAX = 10_000;
export const SUBACCOUNT_NUMBER_MAX = 63;

interface UserBook {
  intra: IntraTransferRecord[];
  subaccountTransfers: SubaccountTransferRecord[];
  byClientTransferId: Map<string, SubaccountTransferRecord>;
  /** Subaccounts created through POST /portfolio/subaccounts (1-63). */
  created: Set<number>;
  allocation: TargetAllocation | null;
}

export const DEFAULT_ALLOCATION: TargetAllocation = { allocations: [{ exchangeIndex: 0, percent: 100 }], reservation: 'sum' };

export class Treasury {
  readonly #engine: SimEngine;
  readonly #margin: MarginEngine;
  readonly #now: () => number;
  readonly #users = new Map<string, UserBook>();
  #nextId = 1;

  constructor(engine: SimEngine, margin: MarginEngine, now: () => number) {
    this.#engine = engine;
    this.#margin = margin;
    this.#now = now;
  }

  #book(userId: string): UserBook {
    let book = this.#users.get(userId);
    if (book === undefined) {
      book = { intra: [], subaccountTransfers: [], byClientTransferId: new Map(), created: new Set(), allocation: null };
      this.#users.set(userId, book);
    }
    return book;
  }

  #id(prefix: string): string {
    return `${prefix}-${String(this.#nextId++).padStart(10, '0')}`;
  }

  // ---- intra-exchange-instance transfers --------------------------------------------------

  /** Checks what can be checked before any money moves; null when the transfer may start. */
  validateIntra(source: Place, destination: Place, amount: number): SimError | null {
    if (!Number.isSafeInteger(amount) || amount <= 0) return simError(400, 'bad_request', 'amount must be a positive integer of centicents', 'amount');
    for (const [name, place] of [['source', source], ['destination', destination]] as const) {
      if (place.instance === 'margined') {
        // All margin markets are on exchange_index 0; subaccounts only for event contract transfers (OpenAPI).
        if (place.shard !== 0) return simError(400, 'bad_request', `${name}_exchange_shard must be 0 for the margined instance`, `${name}_exchange_shard`);
        if (place.subaccount !== 0) return simError(400, 'bad_request', `${name}_subaccount is only supported for event contract to event contract transfers`, `${name}_subaccount`);
      } else if (!(EXCHANGE_INDEXES as readonly number[]).includes(place.shard)) {
        return simError(400, 'bad_request', `${name}_exchange_shard ${place.shard} is not an event contract shard (${EXCHANGE_INDEXES.join(', ')})`, `${name}_exchange_shard`);
      }
      if (!Number.isInteger(place.subaccount) || place.subaccount < 0 || place.subaccount > SUBACCOUNT_NUMBER_MAX) {
        return simError(400, 'bad_request', `${name}_subaccount must be 0-${SUBACCOUNT_NUMBER_MAX}`, `${name}_subaccount`);
      }
    }
    if (source.instance === destination.instance && source.shard === destination.shard) {
      return simError(400, 'bad_request', 'source and destination are the same exchange instance and shard; use /portfolio/subaccounts/transfer', 'destination');
    }
    return null;
  }

  /**
   * Runs the three steps. Returns the record (status complete) or the failure; on a failure the
   * record is kept as `pending` when some step was done, and dropped when none was (nothing moved).
   */
  transferIntra(userId: string, source: Place, destination: Place, amount: number): IntraTransferRecord | StepFailure | SimError {
    const invalid = this.validateIntra(source, destination, amount);
    if (invalid !== null) return invalid;
    const record: IntraTransferRecord = { transferId: this.#id('iet'), userId, source, destination, amount, status: 'pending', stepsDone: [], createdMs: this.#now() };
    const primarySource: Place = { ...source, subaccount: 0 };
    const primaryDestination: Place = { ...destination, subaccount: 0 };
    const steps: Array<[number, () => SimError | null]> = [];
    if (source.subaccount !== 0) steps.push([1, () => this.#move(userId, source, primarySource, amount)]);
    steps.push([2, () => this.#move(userId, primarySource, primaryDestination, amount)]);
    if (destination.subaccount !== 0) steps.push([3, () => this.#move(userId, primaryDestination, destination, amount)]);
    for (const [step, run] of steps) {
      const error = run();
      if (error !== null) {
        if (record.stepsDone.length > 0) this.#keep(userId, record);
        return { transfer: record, failedStep: step, error };
      }
      record.stepsDone.push(step);
    }
    record.status = 'complete';
    this.#keep(userId, record);
    return record;
  }

  #keep(userId: string, record: IntraTransferRecord): void {
    const list = this.#book(userId).intra;
    list.push(record);
    if (list.length > TRANSFER_RECORDS_PER_USER_MAX) list.shift();
  }

  /** One step: takes `amount` from `from` (only what is free) and adds it to `to`. */
  #move(userId: string, from: Place, to: Place, amount: number): SimError | null {
    if (from.instance === 'event_contract' && to.instance === 'event_contract') {
      if (from.shard === to.shard) return this.#engine.transfer(userId, from.subaccount, to.subaccount, from.shard, asCenticents(amount));
      for (const shard of [from.shard, to.shard]) {
        const status = this.#engine.exchangeStatus().exchangeIndexStatuses.find((s) => s.exchangeIndex === shard);
        if (status !== undefined && !status.intraExchangeTransfersActive) {
          return simError(503, 'intra_exchange_transfers_inactive', `intra-exchange transfers are not active on exchange index ${shard}`);
        }
      }
    }
    const taken = this.#take(userId, from, amount);
    if (taken !== null) return taken;
    const given = this.#give(userId, to, amount);
    if (given !== null) {
      // The destination refused after the source paid: return the money so no cash is lost.
      this.#give(userId, from, amount);
      return given;
    }
    return null;
  }

  #take(userId: string, from: Place, amount: number): SimError | null {
    if (from.instance === 'event_contract') return this.#engine.deposit(userId, from.subaccount, from.shard, asCenticents(-amount));
    const account = this.#margin.account(userId, from.subaccount);
    if (account === null) return simError(400, 'insufficient_balance', 'insufficient balance');
    let unrealized = 0;
    for (const position of account.positions.values()) unrealized += this.#margin.unrealizedOf(position);
    const free = account.cash + unrealized - this.#margin.initialOf(account) - this.#margin.restingOrdersMarginOf(account);
    if (free < amount || account.cash < amount) return simError(400, 'insufficient_balance', 'insufficient balance');
    account.cash -= amount;
    return null;
  }

  #give(userId: string, to: Place, amount: number): SimError | null {
    if (to.instance === 'event_contract') return this.#engine.deposit(userId, to.subaccount, to.shard, asCenticents(amount));
    const account = this.#margin.account(userId, to.subaccount);
    if (account === null) return simError(400, 'bad_request', 'no margin account');
    account.cash += amount;
    return null;
  }

  intraTransfers(userId: string): readonly IntraTransferRecord[] {
    return this.#users.get(userId)?.intra ?? [];
  }

  intraTransfer(userId: string, transferId: string): IntraTransferRecord | undefined {
    return this.#users.get(userId)?.intra.find((record) => record.transferId === transferId);
  }

  // ---- subaccounts ------------------------------------------------------------------------

  /** The next unused subaccount number (1-63); 409 when all are taken. */
  createSubaccount(userId: string): number | SimError {
    const created = this.#book(userId).created;
    for (let number = 1; number <= SUBACCOUNT_NUMBER_MAX; number++) {
      if (created.has(number)) continue;
      created.add(number);
      return number;
    }
    return simError(409, 'subaccount_limit_reached', `all ${SUBACCOUNT_NUMBER_MAX} subaccounts are already created`);
  }

  /**
   * A subaccount transfer on one shard, idempotent on `clientTransferId`: a replay with the same
   * fields returns the first record without moving money again; with other fields it is a 409.
   */
  transferSubaccounts(userId: string, clientTransferId: string, from: number, to: number, exchangeIndex: number, amountCents: number): SubaccountTransferRecord | SimError {
    const book = this.#book(userId);
    const previous = book.byClientTransferId.get(clientTransferId);
    if (previous !== undefined) {
      const same = previous.fromSubaccount === from && previous.toSubaccount === to && previous.exchangeIndex === exchangeIndex && previous.amountCents === amountCents;
      return same ? previous : simError(409, 'idempotency_key_already_used', 'client_transfer_id was used for a different transfer');
    }
    if (from === to) return simError(400, 'bad_request', 'from_subaccount and to_subaccount must differ', 'to_subaccount');
    if (!Number.isSafeInteger(amountCents) || amountCents <= 0 || !Number.isSafeInteger(amountCents * 100)) {
      return simError(400, 'bad_request', 'amount_cents must be a positive integer', 'amount_cents');
    }
    const error = this.#engine.transfer(userId, from, to, exchangeIndex, asCenticents(amountCents * 100));
    if (error !== null) return error;
    const record: SubaccountTransferRecord = { transferId: this.#id('sat'), clientTransferId, userId, fromSubaccount: from, toSubaccount: to, exchangeIndex, amountCents, createdMs: this.#now() };
    book.subaccountTransfers.push(record);
    book.byClientTransferId.set(clientTransferId, record);
    if (book.subaccountTransfers.length > TRANSFER_RECORDS_PER_USER_MAX) {
      const dropped = book.subaccountTransfers.shift()!;
      book.byClientTransferId.delete(dropped.clientTransferId);
    }
    return record;
  }

  subaccountTransfers(userId: string): readonly SubaccountTransferRecord[] {
    return this.#users.get(userId)?.subaccountTransfers ?? [];
  }

  // ---- target balance allocation ----------------------------------------------------------

  /** Validates and stores the allocation: known shards, each once, percents summing to 100. */
  setAllocation(userId: string, allocation: TargetAllocation): SimError | null {
    const seen = new Set<number>();
    let sum = 0;
    for (const entry of allocation.allocations) {
      if (!(EXCHANGE_INDEXES as readonly number[]).includes(entry.exchangeIndex)) {
        return simError(400, 'bad_request', `exchange_index ${entry.exchangeIndex} is not an event contract shard (${EXCHANGE_INDEXES.join(', ')})`, 'allocations');
      }
      if (seen.has(entry.exchangeIndex)) return simError(400, 'bad_request', `exchange_index ${entry.exchangeIndex} appears twice`, 'allocations');
      seen.add(entry.exchangeIndex);
      sum += entry.percent;
    }
    if (sum !== 100) return simError(400, 'bad_request', `allocation percents must sum to 100, got ${sum}`, 'allocations');
    this.#book(userId).allocation = allocation;
    return null;
  }

  allocation(userId: string): TargetAllocation {
    return this.#users.get(userId)?.allocation ?? DEFAULT_ALLOCATION;
  }
}



/**
 * The account client: every venue call that is not an order mutation on the hot path, over its own
 * undici pool, signed off the event loop (SignedRestClient). Reconciliation reads (orders, fills,
 * positions: the OMS's OrderReads), one order by id, order groups and the balance. Every read goes
 * through `reads` (BudgetedRestClient: paced by the account's read budget, 429s retried), which the
 * runtime also uses for its own cold reads (markets, events, candles, limits). Owns the paths
 * and the parsing into core units; never touches an order the OMS tracks.
 */

import { CENTICENTS_INVALID, asCenticents, assert, parseDollars, type Centicents, type Count } from '../../core/index.ts';
import { ExecError, type FillsQuery, type OrderReads, type OrdersQuery, type PositionsQuery, type WireFill, type WireOrder, type WirePosition } from '../../oms/index.ts';
import { encodeOrderGroupCreate, encodeOrderGroupLimit } from './order-body.ts';
import { BudgetedRestClient, READ_RETRY_DEFAULTS, type ReadRetryOptions } from './budgeted-rest-client.ts';
import { ReadPacer } from './read-pacer.ts';
import { signedClientFor, type SignedRestClient, type VenueClientOptions } from './signed-rest-client.ts';
import { parseWireFill, parseWireOrder, parseWirePosition } from './wire-parse.ts';


export interface AccountClientOptions extends VenueClientOptions {
  readPageLimit: number; // `limit` of list reads
  readPagesMax: number; // bound on cursor paging per list call
  warmPath: string; // signed GET that opens the sockets at connect (relative to the prefix)
  /** The read budget until the account's limits are read (BudgetedRestClient.pacer.setBudget): tokens per second and capacity. */
  readBudget: { refillPerSecond: number; capacity: number };
  readRetry: ReadRetryOptions;
}

/** Defaults, each with its unit; callers pass what they mean and spread these for the rest. */
export const ACCOUNT_CLIENT_DEFAULTS: Readonly<Omit<AccountClientOptions, 'baseUrl' | 'keyId' | 'privateKey' | 'clock' | 'presigner'>> = Object.freeze({
  connections: 1,
  connectTimeoutMs: 2_000,
  headersTimeoutMs: 5_000,
  bodyTimeoutMs: 5_000,
  keepAliveTimeoutMs: 60_000,
  readPageLimit: 200,
  readPagesMax: 1_000,
  warmPath: '/portfolio/balance',
  tls: null,
  // Basic (rest.md §9), the smallest tier: a guess above the account's budget would earn 429s.
  readBudget: Object.freeze({ refillPerSecond: 200, capacity: 200 }),
  readRetry: READ_RETRY_DEFAULTS,
});

/** GET /portfolio/balance in core units (rest.md §6). */
export interface AccountBalance {
  /** Available balance in centicents (balance_dollars; `balance` cents when absent). */
  balance: Centicents;
  /** Portfolio value, cents. */
  portfolioValueCents: number;
  updatedTs: number;
}

export class AccountClient implements OrderReads {
  readonly #options: AccountClientOptions;
  readonly #prefix: string;
  readonly #client: SignedRestClient;
  /** Every read off the hot path: paced by the read budget, 429s retried. */
  readonly reads: BudgetedRestClient;

  constructor(options: AccountClientOptions) {
    this.#options = options;
    const { client, prefix } = signedClientFor(options);
    this.#client = client;
    this.#prefix = prefix;
    const pacer = new ReadPacer(options.readBudget.refillPerSecond, options.readBudget.capacity, options.clock);
    this.reads = new BudgetedRestClient({ transport: client, pacer, clock: options.clock, retry: options.readRetry });
  }

  /** The API prefix every path starts with (e.g. /trade-api/v2). */
  get prefix(): string {
    return this.#prefix;
  }

  /** Opens (and checks) the pool's sockets with a signed GET each; rejects with ExecError. */
  async connect(): Promise<void> {
    const path = `${this.#prefix}${this.#options.warmPath}`;
    // The warm GETs go out together (one per socket), so they are paid up front.
    const granted = await this.reads.pacer.take(this.reads.costOf(path) * this.#options.connections);
    try {
      await this.#client.warm(path, this.#options.connections);
    } finally {
      this.reads.pacer.settled(granted);
    }
  }

  async close(): Promise<void> {
    this.reads.close();
    await this.#client.close();
  }

  // ---- reconciliation reads (OrderReads) --------------------------------------------------------

  async listOrders(query: OrdersQuery): Promise<WireOrder[]> {
    const params = new URLSearchParams();
    if (query.ticker !== undefined) params.set('ticker', query.ticker);
    if (query.status !== undefined) params.set('status', query.status);
    if (query.subaccount !== undefined) params.set('subaccount', String(query.subaccount));
    if (query.minTs !== undefined) params.set('min_ts', String(query.minTs));
    return (await this.#pages('/portfolio/orders', params, 'orders')).map(parseWireOrder);
  }

  async listFills(query: FillsQuery): Promise<WireFill[]> {
    const params = new URLSearchParams();
    if (query.ticker !== undefined) params.set('ticker', query.ticker);
    if (query.orderId !== undefined) params.set('order_id', query.orderId);
    if (query.subaccount !== undefined) params.set('subaccount', String(query.subaccount));
    if (query.minTs !== undefined) params.set('min_ts', String(query.minTs));
    return (await this.#pages('/portfolio/fills', params, 'fills')).map(parseWireFill);
  }

  async listPositions(query: PositionsQuery): Promise<WirePosition[]> {
    const params = new URLSearchParams();
    if (query.ticker !== undefined) params.set('ticker', query.ticker);
    if (query.subaccount !== undefined) params.set('subaccount', String(query.subaccount));
    const subaccount = query.subaccount ?? 0;
    return (await this.#pages('/portfolio/positions', params, 'market_positions')).map((item) => parseWirePosition(item, subaccount));
  }

  /** GET /portfolio/orders/{id}; null when the exchange answers 404. */
  async getOrder(orderId: string, subaccount: number | null = null): Promise<WireOrder | null> {
    const path = `${this.#prefix}/portfolio/orders/${encodeURIComponent(orderId)}`;
    try {
      const body = await this.reads.get(subaccount === null ? path : `${path}?subaccount=${subaccount}`);
      const order = body?.['order'];
      if (typeof order !== 'object' || order === null || Array.isArray(order)) throw new ExecError('EXEC_BAD_RESPONSE', 'bad response: order missing');
      return parseWireOrder(order as Record<string, unknown>);
    } catch (error) {
      if (error instanceof ExecError && error.status === 404) return null;
      throw error;
    }
  }

  /** GET /portfolio/balance for one subaccount. */
  async getBalance(subaccount = 0): Promise<AccountBalance> {
    checkSubaccount(subaccount);
    const body = await this.reads.get(subaccountQuery(`${this.#prefix}/portfolio/balance`, subaccount));
    if (body === null) throw new ExecError('EXEC_BAD_RESPONSE', 'bad response: balance returned no body');
    const dollars = body['balance_dollars'];
    const cents = body['balance'];
    let balance: Centicents;
    if (typeof dollars === 'string') balance = parseDollars(dollars);
    else if (typeof cents === 'number' && Number.isSafeInteger(cents)) balance = asCenticents(cents * 100);
    else throw new ExecError('EXEC_BAD_RESPONSE', 'bad response: balance missing');
    if (balance === CENTICENTS_INVALID) throw new ExecError('EXEC_BAD_RESPONSE', `bad response: balance_dollars ${String(dollars)}`);
    const value = body['portfolio_value'];
    const updated = body['updated_ts'];
    return {
      balance,
      portfolioValueCents: typeof value === 'number' && Number.isSafeInteger(value) ? value : 0,
      updatedTs: typeof updated === 'number' && Number.isSafeInteger(updated) ? updated : 0,
    };
  }

  // ---- order groups ---------------------------------------------------------------------------

  /** POST /portfolio/order_groups/create; resolves with the new order_group_id. */
  async createOrderGroup(contractsLimit: Count, subaccount: number): Promise<string> {
    const body = await this.#client.call('POST', `${this.#prefix}/portfolio/order_groups/create`, encodeOrderGroupCreate(contractsLimit, subaccount));
    const id = body?.['order_group_id'];
    if (typeof id !== 'string' || id === '') throw new ExecError('EXEC_BAD_RESPONSE', 'bad response: order_group_id missing');
    return id;
  }

  /** PUT .../reset: the group's matched-contract counter back to 0, new orders allowed again. */
  async resetOrderGroup(orderGroupId: string, subaccount: number): Promise<void> {
    await this.#client.call('PUT', this.#orderGroupPath(orderGroupId, '/reset', subaccount), '{}');
  }

  /** PUT .../trigger: cancels the group's orders and blocks new ones until reset. */
  async triggerOrderGroup(orderGroupId: string, subaccount: number): Promise<void> {
    await this.#client.call('PUT', this.#orderGroupPath(orderGroupId, '/trigger', subaccount), '{}');
  }

  /** DELETE the group; its orders are cancelled. */
  async deleteOrderGroup(orderGroupId: string, subaccount: number): Promise<void> {
    await this.#client.call('DELETE', this.#orderGroupPath(orderGroupId, '', subaccount), null);
  }

  /** PUT .../limit: a limit already breached triggers the group at once. */
  async setOrderGroupLimit(orderGroupId: string, contractsLimit: Count, subaccount: number): Promise<void> {
    await this.#client.call('PUT', this.#orderGroupPath(orderGroupId, '/limit', subaccount), encodeOrderGroupLimit(contractsLimit));
  }

  #orderGroupPath(orderGroupId: string, suffix: string, subaccount: number): string {
    checkSubaccount(subaccount);
    return subaccountQuery(`${this.#prefix}/portfolio/order_groups/${encodeURIComponent(orderGroupId)}${suffix}`, subaccount);
  }

  #pages(relativePath: string, params: URLSearchParams, listName: string): Promise<Record<string, unknown>[]> {
    return this.reads.pages(`${this.#prefix}${relativePath}`, params, listName, this.#options.readPageLimit, this.#options.readPagesMax);
  }
}

function checkSubaccount(subaccount: number): void {
  assert(Number.isInteger(subaccount) && subaccount >= 0 && subaccount <= 63, 'AccountClient: subaccount must be in 0..63');
}

function subaccountQuery(path: string, subaccount: number): string {
  return subaccount === 0 ? path : `${path}?subaccount=${subaccount}`;
}

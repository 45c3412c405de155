/**
 * The dashboard's fleet page: every runtime of the fleet (alive or not) as compact rows, read from
 * the status snapshots the runtimes publish in Redis (src/fleet/fleet-status.ts) on the view's own
 * timer, and only while a dashboard client is watching. One read in flight at most, each bounded
 * by `readTimeoutMs`; at most FLEET_ROWS_MAX rows (alive runtimes first), every text clipped. A
 * failed read keeps the last rows, marks the fleet unreachable and is reported once per outage;
 * nothing here throws into the caller. The snapshots are another process's JSON: every field is
 * checked, and a field that is missing or of the wrong type reads as null ("not reported").
 * It reads and shows; it never touches the fleet (the kill switch goes through the runtime).
 */

import type { FleetRuntimeView } from '../fleet/index.ts';

/** A page of rows a browser renders at once; beyond it the rest are counted, not sent (~150 KB of JSON at most). */
export const FLEET_ROWS_MAX = 256;
/** Strategies listed per runtime (the rest counted in `strategiesTotal`). */
export const FLEET_STRATEGIES_MAX = 16;
/** The largest |PnL| positions shown per runtime (its status lists them largest first). */
export const FLEET_TOP_POSITIONS = 3;
/** Characters kept of any text from a snapshot (names, ids, reasons). */
export const FLEET_TEXT_MAX = 120;
export const FLEET_READ_INTERVAL_MS = 1_000;

export interface FleetPositionRow {
  ticker: string;
  subaccount: number;
  /** Signed, 1/100 contract. */
  position: number;
  /** Micro-dollars (1e-6 $), rounded. */
  pnlMicro: number;
}

export interface FleetKillState {
  engaged: boolean;
  /** Who engaged (or, for the account-wide record, released) it. */
  by: string;
  reason: string;
  /** When, ms since the epoch (0: not reported). */
  sinceMs: number;
}

/** One runtime. A null field: its snapshot did not report it (or reported nonsense). */
export interface FleetRow {
  name: string;
  /** Its status key is live in Redis (it published within its TTL). */
  alive: boolean;
  /** Its last status came from a clean stop. */
  stopped: boolean;
  /** The snapshot was not a JSON object: only the name and `alive` are known. */
  malformed: boolean;
  /** This dashboard's own runtime. */
  self: boolean;
  strategies: { id: string; status: string }[];
  strategiesTotal: number;
  openOrders: number | null;
  positionsTotal: number | null;
  topPositions: FleetPositionRow[];
  /** Micro-dollars (1e-6 $), rounded. */
  pnlMicro: number | null;
  /** Its leased share of the account's budgets, parts per million (0 while not leased). */
  sharePpm: number | null;
  leased: boolean | null;
  /** Its own kill switch (null when it reported none engaged). */
  kill: FleetKillState | null;
  redisConnected: boolean | null;
  /** How long ago it published this snapshot, ms (clocks of other machines may differ a little). */
  publishedAgeMs: number | null;
}

export interface FleetState {
  /** The last read reached Redis. */
  reachable: boolean;
  /** Why the last read failed; '' after a good one. */
  error: string;
  /** When the rows were read, ms since the epoch; 0 before the first good read. */
  readAtMs: number;
  /** Failed reads since the view started. */
  failures: number;
  runtimesTotal: number;
  runtimesAlive: number;
  /** Runtimes beyond FLEET_ROWS_MAX, not in `rows`. */
  rowsOmitted: number;
  /** The newest account-wide kill switch change any runtime reported hearing, or null. */
  accountKill: FleetKillState | null;
  rows: FleetRow[];
}

export interface FleetViewOptions {
  /** The fleet's status (fleet-status.ts readFleetStatus on a reading connection). */
  read: () => Promise<FleetRuntimeView[]>;
  intervalMs?: number;
  /** A read not settled by then counts as failed (its late answer is ignored). */
  readTimeoutMs?: number;
  /** This runtime's name in the fleet, to mark its row; null: none marked. */
  runtimeName?: string | null;
  nowMs?: () => number;
  /** Told of the first failure of each outage and of the recovery (never throws). */
  onError?: (error: unknown, what: string) => void;
  onEvent?: (message: string) => void;
  /** Releases what `read` holds (its Redis connection); called once by stop(). */
  onStop?: () => void;
}

export class FleetView {
  readonly #options: FleetViewOptions;
  readonly #intervalMs: number;
  readonly #readTimeoutMs: number;
  readonly #nowMs: () => number;
  readonly #listeners: ((state: FleetState) => void)[] = [];
  #state: FleetState | null = null;
  #timer: NodeJS.Timeout | null = null;
  /** Bumped per read: an answer from an older read (timed out meanwhile) is dropped. */
  #readId = 0;
  #reading = false;
  #failing = false;
  #stopped = false;
  readonly stats = { reads: 0, failures: 0, timeouts: 0, skipped: 0 };

  constructor(options: FleetViewOptions) {
    this.#options = options;
    this.#intervalMs = options.intervalMs ?? FLEET_READ_INTERVAL_MS;
    this.#readTimeoutMs = options.readTimeoutMs ?? 5 * this.#intervalMs;
    this.#nowMs = options.nowMs ?? Date.now;
  }

  get intervalMs(): number {
    return this.#intervalMs;
  }

  /** The latest state, or null before the first read settled. */
  get state(): FleetState | null {
    return this.#state;
  }

  /** Called after every read settles, good or failed (the server pushes it). */
  onUpdate(listener: (state: FleetState) => void): void {
    this.#listeners.push(listener);
  }

  /** Reads on the timer while someone watches (a dashboard client is connected); idle otherwise. */
  setWatched(watched: boolean): void {
    if (this.#stopped || watched === (this.#timer !== null)) return;
    if (!watched) {
      clearInterval(this.#timer!);
      this.#timer = null;
      return;
    }
    this.#timer = setInterval(() => this.#tick(), this.#intervalMs);
    this.#timer.unref();
    this.#tick();
  }

  /** Stops reading for good and releases the reader (onStop). */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#readId++;
    try {
      this.#options.onStop?.();
    } catch (error) {
      this.#options.onError?.(error, 'fleet view: releasing the reader');
    }
  }

  #tick(): void {
    if (this.#reading) {
      this.stats.skipped++;
      return;
    }
    this.#reading = true;
    this.stats.reads++;
    const id = ++this.#readId;
    const timer = setTimeout(() => this.#settle(id, false, new Error(`fleet status read timed out after ${this.#readTimeoutMs} ms`)), this.#readTimeoutMs);
    timer.unref();
    let reading: Promise<FleetRuntimeView[]>;
    try {
      reading = this.#options.read();
    } catch (error) {
      reading = Promise.reject(error);
    }
    Promise.resolve(reading)
      .then((views) => this.#settle(id, true, views), (error: unknown) => this.#settle(id, false, error))
      .catch((error: unknown) => this.#options.onError?.(error, 'fleet view: applying a read'))
      .finally(() => clearTimeout(timer));
  }

  /** The first of (answer, failure, timeout) of read `id` wins; `value` is the list or the error. */
  #settle(id: number, ok: boolean, value: unknown): void {
    if (id !== this.#readId || this.#stopped) return;
    this.#readId++;
    this.#reading = false;
    if (ok && Array.isArray(value)) this.#onRead(value as FleetRuntimeView[]);
    else this.#onFailure(ok ? new Error('fleet status reader returned no list') : value);
    const state = this.#state!;
    for (const listener of this.#listeners) {
      try {
        listener(state);
      } catch (error) {
        this.#options.onError?.(error, 'fleet view: pushing the fleet');
      }
    }
  }

  #onRead(views: readonly FleetRuntimeView[]): void {
    const nowMs = this.#nowMs();
    if (this.#failing) this.#options.onEvent?.(`fleet view: the fleet's status is readable again after ${this.stats.failures} failed reads`);
    this.#failing = false;
    this.#state = fleetState(views, this.#options.runtimeName ?? null, nowMs, this.stats.failures);
  }

  #onFailure(error: unknown): void {
    this.stats.failures++;
    if (error instanceof Error && error.message.startsWith('fleet status read timed out')) this.stats.timeouts++;
    // One report per outage: the page shows the rest (failures, the last error).
    if (!this.#failing) this.#options.onError?.(error, 'fleet view: reading the fleet status failed (the page shows the fleet unreachable until a read succeeds)');
    this.#failing = true;
    const previous = this.#state;
    const message = clip(redactUrl(error instanceof Error ? error.message : String(error)));
    this.#state = previous === null
      ? { reachable: false, error: message, readAtMs: 0, failures: this.stats.failures, runtimesTotal: 0, runtimesAlive: 0, rowsOmitted: 0, accountKill: null, rows: [] }
      : { ...previous, reachable: false, error: message, failures: this.stats.failures };
  }
}

/** The rows of one read: alive runtimes first, then by name; at most FLEET_ROWS_MAX. */
export function fleetState(views: readonly FleetRuntimeView[], selfName: string | null, nowMs: number, failures: number): FleetState {
  const ordered = views.filter(isView).sort((a, b) => (a.alive === b.alive ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.alive ? -1 : 1));
  let runtimesAlive = 0;
  let accountKill: FleetKillState | null = null;
  for (const view of ordered) {
    if (view.alive) runtimesAlive++;
    const heard = accountKillOf(view.snapshot);
    if (heard !== null && (accountKill === null || heard.sinceMs > accountKill.sinceMs)) accountKill = heard;
  }
  const shown = ordered.slice(0, FLEET_ROWS_MAX);
  return {
    reachable: true, error: '', readAtMs: nowMs, failures, runtimesTotal: ordered.length, runtimesAlive,
    rowsOmitted: ordered.length - shown.length, accountKill, rows: shown.map((view) => fleetRow(view, selfName, nowMs)),
  };
}

/** One runtime's row from its snapshot ({...RuntimeStatus, fleet: FleetStatus, publishedMs}, runtime.ts / fleet-port.ts). */
export function fleetRow(view: FleetRuntimeView, selfName: string | null, nowMs: number): FleetRow {
  const s = isObject(view.snapshot) ? view.snapshot : null;
  const fleet = s !== null && isObject(s.fleet) ? s.fleet : null;
  const strategies = s !== null && Array.isArray(s.strategies) ? s.strategies : [];
  const positions = s !== null && Array.isArray(s.positions) ? s.positions : null;
  const publishedMs = s === null ? null : integer(s.publishedMs);
  return {
    name: clip(view.name),
    alive: view.alive === true,
    stopped: s !== null && s.stopped === true,
    malformed: s === null,
    self: selfName !== null && view.name === selfName,
    strategies: strategies.slice(0, FLEET_STRATEGIES_MAX).filter(isObject).map((x) => ({ id: text(x.id), status: text(x.status) })),
    strategiesTotal: strategies.length,
    openOrders: s === null ? null : integer(s.openOrders),
    positionsTotal: s === null ? null : integer(s.positionsTotal) ?? (positions === null ? null : positions.length),
    topPositions: positions === null ? [] : positions.slice(0, FLEET_TOP_POSITIONS).filter(isObject).map(positionRow),
    pnlMicro: s === null ? null : integer(s.pnlMicro),
    sharePpm: fleet === null ? null : integer(fleet.sharePpm),
    leased: fleet === null || typeof fleet.leased !== 'boolean' ? null : fleet.leased,
    kill: s === null ? null : localKillOf(s.killSwitch),
    redisConnected: fleet === null || typeof fleet.redisConnected !== 'boolean' ? null : fleet.redisConnected,
    publishedAgeMs: publishedMs === null ? null : Math.max(0, nowMs - publishedMs),
  };
}

function positionRow(x: Record<string, unknown>): FleetPositionRow {
  return { ticker: text(x.ticker), subaccount: integer(x.subaccount) ?? 0, position: integer(x.position) ?? 0, pnlMicro: integer(x.pnlMicro) ?? 0 };
}

/** RuntimeStatus.killSwitch: { reason, source, sinceMs } while engaged, null otherwise. */
function localKillOf(value: unknown): FleetKillState | null {
  if (!isObject(value)) return null;
  return { engaged: true, by: text(value.source), reason: text(value.reason), sinceMs: integer(value.sinceMs) ?? 0 };
}

/** FleetStatus.kill: the last account-wide record (kill-switch.ts FleetKillRecord) the runtime heard. */
function accountKillOf(snapshot: unknown): FleetKillState | null {
  if (!isObject(snapshot) || !isObject(snapshot.fleet)) return null;
  const record = snapshot.fleet.kill;
  if (!isObject(record) || typeof record.engaged !== 'boolean') return null;
  return { engaged: record.engaged, by: text(record.by), reason: text(record.reason), sinceMs: integer(record.tsMs) ?? 0 };
}

function isView(value: unknown): value is FleetRuntimeView {
  return isObject(value) && typeof value.name === 'string';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A finite number as an integer (fixed units; a marked PnL may carry half a unit), else null. */
function integer(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? Math.round(value) : null;
}

function text(value: unknown): string {
  return typeof value === 'string' ? clip(value) : '';
}

function clip(value: string): string {
  return value.length > FLEET_TEXT_MAX ? `${value.slice(0, FLEET_TEXT_MAX - 1)}…` : value;
}

/** A Redis URL's password never reaches the page. */
function redactUrl(message: string): string {
  return message.replace(/\/\/[^@\s/]*@/g, '//***@');
}

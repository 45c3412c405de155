// Runtime configuration: reads a JSON file, validates it against config/schema.json (ajv, compiled
// once, every violation at once), fills the schema's defaults (the only place defaults live),
// converts fixed-point strings to integer units, resolves credentials from the environment and
// returns one deep-frozen object that wiring passes down. It rejects secrets written into the
// file: the file names environment variables, the environment holds the secrets. It never reads
// configuration from globals after loading and never decides business logic.

import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Ajv2020Module, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { SchemaValidateFunction } from 'ajv/dist/types/index.js';
import addFormatsModule from 'ajv-formats';
import {
  CENTICENTS_INVALID, COUNT_INVALID, InvariantError, parseCount, parseDollars, type Centicents, type Count,
} from '../core/index.ts';
import { Secret } from '../telemetry/index.ts';
import { ConfigError, type ConfigIssue, type ConfigIssueCode } from './config-error.ts';

export { ConfigError, CONFIG_ISSUE_CODES } from './config-error.ts';
export type { ConfigErrorCode, ConfigIssue, ConfigIssueCode } from './config-error.ts';

// ---------------------------------------------------------------------------------------------
// The loaded shape. It mirrors config/schema.json; fixed-point strings arrive as integer units.

export type VenueMode = 'embedded' | 'remote';
export type TradingState = 'active' | 'reducing' | 'halted';
/** "auto": the tier the exchange reports at start (GET /account/limits); a named tier overrides it. */
export type RateLimitTier = 'auto' | 'basic' | 'advanced' | 'premier' | 'paragon' | 'prime';
export type ConfigLogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface VenueConfig {
  mode: VenueMode;
  restUrl: string | null;
  wsUrl: string | null;
  keyIdEnv: string;
  privateKeyPathEnv: string;
  privateKeyPemEnv: string;
  /** Subaccount 0-63 the API key is locked to; -1 for a full-account key. */
  restrictedSubaccount: number;
  /** Remote venue only: a detached process that cancels every order if the runtime dies without a clean stop. */
  orderWatchdog: boolean;
  fix: FixVenueConfig;
}

/** The FIX order-entry route (strategies with route "fix"). */
export interface FixVenueConfig {
  host: string | null;
  port: number | null;
  sessionName: 'KalshiNR' | 'KalshiRT';
  tls: boolean;
  heartbeatIntervalS: number;
  cancelOrdersOnDisconnect: boolean;
  /** KalshiMD (feed.source "fix"): the market-data host and port; null in embedded mode. */
  marketDataHost: string | null;
  marketDataPort: number | null;
  /** KalshiRFQ port (rfq.route "fix"); the host is `host`. */
  rfqPort: number | null;
}

export interface SimConfig {
  seed: number;
  marketsFile: string | null;
  activityUpdatesPerSec: number;
  /** Synthetic Margin (perpetuals) book updates per second (the simulator's --margin-activity-rate); 0: none. */
  marginActivityUpdatesPerSec: number;
  /** Synthetic demo markets listed beside the catalog's (the simulator's --synthetic-markets). */
  syntheticMarkets: number;
  cpuPlacement: 'auto' | 'off';
  faultProfile: string | null;
  timestampWindowPastMs: number;
  timestampWindowFutureMs: number;
}

export interface RiskConfig {
  tradingState: TradingState;
  /** From "100.00": 1/100 contract. */
  maxOrderCount: Count;
  /** From "100.00" dollars: 1/10,000 dollar. */
  maxOrderNotionalDollars: Centicents;
  maxPositionPerMarket: Count;
  maxPositionPerSubaccount: Count;
  maxRestingExposureDollars: Centicents;
  rateLimitTier: RateLimitTier;
  cancelReserveFraction: number;
  /** Refill (ms of it) the rate mirrors keep unspent: requests reach the venue bunched. */
  arrivalSkewMs: number;
  /** From dollars: Centicents; 0: no limit. */
  maxWorstCaseLossPerSubaccountDollars: Centicents;
  maxWorstCaseLossPerEventDollars: Centicents;
  /** 0: the portfolio snapshot never goes stale. */
  portfolioSnapshotMaxAgeMs: number;
}

export interface RfqConfig {
  enabled: boolean;
  maxOpenQuotes: number;
  restRemainder: boolean;
  /** rest: POST /communications/quotes and the communications channel; fix: the KalshiRFQ session. */
  route: 'rest' | 'fix';
}

export interface StrategyConfig {
  id: string;
  plugin: string;
  subaccount: number;
  orderGroup: { contractsLimit: Count } | null;
  markets: string[];
  /** Validated later by the plugin's own schema. */
  params: Record<string, unknown>;
  /** The order-entry route of its orders. */
  route: 'rest' | 'fix';
  /** When the write bucket is empty: hold its creates and amends until it refills (true), or deny RATE_LIMITED (false). */
  holdIntents: boolean;
  /** Held intents it may send per turn of the router's rotation across strategies (1-100). */
  priority: number;
}

export interface TelemetryConfig {
  logLevel: ConfigLogLevel;
  pretty: 'auto' | boolean;
  statusIntervalMs: number;
  eventLoopStallSampleMs: number;
  /** Prometheus text-format metrics at http://host:port/metrics (src/runtime/runtime-metrics.ts). */
  metrics: MetricsConfig;
  /** The live dashboard page (src/dashboard). */
  dashboard: DashboardConfig;
}

export interface DashboardConfig {
  enabled: boolean;
  host: string;
  /** 0: a free port. */
  port: number;
  /** null: a random token per run. */
  token: string | null;
  pushIntervalMs: number;
}

/** Trading the Margin exchange (perpetuals) beside Predictions. */
export interface MarginConfig {
  enabled: boolean;
  /** null: the venue's wsUrl + "/margin". */
  wsUrl: string | null;
  maxLeverage: number;
  priceBandBps: number;
  accountRefreshMs: number;
}

/** Session recording for replay (docs/recording-format.md). */
export interface RecordConfig {
  enabled: boolean;
  /** Relative to the project root. */
  dir: string;
}

/** The fleet of runtimes on one account (src/fleet): budget leases, kill switch and status over Redis. */
export interface FleetConfig {
  /** redis://host:port; null: no fleet (this runtime alone spends the account's budget). */
  redisUrl: string | null;
  /** This runtime's name in the fleet; null: hostname-pid. */
  runtimeName: string | null;
  /** A lease's lifetime, ms (a dead runtime's share returns after it). */
  leaseTtlMs: number;
  /** Lease renewal and status period, ms. */
  renewMs: number;
}

export interface MetricsConfig {
  enabled: boolean;
  host: string;
  /** 0: a free port. */
  port: number;
}

export interface WorkersConfig {
  enabled: boolean;
  threads: number;
  maxQueue: number;
  candles: boolean;
  candleIntervalsMinutes: number[];
  candlesKept: number;
  candleMarketsMax: number;
  candleFlushMs: number;
  candleBatchRows: number;
  candleBackfill: boolean;
  portfolioRisk: boolean;
  portfolioDebounceMs: number;
  portfolioRefreshMs: number;
}

export interface ExecConfig {
  signing: 'presigned' | 'inline';
  /** Creates and cancels past the presigned signatures go out as V2 batches at the end of the turn (router). */
  batchUnsigned: boolean;
  presignPoolSize: number;
  presignWorkerNice: number;
  requestTimeoutMs: number;
  connections: number;
}

export interface ProcessConfig {
  eagerJitTierUp: boolean;
  /** Interval of the keep-warm dry run, ms; 0 = off. */
  keepWarmMs: number;
  /** The dry run also rehearses strategies whose plugin declares rehearse: true (keep-warm.ts, StrategyPlugin.rehearse). */
  keepWarmStrategies: boolean;
}

export interface FeedConfig {
  /** Order books and security status from the WebSocket or from FIX KalshiMD. */
  source: 'websocket' | 'fix';
  staleBookMs: number;
  reconnectBackoffMinMs: number;
  reconnectBackoffMaxMs: number;
  commandsPerSecond: number;
  /** Longest stretch, us, a feed session's messages hold the event loop per turn; 0: no limit. */
  turnBudgetUs: number;
}

/** Credentials resolved from the environment; never read from the file. */
export interface VenueCredentials {
  /** The API key id sent as KALSHI-ACCESS-KEY. */
  keyId: string;
  /** Parsed RSA private key, for signing (KeyObjects print as nothing and can be posted to workers). */
  privateKey: KeyObject;
  /** The PEM text, for workers that load the key themselves; prints as "[Redacted]". */
  privateKeyPem: Secret;
  /** Where the key came from, safe to log: "file <path>" or "environment <NAME>". */
  privateKeySource: string;
}

export interface RuntimeConfig {
  venue: VenueConfig;
  sim: SimConfig;
  risk: RiskConfig;
  strategies: StrategyConfig[];
  telemetry: TelemetryConfig;
  exec: ExecConfig;
  feed: FeedConfig;
  process: ProcessConfig;
  workers: WorkersConfig;
  rfq: RfqConfig;
  record: RecordConfig;
  margin: MarginConfig;
  fleet: FleetConfig;
  /** venue: null in embedded mode, where wiring registers an ephemeral key with the simulator. */
  credentials: { venue: VenueCredentials | null };
}

type Primitive = string | number | boolean | bigint | symbol | null | undefined;
export type DeepReadonly<T> = T extends Primitive | KeyObject | Secret
  ? T
  : T extends readonly (infer U)[]
    ? readonly DeepReadonly<U>[]
    : { readonly [K in keyof T]: DeepReadonly<T[K]> };

export type Env = Readonly<Record<string, string | undefined>>;

// ---------------------------------------------------------------------------------------------
// Renamed keys. A key found at `from` is reported with its replacement instead of as unknown.
// '*' matches one path segment (an array index) and is carried into `to`.

export interface RenamedKey {
  readonly from: string;
  readonly to: string;
  readonly note?: string;
}

/** Keys that were removed, with what to do instead: reported as REMOVED_KEY, not UNKNOWN_KEY. */
export const REMOVED_KEYS: Readonly<Record<string, string>> = {
  '/feed/transport': "the feed always reads with the runtime's own WebSocket client (undici's is a baseline in bench/ws-client); delete the key",
};

export const RENAMED_KEYS: readonly RenamedKey[] = [
  { from: '/venue/apiKeyIdEnv', to: '/venue/keyIdEnv' },
  { from: '/venue/apiKeyId', to: '/venue/keyIdEnv', note: 'the file names the environment variable that holds the key id' },
  { from: '/venue/privateKeyPath', to: '/venue/privateKeyPathEnv', note: 'the file names the environment variable that holds the path' },
  { from: '/venue/baseUrl', to: '/venue/restUrl' },
  { from: '/risk/maxOrderSize', to: '/risk/maxOrderCount' },
  { from: '/risk/maxOrderNotional', to: '/risk/maxOrderNotionalDollars', note: 'dollars as a string, e.g. "100.00"' },
  { from: '/risk/tier', to: '/risk/rateLimitTier' },
  { from: '/strategies/*/subaccountNumber', to: '/strategies/*/subaccount' },
  { from: '/strategies/*/tickers', to: '/strategies/*/markets' },
  { from: '/telemetry/level', to: '/telemetry/logLevel' },
];

// ---------------------------------------------------------------------------------------------
// Entry points.

/** Read, validate and freeze a config file. Throws ConfigError listing every problem. */
export function loadConfig(path: string, env: Env = process.env): DeepReadonly<RuntimeConfig> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError('CONFIG_UNREADABLE', path, [], `cannot read file (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return parseConfig(text, path, env);
}

/** Validate JSON text; `file` names it in messages. */
export function parseConfig(text: string, file: string, env: Env = process.env): DeepReadonly<RuntimeConfig> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // A private key pasted into a file that is also broken JSON must still be named as such.
    if (PEM_PRIVATE_KEY.test(text)) {
      throw new ConfigError('CONFIG_INVALID', file, [issue('SECRET_IN_CONFIG', '/', PEM_MESSAGE)]);
    }
    throw new ConfigError('CONFIG_NOT_JSON', file, [], `not valid JSON: ${describeJsonError(error as Error, text)}`);
  }
  return validateConfig(value, file, env);
}

/**
 * Validate an already-parsed value (e.g. from a test). The value is not modified: it is copied
 * before defaults are filled in. Returns the deep-frozen config.
 */
export function validateConfig(value: unknown, file = '<config>', env: Env = process.env): DeepReadonly<RuntimeConfig> {
  const issues: ConfigIssue[] = [];
  findSecrets(value, '', issues);
  // JSON round trip: a private copy for ajv to fill in, with no functions, prototypes or cycles.
  const data: unknown = value === undefined ? undefined : JSON.parse(JSON.stringify(value));
  const validate = compiledValidator();
  if (!validate(data)) issues.push(...issuesFromAjv(validate.errors ?? [], issues));
  if (isObject(data)) checkAcrossKeys(data, issues);
  let credentials: VenueCredentials | null = null;
  if (isObject(data) && isObject(data.venue)) credentials = resolveVenueCredentials(data.venue, env, issues);
  if (issues.length > 0) throw new ConfigError('CONFIG_INVALID', file, sortIssues(issues));
  // "$schema" is for editors only; the loaded shape is exactly RuntimeConfig.
  delete (data as Record<string, unknown>).$schema;
  const config = data as unknown as RuntimeConfig;
  config.credentials = { venue: credentials };
  return deepFreeze(config) as DeepReadonly<RuntimeConfig>;
}

/** The config every default makes (embedded venue, no strategies); the environment is not read. */
export function defaultConfig(): DeepReadonly<RuntimeConfig> {
  return validateConfig({}, '<defaults>', {});
}

/** The schema as loaded from config/schema.json (frozen), for documentation tests and tools. */
export function configSchema(): Readonly<Record<string, unknown>> {
  return schemaDocument();
}

// ---------------------------------------------------------------------------------------------
// Schema compilation: once per process, on first use.

const SCHEMA_URL = new URL('../../config/schema.json', import.meta.url);
let schemaCache: Record<string, unknown> | null = null;
let validatorCache: ValidateFunction | null = null;

function schemaDocument(): Record<string, unknown> {
  if (schemaCache === null) schemaCache = deepFreeze(JSON.parse(readFileSync(SCHEMA_URL, 'utf8')) as Record<string, unknown>);
  return schemaCache;
}

function compiledValidator(): ValidateFunction {
  if (validatorCache !== null) return validatorCache;
  const Ajv2020 = Ajv2020Module.default;
  const addFormats = addFormatsModule.default;
  const ajv = new Ajv2020({
    allErrors: true, // every violation at once
    useDefaults: true, // the schema's defaults are the only defaults
    verbose: true, // errors carry their schema and data, for messages that say what was expected
    strict: true,
    allowUnionTypes: true,
  });
  addFormats(ajv);
  // Annotation only: the phrase an error message uses for what a value must be.
  ajv.addKeyword({ keyword: 'expected', schemaType: 'string' });
  ajv.addKeyword({
    keyword: 'fixedPoint', type: 'string', modifying: true, errors: true, validate: convertFixedPoint,
    metaSchema: { enum: FIXED_POINT_KINDS }, // a typo in the schema fails at compile time
  });
  // ajv keeps its own copy; the frozen document stays intact for configSchema().
  validatorCache = ajv.compile(structuredClone(schemaDocument()));
  return validatorCache;
}

/**
 * The `fixedPoint` keyword: checks a string with core's scanners and replaces it in place by its
 * integer value, so the loaded config holds units (Count, Centicents), never text or floats.
 *   count: contracts, >= 0, "100.00" -> 10000     positiveCount: the same, > 0
 *   dollars: >= 0, "50.00" -> 500000 centicents
 * (A price kind would use core's parsePrice the same way; add it with the first price-valued key.)
 */
const FIXED_POINT_KINDS = ['count', 'positiveCount', 'dollars'];

const convertFixedPoint: SchemaValidateFunction = (kind: string, data: string, parentSchema, context) => {
  let value: number;
  switch (kind) {
    case 'count':
    case 'positiveCount':
      value = parseCount(data);
      if (value === COUNT_INVALID || (kind === 'positiveCount' && value === 0)) value = -1;
      break;
    case 'dollars':
      value = parseDollars(data);
      if (value === CENTICENTS_INVALID) value = -1;
      break;
    default:
      throw new InvariantError(`fixedPoint kind "${kind}" passed the keyword's metaSchema`);
  }
  if (value < 0) {
    // ajv does not attach parentSchema to a custom keyword's errors: take the phrase here.
    const expected = (parentSchema as { expected?: string } | undefined)?.expected ?? `a ${kind} fixed-point string`;
    convertFixedPoint.errors = [{ keyword: 'fixedPoint', message: `must be ${expected}`, params: { fixedPoint: kind } }];
    return false;
  }
  if (context !== undefined && context.parentData !== undefined) {
    (context.parentData as Record<string | number, unknown>)[context.parentDataProperty] = value;
  }
  return true;
};

// ---------------------------------------------------------------------------------------------
// Turning ajv errors into issues a person can act on.

interface SchemaNode {
  expected?: string;
  enum?: unknown[];
  properties?: Record<string, unknown>;
}

function issuesFromAjv(errors: readonly ErrorObject[], already: readonly ConfigIssue[]): ConfigIssue[] {
  // A oneOf/anyOf error summarises its branches. Matched by data path (schema paths restart at
  // each $ref): a branch's "wrong type" error at the union's own path is noise, and the summary
  // is noise when something more precise was reported inside the value.
  const isUnion = (e: ErrorObject): boolean => e.keyword === 'oneOf' || e.keyword === 'anyOf';
  const unionPaths = new Set(errors.filter(isUnion).map((e) => e.instancePath));
  const kept = errors.filter((e) => e.keyword !== 'if' && !(e.keyword === 'type' && unionPaths.has(e.instancePath)));
  const secretPaths = new Set(already.filter((i) => i.code === 'SECRET_IN_CONFIG').map((i) => i.path));
  const issues: ConfigIssue[] = [];
  for (const e of kept) {
    if (isUnion(e) && kept.some((other) => !isUnion(other) && isInside(other, e.instancePath))) continue;
    const next = issueFromAjv(e);
    // A secret pasted into the file is reported once, as a secret (not also as unknown or malformed).
    if (secretPaths.has(next.path)) continue;
    issues.push(next);
  }
  return issues;
}

/** True when the error is about something inside the value at `path` (a child, or a key of it). */
function isInside(e: ErrorObject, path: string): boolean {
  if (e.instancePath.startsWith(`${path}/`)) return true;
  return e.instancePath === path && (e.keyword === 'additionalProperties' || e.keyword === 'required');
}

function issueFromAjv(e: ErrorObject): ConfigIssue {
  const at = e.instancePath === '' ? '' : e.instancePath;
  const node = (e.parentSchema ?? {}) as SchemaNode;
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String((e.params as { additionalProperty: string }).additionalProperty);
      const path = `${at}/${escapePointer(key)}`;
      const renamed = renamedTarget(path);
      if (renamed !== null) {
        return issue('RENAMED_KEY', path, `renamed to ${renamed.to}${renamed.note === undefined ? '' : ` (${renamed.note})`}`);
      }
      if (Object.hasOwn(REMOVED_KEYS, path)) return issue('REMOVED_KEY', path, `removed: ${REMOVED_KEYS[path]}`);
      const allowed = Object.keys(node.properties ?? {});
      return issue('UNKNOWN_KEY', path, `unknown key; allowed keys here: ${allowed.join(', ')}`);
    }
    case 'required': {
      const key = String((e.params as { missingProperty: string }).missingProperty);
      return issue('MISSING_KEY', `${at}/${escapePointer(key)}`, 'required key is missing');
    }
    case 'enum':
      return issue('SCHEMA_VIOLATION', pathOrRoot(at), `must be one of ${(node.enum ?? []).map((v) => JSON.stringify(v)).join(', ')}${got(e)}`);
    case 'type':
    case 'pattern':
    case 'format':
    case 'oneOf':
    case 'anyOf':
      if (node.expected !== undefined) return issue('SCHEMA_VIOLATION', pathOrRoot(at), `must be ${node.expected}${got(e)}`);
      return issue('SCHEMA_VIOLATION', pathOrRoot(at), `${e.message ?? 'is invalid'}${got(e)}`);
    default:
      return issue('SCHEMA_VIOLATION', pathOrRoot(at), `${e.message ?? 'is invalid'}${got(e)}`);
  }
}

/** " (got ...)" describing the offending value, never echoing what could be a credential. */
function got(e: ErrorObject): string {
  // Keys ending in "Env" name secrets' variables: a wrong value there may be the secret itself.
  if (/Env$/.test(e.instancePath)) return '';
  return ` (got ${describeValue(e.data)})`;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : `an array of ${value.length} items`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') {
    if (value.length > 60) return `a string of ${value.length} characters`;
    return `string ${JSON.stringify(value)}`;
  }
  return `${typeof value} ${String(value)}`;
}

function renamedTarget(path: string): { to: string; note?: string } | null {
  const segments = path.split('/');
  for (const entry of RENAMED_KEYS) {
    const from = entry.from.split('/');
    if (from.length !== segments.length) continue;
    const wild: string[] = [];
    let match = true;
    for (let i = 0; i < from.length; i++) {
      if (from[i] === '*') wild.push(segments[i]!);
      else if (from[i] !== segments[i]) {
        match = false;
        break;
      }
    }
    if (!match) continue;
    let w = 0;
    const to = entry.to.split('/').map((s) => (s === '*' ? wild[w++]! : s)).join('/');
    return entry.note === undefined ? { to } : { to, note: entry.note };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Checks the schema cannot express.

function checkAcrossKeys(data: Record<string, unknown>, issues: ConfigIssue[]): void {
  const venue = data.venue;
  if (isObject(venue) && venue.mode === 'remote') {
    for (const key of ['restUrl', 'wsUrl']) {
      if (venue[key] === null) issues.push(issue('INCONSISTENT_VALUES', `/venue/${key}`, 'required when /venue/mode is "remote"'));
    }
  }
  const feed = data.feed;
  if (isObject(feed) && typeof feed.reconnectBackoffMinMs === 'number' && typeof feed.reconnectBackoffMaxMs === 'number'
    && feed.reconnectBackoffMinMs > feed.reconnectBackoffMaxMs) {
    issues.push(issue('INCONSISTENT_VALUES', '/feed/reconnectBackoffMinMs', `must be <= /feed/reconnectBackoffMaxMs (${feed.reconnectBackoffMaxMs})`));
  }
  const risk = data.risk;
  const workers = data.workers;
  if (isObject(risk) && isObject(workers) && workers.enabled === true && workers.portfolioRisk === true
    && typeof risk.portfolioSnapshotMaxAgeMs === 'number' && typeof workers.portfolioRefreshMs === 'number'
    && risk.portfolioSnapshotMaxAgeMs > 0 && risk.portfolioSnapshotMaxAgeMs <= workers.portfolioRefreshMs) {
    issues.push(issue('INCONSISTENT_VALUES', '/risk/portfolioSnapshotMaxAgeMs', `must be greater than /workers/portfolioRefreshMs (${workers.portfolioRefreshMs}), or every snapshot would be stale before the next one`));
  }
  const usesFix = Array.isArray(data.strategies) && data.strategies.some((strategy) => isObject(strategy) && strategy.route === 'fix');
  if (usesFix && isObject(venue) && venue.mode === 'remote' && isObject(venue.fix)) {
    for (const key of ['host', 'port']) {
      if (venue.fix[key] === null) issues.push(issue('INCONSISTENT_VALUES', `/venue/fix/${key}`, 'required when /venue/mode is "remote" and a strategy has route "fix"'));
    }
  }
  if (isObject(feed) && feed.source === 'fix' && isObject(venue) && venue.mode === 'remote' && isObject(venue.fix)) {
    for (const key of ['marketDataHost', 'marketDataPort']) {
      if (venue.fix[key] === null) issues.push(issue('INCONSISTENT_VALUES', `/venue/fix/${key}`, 'required when /venue/mode is "remote" and /feed/source is "fix"'));
    }
  }
  const rfq = data.rfq;
  if (isObject(rfq) && rfq.enabled === true && rfq.route === 'fix' && isObject(venue) && venue.mode === 'remote' && isObject(venue.fix)) {
    for (const key of ['host', 'rfqPort']) {
      if (venue.fix[key] === null || venue.fix[key] === undefined) issues.push(issue('INCONSISTENT_VALUES', `/venue/fix/${key}`, 'required when /venue/mode is "remote" and /rfq/route is "fix"'));
    }
  }
  if (Array.isArray(data.strategies)) {
    const firstIndexById = new Map<string, number>();
    data.strategies.forEach((strategy, index) => {
      if (!isObject(strategy) || typeof strategy.id !== 'string') return;
      const first = firstIndexById.get(strategy.id);
      if (first === undefined) firstIndexById.set(strategy.id, index);
      else issues.push(issue('DUPLICATE_VALUE', `/strategies/${index}/id`, `duplicates /strategies/${first}/id ("${strategy.id}"); ids must be unique`));
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Secrets: none in the file; credentials from the environment.

const PEM_PRIVATE_KEY = /-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY-----/;
const PEM_MESSAGE = 'contains a PEM private key; keep keys out of config files: set /venue/privateKeyPathEnv (or privateKeyPemEnv) to the name of an environment variable instead';
// Field names that only ever hold a secret (compared case-insensitively, anywhere in the file).
const SECRET_KEY_NAMES = new Set([
  'privatekey', 'privatekeypem', 'apikeysecret', 'apisecret', 'secret', 'password', 'passphrase',
  'token', 'accesstoken', 'refreshtoken', 'bearertoken', 'authorization',
]);

function findSecrets(value: unknown, path: string, issues: ConfigIssue[]): void {
  if (typeof value === 'string') {
    if (PEM_PRIVATE_KEY.test(value)) issues.push(issue('SECRET_IN_CONFIG', pathOrRoot(path), PEM_MESSAGE));
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => findSecrets(item, `${path}/${index}`, issues));
    return;
  }
  if (!isObject(value)) return;
  for (const [key, item] of Object.entries(value)) {
    const itemPath = `${path}/${escapePointer(key)}`;
    if (SECRET_KEY_NAMES.has(key.toLowerCase()) && typeof item === 'string' && item !== '' && !PEM_PRIVATE_KEY.test(item)) {
      issues.push(issue('SECRET_IN_CONFIG', itemPath, 'looks like a secret; config files name environment variables (e.g. /venue/keyIdEnv), the environment holds the value'));
      continue;
    }
    findSecrets(item, itemPath, issues);
  }
}

const ENV_NAME = /^[A-Z_][A-Z0-9_]{0,127}$/;

function resolveVenueCredentials(venue: Record<string, unknown>, env: Env, issues: ConfigIssue[]): VenueCredentials | null {
  // Embedded mode never reads the environment, so production credentials cannot reach the simulator.
  if (venue.mode !== 'remote') return null;
  const keyIdEnv = venue.keyIdEnv;
  const pathEnv = venue.privateKeyPathEnv;
  const pemEnv = venue.privateKeyPemEnv;
  if (!isEnvName(keyIdEnv) || !isEnvName(pathEnv) || !isEnvName(pemEnv)) return null; // reported by the schema
  const required = 'required when /venue/mode is "remote"';
  const before = issues.length;
  const keyId = nonEmpty(env[keyIdEnv]);
  if (keyId === null) issues.push(issue('SECRET_MISSING', '/venue/keyIdEnv', `environment variable ${keyIdEnv} (the API key id) is not set; ${required}`));
  const keyPath = nonEmpty(env[pathEnv]);
  const keyPem = nonEmpty(env[pemEnv]);
  let pem: string | null = null;
  let source = '';
  if (keyPath !== null && keyPem !== null) {
    issues.push(issue('INCONSISTENT_VALUES', '/venue/privateKeyPathEnv', `both ${pathEnv} and ${pemEnv} are set; set only one`));
  } else if (keyPath !== null) {
    source = `file ${keyPath}`;
    try {
      pem = readFileSync(keyPath, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      issues.push(issue('SECRET_MISSING', '/venue/privateKeyPathEnv', `cannot read the private key file named by ${pathEnv} (${keyPath}): ${code}`));
    }
  } else if (keyPem !== null) {
    source = `environment ${pemEnv}`;
    pem = keyPem;
  } else {
    issues.push(issue('SECRET_MISSING', '/venue/privateKeyPathEnv', `neither ${pathEnv} (path of the private key PEM file) nor ${pemEnv} (the PEM text) is set; ${required}`));
  }
  let privateKey: KeyObject | null = null;
  if (pem !== null) {
    const where = source.startsWith('file') ? '/venue/privateKeyPathEnv' : '/venue/privateKeyPemEnv';
    privateKey = parseRsaPrivateKey(pem, source, where, issues);
  }
  if (issues.length !== before || keyId === null || pem === null || privateKey === null) return null;
  return { keyId, privateKey, privateKeyPem: new Secret(pem), privateKeySource: source };
}

function parseRsaPrivateKey(pem: string, source: string, path: string, issues: ConfigIssue[]): KeyObject | null {
  if (!PEM_PRIVATE_KEY.test(pem)) {
    issues.push(issue('SECRET_INVALID', path, `${source} does not contain a PEM private key (-----BEGIN ... PRIVATE KEY-----)`));
    return null;
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (error) {
    // The crypto error's code, never its message or the text: nothing of the key reaches a log.
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    issues.push(issue('SECRET_INVALID', path, `${source} holds a private key Node cannot read (${code})`));
    return null;
  }
  if (key.asymmetricKeyType !== 'rsa' && key.asymmetricKeyType !== 'rsa-pss') {
    issues.push(issue('SECRET_INVALID', path, `${source} holds a ${key.asymmetricKeyType ?? 'non-RSA'} key; the exchange signs with RSA-PSS keys`));
    return null;
  }
  return key;
}

function isEnvName(value: unknown): value is string {
  return typeof value === 'string' && ENV_NAME.test(value);
}

function nonEmpty(value: string | undefined): string | null {
  return value === undefined || value.trim() === '' ? null : value;
}

// ---------------------------------------------------------------------------------------------
// Small helpers.

function issue(code: ConfigIssueCode, path: string, message: string): ConfigIssue {
  return { code, path, message };
}

function pathOrRoot(path: string): string {
  return path === '' ? '/' : path;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sorted by path (stable), with exact repeats dropped (a URL failing both `format` and `pattern`). */
function sortIssues(issues: ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues
    .filter((entry) => {
      const key = `${entry.code}\u0000${entry.path}\u0000${entry.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .map((entry, order) => ({ entry, order }))
    .sort((a, b) => (a.entry.path < b.entry.path ? -1 : a.entry.path > b.entry.path ? 1 : a.order - b.order))
    .map(({ entry }) => entry);
}

/** "line L column C: <what>", from V8's message, which names a position but may quote text. */
function describeJsonError(error: Error, text: string): string {
  // Drop any quoted excerpt of the file (it could hold anything) and keep the parser's reason.
  const reason = error.message.replace(/,\s*".*" is not valid JSON$/s, '').replace(/ in JSON at position \d+.*$/s, '');
  const position = /at position (\d+)/.exec(error.message);
  const offset = position === null ? text.length : Number(position[1]);
  let line = 1;
  let column = 1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      column = 1;
    } else column++;
  }
  return `line ${line} column ${column}: ${reason}`;
}

/** Freeze plain objects and arrays all the way down; class instances (KeyObject, Secret) are frozen shallowly. */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  const proto = Object.getPrototypeOf(value);
  if (Array.isArray(value) || proto === Object.prototype || proto === null) {
    for (const item of Object.values(value as object)) deepFreeze(item);
  }
  if (value instanceof Secret || Array.isArray(value) || proto === Object.prototype || proto === null) Object.freeze(value);
  return value;
}

/**
 * Signed REST calls for Margin exit triggers (margin-api.openapi.yaml, tag exit-triggers), the
 * OMS trigger table's venue port (ExitTriggerVenue, src/oms/exit-triggers.ts):
 *
 *   set        PUT    /margin/{isolated|cross}/positions/{ticker}/exit_trigger[?subaccount=N]   Set{Isolated,Cross}ExitTriggerRequest
 *   update     PUT    /margin/cross/positions/{ticker}/exit_trigger/{trigger_id}?subaccount=N    UpdateExitTriggerRequest
 *   cancel     DELETE /margin/{isolated|cross}/positions/{ticker}/exit_trigger[?kind=&subaccount=N]   204
 *   cancelById DELETE /margin/cross/positions/{ticker}/exit_trigger/{trigger_id}?subaccount=N    204
 *   list       GET    /margin/{isolated|cross}/positions/{ticker}/exit_trigger[?kind=&subaccount=N]   GetExitTriggersResponse
 *
 * Isolated routes take no subaccount (the schema has none): they address the primary subaccount,
 * so an isolated call for another subaccount is refused. Bodies are hand-written templates (prices
 * via formatPrice, 4 decimals; counts via formatCount, whole contracts); answers are decoded by
 * scanning (parsePrice / parseCount), never through a float.
 *
 * Transport: not a second HTTP client; a SignedRestClient (the one MarginOrderEntry's reads use,
 * or one built by `open` for the same venue options). Failures reject with ExitTriggerError:
 * refused (a rule broken, nothing sent), rejected (4xx/429 with the venue's code, e.g. 409
 * anchor_order_unavailable or idempotency_key_already_used), unknown (timeout, disconnect, 5xx,
 * an unreadable 2xx: the write may have happened). Off the hot path. Keeps no state.
 */

import {
  COUNT_INVALID,
  PRICE_INVALID,
  formatCount,
  formatPrice,
  parseCount,
  parsePrice,
  type Count,
  type ExitTriggerIntent,
  type ExitTriggerKind,
  type Price,
} from '../../core/index.ts';
import {
  ExecError,
  ExitTriggerError,
  type ExitTriggerLeg,
  type ExitTriggerStatus,
  type ExitTriggerVenue,
  type WireExitTrigger,
} from '../../oms/index.ts';
import { jsonString } from '../rest/order-body.ts';
import { signedClientFor, type SignedRestClient, type VenueClientOptions } from '../rest/signed-rest-client.ts';
import { timeMs } from '../rest/wire-parse.ts';

type JsonObject = Record<string, unknown>;

/** Why a trigger write was not sent; each is an ExitTriggerError code with outcome 'refused'. */
export const TriggerRefusal = {
  SUBACCOUNT_INVALID: 'trigger_subaccount_invalid', // outside 0..63, or not 0 on an isolated route (no subaccount there)
  PRICE_INVALID: 'trigger_price_invalid', // a leg or trail amount not a positive safe integer of 1/10,000 $
  COUNT_NOT_WHOLE: 'trigger_count_not_whole', // count not a positive whole number of contracts
  TRAIL_BPS_INVALID: 'trigger_trail_bps_invalid', // outside 1..9999
  SHAPE_INVALID: 'trigger_shape_invalid', // fields of the other kind, no leg, not exactly one trail, count with anchor, isolated with count/anchor
  CLIENT_TRIGGER_ID_INVALID: 'trigger_client_id_invalid', // required (1..64 chars) on count/anchor creates, rejected otherwise
  TRIGGER_ID_MISSING: 'trigger_id_missing', // update / cancel by id without an id
} as const;
export type TriggerRefusal = (typeof TriggerRefusal)[keyof typeof TriggerRefusal];

const SUBACCOUNT_MAX = 63;
const CONTRACT: number = 100; // count units per contract: triggers take whole contracts
const TRAIL_BPS_MAX = 9_999;
const CLIENT_TRIGGER_ID_CHARS_MAX = 64;

function refuse(code: TriggerRefusal, message: string): never {
  throw new ExitTriggerError('refused', code, `not sent: ${message}`);
}

function priceOk(price: Price): boolean {
  return Number.isSafeInteger(price) && price > 0;
}

/** The first rule a SET intent breaks (code and message), or null. */
export function triggerSetProblem(intent: Readonly<ExitTriggerIntent>): [TriggerRefusal, string] | null {
  if (!Number.isInteger(intent.subaccount) || intent.subaccount < 0 || intent.subaccount > SUBACCOUNT_MAX) return [TriggerRefusal.SUBACCOUNT_INVALID, 'subaccount must be in 0..63'];
  if (intent.isolated && intent.subaccount !== 0) return [TriggerRefusal.SUBACCOUNT_INVALID, 'isolated exit-trigger routes take no subaccount (primary only)'];
  const hasStop = intent.stopLossPrice !== PRICE_INVALID;
  const hasTake = intent.takeProfitPrice !== PRICE_INVALID;
  const hasAmount = intent.trailAmount !== PRICE_INVALID;
  const hasBps = intent.trailBps !== 0;
  for (const [present, price] of [[hasStop, intent.stopLossPrice], [hasTake, intent.takeProfitPrice], [hasAmount, intent.trailAmount]] as const) {
    if (present && !priceOk(price)) return [TriggerRefusal.PRICE_INVALID, 'prices and trail_amount must be positive safe integers of 1/10,000 dollar'];
  }
  if (hasBps && !(Number.isInteger(intent.trailBps) && intent.trailBps >= 1 && intent.trailBps <= TRAIL_BPS_MAX)) return [TriggerRefusal.TRAIL_BPS_INVALID, 'trail_bps must be 1..9999'];
  const hasCount = intent.count !== COUNT_INVALID;
  const hasAnchor = intent.anchorOrderId !== '';
  if (intent.kind === 'bracket') {
    if (hasAmount || hasBps) return [TriggerRefusal.SHAPE_INVALID, 'trail_amount and trail_bps belong to kind trailing'];
    if (!hasStop && !hasTake) return [TriggerRefusal.SHAPE_INVALID, 'a bracket needs a stop-loss and/or take-profit price (cancel with DELETE)'];
  } else if (intent.kind === 'trailing') {
    if (hasStop || hasTake) return [TriggerRefusal.SHAPE_INVALID, 'stop-loss and take-profit prices belong to kind bracket'];
    if (hasAmount === hasBps) return [TriggerRefusal.SHAPE_INVALID, 'a trailing stop needs exactly one of trail_amount or trail_bps'];
    if (hasCount || hasAnchor) return [TriggerRefusal.SHAPE_INVALID, 'count and anchor_order_id apply to brackets only'];
  } else {
    return [TriggerRefusal.SHAPE_INVALID, 'kind must be bracket or trailing'];
  }
  if (intent.isolated && (hasCount || hasAnchor || intent.clientTriggerId !== '')) return [TriggerRefusal.SHAPE_INVALID, 'isolated triggers close in full: no count, anchor_order_id or client_trigger_id'];
  if (hasCount && hasAnchor) return [TriggerRefusal.SHAPE_INVALID, 'count and anchor_order_id are mutually exclusive'];
  if (hasCount && !(Number.isSafeInteger(intent.count) && intent.count > 0 && intent.count % CONTRACT === 0)) return [TriggerRefusal.COUNT_NOT_WHOLE, 'count must be a positive whole number of contracts'];
  const appending = hasCount || hasAnchor;
  const idLength = intent.clientTriggerId.length;
  if (appending && (idLength === 0 || idLength > CLIENT_TRIGGER_ID_CHARS_MAX)) return [TriggerRefusal.CLIENT_TRIGGER_ID_INVALID, 'client_trigger_id (1-64 characters) is required with count or anchor_order_id'];
  if (!appending && idLength !== 0) return [TriggerRefusal.CLIENT_TRIGGER_ID_INVALID, 'client_trigger_id is accepted only with count or anchor_order_id'];
  return null;
}

/**
 * SetCrossExitTriggerRequest / SetIsolatedExitTriggerRequest of a SET intent that passed
 * triggerSetProblem: kind always (explicit beats the venue's default), each field only when set.
 */
export function encodeSetTrigger(intent: Readonly<ExitTriggerIntent>): string {
  let body = `{"kind":"${intent.kind}"`;
  if (intent.stopLossPrice !== PRICE_INVALID) body += `,"stop_loss_price":"${formatPrice(intent.stopLossPrice)}"`;
  if (intent.takeProfitPrice !== PRICE_INVALID) body += `,"take_profit_price":"${formatPrice(intent.takeProfitPrice)}"`;
  if (intent.trailAmount !== PRICE_INVALID) body += `,"trail_amount":"${formatPrice(intent.trailAmount)}"`;
  if (intent.trailBps !== 0) body += `,"trail_bps":${intent.trailBps}`;
  if (intent.count !== COUNT_INVALID) body += `,"count":"${formatCount(intent.count)}"`;
  if (intent.anchorOrderId !== '') body += `,"anchor_order_id":${jsonString(intent.anchorOrderId)}`;
  if (intent.clientTriggerId !== '') body += `,"client_trigger_id":${jsonString(intent.clientTriggerId)}`;
  return `${body}}`;
}

/** UpdateExitTriggerRequest: a leg left PRICE_INVALID is omitted (the venue clears it). */
export function encodeUpdateTrigger(stopLossPrice: Price, takeProfitPrice: Price): string {
  const parts: string[] = [];
  if (stopLossPrice !== PRICE_INVALID) parts.push(`"stop_loss_price":"${formatPrice(stopLossPrice)}"`);
  if (takeProfitPrice !== PRICE_INVALID) parts.push(`"take_profit_price":"${formatPrice(takeProfitPrice)}"`);
  return `{${parts.join(',')}}`;
}

// ---- decoding ExitTrigger ----

const STATUSES: readonly string[] = ['pending_on_entry', 'active', 'filled', 'failed', 'canceled', 'unknown'];

function bad(what: string): ExitTriggerError {
  return new ExitTriggerError('unknown', 'EXEC_BAD_RESPONSE', `bad response: exit_trigger.${what}`);
}

function requireText(object: JsonObject, name: string): string {
  const value = object[name];
  if (typeof value !== 'string' || value === '') throw bad(`${name} must be a non-empty string`);
  return value;
}

function optionalText(object: JsonObject, name: string): string {
  const value = object[name];
  return typeof value === 'string' ? value : '';
}

/** FixedPointDollars: 4 decimals, or responses' 6 whose last two are 0 ("95.000000"); PRICE_INVALID when absent. */
function optionalPrice(object: JsonObject, name: string): Price {
  const value = object[name];
  if (value === undefined || value === null) return PRICE_INVALID;
  if (typeof value !== 'string') throw bad(`${name} must be a dollars string`);
  let price = parsePrice(value);
  const dot = value.indexOf('.');
  if (price === PRICE_INVALID && dot !== -1 && value.length - dot - 1 === 6 && value.endsWith('00')) price = parsePrice(value.slice(0, -2));
  if (price === PRICE_INVALID) throw bad(`${name} is not a dollars price`);
  return price;
}

function requireCount(object: JsonObject, name: string): Count {
  const count = parseCount(requireText(object, name));
  if (count === COUNT_INVALID) throw bad(`${name} is not an fp count`);
  return count;
}

/** ExitTrigger -> WireExitTrigger; throws ExitTriggerError (unknown, EXEC_BAD_RESPONSE) when malformed. */
export function parseExitTrigger(object: JsonObject): WireExitTrigger {
  const kind = object['kind'];
  if (kind !== 'bracket' && kind !== 'trailing') throw bad('kind must be bracket or trailing');
  const status = requireText(object, 'status');
  const leg = object['triggered_leg'];
  if (leg !== undefined && leg !== null && leg !== 'stop_loss' && leg !== 'take_profit') throw bad('triggered_leg must be stop_loss or take_profit');
  const bps = object['trail_bps'];
  if (bps !== undefined && bps !== null && !(Number.isInteger(bps) && (bps as number) >= 0)) throw bad('trail_bps must be a non-negative integer');
  return {
    triggerId: requireText(object, 'id'),
    ticker: requireText(object, 'ticker'),
    kind,
    status: (STATUSES.includes(status) ? status : 'unknown') as ExitTriggerStatus, // a newer status: never assume it ended
    statusReason: optionalText(object, 'status_reason'),
    triggeredLeg: (leg ?? null) as ExitTriggerLeg | null,
    triggeredOrderId: optionalText(object, 'triggered_order_id'),
    anchorOrderId: optionalText(object, 'anchor_order_id'),
    clientTriggerId: optionalText(object, 'client_trigger_id'),
    stopLossPrice: optionalPrice(object, 'stop_loss_price'),
    takeProfitPrice: optionalPrice(object, 'take_profit_price'),
    trailAmount: optionalPrice(object, 'trail_amount'),
    trailBps: typeof bps === 'number' ? bps : 0,
    watermarkPrice: optionalPrice(object, 'watermark_price'),
    effectiveStopPrice: optionalPrice(object, 'effective_stop_price'),
    count: requireCount(object, 'count'),
    filledCount: requireCount(object, 'filled_count'),
    createdTimeMs: timeMs(object['created_time']),
    updatedTimeMs: timeMs(object['updated_time']),
  };
}

/** A SignedRestClient failure as an ExitTriggerError: 4xx (and 429) rejected with the venue's code, the rest unknown. */
export function triggerErrorOf(error: unknown): ExitTriggerError {
  if (error instanceof ExitTriggerError) return error;
  if (error instanceof ExecError) {
    const reject = error.reject;
    if (error.status >= 400 && error.status < 500) {
      return new ExitTriggerError('rejected', reject?.code ?? error.code, reject?.message || error.message, error.status, reject?.details ?? '');
    }
    return new ExitTriggerError('unknown', error.code, error.message, error.status, reject?.details ?? '');
  }
  return new ExitTriggerError('unknown', 'EXEC_DISCONNECTED', (error as Error)?.message ?? String(error));
}

// ---- the client ----

export class ExitTriggerClient implements ExitTriggerVenue {
  readonly #client: SignedRestClient;
  readonly #prefix: string;
  readonly #owned: boolean;

  /** On an existing signed client (e.g. the one MarginOrderEntry's reads use) and its API prefix ('/trade-api/v2'). */
  constructor(client: SignedRestClient, prefix: string, owned = false) {
    this.#client = client;
    this.#prefix = prefix;
    this.#owned = owned;
  }

  /** A client with a signed pool of its own for `options` (closed by close()). */
  static open(options: VenueClientOptions): ExitTriggerClient {
    const { client, prefix } = signedClientFor(options);
    return new ExitTriggerClient(client, prefix, true);
  }

  async close(): Promise<void> {
    if (this.#owned) await this.#client.close();
  }

  async set(ticker: string, intent: Readonly<ExitTriggerIntent>): Promise<WireExitTrigger> {
    const problem = triggerSetProblem(intent);
    if (problem !== null) refuse(problem[0], problem[1]);
    const path = this.#path(ticker, intent.isolated, intent.subaccount, '', null);
    return this.#trigger('PUT', path, encodeSetTrigger(intent));
  }

  async update(ticker: string, subaccount: number, triggerId: string, stopLossPrice: Price, takeProfitPrice: Price): Promise<WireExitTrigger> {
    if (triggerId === '') refuse(TriggerRefusal.TRIGGER_ID_MISSING, 'update needs the trigger id');
    this.#checkSubaccount(subaccount, false);
    if (stopLossPrice === PRICE_INVALID && takeProfitPrice === PRICE_INVALID) refuse(TriggerRefusal.SHAPE_INVALID, 'an update needs at least one leg (cancel with DELETE)');
    for (const price of [stopLossPrice, takeProfitPrice]) {
      if (price !== PRICE_INVALID && !priceOk(price)) refuse(TriggerRefusal.PRICE_INVALID, 'prices must be positive safe integers of 1/10,000 dollar');
    }
    return this.#trigger('PUT', this.#path(ticker, false, subaccount, triggerId, null), encodeUpdateTrigger(stopLossPrice, takeProfitPrice));
  }

  async cancel(ticker: string, subaccount: number, isolated: boolean, kind: ExitTriggerKind | null): Promise<void> {
    this.#checkSubaccount(subaccount, isolated);
    await this.#call('DELETE', this.#path(ticker, isolated, subaccount, '', kind), null);
  }

  async cancelById(ticker: string, subaccount: number, triggerId: string): Promise<void> {
    if (triggerId === '') refuse(TriggerRefusal.TRIGGER_ID_MISSING, 'cancel by id needs the trigger id');
    this.#checkSubaccount(subaccount, false);
    await this.#call('DELETE', this.#path(ticker, false, subaccount, triggerId, null), null);
  }

  async list(ticker: string, subaccount: number, isolated: boolean, kind: ExitTriggerKind | null): Promise<WireExitTrigger[]> {
    this.#checkSubaccount(subaccount, isolated);
    const body = await this.#call('GET', this.#path(ticker, isolated, subaccount, '', kind), null);
    const list = body?.['exit_triggers'];
    if (!Array.isArray(list)) throw bad('exit_triggers must be an array (GetExitTriggersResponse)');
    return list.map((item: unknown) => {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) throw bad('exit_triggers items must be objects');
      return parseExitTrigger(item as JsonObject);
    });
  }

  #checkSubaccount(subaccount: number, isolated: boolean): void {
    if (!Number.isInteger(subaccount) || subaccount < 0 || subaccount > SUBACCOUNT_MAX) refuse(TriggerRefusal.SUBACCOUNT_INVALID, 'subaccount must be in 0..63');
    if (isolated && subaccount !== 0) refuse(TriggerRefusal.SUBACCOUNT_INVALID, 'isolated exit-trigger routes take no subaccount (primary only)');
  }

  /** The route's path: cross ones always name the subaccount (explicit beats the venue's default). */
  #path(ticker: string, isolated: boolean, subaccount: number, triggerId: string, kind: ExitTriggerKind | null): string {
    let path = `${this.#prefix}/margin/${isolated ? 'isolated' : 'cross'}/positions/${encodeURIComponent(ticker)}/exit_trigger`;
    if (triggerId !== '') path += `/${encodeURIComponent(triggerId)}`;
    const params = new URLSearchParams();
    if (kind !== null) params.set('kind', kind);
    if (!isolated) params.set('subaccount', String(subaccount));
    const query = params.toString();
    return query === '' ? path : `${path}?${query}`;
  }

  async #trigger(method: string, path: string, body: string): Promise<WireExitTrigger> {
    const answer = await this.#call(method, path, body);
    if (answer === null) throw bad('the answer has no body');
    return parseExitTrigger(answer);
  }

  async #call(method: string, path: string, body: string | null): Promise<JsonObject | null> {
    try {
      return await this.#client.call(method, path, body);
    } catch (error) {
      throw triggerErrorOf(error);
    }
  }
}

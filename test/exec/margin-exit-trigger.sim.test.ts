// Goal: the runtime's Margin exit triggers against the simulator: ExitTriggerClient's signed PUT /
// GET / DELETE calls (isolated and cross, by kind and by id) and its decoding in core units, driven
// through the OMS trigger table (ExitTriggerTable): an isolated bracket set and read back; cross
// count brackets that fit the position and one that does not (400, no record); a client_trigger_id
// replay returning the same trigger and its reuse on another position (409); an order-anchored
// bracket pending_on_entry until its anchor fills, firing, and returning to pending_on_entry with
// the system order linked by triggerOfOrder; 409 anchor_order_unavailable; a trailing stop; a
// whole-position bracket firing when the mark moves, its system order (order_source system,
// order_reason take_profit_stop_loss) linked by linkOrder.
// Method: startSim in-process on 127.0.0.1:0 (a fresh one per case: marks and books are per
// market), users made with sim.createApiKey; every request goes over real sockets. The trigger
// client runs on a SignedRestClient subclass that records each call: every body it builds is
// validated against the operation's request schema in ../shared/spec/schemas/margin-api.openapi.yaml
// (read at test time) and must use only the schema's properties; every 2xx answer against the
// response schema. The mark moves only by trades (the engine's mark is median(best bid, best ask,
// last trade), else the last trade; the simulator has no mark hook), as in test/sim/margin/exit-triggers.test.ts.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import {
  PRICE_INVALID,
  TriggerAction,
  createTriggerIntent,
  loadPrivateKey,
  systemClock,
  type Count,
  type ExitTriggerIntent,
  type Price,
} from '../../src/core/index.ts';
import { ExitTriggerClient } from '../../src/exec/margin/index.ts';
import { SignedRestClient } from '../../src/exec/rest/signed-rest-client.ts';
import { ExitTriggerTable, TriggerState, type ExitTriggerError } from '../../src/oms/index.ts';
import { startSim, type SimHandle } from '../../src/sim/index.ts';
import { errorsOf, OpenApiValidator, SCHEMA_DIR } from '../sim/helpers/schemas.ts';

const BTC = 'KXBTCPERP'; // tick $0.01, mark $100.00
const ETH = 'KXETHPERP';
const TICKERS = [BTC, ETH];
const PREFIX = '/trade-api/v2';
const ISOLATED = '/margin/isolated/positions/{ticker}/exit_trigger';
const CROSS = '/margin/cross/positions/{ticker}/exit_trigger';
const BY_ID = '/margin/cross/positions/{ticker}/exit_trigger/{trigger_id}';

const spec = new OpenApiValidator(() => {}, 'margin-api.openapi.yaml');
const schemas = (YAML.parse(readFileSync(join(SCHEMA_DIR, 'margin-api.openapi.yaml'), 'utf8')) as { components: { schemas: Record<string, { properties?: Record<string, unknown> }> } }).components.schemas;
const REQUEST_SCHEMA: Record<string, string> = { [ISOLATED]: 'SetIsolatedExitTriggerRequest', [CROSS]: 'SetCrossExitTriggerRequest', [BY_ID]: 'UpdateExitTriggerRequest' };

/** The OpenAPI path template of a signed path. */
function templateOf(path: string): string {
  const bare = path.slice(PREFIX.length).split('?')[0]!;
  if (/^\/margin\/isolated\/positions\/[^/]+\/exit_trigger$/.test(bare)) return ISOLATED;
  if (/^\/margin\/cross\/positions\/[^/]+\/exit_trigger$/.test(bare)) return CROSS;
  if (/^\/margin\/cross\/positions\/[^/]+\/exit_trigger\/[^/]+$/.test(bare)) return BY_ID;
  throw new Error(`not an exit-trigger path: ${path}`);
}

interface Recorded {
  method: string;
  path: string;
  body: string | null;
}

/** The client's transport, recording and validating every exit-trigger call it carries. */
class ValidatingClient extends SignedRestClient {
  readonly calls: Recorded[] = [];
  override async call(method: string, path: string, body: string | null, signInline = false): Promise<Record<string, unknown> | null> {
    this.calls.push({ method, path, body });
    const template = templateOf(path);
    if (body !== null) {
      const parsed = JSON.parse(body) as Record<string, unknown>;
      const validate = spec.request(method, template);
      expect(validate(parsed), `${method} ${path} ${body}: ${errorsOf(validate)}`).toBe(true);
      const allowed = Object.keys(schemas[REQUEST_SCHEMA[template]!]!.properties ?? {});
      for (const key of Object.keys(parsed)) expect(allowed, `${key} of ${body}`).toContain(key);
    }
    const answer = await super.call(method, path, body, signInline);
    if (answer !== null) {
      const validate = spec.response(method, template, 200);
      expect(validate(answer), `${method} ${path}: ${errorsOf(validate)}`).toBe(true);
    }
    return answer;
  }
}

let sim: SimHandle;
let workDir: string;
let transport: ValidatingClient;
let client: ExitTriggerClient;
let table: ExitTriggerTable;
const gateSeen: ExitTriggerIntent[] = [];
const users = new Map<string, SignedRestClient>();

function venueOptions(key: { keyId: string; privateKeyPem: string }) {
  return {
    origin: new URL(sim.httpUrl).origin, keyId: key.keyId, privateKey: loadPrivateKey(key.privateKeyPem), clock: systemClock,
    connections: 1, connectTimeoutMs: 5_000, headersTimeoutMs: 5_000, bodyTimeoutMs: 5_000, keepAliveTimeoutMs: 4_000, tls: null,
    presigner: () => null,
  };
}

/** Venue position (count units) of `userId` in subaccount 0, from the Margin engine. */
function venuePosition(userId: string, ticker: string): number {
  return sim.services.margin!.accountsOf(userId).find((a) => a.subaccount === 0)?.positions.get(ticker)?.count ?? 0;
}

function mark(ticker: string): number {
  return sim.services.margin!.markets.get(ticker)!.mark;
}

/** A signed client of another user (made on first use). */
function user(name: string): SignedRestClient {
  let found = users.get(name);
  if (found === undefined) {
    const key = sim.createApiKey({ scopes: ['read', 'write'], userId: name, subaccount: 0, tier: 'prime' });
    found = new SignedRestClient(venueOptions(key));
    users.set(name, found);
  }
  return found;
}

let orderSeq = 0;

/** POST /margin/orders for `who` ('ours' is the demo user); the answer's order_id. */
async function order(who: string, ticker: string, side: 'bid' | 'ask', contracts: number, dollars: string, ioc = false): Promise<string> {
  const body = JSON.stringify({
    ticker, client_order_id: `et-test-${process.pid}-${++orderSeq}`, side, count: String(contracts), price: dollars,
    time_in_force: ioc ? 'immediate_or_cancel' : 'good_till_canceled', self_trade_prevention_type: 'taker_at_cross',
  });
  const answer = await (who === 'ours' ? user('ours') : user(who)).call('POST', `${PREFIX}/margin/orders`, body);
  return answer!['order_id'] as string;
}

/** Ours opens `contracts` at $100 against bob (long for 'bid'). */
async function open(ticker: string, side: 'bid' | 'ask', contracts: number): Promise<void> {
  await order('bob', ticker, side === 'bid' ? 'ask' : 'bid', contracts, '100.00');
  await order('ours', ticker, side, contracts, '100.00', true);
  expect(venuePosition(sim.userId, ticker)).toBe((side === 'bid' ? 1 : -1) * contracts * 100);
}

/** dave and erin trade one contract at `dollars`: the last trade. */
async function tradeAt(ticker: string, dollars: string): Promise<void> {
  await order('dave', ticker, 'ask', 1, dollars);
  await order('erin', ticker, 'bid', 1, dollars, true);
}

async function ourOrders(): Promise<Record<string, unknown>[]> {
  const answer = await user('ours').call('GET', `${PREFIX}/margin/orders?limit=1000`, null);
  return answer!['orders'] as Record<string, unknown>[];
}

function intent(overrides: Partial<ExitTriggerIntent>): ExitTriggerIntent {
  return { ...createTriggerIntent(), market: 0, ...overrides };
}

beforeEach(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'margin-exit-trigger-'));
  sim = await startSim({ keysDir: join(workDir, 'keys'), logger: pino({ level: 'silent' }), rateLimits: false });
  users.set('ours', new SignedRestClient(venueOptions(sim.demoKey)));
  transport = new ValidatingClient(venueOptions(sim.demoKey));
  client = new ExitTriggerClient(transport, PREFIX, true);
  gateSeen.length = 0;
  table = new ExitTriggerTable({
    venue: client,
    gate: (seen) => {
      gateSeen.push({ ...seen });
      return 0;
    },
    markets: { tickerAt: (index) => TICKERS[index]!, indexOf: (ticker) => TICKERS.indexOf(ticker) },
    positionOf: (market) => venuePosition(sim.userId, TICKERS[market]!),
    capacity: 256,
  });
});

afterEach(async () => {
  await client?.close();
  for (const one of users.values()) await one.close();
  users.clear();
  await sim?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('ExitTriggerClient and ExitTriggerTable against the simulator', () => {
  it('an isolated bracket is set, read back in integer units, replaced in place; isolated refuses another subaccount unsent', async () => {
    await open(BTC, 'bid', 10);
    const set = await table.submit(intent({ isolated: true, stopLossPrice: 950_000 as Price, takeProfitPrice: 1_100_000 as Price }));
    expect(set.error).toBeNull();
    expect(set.record).toMatchObject({ state: TriggerState.ACTIVE, whole: true, isolated: true, stopLossPrice: 950_000, takeProfitPrice: 1_100_000, count: 0 });
    expect(transport.calls.at(-1)).toEqual({ method: 'PUT', path: `${PREFIX}/margin/isolated/positions/${BTC}/exit_trigger`, body: '{"kind":"bracket","stop_loss_price":"95.0000","take_profit_price":"110.0000"}' });
    const listed = await client.list(BTC, 0, true, null);
    expect(listed).toEqual([expect.objectContaining({
      triggerId: set.record!.triggerId, ticker: BTC, kind: 'bracket', status: 'active', stopLossPrice: 950_000, takeProfitPrice: 1_100_000,
      trailAmount: PRICE_INVALID, count: 0, filledCount: 0, anchorOrderId: '', clientTriggerId: '', triggeredOrderId: '', triggeredLeg: null,
    })]);
    expect(listed[0]!.createdTimeMs).toBeGreaterThan(0);
    expect(await client.list(BTC, 0, false, null)).toEqual([]); // the cross slot is another position

    // one trigger per kind: a second write replaces it (the omitted leg is cleared)
    const again = await table.submit(intent({ isolated: true, stopLossPrice: 900_000 as Price }));
    expect(again.record).toBe(set.record);
    expect(again.record).toMatchObject({ stopLossPrice: 900_000, takeProfitPrice: PRICE_INVALID });
    expect(table.bracketCount(0, 0, true)).toBe(1);
    expect(table.bracketCountSum(0, 0, true)).toBe(1_000); // whole: the position

    const callsBefore = transport.calls.length;
    const refused = await table.submit(intent({ isolated: true, subaccount: 1, stopLossPrice: 900_000 as Price }));
    expect(refused.error).toMatchObject({ outcome: 'refused', code: 'trigger_subaccount_invalid' });
    await expect(client.set(BTC, intent({ isolated: true, count: 300 as Count, clientTriggerId: 'x', stopLossPrice: 900_000 as Price }))).rejects.toMatchObject({ outcome: 'refused', code: 'trigger_shape_invalid' });
    expect(transport.calls.length).toBe(callsBefore);
  });

  it('cross count brackets fit the position, one more does not (400); replay returns the same trigger; reuse elsewhere is 409; update, delete by id and by kind', async () => {
    await open(BTC, 'bid', 10);
    const four = await table.submit(intent({ count: 400 as Count, clientTriggerId: 'cb-4', stopLossPrice: 900_000 as Price }));
    const six = await table.submit(intent({ count: 600 as Count, clientTriggerId: 'cb-6', stopLossPrice: 920_000 as Price, takeProfitPrice: 1_200_000 as Price }));
    expect([four.error, six.error]).toEqual([null, null]);
    expect(four.record).toMatchObject({ state: TriggerState.ACTIVE, count: 400, clientTriggerId: 'cb-4', whole: false });
    expect(transport.calls.at(-1)!.path).toBe(`${PREFIX}/margin/cross/positions/${BTC}/exit_trigger?subaccount=0`);
    expect(transport.calls.at(-1)!.body).toBe('{"kind":"bracket","stop_loss_price":"92.0000","take_profit_price":"120.0000","count":"6.00","client_trigger_id":"cb-6"}');
    expect([table.bracketCount(0, 0, false), table.bracketCountSum(0, 0, false)]).toEqual([2, 1_000]);

    const over = await table.submit(intent({ count: 100 as Count, clientTriggerId: 'cb-1', stopLossPrice: 900_000 as Price }));
    expect(over.record).toBeNull();
    expect(over.error).toMatchObject({ outcome: 'rejected', status: 400, code: 'exit_trigger_count_exceeds_position' });
    expect(table.byClientTriggerId('cb-1')).toBeNull();
    expect(await client.list(BTC, 0, false, 'bracket')).toHaveLength(2);

    const replay = await table.submit(intent({ count: 400 as Count, clientTriggerId: 'cb-4', stopLossPrice: 900_000 as Price }));
    expect(replay.error).toBeNull();
    expect(replay.record).toBe(four.record);
    expect(replay.record!.triggerId).toBe(four.record!.triggerId);
    expect(table.size).toBe(2);

    const reused = await table.submit(intent({ market: 1, count: 400 as Count, clientTriggerId: 'cb-4', stopLossPrice: 250_000 as Price }));
    expect(reused.error).toMatchObject({ outcome: 'rejected', status: 409, code: 'idempotency_key_already_used' });
    expect(table.byClientTriggerId('cb-4')).toMatchObject({ ticker: BTC });
    expect(await client.list(ETH, 0, false, null)).toEqual([]);

    const updated = await table.submit(intent({ action: TriggerAction.UPDATE, triggerId: six.record!.triggerId, stopLossPrice: 910_000 as Price }));
    expect(updated.error).toBeNull();
    expect(updated.record).toBe(six.record);
    expect(six.record).toMatchObject({ stopLossPrice: 910_000, takeProfitPrice: PRICE_INVALID });
    expect(transport.calls.at(-1)).toMatchObject({ method: 'PUT', path: `${PREFIX}/margin/cross/positions/${BTC}/exit_trigger/${six.record!.triggerId}?subaccount=0`, body: '{"stop_loss_price":"91.0000"}' });

    const byId = await table.submit(intent({ action: TriggerAction.DELETE, triggerId: four.record!.triggerId }));
    expect(byId.error).toBeNull();
    expect(four.record).toMatchObject({ state: TriggerState.CANCELED, live: false });
    expect((await client.list(BTC, 0, false, null)).map((t) => t.triggerId)).toEqual([six.record!.triggerId]);
    const gone = await table.submit(intent({ action: TriggerAction.DELETE, triggerId: four.record!.triggerId }));
    expect(gone.error).toMatchObject({ outcome: 'rejected', status: 404 });

    const byKind = await table.submit(intent({ action: TriggerAction.DELETE, kind: 'bracket' }));
    expect(byKind.error).toBeNull();
    expect(transport.calls.at(-1)).toMatchObject({ method: 'DELETE', path: `${PREFIX}/margin/cross/positions/${BTC}/exit_trigger?kind=bracket&subaccount=0`, body: null });
    expect(six.record!.state).toBe(TriggerState.CANCELED);
    expect(await client.list(BTC, 0, false, null)).toEqual([]);
    expect(table.bracketCount(0, 0, false)).toBe(0);
    expect(gateSeen.map((g) => g.action)).toEqual([0, 0, 0, 0, 0, 1, 2, 2, 2]);
  });

  it('an anchored bracket stays pending_on_entry until the anchor fills, fires, returns to pending_on_entry, and its order is linked', async () => {
    const missing = await table.submit(intent({ anchorOrderId: 'no-such-order', clientTriggerId: 'anc-0', takeProfitPrice: 1_050_000 as Price }));
    expect(missing.error).toMatchObject({ outcome: 'rejected', status: 409, code: 'anchor_order_unavailable' });
    expect(missing.record).toBeNull();
    expect(await client.list(BTC, 0, false, null)).toEqual([]); // nothing written

    const anchor = await order('ours', BTC, 'bid', 10, '100.00'); // rests
    const set = await table.submit(intent({ anchorOrderId: anchor, clientTriggerId: 'anc-1', stopLossPrice: 900_000 as Price, takeProfitPrice: 1_050_000 as Price }));
    expect(set.error).toBeNull();
    const record = set.record!;
    expect(record).toMatchObject({ state: TriggerState.PENDING_ON_ENTRY, anchorOrderId: anchor, anchored: true, count: 0 });
    expect(JSON.parse(transport.calls.at(-1)!.body!)).toEqual({ kind: 'bracket', stop_loss_price: '90.0000', take_profit_price: '105.0000', anchor_order_id: anchor, client_trigger_id: 'anc-1' });
    await table.reconcile(BTC, 0, false);
    expect(record.state).toBe(TriggerState.PENDING_ON_ENTRY); // no fill yet

    await order('bob', BTC, 'ask', 4, '100.00', true); // the anchor fills 4
    await table.reconcile(BTC, 0, false);
    expect(record).toMatchObject({ state: TriggerState.ACTIVE, count: 400, filledCount: 0 });

    // move the mark to the take-profit: carol's bid above our anchor to close against, then trades at 105
    await order('carol', BTC, 'bid', 4, '101.00');
    await tradeAt(BTC, '105.00'); // mark 105 (asks empty: the last trade) fires; the close trades at 101
    expect(mark(BTC)).toBe(1_010_000);
    expect(venuePosition(sim.userId, BTC)).toBe(0); // the 4 closed; the anchor still rests 6
    await table.reconcile(BTC, 0, false);
    expect(record).toMatchObject({ state: TriggerState.PENDING_ON_ENTRY, triggeredLeg: 'take_profit', filledCount: 400, anchorOrderId: anchor, live: true });
    const system = (await ourOrders()).filter((o) => o['order_source'] === 'system');
    expect(system).toHaveLength(1);
    expect(system[0]).toMatchObject({ order_reason: 'take_profit_stop_loss', side: 'ask', fill_count: '4.00' });
    expect(record.triggeredOrderId).toBe(system[0]!['order_id']);
    expect(table.triggerOfOrder(system[0]!['order_id'] as string)).toBe(record);
  });

  it('a trailing stop: set with trail_amount, read back with its watermark, replaced by trail_bps, deleted by kind', async () => {
    await open(ETH, 'ask', 5); // short 5 at $100 on ETH (a $30 market: fine, the book is ours)
    const trailing = await table.submit(intent({ market: 1, kind: 'trailing', trailAmount: 20_000 as Price }));
    expect(trailing.error).toBeNull();
    expect(transport.calls.at(-1)!.body).toBe('{"kind":"trailing","trail_amount":"2.0000"}');
    const listed = await client.list(ETH, 0, false, 'trailing');
    expect(listed).toEqual([expect.objectContaining({ kind: 'trailing', trailAmount: 20_000, trailBps: 0, stopLossPrice: PRICE_INVALID })]);
    expect(listed[0]!.watermarkPrice).toBe(mark(ETH));
    expect(listed[0]!.effectiveStopPrice).toBe(mark(ETH) + 20_000); // a short's stop is above the trough
    expect(table.trailingCount(1, 0, false)).toBe(1);

    const bps = await table.submit(intent({ market: 1, kind: 'trailing', trailBps: 100 }));
    expect(bps.record).toBe(trailing.record);
    expect(bps.record).toMatchObject({ trailBps: 100, trailAmount: PRICE_INVALID });
    expect(transport.calls.at(-1)!.body).toBe('{"kind":"trailing","trail_bps":100}');

    const removed = await table.submit(intent({ market: 1, action: TriggerAction.DELETE, kind: 'trailing' }));
    expect(removed.error).toBeNull();
    expect(trailing.record!.state).toBe(TriggerState.CANCELED);
    expect(await client.list(ETH, 0, false, null)).toEqual([]);
    expect(table.trailingCount(1, 0, false)).toBe(0);
  });

  it('a whole-position bracket fires when the mark reaches the stop: a reduce-only system order, linked to its trigger', async () => {
    await open(BTC, 'bid', 10);
    const set = await table.submit(intent({ stopLossPrice: 950_000 as Price, takeProfitPrice: 1_100_000 as Price }));
    expect(set.record).toMatchObject({ state: TriggerState.ACTIVE, whole: true });
    await order('carol', BTC, 'bid', 20, '94.00'); // liquidity to close against
    await tradeAt(BTC, '96.00');
    expect(venuePosition(sim.userId, BTC)).toBe(1_000); // 96 > 95: nothing fired
    await tradeAt(BTC, '95.00');
    expect(venuePosition(sim.userId, BTC)).toBe(0);
    const system = (await ourOrders()).filter((o) => o['order_source'] === 'system');
    expect(system).toHaveLength(1);
    expect(system[0]).toMatchObject({ order_reason: 'take_profit_stop_loss', side: 'ask', fill_count: '10.00' });
    const orderId = system[0]!['order_id'] as string;
    expect(sim.services.margin!.orders.get(orderId)!.reduceOnly).toBe(true);
    expect(table.triggerOfOrder(orderId)).toBeNull(); // the venue's list no longer shows a filled trigger
    const linked = await table.linkOrder(orderId, BTC, 0);
    expect(linked).toBe(set.record);
    expect(linked).toMatchObject({ state: TriggerState.GONE, orderLinkInferred: true, triggeredOrderId: orderId, live: false });
    expect(table.triggerOfOrder(orderId)).toBe(set.record);
  });

  it('venue errors keep their code: a trailing stop needs a position (404), a second whole bracket beside a partial one conflicts (409)', async () => {
    const none = await table.submit(intent({ kind: 'trailing', trailBps: 50 }));
    expect(none.error).toMatchObject({ outcome: 'rejected', status: 404, code: 'position_not_found' });
    expect(table.size).toBe(0);
    await open(BTC, 'bid', 2);
    expect((await table.submit(intent({ count: 100 as Count, clientTriggerId: 'p-1', stopLossPrice: 900_000 as Price }))).error).toBeNull();
    const whole = await table.submit(intent({ stopLossPrice: 900_000 as Price }));
    expect(whole.error).toMatchObject({ outcome: 'rejected', status: 409, code: 'exit_trigger_conflict' });
    expect((whole.error as ExitTriggerError).message).not.toBe('');
    expect(table.wholeOf(BTC, 0, false, 'bracket')).toBeNull();
    expect(table.size).toBe(1);
  });
});

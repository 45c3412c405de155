/**
 * Goal: a dashboard in a fleet shows every runtime of the fleet, alive or not, with its share,
 * kill state, orders, positions and PnL as the runtimes published them; it reads Redis only while
 * a client watches; when Redis goes away the dashboard keeps serving (views and fleet messages go
 * on), says the fleet is unreachable (reported once in the log, not per read) and recovers when
 * Redis is back; no promise is left unhandled. Snapshots of the wrong shape become rows of nulls,
 * never an exception, and a huge fleet is cut to FLEET_ROWS_MAX rows.
 * Method: a real redis-server (test/fleet/redis-server.ts); two runtimes' statuses published with
 * fleet-status.ts publishStatus (one alive, one whose status key is deleted: "not alive") and one
 * unreadable entry; the main job's fleet view (runtime/dashboard-fleet.ts) on a 100 ms period in a
 * DashboardServer on 127.0.0.1 port 0 over the fake snapshot source; undici's WebSocket as the
 * client; Redis killed (SIGKILL) and restarted empty. Bounded waits throughout.
 */

import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import { WebSocket } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardServer, FLEET_ROWS_MAX, FleetView, OperatorSnapshots, fleetRow, fleetState } from '../../src/dashboard/index.ts';
import type { FleetRow, FleetState } from '../../src/dashboard/index.ts';
import { FleetKeys, connectFleetRedis, killRecord, openFleetRedis, publishStatus } from '../../src/fleet/index.ts';
import type { FleetStatus } from '../../src/fleet/index.ts';
import { dashboardFleetView } from '../../src/runtime/dashboard-fleet.ts';
import type { RuntimeStatus } from '../../src/runtime/runtime.ts';
import { createLogger } from '../../src/telemetry/index.ts';
import { startTestRedis } from '../fleet/redis-server.ts';
import type { TestRedis } from '../fleet/redis-server.ts';
import { waitUntil } from '../integration/helpers.ts';
import { fakeSource } from './fake-source.ts';

const TOKEN = 'fleet-page-test-token';
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
const logLines: string[] = [];
let redis: TestRedis;
let publisher: Redis;
let view: FleetView;
let snapshots: OperatorSnapshots;
let dashboard: DashboardServer;

interface Client {
  ws: WebSocket;
  messages: Record<string, unknown>[];
}

async function connect(): Promise<Client> {
  const ws = new WebSocket(`ws://127.0.0.1:${dashboard.port}/ws?token=${TOKEN}`);
  const messages: Record<string, unknown>[] = [];
  ws.addEventListener('message', (event) => messages.push(JSON.parse(String(event.data)) as Record<string, unknown>));
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve());
    ws.addEventListener('error', () => reject(new Error('websocket did not open')));
  });
  return { ws, messages };
}

const fleetMessages = (client: Client): FleetState[] => client.messages.filter((m) => m.type === 'fleet').map((m) => m.fleet as FleetState);
const lastFleet = (client: Client): FleetState | undefined => fleetMessages(client).at(-1);
const rowOf = (state: FleetState, name: string): FleetRow | undefined => state.rows.find((row) => row.name === name);

/** A runtime's published snapshot, as fleet-port.ts builds it: {...runtime.status(), fleet, publishedMs}. */
function snapshotOf(name: string, fields: { sharePpm: number; openOrders: number; pnlMicro: number; killSwitch: RuntimeStatus['killSwitch']; kill: FleetStatus['kill'] }): Record<string, unknown> {
  const fleet: FleetStatus = {
    runtimeName: name, leased: fields.sharePpm > 0, sharePpm: fields.sharePpm, runtimes: 2, redisConnected: true,
    renewals: 12, renewalFailures: 0, lapses: 0, kill: fields.kill, limitShares: [0, 0],
  };
  const status: RuntimeStatus = {
    booksSynced: 2, booksTotal: 2, openOrders: fields.openOrders, ordersSent: 40, fills: 3,
    positions: [
      { subaccount: 1, ticker: 'KXDEMO-A', position: 500, pnlMicro: fields.pnlMicro },
      { subaccount: 1, ticker: 'KXDEMO-B', position: -200, pnlMicro: 0.5 },
    ],
    positionsTotal: 2, pnlMicro: fields.pnlMicro, tickToTradeUsP50: 12.5, tickToTradeUsP99: 40, tickToTradeCount: 100, denies: {},
    feedState: 'open', strategies: [{ id: 'mm', status: 'running' }, { id: 'taker', status: 'faulted' }], killSwitch: fields.killSwitch, fleet,
  };
  return { ...status, publishedMs: Date.now() - 250 };
}

async function publishFleet(): Promise<void> {
  await publishStatus(publisher, 'rt-alpha', snapshotOf('rt-alpha', { sharePpm: 600_000, openOrders: 4, pnlMicro: -1_250_000, killSwitch: null, kill: null }), 60_000);
}

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  redis = await startTestRedis();
  publisher = openFleetRedis(redis.url, { commandTimeoutMs: 1_000, connectTimeoutMs: 1_000, reconnectMaxMs: 100, onError: () => {} });
  expect(await connectFleetRedis(publisher)).toBe(true);
  await publishFleet();
  // rt-bravo: killed account-wide, then gone (its status key deleted: its hash entry stays).
  const kill = killRecord(true, 'max loss', 'cli ops@desk', Date.now() - 5_000);
  await publishStatus(publisher, 'rt-bravo', snapshotOf('rt-bravo', { sharePpm: 0, openOrders: 0, pnlMicro: 2_000_000, killSwitch: { reason: 'max loss', source: 'fleet: cli ops@desk', sinceMs: kill.tsMs }, kill }), 60_000);
  await publisher.del(FleetKeys.status('rt-bravo'));
  await publisher.hset(FleetKeys.runtimes, 'rt-charlie', '{not json');

  const logSink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      done();
    },
  });
  const logger = createLogger({ level: 'info', pretty: false, destination: logSink });
  view = dashboardFleetView({ redisUrl: redis.url, runtimeName: 'rt-alpha', leaseTtlMs: 3_000, renewMs: 500 }, logger, 100)!;
  snapshots = new OperatorSnapshots(fakeSource().source, 50);
  dashboard = await DashboardServer.start({ host: '127.0.0.1', port: 0, token: TOKEN, snapshots, onKill: () => undefined, fleet: view });
  snapshots.start();
}, 30_000);

afterAll(async () => {
  snapshots?.stop();
  await dashboard?.stop(); // stops the fleet view and closes its connection
  publisher?.disconnect();
  await redis?.stop();
  // A rejection left unhandled by a closing connection would surface within a turn or two.
  await new Promise((resolve) => setTimeout(resolve, 200));
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
}, 30_000);

describe('the dashboard fleet page over Redis', () => {
  it('reads nothing while no client is connected', async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(view.stats.reads).toBe(0);
    expect(view.state).toBeNull();
  });

  it('lists every runtime with alive flag, share, kill state, orders, positions and PnL; survives Redis going away and coming back', async () => {
    const client = await connect();
    await waitUntil(() => lastFleet(client)?.reachable === true, 10_000, 'a fleet message from Redis');
    const fleet = lastFleet(client)!;
    expect(fleet.runtimesTotal).toBe(3);
    expect(fleet.runtimesAlive).toBe(1);
    expect(fleet.rowsOmitted).toBe(0);
    // Alive first, then by name.
    expect(fleet.rows.map((row) => [row.name, row.alive])).toEqual([['rt-alpha', true], ['rt-bravo', false], ['rt-charlie', false]]);
    const alpha = rowOf(fleet, 'rt-alpha')!;
    expect(alpha).toMatchObject({
      self: true, stopped: false, malformed: false, sharePpm: 600_000, leased: true, redisConnected: true, kill: null,
      openOrders: 4, positionsTotal: 2, pnlMicro: -1_250_000, strategiesTotal: 2,
      strategies: [{ id: 'mm', status: 'running' }, { id: 'taker', status: 'faulted' }],
    });
    // Fixed units as published; a half unit of marked PnL rounds to an integer.
    expect(alpha.topPositions).toEqual([
      { ticker: 'KXDEMO-A', subaccount: 1, position: 500, pnlMicro: -1_250_000 },
      { ticker: 'KXDEMO-B', subaccount: 1, position: -200, pnlMicro: 1 },
    ]);
    expect(alpha.publishedAgeMs).toBeGreaterThanOrEqual(250);
    const bravo = rowOf(fleet, 'rt-bravo')!;
    expect(bravo).toMatchObject({ alive: false, self: false, sharePpm: 0, leased: false, pnlMicro: 2_000_000, kill: { engaged: true, by: 'fleet: cli ops@desk', reason: 'max loss' } });
    expect(fleet.accountKill).toMatchObject({ engaged: true, by: 'cli ops@desk', reason: 'max loss' });
    // Unreadable: only its name and that it is not alive are known.
    expect(rowOf(fleet, 'rt-charlie')).toMatchObject({ alive: false, malformed: true, sharePpm: null, openOrders: null, pnlMicro: null, kill: null, strategies: [] });

    // Redis dies: the dashboard keeps pushing views and fleet messages, the latter unreachable.
    await redis.stop();
    await waitUntil(() => lastFleet(client)?.reachable === false, 10_000, 'the fleet reported unreachable');
    const views = client.messages.filter((m) => m.type === 'view').length;
    const fleets = fleetMessages(client).length;
    await waitUntil(() => client.messages.filter((m) => m.type === 'view').length >= views + 5 && fleetMessages(client).length >= fleets + 3, 10_000, 'pushes going on without Redis');
    const down = lastFleet(client)!;
    expect(down.reachable).toBe(false);
    expect(down.error).not.toBe('');
    expect(down.failures).toBeGreaterThanOrEqual(3);
    expect(down.rows.map((row) => row.name)).toEqual(['rt-alpha', 'rt-bravo', 'rt-charlie']); // the last rows read, marked stale
    const page = await fetch(`http://127.0.0.1:${dashboard.port}/?token=${TOKEN}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('id="fleet"');
    expect(logLines.filter((line) => line.includes('reading the fleet status failed'))).toHaveLength(1);

    // Back, empty: the fleet reads again once a runtime publishes.
    await redis.start();
    await waitUntil(async () => {
      if (publisher.status !== 'ready') return false;
      await publishFleet();
      return true;
    }, 10_000, 'the publisher reconnected');
    // A read may land between Redis's return and the publish (reachable, no rows yet): wait for the row.
    await waitUntil(() => lastFleet(client)?.reachable === true && lastFleet(client)!.rows.length > 0, 10_000, 'the fleet reachable again, with its runtime');
    expect(lastFleet(client)!.rows.map((row) => row.name)).toEqual(['rt-alpha']);
    expect(logLines.some((line) => line.includes('readable again'))).toBe(true);

    // Nobody watching: the reads stop (one may still be in flight).
    client.ws.close();
    await waitUntil(() => dashboard.stats.clients === 0, 5_000, 'the client gone');
    const reads = view.stats.reads;
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(view.stats.reads).toBeLessThanOrEqual(reads + 1);
    expect(dashboard.stats.fleetPushes).toBeGreaterThan(0);
  }, 60_000);
});

describe('fleet rows from untrusted snapshots', () => {
  it('reads fields of the wrong type as null and clips long text, without throwing', () => {
    const weird: Record<string, unknown> = {
      openOrders: '4', pnlMicro: Number.NaN, positions: 'many', strategies: [null, 7, { id: 'x'.repeat(1000), status: 3 }],
      killSwitch: 'yes', fleet: { sharePpm: Infinity, leased: 'true', redisConnected: 1, kill: { engaged: 'no' } }, publishedMs: 'now',
    };
    const row = fleetRow({ name: 'rt-weird', alive: true, snapshot: weird }, null, Date.now());
    expect(row).toMatchObject({ malformed: false, openOrders: null, pnlMicro: null, positionsTotal: null, topPositions: [], sharePpm: null, leased: null, redisConnected: null, kill: null, publishedAgeMs: null, strategiesTotal: 3 });
    expect(row.strategies).toHaveLength(1);
    expect(row.strategies[0]!.id.length).toBeLessThanOrEqual(120);
    expect(row.strategies[0]!.status).toBe('');
    const state = fleetState([{ name: 'rt-x', alive: false, snapshot: weird }, { name: 7, alive: true, snapshot: null } as never, null as never], null, Date.now(), 0);
    expect(state.accountKill).toBeNull();
    expect(state.rows.map((r) => r.name)).toEqual(['rt-x']);
  });

  it('shows at most FLEET_ROWS_MAX runtimes, alive ones first, and counts the rest', () => {
    const views = Array.from({ length: FLEET_ROWS_MAX + 44 }, (_, i) => ({ name: `rt-${String(i).padStart(4, '0')}`, alive: i >= FLEET_ROWS_MAX, snapshot: null }));
    const state = fleetState(views, null, Date.now(), 0);
    expect(state.rows).toHaveLength(FLEET_ROWS_MAX);
    expect(state.rowsOmitted).toBe(44);
    expect(state.runtimesAlive).toBe(44);
    expect(state.rows.slice(0, 44).every((row) => row.alive)).toBe(true);
  });

  it('counts a reader that throws or hangs as a failed read, one read in flight at most', async () => {
    let calls = 0;
    const errors: string[] = [];
    const hanging = new FleetView({
      read: () => {
        calls++;
        if (calls === 1) throw new Error('thrown synchronously');
        return new Promise<never>(() => undefined);
      },
      intervalMs: 20,
      readTimeoutMs: 100,
      onError: (_error, what) => errors.push(what),
    });
    const states: FleetState[] = [];
    hanging.onUpdate((state) => states.push(state));
    hanging.setWatched(true);
    await waitUntil(() => hanging.stats.timeouts >= 2, 5_000, 'two timed-out reads');
    hanging.stop();
    expect(hanging.stats.failures).toBe(hanging.stats.timeouts + 1);
    expect(hanging.stats.skipped).toBeGreaterThan(0); // ticks while a read hung
    expect(states.every((state) => !state.reachable)).toBe(true);
    expect(errors).toHaveLength(1); // one report for the whole outage
  });
});

/**
 * Goal: a failure never leaves orders behind or a process orphaned. A plugin's asynchronous error
 * (a rejected promise, a throw in its own timer) faults that plugin only: its orders are cancelled
 * and the other strategies keep trading. An error no plugin owns ends the run through the normal
 * stop path (cancel-all, summary, exit 1) and the venue has no resting orders afterwards. After a
 * SIGKILL the embedded simulator exits with its parent, and against a remote venue the order
 * watchdog cancels what the dead runtime left resting. A main job whose output pipes close (its
 * parent died) stops the same way instead of spinning on write errors.
 * Method: the main job as a child process against an in-process simulator (remote venue mode)
 * or its own embedded simulator; the fault-drill plugin (strategies/fault-drill.ts) fails on purpose.
 * The venue's resting orders are read over REST; every wait is bounded. Two lanes run concurrently,
 * each test of a lane after the one before: the in-process failures, and the SIGKILL cases on a
 * simulator of their own (each lane's runs keep their journal apart: it is named by the venue).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARKET, counterpartyKey, rest, startTestSim, waitUntil } from './helpers.ts';
import type { TestSim } from './helpers.ts';
import { isAlive, remoteConfig, removeJournal, runMainInTurn, statusLines, summaryOf, venueResting } from './main-process.ts';

const FAULTY = 'strategies/fault-drill.ts';
const maker = (subaccount: number): Record<string, unknown> => ({
  id: `mm-${subaccount}`, plugin: 'strategies/market-maker.ts', subaccount, markets: [MARKET], params: { halfSpreadTicks: 2, fairValue: '0.5000' },
});
const faulty = (id: string, mode: string, subaccount: number): Record<string, unknown> => ({
  id, plugin: FAULTY, subaccount, markets: [MARKET], params: { mode, delayMs: 1_500 },
});

/** The lanes' runs, each spawned once the one before has named its log file (never two runs on one log). */
const runMain = runMainInTurn();
/** Each test starts the main job up to four times; bounded well above its usual 3-15 s. */
const RUN_BOUND_MS = 120_000;
/** The venue of the in-process failures' lane. */
let sim: TestSim;
/** The venue of the SIGKILL lane. */
let watchdogSim: TestSim;

beforeAll(async () => {
  [sim, watchdogSim] = await Promise.all([startTestSim({ activity: { updatesPerSec: 20 } }), startTestSim({ activity: { updatesPerSec: 20 } })]);
});

afterAll(async () => {
  for (const venue of [sim, watchdogSim]) removeJournal(venue);
  await Promise.all([sim.close(), watchdogSim.close()]);
});

interface StrategyLine {
  id: string;
  status: string;
}

describe('failures end in the stop path', () => {
  describe.concurrent('in the process: faulted plugins, an unowned error, a closed output', () => {
    it.sequential('a rejected promise and a timer throw fault their plugins only; the maker keeps trading', async () => {
      const config = remoteConfig(sim, 'contained', {
        venue: { orderWatchdog: false },
        strategies: [maker(1), faulty('async', 'async-reject', 2), faulty('timer', 'timer-throw', 3)],
      });
      let restingWhileFaulted: string[][] | null = null;
      let stopping = false;
      const run = await runMain(['--config', config.path], {
        env: config.env,
        timeoutMs: 60_000,
        onLine: (line, child) => {
          if (stopping || !line.startsWith('{"event":"status"')) return;
          const status = JSON.parse(line) as { strategies: StrategyLine[] };
          const byId = new Map(status.strategies.map((s) => [s.id, s.status]));
          if (byId.get('async') !== 'faulted' || byId.get('timer') !== 'faulted') return;
          stopping = true;
          // Read the venue while the process still runs, then stop it.
          void Promise.all([venueResting(sim, 1), venueResting(sim, 2), venueResting(sim, 3)]).then((views) => {
            restingWhileFaulted = views;
            child.kill('SIGINT');
          });
        },
      });
      expect(run.code, run.stderr).toBe(0);
      // Both instances run the same module, and a stack names code, not an instance: both are charged.
      expect(run.stderr).toContain('unhandledRejection in plugin code, strategies [async, timer] faulted (their orders cancelled): faulty plugin: async rejection');
      expect(run.stderr).toContain('uncaughtException in plugin code, strategies [async, timer] faulted (their orders cancelled): faulty plugin: timer threw');
      expect(restingWhileFaulted).not.toBeNull();
      const [makerOrders, asyncOrders, timerOrders] = restingWhileFaulted!;
      expect(makerOrders.length).toBeGreaterThanOrEqual(1); // the maker still quotes
      expect(asyncOrders).toEqual([]);
      expect(timerOrders).toEqual([]);
      const last = statusLines(run).at(-1)!.strategies as StrategyLine[];
      expect(last.find((s) => s.id === 'mm-1')?.status).toBe('running');
      expect(summaryOf(run)).toMatchObject({ reason: 'SIGINT', openOrdersAfterStop: 0 });
      expect(await venueResting(sim, 1)).toEqual([]);
    }, RUN_BOUND_MS);

    it.sequential('an error no plugin owns stops the run: cancel-all, summary, exit 1, nothing resting', async () => {
      const config = remoteConfig(sim, 'unattributed', {
        venue: { orderWatchdog: false },
        strategies: [maker(4), faulty('stringly', 'timer-throw-string', 5)],
      });
      const run = await runMain(['--config', config.path], { env: config.env, timeoutMs: 60_000 });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain('fatal uncaughtException: faulty plugin: a string, no stack');
      const summary = summaryOf(run)!;
      expect(String(summary.reason)).toMatch(/^crash \(uncaughtException\)/);
      expect(summary).toMatchObject({ openOrdersAfterStop: 0 });
      expect(summary.ordersSent as number).toBeGreaterThanOrEqual(2);
      expect(await venueResting(sim, 4)).toEqual([]);
      expect(await venueResting(sim, 5)).toEqual([]);
    }, RUN_BOUND_MS);

    it.sequential('when the reader of its output goes away, it stops through the stop path instead of spinning', async () => {
      const config = remoteConfig(sim, 'epipe', { venue: { orderWatchdog: false }, strategies: [maker(7)] });
      let closed = false;
      const run = await runMain(['--config', config.path], {
        env: config.env,
        timeoutMs: 60_000,
        onLine: (line, child) => {
          if (closed || !line.startsWith('{"event":"status"')) return;
          if ((JSON.parse(line) as { openOrders: number }).openOrders >= 2) {
            closed = true;
            // The parent that read its output is gone: both pipes close under the writer.
            child.stdout!.destroy();
            child.stderr!.destroy();
          }
        },
      });
      expect(closed).toBe(true);
      expect(run.code).toBe(1);
      expect(await venueResting(sim, 7)).toEqual([]);
    }, RUN_BOUND_MS);
  });

  describe.concurrent('after SIGKILL: the order watchdog, the embedded simulator', () => {
    it.sequential('after SIGKILL against a remote venue, the order watchdog cancels what was left resting', async () => {
      const config = remoteConfig(watchdogSim, 'sigkill', { strategies: [maker(6)] });
      let killedAtMs = 0;
      const run = await runMain(['--config', config.path], {
        env: config.env,
        timeoutMs: 60_000,
        onLine: (line, child) => {
          if (killedAtMs !== 0 || !line.startsWith('{"event":"status"')) return;
          if ((JSON.parse(line) as { openOrders: number }).openOrders >= 2) {
            killedAtMs = Date.now();
            child.kill('SIGKILL');
          }
        },
      });
      expect(run.signal).toBe('SIGKILL');
      expect(run.stderr).toContain('order watchdog armed');
      await waitUntil(async () => (await venueResting(watchdogSim, 6)).length === 0, 15_000, 'the watchdog cancelled every order');
      // How long orders outlived the process (the README quotes this figure from a run).
      process.stderr.write(`order watchdog: venue empty ${Date.now() - killedAtMs} ms after SIGKILL\n`);
    }, RUN_BOUND_MS);

    it.sequential('after SIGKILL of a runtime trading Margin too, the watchdog cancels on both exchanges', async () => {
      // A perpetual to buy from and rest behind (the test simulator lays no Margin liquidity).
      const cp = counterpartyKey(watchdogSim, 'crash-margin-cp');
      const body = { ticker: 'KXBTCPERP', client_order_id: `cp-crash-${Date.now()}`, side: 'ask', count: '5.00', price: '100.1000', time_in_force: 'good_till_canceled', self_trade_prevention_type: 'taker_at_cross' };
      expect((await rest(watchdogSim, cp, 'POST', '/margin/orders', body)).status).toBe(201);
      expect((await rest(watchdogSim, cp, 'POST', '/margin/orders', { ...body, client_order_id: `${body.client_order_id}-b`, side: 'bid', price: '99.9000' })).status).toBe(201);
      const marginResting = (): number => watchdogSim.services.margin.orderList.filter((order) => order.userId === watchdogSim.userId && order.subaccount === 9 && order.status === 'resting').length;
      const config = remoteConfig(watchdogSim, 'sigkill-margin', {
        margin: { enabled: true },
        risk: { rateLimitTier: 'prime', maxOrderNotionalDollars: '1000.00' },
        strategies: [{ id: 'both', plugin: 'strategies/cross-exchange.ts', subaccount: 9, markets: [MARKET, 'KXBTCPERP'], params: { size: '1.00', restTicksBelow: 3 } }],
      });
      let killed = false;
      const run = await runMain(['--config', config.path], {
        env: config.env,
        timeoutMs: 60_000,
        onLine: (line, child) => {
          if (killed || !line.startsWith('{"event":"status"')) return;
          if ((JSON.parse(line) as { openOrders: number }).openOrders >= 2 && marginResting() >= 1) {
            killed = true;
            child.kill('SIGKILL');
          }
        },
      });
      expect(killed, 'killed by the test once a bid rested on each exchange (not by the run bound)').toBe(true);
      expect(run.signal).toBe('SIGKILL');
      await waitUntil(async () => marginResting() === 0 && (await venueResting(watchdogSim, 9)).length === 0, 15_000, 'the watchdog cancelled on both exchanges');
    }, RUN_BOUND_MS);

    it.sequential('after SIGKILL of the main job, its embedded simulator exits too', async () => {
      let killed = false;
      const run = await runMain(['--config', 'config/runtime.json'], {
        timeoutMs: 60_000,
        onLine: (line, child) => {
          if (killed || !line.startsWith('{"event":"status"')) return;
          killed = true;
          child.kill('SIGKILL');
        },
      });
      expect(run.signal).toBe('SIGKILL');
      const simPid = Number(/\(pid (\d+),/.exec(run.stderr)?.[1]);
      expect(simPid).toBeGreaterThan(0);
      await waitUntil(() => !isAlive(simPid), 10_000, `the simulator (pid ${simPid}) to exit`);
    }, RUN_BOUND_MS);
  });
});

/**
 * Goal: a normal stop never disables the next start, while a kill switch engaged by the operator
 * persists across restarts: the next start refuses to trade (exit 3) and says when, why and by
 * whom, and only `--release-kill-switch` releases it (journaled), after which the job trades.
 * Method: the main job as a user runs it (child process, remote venue mode so the journal is kept
 * across runs) against an in-process simulator, with the shipped config's shape (market maker in
 * an order group); status lines, stderr, exit codes, the journal file and the venue's resting
 * orders are checked, and the modes of the log and journal files. Every run is bounded in time.
 * The tests run concurrently: the kill switch test on a simulator of its own (so its journal, which
 * the kill switch persists in, is apart from the others'); the modes test reads the files of the
 * stop test's first run (one run fewer), or starts that run itself when it runs alone. A run's
 * orders go out when its strategies start, before `--duration` counts, or once the write budget
 * allows (a create may wait in the router's hold right after start, while the account's budget is
 * adopted): the runs that must show an order sent take 3 s (a CI rehearsal saw 0 sent in 1 s once,
 * under load), the others 1 s.
 */

import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARKET, ROOT_DIR, startTestSim } from './helpers.ts';
import type { TestSim } from './helpers.ts';
import type { MainRun } from './main-process.ts';
import { remoteConfig, remoteJournalPath, removeJournal, runMainInTurn, statusLines, summaryOf, venueResting } from './main-process.ts';

const SUB = 1;
/** The tests' runs, each spawned once the one before has named its log file (never two runs on one log). */
const runMain = runMainInTurn();
/** Each test starts the main job up to four times; bounded well above its usual 3-15 s. */
const RUN_BOUND_MS = 120_000;
/** The stop tests' venue. */
let sim: TestSim;
/** The kill switch test's venue: its own journal, so an engaged kill switch never refuses the stop tests' runs. */
let killSim: TestSim;

beforeAll(async () => {
  [sim, killSim] = await Promise.all([startTestSim({ activity: { updatesPerSec: 20 } }), startTestSim({ activity: { updatesPerSec: 20 } })]);
});

afterAll(async () => {
  for (const venue of [sim, killSim]) removeJournal(venue);
  await Promise.all([sim.close(), killSim.close()]);
});

function makerConfig(venue: TestSim, name: string): { path: string; env: Record<string, string> } {
  return remoteConfig(venue, name, {
    venue: { orderWatchdog: false },
    strategies: [{ id: 'mm-demo', plugin: 'strategies/market-maker.ts', subaccount: SUB, orderGroup: { contractsLimit: '1000.00' }, markets: [MARKET], params: { halfSpreadTicks: 2, fairValue: '0.5000' } }],
  });
}

/** The stop test's config, written once (never rewritten under a run that reads it). */
let stopConfig: { path: string; env: Record<string, string> } | null = null;
const stopConfigOnce = (): { path: string; env: Record<string, string> } => (stopConfig ??= makerConfig(sim, 'stop'));
/** The stop test's first run, made once: the modes test reads the files it wrote. */
let firstStop: Promise<MainRun> | null = null;
function firstStopRun(): Promise<MainRun> {
  const config = stopConfigOnce();
  firstStop ??= runMain(['--config', config.path, '--duration', '3'], { env: config.env, timeoutMs: 60_000 });
  return firstStop;
}

describe.concurrent('stop and kill switch across restarts', () => {
  it('a normal stop leaves the next start trading', async () => {
    const config = stopConfigOnce();
    for (const attempt of [1, 2]) {
      const run = attempt === 1 ? await firstStopRun() : await runMain(['--config', config.path, '--duration', '3'], { env: config.env, timeoutMs: 60_000 });
      expect(run.code, `run ${attempt}: ${run.stderr}`).toBe(0);
      const summary = summaryOf(run)!;
      expect(summary).toMatchObject({ reason: 'duration 3s', openOrdersAfterStop: 0 });
      // The message carries what the run said (the 0 seen once), to tell why if it comes back.
      expect(summary.ordersSent as number, `run ${attempt}: ${JSON.stringify({ ordersSent: summary.ordersSent, denies: summary.denies, oms: summary.oms })}\n${run.stderr.slice(-2_000)}`).toBeGreaterThanOrEqual(1);
      expect(summary.denies).not.toHaveProperty('KILL_SWITCH');
    }
    expect(await venueResting(sim, SUB)).toEqual([]);
  }, RUN_BOUND_MS);

  it('keeps order flow private: logs and the journal are 0600 in 0700 folders', async () => {
    const run = await firstStopRun();
    expect(run.code, run.stderr).toBe(0);
    const logPath = join(ROOT_DIR, /^logs: (\S+)$/m.exec(run.stderr)![1]);
    for (const file of [logPath, remoteJournalPath(sim)]) {
      expect((statSync(file).mode & 0o777).toString(8), file).toBe('600');
      expect((statSync(dirname(file)).mode & 0o777).toString(8), dirname(file)).toBe('700');
    }
  }, RUN_BOUND_MS);

  it('SIGUSR2 engages a kill switch that a restart announces and only --release-kill-switch releases', async () => {
    const config = makerConfig(killSim, 'kill');
    let phase = 0;
    const killed = await runMain(['--config', config.path], {
      env: config.env,
      timeoutMs: 60_000,
      onLine: (line, child) => {
        if (!line.startsWith('{"event":"status"')) return;
        const status = JSON.parse(line) as { openOrders: number; killSwitch: unknown };
        if (phase === 0 && status.openOrders >= 1) {
          phase = 1;
          child.kill('SIGUSR2');
        } else if (phase === 1 && status.killSwitch !== null && status.openOrders === 0) {
          phase = 2;
          child.kill('SIGINT');
        }
      },
    });
    expect(killed.code, killed.stderr).toBe(0);
    expect(phase).toBe(2);
    expect(killed.stderr).toContain('SIGUSR2: kill switch engaged');
    expect(statusLines(killed).at(-1)?.killSwitch).toMatchObject({ reason: 'SIGUSR2', source: 'operator' });
    expect(await venueResting(killSim, SUB)).toEqual([]);

    // The next start refuses, loudly, naming the reason, the time and the way out.
    const refused = await runMain(['--config', config.path, '--duration', '1'], { env: config.env, timeoutMs: 60_000 });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('KILL SWITCH ENGAGED');
    expect(refused.stderr).toMatch(/engaged since \d{4}-\d\d-\d\dT[\d:.]+Z \(operator: SIGUSR2\)/);
    expect(refused.stderr).toContain('npm start -- --release-kill-switch');
    expect(refused.lines.filter((line) => line.startsWith('{"event":"status"'))).toEqual([]);

    // Released by the documented flag: journaled, and the job trades again.
    const released = await runMain(['--config', config.path, '--duration', '3', '--release-kill-switch'], { env: config.env, timeoutMs: 60_000 });
    expect(released.code, released.stderr).toBe(0);
    expect(released.stderr).toContain('kill switch: released');
    expect(summaryOf(released)!.ordersSent as number).toBeGreaterThanOrEqual(1);
    const journal = readFileSync(remoteJournalPath(killSim), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { k: string; source?: string; by?: string });
    expect(journal.filter((line) => line.k === 'kill')).toEqual([expect.objectContaining({ reason: 'SIGUSR2', source: 'operator' })]);
    expect(journal.filter((line) => line.k === 'release')).toEqual([expect.objectContaining({ by: expect.stringContaining('--release-kill-switch') })]);

    // Released means released: the start after that trades without the flag.
    const after = await runMain(['--config', config.path, '--duration', '1'], { env: config.env, timeoutMs: 60_000 });
    expect(after.code, after.stderr).toBe(0);
  }, RUN_BOUND_MS);
});

/**
 * Goal: how the main job ends. (1) When its embedded simulator dies under it (kill -9), the job
 * does not reconnect forever: it stops through the stop path, says on stderr that the simulator
 * exited and by which signal, reports the failed cancel-all instead of throwing it, prints its
 * summary and exits 1. (2) The summary's deny counts equal the last status line's: deny counts
 * live in the strategy instances, which the stop removes, and a summary read after the stop once
 * printed `"denies": {}` after a million denies.
 * Method: `src/runtime/main.ts` as a child process (test/integration/main-process.ts) on the
 * embedded simulator; the simulator's pid from the "simulator ready" line on stderr, killed with
 * SIGKILL once trading; a taker that crosses on every book update of a busy simulator collects
 * denies for a `--duration 4` run whose JSON status lines and summary are compared. Each run is
 * bounded (SIGKILL at the bound); the logs and journals the runs wrote are removed. The two runs
 * go concurrently (each with its own simulator child; runMainInTurn keeps their files apart).
 */

import { rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT_DIR, MARKET } from '../integration/helpers.ts';
import { isAlive, runMainInTurn, statusLines, summaryOf } from '../integration/main-process.ts';
import type { MainRun } from '../integration/main-process.ts';

const RUN_BOUND_MS = 120_000;
const work = mkdtempSync(join(tmpdir(), 'main-job-exit-'));
const created: string[] = [];
const runMain = runMainInTurn();

afterAll(() => {
  for (const file of created) rmSync(join(ROOT_DIR, file), { force: true });
  rmSync(work, { recursive: true, force: true });
});

/** The run's log files and journal, removed after the tests. */
function collect(run: MainRun): void {
  const log = /logs: (\S+)\n/.exec(run.stderr)?.[1];
  if (log !== undefined) created.push(log, log.replace('runtime-', 'sim-'));
  const journal = summaryOf(run)?.journal;
  if (typeof journal === 'string') created.push(journal);
}

describe.concurrent('the main job', () => {
  it('stops with exit 1, naming the signal, when its embedded simulator is killed', async () => {
    let simPid = -1;
    const run = await runMain(['--config', 'config/runtime.json', '--json'], {
      timeoutMs: RUN_BOUND_MS,
      onStderr: (stderr) => {
        if (simPid > 0 || !stderr.includes('trading: ')) return;
        simPid = Number(/simulator ready at \S+ \(pid (\d+),/.exec(stderr)?.[1] ?? -1);
        if (simPid <= 0) return;
        process.kill(simPid, 'SIGKILL');
      },
    });
    collect(run);
    expect(simPid, run.stderr).toBeGreaterThan(0);
    expect(isAlive(simPid)).toBe(false);
    // Ended by itself (not by the bound's SIGKILL), through the stop path, with exit 1.
    expect(run.signal, run.stderr).toBeNull();
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(`the embedded simulator (pid ${simPid}) exited unexpectedly with signal SIGKILL`);
    expect(run.stderr).toContain('stopping (simulator exited with signal SIGKILL): cancelling every order...');
    expect(run.stderr).toContain('cancel-all and reconcile failed: the simulator is gone (signal SIGKILL)');
    expect(run.stderr).not.toContain('fatal');
    const summary = summaryOf(run);
    expect(summary?.reason).toBe('simulator exited with signal SIGKILL');
  }, RUN_BOUND_MS + 10_000);

  it("prints the last status line's deny counts in the summary", async () => {
    const config = join(work, 'denies.json');
    // Crossing on every update of a busy book, alternating sides: its own resting orders deny some.
    writeFileSync(config, JSON.stringify({
      venue: { mode: 'embedded' },
      sim: { activityUpdatesPerSec: 500 },
      risk: { rateLimitTier: 'basic' },
      strategies: [{ id: 'taker', plugin: 'strategies/taker.ts', subaccount: 3, markets: [MARKET], params: { everyBookUpdates: 1, maxOrders: 1_000_000, side: 'alternate' } }],
    }));
    const run = await runMain(['--config', config, '--duration', '4', '--json'], { timeoutMs: RUN_BOUND_MS });
    collect(run);
    expect(run.code, run.stderr).toBe(0);
    const statuses = statusLines(run);
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    const lastDenies = statuses.at(-1)!.denies as Record<string, number>;
    const total = Object.values(lastDenies).reduce((sum, count) => sum + count, 0);
    expect(total, JSON.stringify(lastDenies)).toBeGreaterThan(0);
    const summary = summaryOf(run);
    expect(summary?.denies).toEqual(lastDenies);
  }, RUN_BOUND_MS + 10_000);
});

/**
 * Goal: every npm script that takes arguments (start, sim, replay, bench, clearing, soak) answers
 * --help with its options, one line each, and exit 0, without starting anything; an unknown
 * argument exits 2 and names the nearest valid one. The shared option table
 * (src/core/cli-options.ts) parses values, flags and positionals, and suggests only near names.
 * Method: table-driven calls of the helper; each script spawned as `node --import tsx <script>`,
 * tsx's loader in the script's own process, as its npm script's `tsx <script>` runs it, without the
 * tsx command's extra parent process; the spawns run concurrently, each bounded (SIGKILL at the bound).
 */

import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CliUsageError, editDistance, helpText, nearestName, parseCli } from '../../src/core/index.ts';
import type { CliCommand } from '../../src/core/index.ts';
import { ROOT_DIR } from '../integration/helpers.ts';

const SPAWN_BOUND_MS = 60_000;

function run(script: string, args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), SPAWN_BOUND_MS);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const SCRIPTS: { name: string; script: string; options: string[]; typo: string; nearest: string }[] = [
  { name: 'start', script: 'src/runtime/main.ts', options: ['--config', '--venue', '--duration', '--release-kill-switch', '--json'], typo: '--durtion', nearest: '--duration' },
  { name: 'sim', script: 'src/sim/main.ts', options: ['--port', '--host', '--seed', '--markets', '--faults', '--activity-rate', '--keys-dir', '--log-level', '--probe', '--fix', '--exit-with-stdin', '--liquidity', '--no-liquidity'], typo: '--seeed', nearest: '--seed' },
  { name: 'replay', script: 'src/replay/main.ts', options: ['--config', '--json', '--order-latency-us', '--answer-latency-us', '--feed-latency-us', '--queue', '--queue-live', '--seed', '--frames', '--measure'], typo: '--frame', nearest: '--frames' },
  { name: 'clearing', script: 'src/clearing/main.ts', options: ['--csv', '--url', '--credential-file', '--timeout-ms'], typo: '--cvs', nearest: '--csv' },
  { name: 'bench', script: 'bench/run.ts', options: ['--quick', '--strict'], typo: '--quik', nearest: '--quick' },
  { name: 'soak', script: 'bench/soak/soak.ts', options: ['--minutes', '--cycle-sec', '--rate', '--seed'], typo: '--minuts', nearest: '--minutes' },
];

describe.concurrent.each(SCRIPTS)('npm run $name', ({ script, options, typo, nearest }) => {
  it('--help lists every option, one line each, and exits 0', async () => {
    const { code, stdout, stderr } = await run(script, ['--help']);
    expect(code, stderr).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(/^usage: npm (start|run)/);
    for (const option of [...options, '--help']) {
      expect(lines.filter((line) => new RegExp(`^  (-h, )?${option}( |$)`).test(line)), `${option} in:\n${stdout}`).toHaveLength(1);
    }
  }, SPAWN_BOUND_MS + 5_000);

  it('an unknown argument exits 2 naming the nearest valid one', async () => {
    const { code, stderr } = await run(script, [typo, '1']);
    expect(code, stderr).toBe(2);
    expect(stderr).toContain(`unknown argument "${typo}"; did you mean ${nearest}?`);
  }, SPAWN_BOUND_MS + 5_000);
});

const COMMAND: CliCommand = {
  usage: 'usage: test [options] [name ...]',
  positional: { name: 'name', help: 'names', countMax: 2 },
  options: [
    { name: '--duration', value: '<seconds>', help: 'how long' },
    { name: '--json', help: 'machine output' },
  ],
};

describe('parseCli', () => {
  it('reads values (spaced or with =), flags and positionals', () => {
    const parsed = parseCli(['a', '--duration', '3', '--json', 'b'], COMMAND);
    expect([parsed.help, [...parsed.values], [...parsed.flags], parsed.positional]).toEqual([false, [['--duration', '3']], ['--json'], ['a', 'b']]);
    expect([...parseCli(['--duration=5'], COMMAND).values]).toEqual([['--duration', '5']]);
  });

  it.each([
    [['--durtion', '3'], 'unknown argument "--durtion"; did you mean --duration?'],
    [['--bogus'], 'unknown argument "--bogus"; valid: --duration, --json, --help'],
    [['--duration'], '--duration needs a value'],
    [['--duration', '--json'], '--duration needs a value'],
    [['--json=1'], '--json takes no value'],
    [['a', 'b', 'c'], 'at most 2 name arguments'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCli(argv, COMMAND)).toThrowError(CliUsageError);
    expect(() => parseCli(argv, COMMAND)).toThrowError(message);
  });

  it('with --help or -h anywhere it does not throw', () => {
    expect(parseCli(['--bogus', '--help'], COMMAND).help).toBe(true);
    expect(parseCli(['-h'], COMMAND).help).toBe(true);
  });

  it('help text has one line per option and positional', () => {
    const lines = helpText(COMMAND).split('\n');
    expect(lines).toEqual(['usage: test [options] [name ...]', '', '  name                  names', '  --duration <seconds>  how long', '  --json                machine output', '  -h, --help            print these options and exit']);
  });
});

describe('nearestName', () => {
  it.each([
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
    ['--csv', '--cvs', 2],
    ['same', 'same', 0],
  ])('editDistance(%s, %s) = %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });

  it('suggests only a near name', () => {
    expect(nearestName('--durtion', ['--config', '--duration'])).toBe('--duration');
    expect(nearestName('obligatons', ['obligations', 'funding-estimate'])).toBe('obligations');
    expect(nearestName('--bogus', ['--config', '--venue', '--duration', '--json'])).toBeNull();
  });
});

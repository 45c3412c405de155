/**
 * Goal: `npm start` on a terminal shows the status table and redraws it in place once a second;
 * with `--json` the same terminal gets JSON status lines instead.
 * Method: the main job (node --import tsx src/runtime/main.ts) under a pseudo-terminal made by
 * util-linux `script` (sized 120x50 with stty), against its embedded simulator, for a bounded
 * --duration; the test reads the terminal's output bytes: the table's header line, the cursor-up
 * sequence that moves back over the last drawing, and the elapsed seconds advancing between
 * drawings; with --json and telemetry.metrics on, JSON lines and a scrape of the URL it prints.
 * Skipped where `script` is missing. Bounded: SIGKILL after 60 s. The two runs go concurrently, each
 * with its own simulator child; the second is spawned once the first has named its log file, as
 * main.ts names a run's files by the millisecond it reads the clock just before that line.
 */

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT_DIR = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const MARKET = 'KXDEMO-26DEC31-T50';
const RUN_BOUND_MS = 60_000;
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
const work = mkdtempSync(join(tmpdir(), 'status-tty-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Settles once the last run spawned has named its log file or exited: the next one may start. */
let previousNamed: Promise<void> = Promise.resolve();

/** Runs the main job under a pseudo-terminal, once the run before it named its files; resolves with everything the terminal received. */
async function runOnTerminal(args: readonly string[], onOutput?: (output: string) => void): Promise<{ code: number | null; output: string }> {
  const before = previousNamed;
  let named!: () => void;
  previousNamed = new Promise<void>((resolve) => {
    named = resolve;
  });
  await before;
  const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
  const command = `stty cols 120 rows 50; exec ${[process.execPath, '--import', 'tsx', 'src/runtime/main.ts', ...args].map(quote).join(' ')}`;
  // stdin stays an open pipe: script ends the session when its input reaches end of file.
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { cwd: ROOT_DIR, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TERM: 'xterm' } });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    if (output.includes('logs: ')) named();
    onOutput?.(output);
  });
  child.stderr.resume();
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_BOUND_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      named();
      child.stdin.destroy();
      done({ code, output });
    });
  });
}

function writeConfig(name: string, more: Record<string, unknown> = {}): string {
  const path = join(work, `${name}.json`);
  writeFileSync(path, JSON.stringify({
    ...more,
    sim: { activityUpdatesPerSec: 50 },
    risk: { rateLimitTier: 'prime' },
    strategies: [{ id: 'mm', plugin: 'strategies/market-maker.ts', subaccount: 3, markets: [MARKET], params: { halfSpreadTicks: 2, fairValue: '0.5000' } }],
  }));
  return path;
}

describe.skipIf(!hasScript).concurrent('status on a terminal', () => {
  it('draws the table and redraws it in place every second', async () => {
    const run = await runOnTerminal(['--config', writeConfig('table'), '--duration', '4']);
    expect(run.code).toBe(0);
    const drawings = run.output.split('\x1b[2Ktrading ').slice(1);
    expect(drawings.length).toBeGreaterThanOrEqual(3);
    // Every drawing after the first starts by moving the cursor up over the previous one.
    const redraws = run.output.match(/\x1b\[(\d+)A\r\x1b\[2Ktrading /g) ?? [];
    expect(redraws.length).toBe(drawings.length - 1);
    const height = Number(/\x1b\[(\d+)A\r/.exec(run.output)![1]);
    expect(height).toBeGreaterThanOrEqual(10);
    // Elapsed seconds advance from one drawing to the next.
    const seconds = drawings.map((drawing) => Number(/^(\d+)s /.exec(drawing)![1]));
    expect(seconds.at(-1)!).toBeGreaterThan(seconds[0]);
    const last = drawings.at(-1)!;
    expect(last).toMatch(/books synced 1\/1 {2}feed open/);
    expect(last).toContain('sessions  feed open');
    expect(last).toMatch(/orders {4}open \d+ {2}sent \d+ {2}fills \d+ {2}PnL -?\$\d+\.\d{4}/);
    expect(last).toMatch(/\x1b\[2Kmm +running +3 /);
    // No JSON status lines on a terminal; the summary follows the table, indented for a person.
    expect(run.output).not.toContain('{"event":"status"');
    expect(run.output).toContain('"event": "summary"');
  }, RUN_BOUND_MS + 5_000);

  it('prints JSON status lines on the terminal with --json, and serves metrics when enabled', async () => {
    let scraped: Promise<string> | null = null;
    const config = writeConfig('json', { telemetry: { metrics: { enabled: true, host: '127.0.0.1', port: 0 } } });
    const run = await runOnTerminal(['--config', config, '--duration', '3', '--json'], (output) => {
      const url = /metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(output)?.[1];
      if (url !== undefined && scraped === null) scraped = fetch(url, { signal: AbortSignal.timeout(5_000) }).then((response) => response.text());
    });
    expect(run.code).toBe(0);
    const statuses = run.output.split(/\r?\n/).filter((line) => line.startsWith('{"event":"status"'));
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(statuses.at(-1)!)).toMatchObject({ event: 'status', books: { synced: 1, total: 1 } });
    expect(run.output).not.toContain('\x1b[2Ktrading ');
    expect(run.output).toContain('{"event":"summary"');
    // The main job printed the metrics URL and served the text format there while trading.
    expect(scraped).not.toBeNull();
    const text = await scraped!;
    expect(text).toContain('# TYPE trading_hop_latency_seconds histogram');
    expect(text).toMatch(/^trading_books_synced\{runtime="[^"]+"\} 1$/m);
  }, RUN_BOUND_MS + 5_000);
});

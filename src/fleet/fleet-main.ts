/**
 * The fleet's CLI: `npm run fleet -- kill|release|status [--redis URL] [--reason TEXT]`.
 *   kill     engages the account-wide kill switch (every runtime cancels and halts; persisted)
 *   release  releases it (every runtime releases its local kill switch, journaled)
 *   status   prints every runtime that published a status, alive or not (--json: one JSON line each)
 * The Redis URL comes from --redis, else FLEET_REDIS_URL, else redis://127.0.0.1:6379.
 * Exit codes: 0 done, 1 Redis unreachable or failed, 2 usage.
 */

import { userInfo, hostname } from 'node:os';
import { killRecord, publishKillRecord, readKillRecord } from './kill-switch.ts';
import { readFleetStatus } from './fleet-status.ts';
import type { FleetRuntimeView } from './fleet-status.ts';
import { connectFleetRedis, openFleetRedis } from './redis-connection.ts';

const USAGE = 'usage: npm run fleet -- kill|release|status [--redis URL] [--reason TEXT] [--json]';

interface FleetArgs {
  command: 'kill' | 'release' | 'status';
  redisUrl: string;
  reason: string;
  json: boolean;
}

function parseArgs(argv: readonly string[]): FleetArgs | string {
  const command = argv[0];
  if (command !== 'kill' && command !== 'release' && command !== 'status') return USAGE;
  const args: FleetArgs = { command, redisUrl: process.env.FLEET_REDIS_URL ?? 'redis://127.0.0.1:6379', reason: 'operator: npm run fleet', json: false };
  for (let i = 1; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--json') args.json = true;
    else if ((flag === '--redis' || flag === '--reason') && i + 1 < argv.length) {
      if (flag === '--redis') args.redisUrl = argv[++i]!;
      else args.reason = argv[++i]!;
    } else return `unknown or incomplete option ${flag}\n${USAGE}`;
  }
  return args;
}

function line(view: FleetRuntimeView): string {
  const s = view.snapshot ?? {};
  const fleet = (s.fleet ?? {}) as Record<string, unknown>;
  const kill = s.killSwitch === null || s.killSwitch === undefined ? 'no' : 'ENGAGED';
  const strategies = Array.isArray(s.strategies) ? (s.strategies as { id: string; status: string }[]).map((x) => `${x.id}:${x.status}`).join(',') : '';
  const positions = Array.isArray(s.positions) ? s.positions.length : 0;
  const pnl = typeof s.pnlMicro === 'number' ? (s.pnlMicro / 1e6).toFixed(2) : '?';
  const share = typeof fleet.sharePpm === 'number' ? `${(fleet.sharePpm / 10_000).toFixed(1)}%` : '?';
  const state = view.alive ? 'alive' : s.stopped === true ? 'stopped' : 'dead';
  return `${view.name.padEnd(24)} ${state.padEnd(7)} share ${share.padStart(6)}  orders ${String(s.openOrders ?? '?').padStart(4)}  positions ${positions}  pnl $${pnl}  kill ${kill}  ${strategies}`;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (typeof args === 'string') {
    process.stderr.write(`${args}\n`);
    return 2;
  }
  const redis = openFleetRedis(args.redisUrl, { commandTimeoutMs: 2_000, connectTimeoutMs: 2_000, reconnectMaxMs: 500, onError: () => {} });
  try {
    if (!(await connectFleetRedis(redis))) {
      process.stderr.write(`fleet: Redis at ${args.redisUrl} is unreachable\n`);
      return 1;
    }
    const by = `cli ${userInfo().username}@${hostname()}`;
    if (args.command === 'status') {
      const kill = await readKillRecord(redis);
      const views = await readFleetStatus(redis);
      if (args.json) {
        for (const view of views) process.stdout.write(`${JSON.stringify(view)}\n`);
        process.stdout.write(`${JSON.stringify({ kill })}\n`);
      } else {
        process.stdout.write(`kill switch: ${kill === null ? 'never set' : kill.engaged ? `ENGAGED by ${kill.by}: ${kill.reason}` : `released by ${kill.by}`}\n`);
        for (const view of views) process.stdout.write(`${line(view)}\n`);
        if (views.length === 0) process.stdout.write('no runtime has published a status\n');
      }
      return 0;
    }
    const engaged = args.command === 'kill';
    await publishKillRecord(redis, killRecord(engaged, args.reason, by, Date.now()));
    process.stdout.write(`fleet: kill switch ${engaged ? 'engaged' : 'released'} (${by})\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`fleet: ${(error as Error).message}\n`);
    return 1;
  } finally {
    redis.disconnect();
  }
}

process.exitCode = await main();

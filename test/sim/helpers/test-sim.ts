// Test helper (not a test): starts an in-process simulator on 127.0.0.1 port 0 with a private
// temporary keys directory and a silent logger, and the order templates tests share.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startSim, type SimHandle, type StartSimOptions } from '../../../src/sim/index.ts';

export const MARKET = 'KXDEMO-26DEC31-T50';
export const MARKET_2 = 'KXHIGHNY-26DEC31-T40';

export async function startTestSim(options: StartSimOptions = {}): Promise<SimHandle & { keysDir: string }> {
  const keysDir = mkdtempSync(join(tmpdir(), 'sim-keys-'));
  const sim = await startSim({ keysDir, logger: pino({ level: 'silent' }), ...options });
  const close = sim.close.bind(sim);
  return Object.assign(sim, {
    keysDir,
    close: async () => {
      await close();
      rmSync(keysDir, { recursive: true, force: true });
    },
  });
}

let counter = 0;

/** A V2 create body; override any field. */
export function order(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter++;
  return {
    ticker: MARKET,
    client_order_id: `test-${process.pid}-${counter}`,
    side: 'bid',
    count: '10',
    price: '0.40',
    time_in_force: 'good_till_canceled',
    self_trade_prevention_type: 'taker_at_cross',
    ...overrides,
  };
}

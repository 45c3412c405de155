/**
 * Goal: applyEagerTierUp makes V8 optimize a function after far fewer calls than its default, in
 * the process that applies it.
 * Method: a child node (--allow-natives-syntax, synchronous compilation) counts the calls a small
 * function needs to reach TurboFan code, once with the eager tier-up and once without.
 */

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'tier-up-child.mjs');

function callsToOptimize(mode: 'eager' | 'default'): number {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--allow-natives-syntax', '--no-concurrent-recompilation', CHILD, mode], { timeout: 20_000 }).toString();
  return (JSON.parse(out) as { calls: number }).calls;
}

describe('eager JIT tier-up', () => {
  it('optimizes a hot function after a fraction of the calls V8 needs by default', () => {
    const eager = callsToOptimize('eager');
    const standard = callsToOptimize('default');
    expect(standard).toBeLessThan(100_000); // the default does optimize it, later
    expect(eager * 4).toBeLessThan(standard);
  });
});

/**
 * Goal: applyEagerTierUp passes only flags the running V8 knows, and makes V8 optimize a hot
 * function after about as few calls as Node 20 did with --interrupt-budget=2048, in the process
 * that applies it, on every supported Node (CI runs this file on Node 20 and 24).
 * Method: the running Node's table entry is checked against `node --v8-options` (name and integer
 * type of every flag), every entry against config/README.md; a child node (--allow-natives-syntax, synchronous compilation) counts the
 * calls two small functions need to reach TurboFan, once with the eager tier-up and once without.
 */

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EAGER_TIER_UP_FLAGS, eagerTierUpFlags } from '../../src/runtime/jit-tier-up.ts';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'tier-up-child.mjs');

/** Calls to TurboFan on Node 20.20 with --interrupt-budget=2048 (the fixture's two functions). */
const NODE20_EAGER_CALLS = { loop: 6, gate: 80 } as const;

function callsToOptimize(mode: 'eager' | 'default', fn: 'loop' | 'gate'): number {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--allow-natives-syntax', '--no-concurrent-recompilation', CHILD, mode, fn], { timeout: 20_000 }).toString();
  return (JSON.parse(out) as { calls: number }).calls;
}

/** Flag name -> type ('int', 'bool', ...) as listed by this Node's `--v8-options`. */
function v8OptionTypes(): Map<string, string> {
  const text = execFileSync(process.execPath, ['--v8-options'], { timeout: 20_000, maxBuffer: 16 * 1024 * 1024 }).toString();
  const types = new Map<string, string>();
  for (const match of text.matchAll(/^\s+--([a-z0-9-]+) \(.*\)\n\s+type: (\w+)/gm)) types.set(match[1]!, match[2]!);
  return types;
}

describe('eager JIT tier-up flags', () => {
  it(`has an entry for this Node's V8 (${process.versions.v8}), every flag known to it as an integer`, () => {
    const flags = eagerTierUpFlags();
    expect(flags).not.toBeNull();
    expect(flags!.length).toBeGreaterThan(0);
    const types = v8OptionTypes();
    expect(types.size).toBeGreaterThan(100); // the listing parsed
    for (const flag of flags!) {
      const match = /^--([a-z0-9-]+)=([0-9]+)$/.exec(flag);
      expect(match, flag).not.toBeNull();
      expect(types.get(match![1]!), flag).toBe('int');
    }
  });

  it('passes nothing on a V8 it does not know', () => {
    expect(eagerTierUpFlags('99.1.0')).toBeNull();
    expect(eagerTierUpFlags('11.3.244.8-node.38')).toBe(EAGER_TIER_UP_FLAGS[11]);
    expect(eagerTierUpFlags('13.6.233.17-node.53')).toBe(EAGER_TIER_UP_FLAGS[13]);
  });

  it('are the flags config/README.md names for process.eagerJitTierUp', () => {
    const row = readFileSync('config/README.md', 'utf8').split('\n').find((line) => line.startsWith('| `process.eagerJitTierUp`'));
    expect(row).toBeDefined();
    for (const flags of Object.values(EAGER_TIER_UP_FLAGS)) for (const flag of flags) expect(row, flag).toContain(flag);
  });
});

describe('eager JIT tier-up', () => {
  for (const fn of ['loop', 'gate'] as const) {
    it(`optimizes a hot function (${fn}) after about the calls Node 20 needed, a fraction of V8's default`, () => {
      const eager = callsToOptimize('eager', fn);
      const standard = callsToOptimize('default', fn);
      expect(standard).toBeLessThan(100_000); // the default does optimize it, later
      expect(eager * 4).toBeLessThan(standard);
      expect(eager).toBeLessThanOrEqual(2 * NODE20_EAGER_CALLS[fn]);
    });
  }
});

/**
 * A sweep's parameter space (grid.json) and its combinations. `params` lists the values of each
 * parameter; `ranges` gives {min, max, step}. Without --random every combination of every value
 * runs (the cartesian product, the first parameter varying slowest); with --random N, N draws, each
 * parameter's value drawn uniformly from its values (a range's values are min, min + step, ... <= max)
 * by a SeededRandom, so one seed gives the same draws everywhere.
 *
 * A parameter's name is where it goes: `replay.<option>` is a Replay option (orderLatencyUs,
 * queueModel, ...), `test.<name>` is for tests only (test.crash), anything else is a path into the
 * runtime configuration (`strategies.0.params.halfSpreadTicks`; numbers index arrays). Owns parsing,
 * expansion and applying; never runs anything.
 */

import { SeededRandom } from '../../core/index.ts';

export type ParamValue = number | string | boolean | null;
export type Combination = Record<string, ParamValue>;

export interface RangeSpec {
  min: number;
  max: number;
  step: number;
}

export interface GridSpec {
  params: Record<string, ParamValue[]>;
  ranges: Record<string, RangeSpec>;
}

export class SweepUsageError extends Error {}

/** Guard on a mistyped grid: a million runs is never what was meant. */
export const COMBINATIONS_MAX = 100_000;

export function parseGridSpec(value: unknown, file = 'grid.json'): GridSpec {
  if (typeof value !== 'object' || value === null) throw new SweepUsageError(`${file}: not an object`);
  const { params = {}, ranges = {}, ...rest } = value as { params?: unknown; ranges?: unknown };
  if (Object.keys(rest).length > 0) throw new SweepUsageError(`${file}: unknown keys ${Object.keys(rest).join(', ')} (params, ranges)`);
  if (typeof params !== 'object' || params === null || typeof ranges !== 'object' || ranges === null) throw new SweepUsageError(`${file}: params and ranges are objects`);
  const spec: GridSpec = { params: {}, ranges: {} };
  for (const [name, values] of Object.entries(params)) {
    if (!Array.isArray(values) || values.length === 0) throw new SweepUsageError(`${file}: params.${name} needs a non-empty array`);
    for (const v of values) if (v !== null && !['number', 'string', 'boolean'].includes(typeof v)) throw new SweepUsageError(`${file}: params.${name} holds a non-scalar`);
    spec.params[name] = values as ParamValue[];
  }
  for (const [name, range] of Object.entries(ranges as Record<string, Partial<RangeSpec>>)) {
    const { min, max, step } = range ?? {};
    if (typeof min !== 'number' || typeof max !== 'number' || typeof step !== 'number' || !(step > 0) || max < min) {
      throw new SweepUsageError(`${file}: ranges.${name} needs numbers min <= max and step > 0`);
    }
    if (name in spec.params) throw new SweepUsageError(`${file}: ${name} is in both params and ranges`);
    spec.ranges[name] = { min, max, step };
  }
  if (Object.keys(spec.params).length + Object.keys(spec.ranges).length === 0) throw new SweepUsageError(`${file}: no parameters`);
  return spec;
}

/** A range's values: min, min + step, ... up to max (decimals of step kept exact). */
export function rangeValues(range: RangeSpec): number[] {
  const decimals = (String(range.step).split('.')[1] ?? '').length;
  const count = Math.floor((range.max - range.min) / range.step + 1e-9) + 1;
  if (count > COMBINATIONS_MAX) throw new SweepUsageError(`a range has ${count} values (max ${COMBINATIONS_MAX})`);
  const values: number[] = [];
  for (let k = 0; k < count; k++) values.push(Number((range.min + k * range.step).toFixed(decimals)));
  return values;
}

function axesOf(spec: GridSpec): [string, ParamValue[]][] {
  return [...Object.entries(spec.params), ...Object.entries(spec.ranges).map(([name, range]) => [name, rangeValues(range)] as [string, ParamValue[]])];
}

/** Every combination (random === null) or `random.count` seeded draws. */
export function expandGrid(spec: GridSpec, random: { count: number; seed: number } | null = null): Combination[] {
  const axes = axesOf(spec);
  if (random !== null) {
    if (random.count < 1 || random.count > COMBINATIONS_MAX) throw new SweepUsageError(`--random needs 1..${COMBINATIONS_MAX}`);
    const rng = new SeededRandom(random.seed);
    const draws: Combination[] = [];
    for (let n = 0; n < random.count; n++) draws.push(Object.fromEntries(axes.map(([name, values]) => [name, values[rng.nextInt(values.length)]])));
    return draws;
  }
  const total = axes.reduce((product, [, values]) => product * values.length, 1);
  if (total > COMBINATIONS_MAX) throw new SweepUsageError(`the grid has ${total} combinations (max ${COMBINATIONS_MAX}); use --random N`);
  const combinations: Combination[] = [];
  for (let index = 0; index < total; index++) {
    const combination: Combination = {};
    let rest = index;
    // The last axis varies fastest.
    for (let a = axes.length - 1; a >= 0; a--) {
      const values = axes[a][1];
      combination[axes[a][0]] = values[rest % values.length];
      rest = Math.floor(rest / values.length);
    }
    combinations.push(Object.fromEntries(axes.map(([name]) => [name, combination[name]])));
  }
  return combinations;
}

export interface AppliedCombination {
  /** The raw configuration with the combination's config paths set (validate it before use). */
  configValue: unknown;
  /** `replay.*` parameters, by option name. */
  replay: Record<string, ParamValue>;
  /** `test.*` parameters, by name. */
  test: Record<string, ParamValue>;
}

export function applyCombination(configValue: unknown, combination: Combination): AppliedCombination {
  const copy = JSON.parse(JSON.stringify(configValue ?? {})) as unknown;
  const replay: Record<string, ParamValue> = {};
  const test: Record<string, ParamValue> = {};
  for (const [name, value] of Object.entries(combination)) {
    if (name.startsWith('replay.')) replay[name.slice('replay.'.length)] = value;
    else if (name.startsWith('test.')) test[name.slice('test.'.length)] = value;
    else setPath(copy, name, value);
  }
  return { configValue: copy, replay, test };
}

function setPath(root: unknown, name: string, value: ParamValue): void {
  const parts = name.split('.');
  let node = root as Record<string, unknown>;
  for (let i = 0; i < parts.length - 1; i++) {
    const next = node[parts[i]];
    if (next === undefined) node[parts[i]] = /^\d+$/.test(parts[i + 1]) ? [] : {};
    else if (typeof next !== 'object' || next === null) throw new SweepUsageError(`parameter ${name}: ${parts.slice(0, i + 1).join('.')} is not an object in the configuration`);
    node = node[parts[i]] as Record<string, unknown>;
  }
  node[parts[parts.length - 1]] = value;
}

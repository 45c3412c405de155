// Goal: `npm run bench:doc`'s latency plots (bench/plots/percentile-svg.ts, bench/doc.ts) are
// well-formed SVG with one line per latency row and the rows' names in the legend, put percentiles on
// the HDR x-axis (monotonic, log of 1/(1-p)) and latency on a log y-axis, render result files written
// before rows carried curves (p50/p99/p99.9/max only), and give the same bytes for the same input.
// Method: synthetic rows (HDR histograms filled by a seeded generator, hand-written curves, old
// summary-only rows), a tiny tag-balance checker, and the path coordinates read back from the text;
// then every result file in bench/results as it is on disk. Nothing here runs a benchmark.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { plotFileName, render, renderPlots, type LoadedResult } from '../../bench/doc.ts';
import { createHistogram, latencyRow, percentileCurve, recordNs, type BenchRow } from '../../bench/harness.ts';
import { PLOT_WIDTH, SERIES_MAX, percentileX, renderPercentileSvg } from '../../bench/plots/percentile-svg.ts';
import type { BenchResultFile } from '../../bench/run.ts';

const RESULTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../bench/results');
const LABELS = { title: 'synthetic: latency by percentile', subtitle: 'test run' };

/** A seeded linear congruential generator: the same rows every run. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** A latency row from `samples` exponential-ish samples around `baseNs`. */
function syntheticRow(caseName: string, baseline: boolean, baseNs: number, samples: number, seed: number): BenchRow {
  const random = generator(seed);
  const histogram = createHistogram();
  for (let i = 0; i < samples; i++) recordNs(histogram, baseNs * (1 - Math.log(1 - random())));
  return latencyRow('synthetic', caseName, baseline, histogram);
}

/** Checks that tags balance (open/close pairs nest, self-closing ones stand alone); returns the problem or ''. */
function tagProblem(svg: string): string {
  const body = svg.replace(/^<\?xml[^?]*\?>\s*/, '');
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let position = 0;
  let tags = 0;
  for (let match = tag.exec(body); match !== null; match = tag.exec(body)) {
    if (++tags > 100_000) return 'too many tags';
    const between = body.slice(position, match.index);
    if (between.includes('<') || between.includes('>')) return `stray angle bracket before offset ${match.index}`;
    if (/&(?!(amp|lt|gt|quot|apos|#\d+);)/.test(between)) return `bare & before offset ${match.index}`;
    position = match.index + match[0].length;
    const [, closing, name, , selfClosing] = match;
    if (closing === '/') {
      if (stack.pop() !== name) return `</${name}> closes the wrong tag`;
    } else if (selfClosing !== '/') {
      stack.push(name);
    }
  }
  if (body.slice(position).trim() !== '') return 'text after the last tag';
  if (stack.length !== 0) return `unclosed: ${stack.join(', ')}`;
  return '';
}

/** The coordinates of every series path, in drawing order by data-row number. */
function seriesPaths(svg: string): Map<number, Array<[number, number]>> {
  const paths = new Map<number, Array<[number, number]>>();
  for (const match of svg.matchAll(/<path class="series" data-row="(\d+)" d="([^"]*)"/g)) {
    const points: Array<[number, number]> = [];
    for (const step of match[2].matchAll(/[ML](-?[\d.]+) (-?[\d.]+)/g)) points.push([Number(step[1]), Number(step[2])]);
    paths.set(Number(match[1]), points);
  }
  return paths;
}

function countOf(text: string, pattern: RegExp): number {
  return [...text.matchAll(pattern)].length;
}

const ROWS: BenchRow[] = [
  syntheticRow('ours: decode -> apply <fast> & lean', false, 100, 20_000, 1),
  syntheticRow('naive Map book', true, 400, 20_000, 2),
  { suite: 'synthetic', case: 'throughput row (not plotted)', baseline: false, count: 1000, opsPerSec: 1e6 },
  syntheticRow('timer floor', true, 40, 5_000, 3),
];

describe('percentile plot', () => {
  it('is well-formed, with one path per latency row and every name in the legend', () => {
    const svg = renderPercentileSvg(ROWS, LABELS);
    expect(tagProblem(svg)).toBe('');
    expect(svg.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain(`width="${PLOT_WIDTH}"`);
    expect(countOf(svg, /<path /g)).toBe(3);
    expect(countOf(svg, /<text class="legend"/g)).toBe(3);
    expect(svg).toContain('1. ours: decode -&gt; apply &lt;fast&gt; &amp; lean</text>');
    expect(svg).toContain('2. naive Map book (baseline)</text>');
    expect(svg).toContain('3. timer floor (baseline)</text>');
    expect(svg).not.toContain('throughput row');
    expect(svg).toContain(LABELS.title);
    expect(svg).toContain('percentile (log scale of 1/(1-p))');
    expect(svg).toContain('latency (log scale)');
  });

  it('draws ours solid and baselines dashed', () => {
    const svg = renderPercentileSvg(ROWS, LABELS);
    const paths = [...svg.matchAll(/<path class="series" data-row="(\d+)"[^>]*>/g)];
    expect(paths).toHaveLength(3);
    for (const [tag, row] of paths) expect(tag.includes('stroke-dasharray')).toBe(row !== '1');
  });

  it('puts increasing percentiles at increasing x, on the HDR axis', () => {
    expect(percentileX(0, 1e6)).toBe(0);
    expect(percentileX(90, 1e6)).toBeCloseTo(1, 9);
    expect(percentileX(99, 1e6)).toBeCloseTo(2, 9);
    expect(percentileX(99.9, 1e6)).toBeCloseTo(3, 9);
    // Beyond what the samples resolve, and the max, sit at the last sample.
    expect(percentileX(99.99, 1000)).toBeCloseTo(3, 9);
    expect(percentileX(100, 1000)).toBeCloseTo(3, 9);
    const paths = seriesPaths(renderPercentileSvg(ROWS, LABELS));
    for (const [row, points] of paths) {
      expect(points.length, `row ${row}`).toBeGreaterThan(10);
      for (let i = 1; i < points.length; i++) expect(points[i][0], `row ${row} point ${i}`).toBeGreaterThanOrEqual(points[i - 1][0]);
      // All but the max are distinct percentiles: strictly increasing x.
      for (let i = 1; i < points.length - 1; i++) expect(points[i][0]).toBeGreaterThan(points[i - 1][0]);
    }
  });

  it('scales y by log: each decade of latency is the same height', () => {
    const row: BenchRow = {
      suite: 'synthetic', case: 'decades', baseline: false, count: 10_000,
      curveNs: [[0, 100], [90, 1000], [99, 10_000], [99.9, 100_000], [100, 100_000]],
    };
    const points = seriesPaths(renderPercentileSvg([row], LABELS)).get(1) ?? [];
    expect(points).toHaveLength(5);
    const decade = points[0][1] - points[1][1];
    expect(decade).toBeGreaterThan(20);
    expect(points[1][1] - points[2][1]).toBeCloseTo(decade, 0);
    expect(points[2][1] - points[3][1]).toBeCloseTo(decade, 0);
    // And x: 90% is one decade of 1/(1-p) right of 0%, 99% two, 99.9% three.
    const xDecade = points[1][0] - points[0][0];
    expect(points[2][0] - points[1][0]).toBeCloseTo(xDecade, 0);
    expect(points[3][0] - points[2][0]).toBeCloseTo(xDecade, 0);
  });

  it('renders rows without a curve from p50/p99/p99.9/max, dotted, and says so', () => {
    const old: BenchRow = { suite: 'synthetic', case: 'old row', baseline: false, count: 400, p50Ns: 731, p99Ns: 2475, p999Ns: 12_359, maxNs: 12_353, meanNs: 922 };
    const malformed: BenchRow = { ...old, case: 'malformed curve', curveNs: [[50, 10], [40, 20]] };
    const svg = renderPercentileSvg([old, malformed], LABELS);
    expect(tagProblem(svg)).toBe('');
    const paths = seriesPaths(svg);
    expect(paths.get(1)).toHaveLength(4);
    expect(paths.get(2)).toHaveLength(4);
    expect(countOf(svg, /<circle /g)).toBe(8);
    expect(svg).toContain('only p50/p99/p99.9/max stored');
    // 400 samples resolve up to 99.75%: p99.9 and the max both sit at the last sample.
    const points = paths.get(1) ?? [];
    expect(points[2][0]).toBe(points[3][0]);
    expect(points[1][0]).toBeLessThan(points[2][0]);
  });

  it('gives the same bytes for the same rows', () => {
    const again = ROWS.map((row) => JSON.parse(JSON.stringify(row)) as BenchRow);
    expect(renderPercentileSvg(again, LABELS)).toBe(renderPercentileSvg(ROWS, LABELS));
  });

  it('stays well-formed for no rows, extreme values and more rows than it draws', () => {
    expect(tagProblem(renderPercentileSvg([], LABELS))).toBe('');
    expect(renderPercentileSvg([], LABELS)).toContain('no latency rows');
    const extreme: BenchRow = { suite: 's', case: 'zero and huge', baseline: false, count: 2, curveNs: [[0, 0], [100, 1e15]] };
    const svg = renderPercentileSvg([extreme], LABELS);
    expect(tagProblem(svg)).toBe('');
    expect(svg).not.toMatch(/NaN|Infinity/);
    const many = Array.from({ length: SERIES_MAX + 3 }, (_, i): BenchRow => ({ suite: 's', case: `row ${i}`, baseline: i % 2 === 0, count: 100, p50Ns: 100 + i, p99Ns: 1000 + i }));
    const crowded = renderPercentileSvg(many, LABELS);
    expect(tagProblem(crowded)).toBe('');
    expect(countOf(crowded, /<path /g)).toBe(SERIES_MAX);
    expect(crowded).toContain('3 more latency rows not drawn');
  });
});

describe('percentileCurve (bench/harness.ts)', () => {
  it('keeps resolved percentiles in order and ends with the max', () => {
    const histogram = createHistogram();
    for (let ns = 1; ns <= 1000; ns++) recordNs(histogram, ns);
    const curve = percentileCurve(histogram);
    expect(curve[0]).toEqual([0, 1]);
    expect(curve[curve.length - 1]).toEqual([100, 1000]);
    expect(curve.map(([percentile]) => percentile)).toContain(99.9); // the 999th of 1000 samples
    expect(curve.map(([percentile]) => percentile)).not.toContain(99.95); // less than one sample above
    for (let i = 1; i < curve.length; i++) {
      expect(curve[i][0]).toBeGreaterThan(curve[i - 1][0]);
      expect(curve[i][1]).toBeGreaterThanOrEqual(curve[i - 1][1]);
    }
    expect(latencyRow('s', 'c', false, histogram).curveNs).toEqual(curve);
    expect(percentileCurve(createHistogram())).toEqual([]);
  });
});

describe('bench:doc', () => {
  const oldFile: BenchResultFile = {
    suite: 'old-suite', startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1, quick: false, command: 'npm run bench', node: 'v20.0.0', v8: '11',
    machine: { platform: 'linux', arch: 'x64', release: '6', cpuModel: 'CPU', cpuCount: 2, totalMemBytes: 2 ** 30, loadAvg1m: 0 },
    git: { commit: '0123456789abcdef', dirty: false },
    rows: [
      { suite: 'old-suite', case: 'ours', baseline: false, count: 1000, p50Ns: 100, p99Ns: 300, p999Ns: 900, maxNs: 5000 },
      { suite: 'old-suite', case: 'theirs', baseline: true, count: 1000, p50Ns: 200, p99Ns: 700, p999Ns: 2000, maxNs: 9000 },
    ],
  };
  const throughputOnly: BenchResultFile = { ...oldFile, suite: 'throughput-suite', rows: [{ suite: 'throughput-suite', case: 'x', baseline: false, count: 1, opsPerSec: 5 }] };

  it('draws a plot for each suite with latency rows and links it from RESULTS.md', () => {
    const results: LoadedResult[] = [{ file: 'old-suite-1.json', result: oldFile }, { file: 'throughput-suite-1.json', result: throughputOnly }];
    const plots = renderPlots(results);
    expect(plots.map((plot) => plot.file)).toEqual(['old-suite.svg']);
    expect(tagProblem(plots[0].svg)).toBe('');
    expect(countOf(plots[0].svg, /<path /g)).toBe(2);
    const markdown = render(results);
    expect(markdown).toContain('](plots/old-suite.svg)');
    expect(markdown).not.toContain('plots/throughput-suite.svg');
    expect(plotFileName('a b/c')).toBe('a-b-c.svg');
  });

  it('renders every result file in bench/results, with or without curves', () => {
    const results: LoadedResult[] = [];
    for (const file of readdirSync(RESULTS_DIR).filter((name) => name.endsWith('.json')).sort()) {
      const result = JSON.parse(readFileSync(path.join(RESULTS_DIR, file), 'utf8')) as BenchResultFile;
      if (typeof result.suite === 'string' && Array.isArray(result.rows) && typeof result.startedAt === 'string') results.push({ file, result });
    }
    const plots = renderPlots(results);
    for (const plot of plots) {
      expect(tagProblem(plot.svg), plot.file).toBe('');
      expect(plot.svg).not.toMatch(/NaN|Infinity|undefined/);
    }
    expect(renderPlots(results)).toEqual(plots);
  });
});

/**
 * A sweep's HTML report: the model the runs used and the parameters that varied; PnL, fills,
 * largest inventory and 1 s markout by parameter (a heatmap over the first two varying parameters,
 * and per parameter a line, or bars for text values, of the mean over the runs with that value);
 * the best run (highest PnL) in full: its PnL and inventory curves and markouts at 1 s, 10 s and
 * 60 s (report-html.ts); the retried and failed combinations; and the whole results table. One
 * self-contained file, inline SVG, no script. Owns the layout; the numbers are the rows'.
 */

import { curvesHtml, markoutsHtml, numbersHtml, pageHtml, settingsHtml } from '../report-html.ts';
import { dollarsOfMicro } from '../report.ts';
import type { ParamValue } from './grid.ts';
import type { ReplaySettings } from './run-combination.ts';
import type { SweepRow } from './results.ts';
import type { SweepOutcome } from './sweep-pool.ts';
import { barPlot, escapeHtml, heatmap, linePlot } from './svg.ts';

export interface SweepPage {
  recordingSource: string;
  configFile: string;
  gridFile: string;
  /** The settings the combinations start from (`replay.*` parameters override them per run). */
  baseSettings: ReplaySettings;
  workers: number;
  outcomes: readonly SweepOutcome[];
  rows: readonly SweepRow[];
  paramNames: readonly string[];
}

interface Metric {
  key: string;
  title: string;
  scale: number;
}

const METRICS: readonly Metric[] = [
  { key: 'pnlMicro', title: 'PnL ($)', scale: 1e-6 },
  { key: 'fills', title: 'fills', scale: 1 },
  { key: 'inventoryMaxAbs', title: 'largest inventory (contracts)', scale: 0.01 },
  { key: 'markout1sPerContractMicro', title: 'markout 1 s ($ per contract)', scale: 1e-6 },
];

function valuesOf(rows: readonly SweepRow[], name: string): ParamValue[] {
  const seen = new Map<string, ParamValue>();
  for (const row of rows) seen.set(JSON.stringify(row[name]), row[name]);
  const values = [...seen.values()];
  return values.every((v) => typeof v === 'number') ? (values as number[]).sort((a, b) => a - b) : values;
}

function meanOf(rows: readonly SweepRow[], key: string, scale: number): number | null {
  const values = rows.map((row) => row[key]).filter((v): v is number => typeof v === 'number');
  return values.length === 0 ? null : (values.reduce((sum, v) => sum + v, 0) / values.length) * scale;
}

function byParamHtml(rows: readonly SweepRow[], names: readonly string[]): string {
  const ok = rows.filter((row) => row.status === 'ok');
  const varying = names.filter((name) => valuesOf(ok, name).length > 1);
  if (varying.length === 0) return '<p class="note">No parameter took more than one value among the successful runs.</p>';
  const plots: string[] = [];
  if (varying.length >= 2) {
    const [xName, yName] = varying;
    const xs = valuesOf(ok, xName);
    const ys = valuesOf(ok, yName);
    for (const metric of METRICS) {
      plots.push(heatmap(`${metric.title}${varying.length > 2 ? ' (mean over the other parameters)' : ''}`, xName, xs.map(String), yName, ys.map(String),
        (xi, yi) => meanOf(ok.filter((row) => row[xName] === xs[xi] && row[yName] === ys[yi]), metric.key, metric.scale)));
    }
  }
  for (const name of varying) {
    const values = valuesOf(ok, name);
    const numeric = values.every((v) => typeof v === 'number');
    for (const metric of METRICS) {
      const means = values.map((v) => meanOf(ok.filter((row) => row[name] === v), metric.key, metric.scale) ?? 0);
      const title = `${metric.title} by ${name}${varying.length > 1 ? ' (mean)' : ''}`;
      plots.push(numeric ? linePlot(title, [{ name: metric.title, x: values as number[], y: means }], name, metric.title) : barPlot(title, values.map(String), means, metric.title));
    }
  }
  return `<div class="plots">${plots.join('')}</div>`;
}

function failuresHtml(outcomes: readonly SweepOutcome[]): string {
  const troubled = outcomes.filter((o) => o.attempts > 1 || o.status === 'failed');
  if (troubled.length === 0) return '<p>Every combination ran on its first attempt.</p>';
  const rows = troubled.map((o) => `<tr><td>${o.index}</td><td class="l">${escapeHtml(JSON.stringify(o.combination))}</td><td class="l ${o.status === 'failed' ? 'bad' : ''}">${o.status === 'failed' ? 'failed' : 'retried, ok'}</td><td>${o.attempts}</td><td class="l">${escapeHtml(o.errors.join(' | '))}</td></tr>`);
  return `<table class="failures"><tr><th>#</th><th class="l">parameters</th><th class="l">outcome</th><th>attempts</th><th class="l">errors</th></tr>${rows.join('')}</table>`;
}

function resultsTableHtml(rows: readonly SweepRow[], names: readonly string[]): string {
  const columns = ['index', ...names, 'status', 'attempts', 'pnlMicro', 'fills', 'contracts', 'inventoryMaxAbs', 'markout1sPerContractMicro', 'markout10sPerContractMicro', 'markout60sPerContractMicro', 'orderSha256'];
  const cell = (key: string, value: ParamValue): string => {
    if (value === null) return '';
    if (key === 'pnlMicro' || key.endsWith('PerContractMicro')) return dollarsOfMicro(value as number);
    if (key === 'orderSha256') return String(value).slice(0, 16);
    return String(value);
  };
  const head = columns.map((c) => `<th>${escapeHtml(c)}</th>`).join('');
  const body = rows.map((row) => `<tr>${columns.map((c) => `<td>${escapeHtml(cell(c, row[c] ?? null))}</td>`).join('')}</tr>`).join('');
  return `<table class="results"><tr>${head}</tr>${body}</table>`;
}

export function bestOutcome(outcomes: readonly SweepOutcome[]): SweepOutcome | null {
  let best: SweepOutcome | null = null;
  for (const o of outcomes) if (o.result !== null && (best === null || o.result.report.pnlMicro > best.result!.report.pnlMicro)) best = o;
  return best;
}

export function renderSweepHtml(page: SweepPage): string {
  const best = bestOutcome(page.outcomes);
  const failed = page.outcomes.filter((o) => o.status === 'failed').length;
  const header = `<p>recording <code>${escapeHtml(page.recordingSource)}</code>, configuration <code>${escapeHtml(page.configFile)}</code>, grid <code>${escapeHtml(page.gridFile)}</code>; `
    + `${page.outcomes.length} combinations on ${page.workers} workers, ${failed} failed. Parameters: ${page.paramNames.map((n) => `<code>${escapeHtml(n)}</code>`).join(', ')}.</p>`;
  const bestHtml = best === null || best.result === null
    ? '<p class="bad">No combination succeeded.</p>'
    : `<p>Combination ${best.index}: <code>${escapeHtml(JSON.stringify(best.combination))}</code></p>${numbersHtml(best.result)}<h3>Its latency and queue model</h3>${settingsHtml(best.result.settings)}`
      + `${curvesHtml(best.result, 'best run')}<h3>Markouts after its fills</h3>${markoutsHtml(best.result)}`;
  const body = `${header}<h2>Latency and queue model (before the replay.* parameters)</h2>${settingsHtml(page.baseSettings)}`
    + `<h2>By parameter</h2>${byParamHtml(page.rows, page.paramNames)}<h2>Best run (highest PnL)</h2>${bestHtml}`
    + `<h2>Retried and failed combinations</h2>${failuresHtml(page.outcomes)}<h2>All runs</h2>${resultsTableHtml(page.rows, page.paramNames)}`;
  return pageHtml('Parameter sweep report', body);
}

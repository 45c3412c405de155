/**
 * The latency percentile plot of one bench suite as SVG text: latency (log scale) against percentile
 * on the usual HDR "percentile distribution" x-axis (log scale of 1/(1-p): 0%, 90%, 99%, 99.9% ...),
 * one line per latency row, ours solid in strong colours, baselines dashed grey, a numbered legend.
 * bench/doc.ts calls it and writes bench/plots/<suite>.svg. Hand-written SVG, no dependency; the
 * same rows give the same bytes (no clock, no randomness, fixed number formatting). This file never
 * reads or writes files.
 *
 * A row with a stored curve (BenchRow.curveNs, bench/harness.ts percentileCurve) is drawn from it;
 * a row from an older result file, or built by hand, has only p50/p99/p99.9/max and is drawn through
 * those points, each marked with a dot so a reader sees the line between them is not measured.
 */

import type { BenchRow } from '../harness.ts';

export const PLOT_WIDTH = 800;
/** Height without the legend; the legend adds rows below (LEGEND_ROW_HEIGHT each). */
export const PLOT_HEIGHT = 450;
/** Rows drawn at most; a suite with more says how many were left out. */
export const SERIES_MAX = 32;

const LEGEND_ROW_HEIGHT = 16;
// Plot area inside the 800 x 450 frame; the right margin leaves room for the end-of-line numbers.
const AREA_LEFT = 72;
const AREA_RIGHT = 760;
const AREA_TOP = 62;
const AREA_BOTTOM = 388;
/** x-axis ends at 99.9% at least and 99.9999% at most (x = log10(1/(1-p)) in 3 .. 6). */
const X_DECADES_MIN = 3;
const X_DECADES_MAX = 6;
/** 1 ns .. 1000 s: bounds the tick loop; latencies outside are clamped. */
const Y_NS_MIN = 1;
const Y_NS_MAX = 1e12;
/** Legend: two columns when every name fits in this many characters (~6.2 px each at 11 px). */
const LEGEND_TWO_COLUMN_CHARS = 56;
const LEGEND_ONE_COLUMN_CHARS = 110;
// Strong, colour-blind-friendly hues (Okabe-Ito, minus yellow, plus two darker ones) for our rows.
const OURS_COLOURS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#56b4e9', '#e69f00', '#7a3e9d', '#1b4d3e'] as const;
const BASELINE_GREYS = ['#555555', '#8a8a8a', '#333333', '#a8a8a8'] as const;
const BASELINE_DASHES = ['6 4', '2 3', '10 3 2 3', '4 2'] as const;

export interface CurvePoint {
  percentile: number;
  ns: number;
}

export interface PlotSeries {
  name: string;
  baseline: boolean;
  /** Samples behind the row: the last sample sits at x = log10(count), where the max is drawn. */
  count: number;
  /** Increasing percentile; 100 is the max. */
  points: CurvePoint[];
  /** True when drawn from p50/p99/p99.9/max only (no stored curve). */
  summaryOnly: boolean;
}

export interface PlotLabels {
  title: string;
  /** The line under the title (run, machine); a second line, the key to the line styles, is added. */
  subtitle: string;
}

/** A row that measured latency: it has a stored curve or at least a p50. */
export function isLatencyRow(row: BenchRow): boolean {
  return (row.curveNs !== undefined && row.curveNs.length > 0) || row.p50Ns !== undefined;
}

/** The plotted points of a row: its curve when stored and well formed, else its summary percentiles. */
export function seriesOfRow(row: BenchRow): PlotSeries | null {
  const curve = curvePoints(row.curveNs);
  if (curve !== null) return { name: row.case, baseline: row.baseline, count: row.count, points: curve, summaryOnly: false };
  const summary: CurvePoint[] = [];
  const candidates: Array<[number, number | undefined]> = [[50, row.p50Ns], [99, row.p99Ns], [99.9, row.p999Ns], [100, row.maxNs]];
  for (const [percentile, ns] of candidates) {
    if (ns !== undefined && Number.isFinite(ns)) summary.push({ percentile, ns });
  }
  if (summary.length === 0) return null;
  return { name: row.case, baseline: row.baseline, count: row.count, points: summary, summaryOnly: true };
}

/** Validates a stored curve: pairs of finite numbers, percentiles in [0, 100] and increasing. */
function curvePoints(curve: BenchRow['curveNs']): CurvePoint[] | null {
  if (!Array.isArray(curve) || curve.length === 0) return null;
  const points: CurvePoint[] = [];
  let percentileLast = -1;
  for (const pair of curve) {
    if (!Array.isArray(pair) || pair.length !== 2) return null;
    const [percentile, ns] = pair;
    if (!Number.isFinite(percentile) || !Number.isFinite(ns)) return null;
    if (percentile < 0 || percentile > 100 || percentile <= percentileLast) return null;
    points.push({ percentile, ns });
    percentileLast = percentile;
  }
  return points;
}

/**
 * The HDR x coordinate of a percentile, in decades of 1/(1-p): 0% -> 0, 90% -> 1, 99% -> 2,
 * 99.9% -> 3. A percentile beyond what `count` samples resolve (and 100, the max) sits at the last
 * sample, log10(count): HDR reports the max there, so the line ends where the data ends.
 */
export function percentileX(percentile: number, count: number): number {
  const last = count > 1 ? Math.log10(count) : 0;
  if (percentile >= 100) return last;
  const x = Math.log10(100 / (100 - percentile));
  return x > last ? last : x;
}

/** Text for an x tick at `decades`: 0 -> "0%", 1 -> "90%", 3 -> "99.9%". */
function percentileLabel(decades: number): string {
  if (decades === 0) return '0%';
  return `${(100 - 100 / 10 ** decades).toFixed(Math.max(0, decades - 2))}%`;
}

/** Text for a y tick of `ns` (a power of ten or 2x, 5x one): "100 ns", "2 µs", "10 ms". */
export function nsLabel(ns: number): string {
  const units: Array<[number, string]> = [[1e9, 's'], [1e6, 'ms'], [1e3, 'µs'], [1, 'ns']];
  for (const [scale, unit] of units) {
    if (ns >= scale) return `${Number((ns / scale).toPrecision(3))} ${unit}`;
  }
  return `${ns} ns`;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function truncate(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, chars - 1)}…`;
}

/** Fixed one-decimal pixel coordinates: deterministic text and small files. */
function px(value: number): string {
  return value.toFixed(1);
}

function clampNs(ns: number): number {
  return ns < Y_NS_MIN ? Y_NS_MIN : ns > Y_NS_MAX ? Y_NS_MAX : ns;
}

interface Axes {
  xDecades: number;
  yDecadeLow: number;
  yDecadeHigh: number;
}

function axesOf(series: readonly PlotSeries[]): Axes {
  let xMax = 0;
  let nsMin = Infinity;
  let nsMax = 0;
  for (const item of series) {
    for (const point of item.points) {
      const x = percentileX(point.percentile, item.count);
      if (x > xMax) xMax = x;
      const ns = clampNs(point.ns);
      if (ns < nsMin) nsMin = ns;
      if (ns > nsMax) nsMax = ns;
    }
  }
  if (nsMax === 0) {
    nsMin = 1e2;
    nsMax = 1e4;
  }
  const xDecades = Math.min(X_DECADES_MAX, Math.max(X_DECADES_MIN, Math.ceil(xMax - 1e-9)));
  const yDecadeLow = Math.floor(Math.log10(nsMin) + 1e-9);
  let yDecadeHigh = Math.ceil(Math.log10(nsMax) - 1e-9);
  if (yDecadeHigh <= yDecadeLow) yDecadeHigh = yDecadeLow + 1;
  return { xDecades, yDecadeLow, yDecadeHigh };
}

function xPixel(decades: number, axes: Axes): number {
  const x = decades > axes.xDecades ? axes.xDecades : decades;
  return AREA_LEFT + (x / axes.xDecades) * (AREA_RIGHT - AREA_LEFT);
}

function yPixel(ns: number, axes: Axes): number {
  const fraction = (Math.log10(clampNs(ns)) - axes.yDecadeLow) / (axes.yDecadeHigh - axes.yDecadeLow);
  return AREA_BOTTOM - fraction * (AREA_BOTTOM - AREA_TOP);
}

function gridAndAxes(axes: Axes): string[] {
  const out: string[] = [];
  out.push(`<rect x="${AREA_LEFT}" y="${AREA_TOP}" width="${AREA_RIGHT - AREA_LEFT}" height="${AREA_BOTTOM - AREA_TOP}" fill="#ffffff" stroke="#999999"/>`);
  // y: a line per decade (labelled), fainter ones at 2x and 5x, labelled too when few decades show.
  const decadeCount = axes.yDecadeHigh - axes.yDecadeLow;
  for (let decade = axes.yDecadeLow; decade <= axes.yDecadeHigh; decade++) {
    for (const factor of [1, 2, 5]) {
      const ns = factor * 10 ** decade;
      if (factor !== 1 && decade === axes.yDecadeHigh) break;
      const y = px(yPixel(ns, axes));
      const major = factor === 1;
      out.push(`<line x1="${AREA_LEFT}" y1="${y}" x2="${AREA_RIGHT}" y2="${y}" stroke="${major ? '#d0d0d0' : '#ececec'}"/>`);
      if (major || decadeCount <= 2) {
        out.push(`<text x="${AREA_LEFT - 6}" y="${y}" text-anchor="end" dy="0.35em" fill="${major ? '#333333' : '#777777'}">${escapeXml(nsLabel(ns))}</text>`);
      }
    }
  }
  // x: a line per decade of 1/(1-p), and 50% (where p50 sits).
  const xTicks: Array<[number, string]> = [[Math.log10(2), '50%']];
  for (let decade = 0; decade <= axes.xDecades; decade++) xTicks.push([decade, percentileLabel(decade)]);
  xTicks.sort((a, b) => a[0] - b[0]);
  for (const [decades, label] of xTicks) {
    const x = px(xPixel(decades, axes));
    out.push(`<line x1="${x}" y1="${AREA_TOP}" x2="${x}" y2="${AREA_BOTTOM}" stroke="${Number.isInteger(decades) ? '#d0d0d0' : '#ececec'}"/>`);
    out.push(`<text x="${x}" y="${AREA_BOTTOM + 16}" text-anchor="middle" fill="#333333">${label}</text>`);
  }
  const xMid = px((AREA_LEFT + AREA_RIGHT) / 2);
  out.push(`<text x="${xMid}" y="${AREA_BOTTOM + 38}" text-anchor="middle" font-size="12" fill="#222222">percentile (log scale of 1/(1-p))</text>`);
  const yMid = px((AREA_TOP + AREA_BOTTOM) / 2);
  out.push(`<text x="16" y="${yMid}" text-anchor="middle" font-size="12" fill="#222222" transform="rotate(-90 16 ${yMid})">latency (log scale)</text>`);
  return out;
}

interface SeriesStyle {
  stroke: string;
  width: string;
  dash: string | null;
}

function styleOf(item: PlotSeries, oursIndex: number, baselineIndex: number): SeriesStyle {
  if (item.baseline) {
    return {
      stroke: BASELINE_GREYS[baselineIndex % BASELINE_GREYS.length],
      width: '1.6',
      dash: BASELINE_DASHES[baselineIndex % BASELINE_DASHES.length],
    };
  }
  return { stroke: OURS_COLOURS[oursIndex % OURS_COLOURS.length], width: '2.2', dash: null };
}

function seriesPath(item: PlotSeries, number: number, style: SeriesStyle, axes: Axes): string[] {
  const out: string[] = [];
  const coordinates: string[] = [];
  let xLast = '';
  let yLast = '';
  for (const point of item.points) {
    xLast = px(xPixel(percentileX(point.percentile, item.count), axes));
    yLast = px(yPixel(point.ns, axes));
    coordinates.push(`${coordinates.length === 0 ? 'M' : 'L'}${xLast} ${yLast}`);
  }
  const dash = style.dash === null ? '' : ` stroke-dasharray="${style.dash}"`;
  out.push(`<path class="series" data-row="${number}" d="${coordinates.join(' ')}" fill="none" stroke="${style.stroke}" stroke-width="${style.width}"${dash} stroke-linejoin="round"><title>${escapeXml(`${number}. ${item.name}`)}</title></path>`);
  if (item.summaryOnly) {
    for (const point of item.points) {
      out.push(`<circle cx="${px(xPixel(percentileX(point.percentile, item.count), axes))}" cy="${px(yPixel(point.ns, axes))}" r="2.6" fill="${style.stroke}"/>`);
    }
  }
  // The row's number at the end of its line, to tell apart lines of one colour.
  out.push(`<text x="${xLast}" y="${yLast}" dx="5" dy="0.35em" font-size="10" fill="${style.stroke}">${number}</text>`);
  return out;
}

function legend(series: readonly PlotSeries[], styles: readonly SeriesStyle[]): { lines: string[]; height: number } {
  const out: string[] = [];
  const texts: string[] = [];
  let longest = 0;
  for (let i = 0; i < series.length; i++) {
    texts.push(`${i + 1}. ${series[i].name}${series[i].baseline ? ' (baseline)' : ''}`);
    longest = Math.max(longest, texts[i].length);
  }
  const columns = longest <= LEGEND_TWO_COLUMN_CHARS ? 2 : 1;
  const chars = columns === 2 ? LEGEND_TWO_COLUMN_CHARS : LEGEND_ONE_COLUMN_CHARS;
  const columnWidth = (PLOT_WIDTH - 2 * 24) / columns;
  const rowsPerColumn = Math.ceil(series.length / columns);
  const top = PLOT_HEIGHT + 4;
  for (let i = 0; i < series.length; i++) {
    const column = Math.floor(i / rowsPerColumn);
    const x = 24 + column * columnWidth;
    const y = top + (i % rowsPerColumn) * LEGEND_ROW_HEIGHT;
    const style = styles[i];
    const dash = style.dash === null ? '' : ` stroke-dasharray="${style.dash}"`;
    out.push(`<line x1="${px(x)}" y1="${y}" x2="${px(x + 30)}" y2="${y}" stroke="${style.stroke}" stroke-width="${style.width}"${dash}/>`);
    out.push(`<text class="legend" x="${px(x + 36)}" y="${y}" dy="0.35em" fill="#222222">${escapeXml(truncate(texts[i], chars))}</text>`);
  }
  return { lines: out, height: rowsPerColumn * LEGEND_ROW_HEIGHT + 8 };
}

/** The SVG text of the percentile plot of `rows` (non-latency rows are skipped). */
export function renderPercentileSvg(rows: readonly BenchRow[], labels: PlotLabels): string {
  const all: PlotSeries[] = [];
  for (const row of rows) {
    if (!isLatencyRow(row)) continue;
    const item = seriesOfRow(row);
    if (item !== null) all.push(item);
  }
  const series = all.slice(0, SERIES_MAX);
  const axes = axesOf(series);
  const styles: SeriesStyle[] = [];
  let oursIndex = 0;
  let baselineIndex = 0;
  for (const item of series) {
    styles.push(styleOf(item, oursIndex, baselineIndex));
    if (item.baseline) baselineIndex++;
    else oursIndex++;
  }
  const key = legend(series, styles);
  const height = PLOT_HEIGHT + key.height;
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${PLOT_WIDTH}" height="${height}" viewBox="0 0 ${PLOT_WIDTH} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="11">`,
    `<title>${escapeXml(labels.title)}</title>`,
    `<rect x="0" y="0" width="${PLOT_WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="${PLOT_WIDTH / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold" fill="#111111">${escapeXml(labels.title)}</text>`,
  ];
  const summaryOnly = series.some((item) => item.summaryOnly);
  const key2 = `ours solid, baselines dashed grey, numbers as in the legend${summaryOnly ? '; dots: only p50/p99/p99.9/max stored (no curve)' : ''}`;
  for (const [i, text] of [labels.subtitle, key2].entries()) {
    out.push(`<text x="${PLOT_WIDTH / 2}" y="${38 + i * 13}" text-anchor="middle" fill="#555555">${escapeXml(truncate(text, 125))}</text>`);
  }
  out.push(...gridAndAxes(axes));
  if (series.length === 0) {
    out.push(`<text x="${px((AREA_LEFT + AREA_RIGHT) / 2)}" y="${px((AREA_TOP + AREA_BOTTOM) / 2)}" text-anchor="middle" fill="#777777">no latency rows</text>`);
  }
  // Baselines first so our lines are drawn on top of them.
  for (const baselineFirst of [true, false]) {
    for (let i = 0; i < series.length; i++) {
      if (series[i].baseline === baselineFirst) out.push(...seriesPath(series[i], i + 1, styles[i], axes));
    }
  }
  if (all.length > series.length) {
    out.push(`<text x="${AREA_RIGHT}" y="${AREA_TOP - 4}" text-anchor="end" fill="#aa0000">${all.length - series.length} more latency rows not drawn</text>`);
  }
  out.push(...key.lines, '</svg>', '');
  return out.join('\n');
}

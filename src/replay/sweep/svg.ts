/**
 * Inline SVG plots for the replay and sweep reports: a line (or step) plot of one or more series,
 * a bar chart and a heatmap. Plain strings, no script, no external file or font, so a report is one
 * self-contained HTML file that opens anywhere. Values are plotted as given (callers convert
 * micro-dollars to dollars for the labels); every text is escaped. Owns drawing only.
 */

const WIDTH = 640;
const HEIGHT = 260;
const MARGIN = { left: 70, right: 16, top: 28, bottom: 40 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf'];

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export interface Series {
  name: string;
  x: readonly number[];
  y: readonly number[];
}

function extent(values: readonly number[]): [number, number] {
  let low = Infinity;
  let high = -Infinity;
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    if (v < low) low = v;
    if (v > high) high = v;
  }
  if (low === Infinity) return [0, 1];
  if (low === high) return [low - 1, high + 1];
  return [low, high];
}

function label(value: number): string {
  if (Math.abs(value) >= 1000) return value.toFixed(0);
  return Number(value.toPrecision(4)).toString();
}

function frame(title: string, body: string, xName: string, yName: string, xs: [number, number], ys: [number, number], xTicks = true): string {
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const ticks: string[] = [];
  for (let k = 0; k <= 4; k++) {
    const yv = ys[0] + ((ys[1] - ys[0]) * k) / 4;
    const y = MARGIN.top + plotH - (plotH * k) / 4;
    ticks.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${y}" y2="${y}" stroke="#eee"/><text x="${MARGIN.left - 6}" y="${y + 4}" text-anchor="end" font-size="11">${escapeHtml(label(yv))}</text>`);
    if (!xTicks) continue; // categories label themselves
    const xv = xs[0] + ((xs[1] - xs[0]) * k) / 4;
    const x = MARGIN.left + (plotW * k) / 4;
    ticks.push(`<text x="${x}" y="${MARGIN.top + plotH + 16}" text-anchor="middle" font-size="11">${escapeHtml(label(xv))}</text>`);
  }
  return `<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escapeHtml(title)}">`
    + `<text x="${WIDTH / 2}" y="16" text-anchor="middle" font-size="13" font-weight="bold">${escapeHtml(title)}</text>${ticks.join('')}`
    + `<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>${body}`
    + `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 6}" text-anchor="middle" font-size="11">${escapeHtml(xName)}</text>`
    + `<text x="12" y="${MARGIN.top + plotH / 2}" text-anchor="middle" font-size="11" transform="rotate(-90 12 ${MARGIN.top + plotH / 2})">${escapeHtml(yName)}</text></svg>`;
}

/** Lines (step: a value holds until the next point, as a position does). */
export function linePlot(title: string, series: readonly Series[], xName: string, yName: string, step = false): string {
  const xs = extent(series.flatMap((s) => s.x));
  const ys = extent(series.flatMap((s) => s.y));
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const px = (x: number): string => (MARGIN.left + ((x - xs[0]) / (xs[1] - xs[0])) * plotW).toFixed(1);
  const py = (y: number): string => (MARGIN.top + plotH - ((y - ys[0]) / (ys[1] - ys[0])) * plotH).toFixed(1);
  const paths = series.map((s, i) => {
    const points: string[] = [];
    for (let k = 0; k < s.x.length; k++) {
      if (step && k > 0) points.push(`${px(s.x[k])},${py(s.y[k - 1])}`);
      points.push(`${px(s.x[k])},${py(s.y[k])}`);
    }
    const dots = s.x.length <= 30 ? s.x.map((x, k) => `<circle cx="${px(x)}" cy="${py(s.y[k])}" r="3" fill="${COLORS[i % COLORS.length]}"/>`).join('') : '';
    return `<polyline fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="1.5" points="${points.join(' ')}"/>${dots}`;
  });
  const legend = series.length > 1 ? series.map((s, i) => `<text x="${MARGIN.left + 8}" y="${MARGIN.top + 14 + i * 13}" font-size="11" fill="${COLORS[i % COLORS.length]}">${escapeHtml(s.name)}</text>`).join('') : '';
  return frame(title, paths.join('') + legend, xName, yName, xs, ys);
}

/** One bar per category, from zero (negative bars go down). */
export function barPlot(title: string, categories: readonly string[], values: readonly number[], yName: string): string {
  const ys = extent([0, ...values]);
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const py = (y: number): number => MARGIN.top + plotH - ((y - ys[0]) / (ys[1] - ys[0])) * plotH;
  const slot = plotW / Math.max(1, categories.length);
  const bars = categories.map((name, i) => {
    const top = Math.min(py(values[i]), py(0));
    const height = Math.max(1, Math.abs(py(values[i]) - py(0)));
    const x = MARGIN.left + i * slot;
    return `<rect x="${(x + slot * 0.15).toFixed(1)}" y="${top.toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${height.toFixed(1)}" fill="${values[i] < 0 ? COLORS[1] : COLORS[0]}"><title>${escapeHtml(`${name}: ${label(values[i])}`)}</title></rect>`
      + `<text x="${(x + slot / 2).toFixed(1)}" y="${MARGIN.top + plotH + 28}" text-anchor="middle" font-size="10">${escapeHtml(name)}</text>`;
  });
  return frame(title, bars.join(''), '', yName, [0, 1], ys, false);
}

/** A grid of cells coloured by value (blue low, red high), the value written in each. */
export function heatmap(title: string, xName: string, xValues: readonly string[], yName: string, yValues: readonly string[], cell: (xi: number, yi: number) => number | null): string {
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const values: number[] = [];
  for (let xi = 0; xi < xValues.length; xi++) for (let yi = 0; yi < yValues.length; yi++) {
    const v = cell(xi, yi);
    if (v !== null) values.push(v);
  }
  const [low, high] = extent(values);
  const w = plotW / Math.max(1, xValues.length);
  const h = plotH / Math.max(1, yValues.length);
  const parts: string[] = [];
  for (let xi = 0; xi < xValues.length; xi++) {
    parts.push(`<text x="${(MARGIN.left + (xi + 0.5) * w).toFixed(1)}" y="${MARGIN.top + plotH + 16}" text-anchor="middle" font-size="11">${escapeHtml(xValues[xi])}</text>`);
    for (let yi = 0; yi < yValues.length; yi++) {
      const v = cell(xi, yi);
      const t = v === null ? 0 : (v - low) / (high - low);
      const fill = v === null ? '#ddd' : `rgb(${Math.round(40 + 215 * t)},${Math.round(90 + 60 * (1 - Math.abs(2 * t - 1)))},${Math.round(255 - 215 * t)})`;
      const x = MARGIN.left + xi * w;
      const y = MARGIN.top + plotH - (yi + 1) * h;
      parts.push(`<rect class="cell" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${w.toFixed(1)}" height="${h.toFixed(1)}" fill="${fill}" stroke="#fff"><title>${escapeHtml(`${xName}=${xValues[xi]}, ${yName}=${yValues[yi]}: ${v === null ? 'n/a' : label(v)}`)}</title></rect>`);
      if (xValues.length * yValues.length <= 100) parts.push(`<text x="${(x + w / 2).toFixed(1)}" y="${(y + h / 2 + 4).toFixed(1)}" text-anchor="middle" font-size="10">${v === null ? 'n/a' : escapeHtml(label(v))}</text>`);
    }
  }
  for (let yi = 0; yi < yValues.length; yi++) parts.push(`<text x="${MARGIN.left - 6}" y="${(MARGIN.top + plotH - (yi + 0.5) * h + 4).toFixed(1)}" text-anchor="end" font-size="11">${escapeHtml(yValues[yi])}</text>`);
  return `<svg class="plot heatmap" xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escapeHtml(title)}">`
    + `<text x="${WIDTH / 2}" y="16" text-anchor="middle" font-size="13" font-weight="bold">${escapeHtml(title)}</text>${parts.join('')}`
    + `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 6}" text-anchor="middle" font-size="11">${escapeHtml(xName)}</text>`
    + `<text x="12" y="${MARGIN.top + plotH / 2}" text-anchor="middle" font-size="11" transform="rotate(-90 12 ${MARGIN.top + plotH / 2})">${escapeHtml(yName)}</text></svg>`;
}

/**
 * The one-run HTML report (`npm run replay -- FILE --config X --html out.html`, and the best run
 * of a sweep's report): the replay's numbers (PnL, fills, orders and their sha256, denies, book
 * health), the latency and queue-position model that ran, the PnL and inventory curves, and the
 * markouts at 1 s, 10 s and 60 s after our fills. One self-contained file: inline SVG
 * (sweep/svg.ts), inline CSS, no script and nothing fetched. Owns the layout; the numbers come
 * from the replay's report and the run summary (sweep/run-observer.ts).
 */

import { contractsText, dollarsOfMicro, fillsText } from './report.ts';
import type { CombinationResult, ReplaySettings } from './sweep/run-combination.ts';
import { barPlot, escapeHtml, linePlot } from './sweep/svg.ts';

const CSS = 'body{font:14px system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}h1{font-size:20px}h2{font-size:16px;margin-top:28px}'
  + 'table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right;font-variant-numeric:tabular-nums}'
  + 'th{background:#f4f4f4}td.l,th.l{text-align:left}.plots{display:flex;flex-wrap:wrap;gap:12px}.note{color:#666}.bad{color:#b00}';

export function pageHtml(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${CSS}</style></head>`
    + `<body><h1>${escapeHtml(title)}</h1>${body}</body></html>\n`;
}

function table(rows: readonly (readonly [string, string])[]): string {
  return `<table>${rows.map(([name, value]) => `<tr><th class="l">${escapeHtml(name)}</th><td class="l">${escapeHtml(value)}</td></tr>`).join('')}</table>`;
}

/** The model a run used, stated in full (a reader compares runs only under the same model). */
export function settingsHtml(settings: ReplaySettings): string {
  return table([
    ['order latency (request sent -> at the matching engine)', `${settings.orderLatencyUs} µs`],
    ['answer latency (engine -> answer at the OMS)', `${settings.answerLatencyUs} µs`],
    ['feed latency (engine -> our fill / order frame at the feed)', `${settings.feedLatencyUs} µs`],
    ['queue-position model', (settings.queueModel === 'risk_averse' ? 'risk_averse: size leaving a level leaves from behind us; only trades move us forward' : 'optimistic: size leaving a level leaves from the front') +
      (settings.queueFromLiveFills === true ? "; where our order joined a level after the same public size as the live run's order, a trade fills it as the live run's fills say it filled the live one" : '')],
    ['matching-engine seed', String(settings.seed)],
    ...(settings.framesMax === undefined ? [] : [['frames replayed at most', String(settings.framesMax)] as const]),
  ]);
}

/** Markouts as a table and a bar chart of micro-dollars per contract. */
export function markoutsHtml(result: CombinationResult): string {
  const markouts = result.summary.markouts;
  const rows = markouts.map((m) => `<tr><td>${m.horizonS} s</td><td>${m.fills}</td><td>${contractsText(m.contracts)}</td><td>${escapeHtml(dollarsOfMicro(m.totalMicro))}</td><td>${escapeHtml(dollarsOfMicro(m.perContractMicro))}</td></tr>`);
  const note = '<p class="note">Recorded mid h after each of our fills minus the mid at the fill, signed by the fill\'s side (+: the market moved our way), weighted by contracts. Fills whose horizon is past the recording\'s end, or with no mid, are left out (the fills column counts those kept).</p>';
  return `<table><tr><th>horizon</th><th>fills</th><th>contracts</th><th>total</th><th>per contract</th></tr>${rows.join('')}</table>${note}`
    + `<div class="plots">${barPlot('markout per contract ($)', markouts.map((m) => `${m.horizonS} s`), markouts.map((m) => m.perContractMicro / 1e6), '$ per contract')}</div>`;
}

/** PnL and inventory over the recording's time. */
export function curvesHtml(result: CombinationResult, label: string): string {
  const curve = result.summary.curve;
  const seconds = curve.timeMs.map((ms) => ms / 1000);
  return `<div class="plots">${linePlot(`PnL, ${label} ($)`, [{ name: 'PnL', x: seconds, y: curve.pnlMicro.map((v) => v / 1e6) }], 's after the recording start', '$')}`
    + `${linePlot(`inventory, ${label} (contracts)`, [{ name: 'position', x: seconds, y: curve.position.map((v) => v / 100) }], 's after the recording start', 'contracts', true)}</div>`
    + '<p class="note">PnL: cash from our fills minus fees plus the position at the recorded mid (the last known one while the book has none).</p>';
}

/** The replay report's numbers. */
export function numbersHtml(result: CombinationResult): string {
  const r = result.report;
  const denies = Object.entries(r.denies);
  return table([
    ['PnL (realized - fees + open positions at the book mid)', dollarsOfMicro(r.pnlMicro)],
    ['fills', fillsText(r.fills)],
    ['final position, largest inventory', `${contractsText(result.summary.positionFinal)}, ${contractsText(result.summary.inventoryMaxAbs)} contracts`],
    ['orders', `${r.orders.sent} sent: ${r.orders.creates} creates, ${r.orders.cancels} cancels, ${r.orders.amends} amends, ${r.orders.decreases} decreases; venue rejects ${r.orders.venueRejects}`],
    ['sha256 of the order requests', r.orders.sha256],
    ['denies', denies.length === 0 ? 'none' : denies.map(([code, n]) => `${code} ${n}`).join(', ')],
    ['frames', `${r.replay.framesDelivered} replayed, ${r.replay.framesSkipped} skipped, over ${r.recording.durationMs} ms`],
    ['books', `${r.book.snapshotsApplied} snapshots, ${r.book.deltasApplied} deltas; seq gaps ${r.book.seqGaps}, resyncs ${r.book.resyncsCompleted}/${r.book.resyncsRequested}`],
    ['replay order -> ack (model)', `p50 ${r.hopsUs.replayOrderToAck.p50} µs, p99 ${r.hopsUs.replayOrderToAck.p99} µs (n=${r.hopsUs.replayOrderToAck.count})`],
  ]);
}

export interface RunPage {
  recordingSource: string;
  configFile: string;
  result: CombinationResult;
}

export function renderRunHtml(page: RunPage): string {
  const body = `<p>recording <code>${escapeHtml(page.recordingSource)}</code>, configuration <code>${escapeHtml(page.configFile)}</code></p>`
    + `<h2>Result</h2>${numbersHtml(page.result)}<h2>Latency and queue model</h2>${settingsHtml(page.result.settings)}`
    + `<h2>PnL and inventory</h2>${curvesHtml(page.result, 'this run')}<h2>Markouts after our fills</h2>${markoutsHtml(page.result)}`;
  return pageHtml('Replay report', body);
}

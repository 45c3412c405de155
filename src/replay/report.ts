/**
 * The replay's report: one plain object (the `--json` output, keys in a fixed order) and its
 * readable rendering. Integers only (micro-dollars, 1/100 contracts, µs), nothing from the wall
 * clock unless --measure asked for it, so two runs print the same bytes.
 */

import { formatCount } from '../core/index.ts';
import type { Count } from '../core/index.ts';

export interface Percentiles {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface ReplayReport {
  recording: { records: number; frames: number; truncatedTailBytes: number; durationMs: number };
  replay: { framesDelivered: number; framesSkipped: number; endMs: number };
  orders: { sha256: string; sent: number; creates: number; cancels: number; amends: number; decreases: number; venueRejects: number; venueRejectsByCode: Record<string, number> };
  fills: { count: number; contracts: number; mirrorTrades: number; tradesAsLive: number; tradesNotCounterpart: number };
  denies: Record<string, number>;
  pnlMicro: number;
  positions: { subaccount: number; ticker: string; position: number; pnlMicro: number }[];
  book: { seqGaps: number; resyncsRequested: number; resyncsCompleted: number; snapshotsApplied: number; deltasApplied: number; outOfSync: number };
  /** Per hop on the recording's clock (recorded: the live run; replay: the venue model), µs. */
  hopsUs: { recordedFrameToOrder: Percentiles; recordedOrderToAnswer: Percentiles; replayOrderToAck: Percentiles };
  /** Only with --measure: wall-clock tick-to-trade of this machine, ns (differs run to run). */
  measuredWallClockNs?: { tickToTradeP50: number; tickToTradeP99: number; count: number };
}

/** Nearest-rank percentiles of integer samples (sorted copy; the input is left as it is). */
export function percentiles(samples: readonly number[]): Percentiles {
  if (samples.length === 0) return { count: 0, p50: 0, p90: 0, p99: 0, max: 0 };
  const sorted = Float64Array.from(samples).sort();
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  return { count: sorted.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1] };
}

export function dollarsOfMicro(micro: number): string {
  const sign = micro < 0 ? '-' : '';
  const abs = Math.abs(micro);
  return `${sign}$${Math.floor(abs / 1e6)}.${String(abs % 1e6).padStart(6, '0')}`;
}

/** 1/100 contracts as contracts: 150 -> "1.50" (core's formatCount). */
export function contractsText(count: number): string {
  return formatCount(count as Count);
}

/** The fills line of the text and HTML reports: how many, and who decided them (the queue model, the live run's fills). */
export function fillsText(fills: ReplayReport['fills']): string {
  const asLive = fills.tradesAsLive > 0 ? `, ${fills.tradesAsLive} of them sized by the live run's own fills` : '';
  const notCounterpart = fills.tradesNotCounterpart > 0 ? `, ${fills.tradesNotCounterpart} left to the queue model where ours joined after other size than the live order` : '';
  return `${fills.count} fills, ${contractsText(fills.contracts)} contracts (${fills.mirrorTrades} recorded trades met our resting orders${asLive}${notCounterpart})`;
}

function hop(name: string, p: Percentiles): string {
  return `  ${name.padEnd(28)} n=${p.count}  p50 ${p.p50} µs  p90 ${p.p90} µs  p99 ${p.p99} µs  max ${p.max} µs`;
}

export function formatReport(report: ReplayReport): string {
  const lines: string[] = [];
  lines.push(`recording   ${report.recording.records} records, ${report.recording.frames} frames over ${report.recording.durationMs} ms${report.recording.truncatedTailBytes > 0 ? `, truncated tail of ${report.recording.truncatedTailBytes} bytes ignored` : ''}`);
  lines.push(`replayed    ${report.replay.framesDelivered} frames (${report.replay.framesSkipped} recorded replies and private frames skipped)`);
  lines.push(`orders      ${report.orders.sent} sent: ${report.orders.creates} creates, ${report.orders.cancels} cancels, ${report.orders.amends} amends, ${report.orders.decreases} decreases; venue rejects ${report.orders.venueRejects}${report.orders.venueRejects === 0 ? '' : ` (${Object.entries(report.orders.venueRejectsByCode).map(([code, n]) => `${code} ${n}`).join(', ')})`}`);
  lines.push(`            sha256 of the order requests: ${report.orders.sha256}`);
  lines.push(`fills       ${fillsText(report.fills)}`);
  const denies = Object.entries(report.denies);
  lines.push(`denies      ${denies.length === 0 ? 'none' : denies.map(([code, n]) => `${code} ${n}`).join(', ')}`);
  lines.push(`PnL         ${dollarsOfMicro(report.pnlMicro)} (realized - fees + open positions at the book mid)`);
  for (const p of report.positions) lines.push(`  ${p.ticker} sub ${p.subaccount}: position ${contractsText(p.position)}, PnL ${dollarsOfMicro(p.pnlMicro)}`);
  const b = report.book;
  lines.push(`books       ${b.snapshotsApplied} snapshots, ${b.deltasApplied} deltas; seq gaps ${b.seqGaps}, out of sync ${b.outOfSync}, resyncs requested ${b.resyncsRequested}, completed ${b.resyncsCompleted}`);
  lines.push('per-hop latency (recording clock)');
  lines.push(hop('recorded frame -> order', report.hopsUs.recordedFrameToOrder));
  lines.push(hop('recorded order -> answer', report.hopsUs.recordedOrderToAnswer));
  lines.push(hop('replay order -> ack (model)', report.hopsUs.replayOrderToAck));
  if (report.measuredWallClockNs !== undefined) {
    const m = report.measuredWallClockNs;
    lines.push(`measured    tick-to-trade on this machine (wall clock, varies): p50 ${m.tickToTradeP50} ns, p99 ${m.tickToTradeP99} ns, n=${m.count}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Live against replay (`npm run replay -- FILE --compare-live`): the live run's numbers come from
 * the recording's own ORDER, ANSWER and private fill frames; the replay's from its report and the
 * venue's request log. Decisions are compared as (verb, ticker, side, price, count), ids left out
 * (the two runs' ids differ by construction). The differences a recording cannot remove are named
 * in `caveats`. Integers only; owns the comparison, decides nothing.
 */

import { RecordKind, recordText } from '../record/index.ts';
import type { Recording } from '../record/index.ts';
import { PrivateFrames } from './private-frames.ts';
import type { ReplayReport } from './report.ts';

export interface RunNumbers {
  creates: number;
  amends: number;
  cancels: number;
  decreases: number;
  rejects: number;
  fills: number;
  /** 1/100 contract. */
  filledContracts: number;
}

export interface LiveComparison {
  live: RunNumbers;
  replay: RunNumbers;
  /** How many first decisions are the same, in the same order. */
  sameFirstDecisions: number;
  decisionsCompared: number;
  /** Replay / live - 1, in basis points (0 when both are 0; 1,000,000 when only live is 0). */
  deltaBps: { creates: number; amends: number; fills: number };
  firstDifference: { index: number; live: string; replay: string } | null;
  caveats: string[];
}

/** A request's decision as `verb ticker side price count` (cancel and decrease: verb only, their text has no side). */
function decisionOf(parts: readonly string[]): string {
  const verb = parts[0];
  if (verb === 'create') return `create ${parts[2]} ${parts[3]} ${parts[4]} ${parts[5]}`;
  if (verb === 'amend') return `amend ${parts[2]} ${parts[3]} ${parts[4]} ${parts[5]}`;
  return verb;
}

/** The live run's decisions (cancel_all left out: the stop's, not the strategy's) and numbers. */
export function liveRun(recording: Recording): { numbers: RunNumbers; decisions: string[] } {
  const numbers: RunNumbers = { creates: 0, amends: 0, cancels: 0, decreases: 0, rejects: 0, fills: 0, filledContracts: 0 };
  const decisions: string[] = [];
  const frames = new PrivateFrames(recording);
  for (let i = 0; i < recording.count; i++) {
    const kind = recording.kinds[i];
    if (kind === RecordKind.ORDER) {
      const parts = recordText(recording, i).split('|');
      if (parts[0] === 'cancel_all') continue;
      if (parts[0] === 'create') numbers.creates++;
      else if (parts[0] === 'amend') numbers.amends++;
      else if (parts[0] === 'cancel') numbers.cancels++;
      else if (parts[0] === 'decrease') numbers.decreases++;
      decisions.push(decisionOf(parts));
    } else if (kind === RecordKind.ANSWER) {
      if (recordText(recording, i).split('|')[0].endsWith('_reject')) numbers.rejects++;
    } else if (frames.read(i, 'fill')) {
      numbers.fills++;
      numbers.filledContracts += frames.decoder.fill.count;
    }
  }
  return { numbers, decisions };
}

/** The replay's decisions from the venue's log (`<ns>|<request text>`). */
export function replayDecisions(log: readonly string[]): string[] {
  return log.map((line) => decisionOf(line.slice(line.indexOf('|') + 1).split('|')));
}

function deltaBps(live: number, replay: number): number {
  if (live === 0) return replay === 0 ? 0 : 1_000_000;
  return Math.round(((replay - live) * 10_000) / live);
}

export function compareLive(recording: Recording, report: ReplayReport, venueLog: readonly string[]): LiveComparison {
  const live = liveRun(recording);
  const replayed = replayDecisions(venueLog);
  const o = report.orders;
  const replay: RunNumbers = { creates: o.creates, amends: o.amends, cancels: o.cancels, decreases: o.decreases, rejects: o.venueRejects, fills: report.fills.count, filledContracts: report.fills.contracts };
  const compared = Math.min(live.decisions.length, replayed.length);
  let same = 0;
  while (same < compared && live.decisions[same] === replayed[same]) same++;
  const firstDifference = same < Math.max(live.decisions.length, replayed.length) ? { index: same, live: live.decisions[same] ?? '(none)', replay: replayed[same] ?? '(none)' } : null;
  return {
    live: live.numbers,
    replay,
    sameFirstDecisions: same,
    decisionsCompared: compared,
    deltaBps: { creates: deltaBps(live.numbers.creates, replay.creates), amends: deltaBps(live.numbers.amends, replay.amends), fills: deltaBps(live.numbers.fills, replay.fills) },
    firstDifference,
    caveats: [
      report.fills.tradesAsLive > 0
        ? `queue position: ${report.fills.tradesAsLive} recorded trades met a replay order that joined its level after the same public size as the live order, and filled it as the live run's fills say; the other ${report.fills.mirrorTrades - report.fills.tradesAsLive} the queue model decided (--queue)`
        : 'queue position: the engine mirrors the recorded book level by level; where we stood in a live queue is not recorded (--queue picks a model)',
      'other participants\' reactions: the recording shows how the market moved around the live orders, not how it would have moved around different ones',
      'latency: each replay request takes the hops of the nearest live request of its verb; a request the live run never made has no hops of its own',
      'the live run\'s stop (cancel-all, the strategies\' cancels while draining) is not replayed: the replay ends with the recording',
    ],
  };
}

function pct(bps: number): string {
  const sign = bps < 0 ? '-' : '+';
  const abs = Math.abs(bps);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}%`;
}

export function formatComparison(c: LiveComparison): string {
  const rows: [string, keyof RunNumbers, number | null][] = [
    ['creates', 'creates', c.deltaBps.creates], ['amends', 'amends', c.deltaBps.amends], ['cancels', 'cancels', null],
    ['decreases', 'decreases', null], ['venue rejects', 'rejects', null], ['fills', 'fills', c.deltaBps.fills], ['contracts filled (1/100)', 'filledContracts', null],
  ];
  const lines = ['live vs replay (live from the recording\'s own order, answer and fill records)', `  ${''.padEnd(26)}${'live'.padStart(8)}${'replay'.padStart(8)}`];
  for (const [name, key, bps] of rows) lines.push(`  ${name.padEnd(26)}${String(c.live[key]).padStart(8)}${String(c.replay[key]).padStart(8)}${bps === null ? '' : `  ${pct(bps)}`}`);
  lines.push(`  same first decisions, in order: ${c.sameFirstDecisions} of ${c.decisionsCompared}`);
  if (c.firstDifference !== null) lines.push(`  first difference at #${c.firstDifference.index}: live "${c.firstDifference.live}", replay "${c.firstDifference.replay}"`);
  lines.push('differences a recording cannot remove:');
  for (const caveat of c.caveats) lines.push(`  - ${caveat}`);
  return `${lines.join('\n')}\n`;
}

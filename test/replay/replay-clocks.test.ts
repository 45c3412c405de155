/**
 * Goal: every clock the trading graph reads in a replay is the recording's. The timers the main
 * job runs with setInterval (feed tick, strategy host, OMS/router tick, keep-warm) run as
 * ReplayTicks on the recording's clock; the strategy host starts no timer of its own when driven;
 * the gate's buckets take the budget the live run adopted; order groups are answered when the
 * live ones were; request hops come from the recording's own order -> answer times, a private
 * frame counting as a request's reply only when it shows the request done, and a request refused
 * after a fill ended its order put after that fill.
 * Method: ReplayTicks alone; a recording written by the Recorder (SESSION facts, orders, answers)
 * read back; the shipped fixture replayed and the tick counts checked against its duration.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Recorder, RecordKind, readRecordingFile, recordBudget, recordingGroupVenue, sessionFacts } from '../../src/record/index.ts';
import { loadConfig } from '../../src/runtime/config.ts';
import { Replay } from '../../src/replay/replay.ts';
import { ReplayTicks } from '../../src/replay/replay-ticks.ts';
import { recordedLatency } from '../../src/replay/recorded-latency.ts';
import type { LatencyModel } from '../../src/replay/recorded-latency.ts';
import { asCount } from '../../src/core/index.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'recordings', 'sim-market-maker.prrc');
const config = loadConfig(path.join(ROOT, 'test', 'fixtures', 'recordings', 'replay-config.json'), {});
const work = mkdtempSync(path.join(tmpdir(), 'replay-clocks-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('ReplayTicks', () => {
  it('runs each task at its period on the given clock, once after a silence, none when off', () => {
    const ticks = new ReplayTicks();
    const seen: string[] = [];
    ticks.add('a', 100, 1_000, (now) => seen.push(`a${now}`));
    ticks.add('b', 250, 1_000, (now) => seen.push(`b${now}`));
    ticks.add('off', 0, 1_000, () => seen.push('off'));
    expect(ticks.nextDueMs()).toBe(1_100);
    expect(ticks.runDue(1_099)).toBe(0);
    expect(ticks.runDue(1_100)).toBe(1);
    expect(ticks.runDue(1_250)).toBe(2);
    expect(ticks.runDue(9_000)).toBe(2); // a long silence: once each
    expect(seen).toEqual(['a1100', 'a1250', 'b1250', 'a9000', 'b9000']);
    expect(ticks.nextDueMs()).toBe(9_100);
    expect(ticks.runs.has('off')).toBe(false);
  });
});

/** A small recording: a budget, a group, one create and its answer 7 ms later, frames around them. */
async function writeFacts(): Promise<string> {
  let now = 0;
  const recorder = new Recorder({ dir: work, startMs: 1_800_000_000_000, nowNs: () => now, fileName: 'facts.prrc' });
  now = 1e6;
  recordBudget(recorder, { tier: 'prime', source: 'exchange', writePerSecond: 400, writeCapacity: 400, readPerSecond: 400, readCapacity: 400 });
  now = 2e6;
  const venue = recordingGroupVenue(recorder, { createOrderGroup: () => new Promise<string>((resolve) => setTimeout(() => { now = 50e6; resolve('group-1'); }, 1)), deleteOrderGroup: () => undefined });
  expect(await venue.createOrderGroup(asCount(100_000), 1)).toBe('group-1');
  now = 60e6;
  recorder.text(RecordKind.ORDER, 'create|c1|T|bid|4000|100|good_till_canceled|1|0|taker_at_cross|1||0');
  const frame = Buffer.from('{"type":"trade","sid":1,"msg":{}}');
  recorder.frame(frame, 0, frame.length, 0);
  now = 67e6;
  recorder.text(RecordKind.ANSWER, 'create_ack|c1|o1|0|100|0');
  await recorder.close();
  return recorder.path;
}

/** One record of a hand-written recording: an ORDER or ANSWER text, or a frame (received at recvNs, else at ns). */
type Step = { ns: number; order: string } | { ns: number; answer: string } | { ns: number; frame: Buffer; recvNs?: number };

const CAUSE = Buffer.from('{"type":"orderbook_delta","sid":1,"seq":2,"msg":{}}');

/** The recorded latency model of a recording written from `steps`, each at its time. */
async function modelOf(fileName: string, steps: readonly Step[]): Promise<LatencyModel> {
  let now = 0;
  const recorder = new Recorder({ dir: work, startMs: 1_800_000_000_000, nowNs: () => now, fileName });
  for (const step of steps) {
    now = step.ns;
    if ('order' in step) recorder.text(RecordKind.ORDER, step.order);
    else if ('answer' in step) recorder.text(RecordKind.ANSWER, step.answer);
    else recorder.frame(step.frame, 0, step.frame.length, step.recvNs ?? step.ns);
  }
  await recorder.close();
  return recordedLatency(readRecordingFile(recorder.path))!;
}

describe('recorded facts', () => {
  it('reads back the adopted budget, the group with its request and answer times, and the hops', async () => {
    const recording = readRecordingFile(await writeFacts());
    const facts = sessionFacts(recording);
    expect(facts.budget).toEqual({ tier: 'prime', source: 'exchange', writePerSecond: 400, writeCapacity: 400, readPerSecond: 400, readCapacity: 400 });
    expect(facts.budgetNs).toBe(1e6);
    expect(facts.orderGroups).toEqual([{ subaccount: 1, contractsLimit: 100_000, orderGroupId: 'group-1', requestNs: 2e6, createdNs: 50e6 }]);
    expect(facts.strategiesStartNs).toBe(2e6);
    const model = recordedLatency(recording);
    expect(model).not.toBeNull();
    // Cause = the frame (60 ms), sent 60 ms, answer 67 ms: the engine halfway, the answer 3.5 ms later.
    expect(model!.hops('create', 0, 0)).toEqual({ engineNs: 3.5e6, answerNs: 3.5e6, feedNs: 1e6 });
  });

  it('gives the n-th request of one decision the hops of the live decision\'s n-th request of that verb', async () => {
    // One frame at 10 ms causes two amends, sent at 10.3 and 10.6 ms and answered at 14.2 and
    // 15.1 ms: the second waited for the first's signing, and its answer came later.
    const model = await modelOf('two-amends.prrc', [
      { ns: 10.3e6, order: 'amend|o1|T|bid|4700|100|1' },
      { ns: 10.6e6, order: 'amend|o2|T|ask|5200|100|1' },
      { ns: 10.6e6, frame: CAUSE, recvNs: 10e6 },
      { ns: 14.2e6, answer: 'amend_ack|o1|0|0|0' },
      { ns: 15.1e6, answer: 'amend_ack|o2|0|0|0' },
    ]);
    const first = model.hops('amend', 10e6, 0);
    const second = model.hops('amend', 10e6, 1);
    // Decision to answer: the live request's send delay plus its wait for the answer.
    expect(first.engineNs + first.answerNs).toBe(4.2e6);
    expect(second.engineNs + second.answerNs).toBe(5.1e6);
    // A third amend of that decision (the live one made two) takes the last; a decision nearer another cause, that cause's.
    expect(model.hops('amend', 10e6, 2)).toEqual(second);
    expect(model.hops('amend', 11e6, 0)).toEqual(first);
  });
});

/** A user_order frame of order `id`: status and YES price (dollars text). */
function userOrderFrame(id: string, status: string, price: string): Buffer {
  return Buffer.from(`{"type":"user_order","sid":2,"msg":{"order_id":"${id}","user_id":"u","ticker":"T","status":"${status}","outcome_side":"yes","book_side":"bid","yes_price_dollars":"${price}","fill_count_fp":"0.00","remaining_count_fp":"1.00","initial_count_fp":"1.00","client_order_id":"c","created_ts_ms":1,"last_updated_ts_ms":1}}`);
}

describe('recorded hops of requests an order\'s fill overtook', () => {
  it('an amend refused because a fill ended its order reached the engine after the fill; a fill\'s update is no amend\'s reply', async () => {
    // Frame at 10 ms; two amends sent at 10.2 and 10.3 ms: o1's (to $0.48) overtaken by a fill,
    // whose "executed" update arrives at 14 ms and the refusal at 15.2 ms; o2's (to $0.53)
    // overtaken by a partial fill (an update at its old price at 11 ms), moved (its update at
    // $0.53 at 12.3 ms), answered at 13 ms, before o1's: ranks follow the sends, not the answers.
    const model = await modelOf('overtaken.prrc', [
      { ns: 10.2e6, order: 'amend|o1|T|bid|4800|100|1' },
      { ns: 10.3e6, order: 'amend|o2|T|bid|5300|100|1' },
      { ns: 10.3e6, frame: CAUSE, recvNs: 10e6 },
      { ns: 11e6, frame: userOrderFrame('o2', 'resting', '0.5100') },
      { ns: 12.3e6, frame: userOrderFrame('o2', 'resting', '0.5300') },
      { ns: 13e6, answer: 'amend_ack|o2|0|0|0' },
      { ns: 14e6, frame: userOrderFrame('o1', 'executed', '0.4900') },
      { ns: 15.2e6, answer: 'amend_reject|o1|404|not_found|order not found' },
    ]);
    // o1: halfway to the refusal would be 12.7 ms, before the fill that ended the order: the engine at 14 ms, 4 ms after the cause.
    const first = model.hops('amend', 10e6, 0);
    expect(first.engineNs).toBe(4e6);
    expect(first.engineNs + first.answerNs).toBe(5.2e6);
    // o2: its reply is the update at its new price (12.3 ms), not the fill's at 11 ms: the engine
    // halfway from the send, at 11.3 ms, 1.3 ms after the cause; its update 1 ms later.
    const second = model.hops('amend', 10e6, 1);
    expect(second.engineNs).toBe(1.3e6);
    expect(second.feedNs).toBe(1e6);
  });
});

describe('a replay on the recording\'s clock', () => {
  it('ticks the feed, host and OMS on the recording\'s time, and the host starts no timer of its own', async () => {
    const replay = new Replay({ recording: readRecordingFile(FIXTURE), config, rootDir: ROOT });
    await replay.start();
    const report = await replay.run();
    await replay.close();
    const spanMs = report.replay.endMs - replay.recording.startMs;
    // One OMS tick per 100 ms, one host tick per 50 ms, one feed tick per 250 ms of the recording (a silence ticks once).
    expect(replay.ticks.runs.get('oms')).toBeGreaterThan(spanMs / 100 / 2);
    expect(replay.ticks.runs.get('oms')).toBeLessThanOrEqual(Math.ceil(spanMs / 100));
    expect(replay.ticks.runs.get('host')).toBeLessThanOrEqual(Math.ceil(spanMs / 50));
    expect(replay.ticks.runs.get('host')).toBeGreaterThan(replay.ticks.runs.get('oms')!);
    expect(replay.ticks.runs.get('feed')).toBeGreaterThan(0);
    expect(replay.ticks.runs.get('keep-warm')).toBeGreaterThan(0);
    expect(replay.keepWarm!.stats.denied).toBe(0);
    expect(report.orders.sent).toBeGreaterThan(0);
  });
});

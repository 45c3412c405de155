// Goal: the journal is an append-only JSON-lines file written off the hot path, and recover()
// lets a restarted runtime rebuild its open orders, fills, positions and id counter, then
// reconcile those orders with the venue instead of resending or forgetting them. Also: client
// order ids stay monotonic and unique across restarts, even with a clock stepping back.
// Method: real files in a temp dir; an OMS is run, its journal flushed and then truncated to
// simulate a crash right after "intent sent" (plus a torn half line); a second OMS is built from
// recover() over a fresh fake OrderEntry and driven through reconciliation.

import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, appendFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/index.ts';
import { ClientOrderIds, Journal, ORDER_STATE_NAMES, OrderState as S, parseClientOrderId, recover } from '../../src/oms/index.ts';
import { Deny } from '../../src/risk/index.ts';
import { GRACE_MS, START_MS, TICKER, c, fill, p, wireOrder, world } from './fakes.ts';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'oms-journal-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function lines(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('Journal', () => {
  it('writes the session line at once and the rest only when flushed, one JSON line per event, in order', async () => {
    const path = join(dir, 'j.jsonl');
    const journal = new Journal(path);
    const w = world({ journal });
    expect(lines(path).map((l) => l.k)).toEqual(['session']);
    w.router.submit(w.intent);
    const coid = w.oms.lastClientOrderId;
    w.entry.listener!.onCreateAck(coid, 'o-1', c('0'), c('10'), 0);
    w.oms.onFill(fill('o-1', coid, 'bid', p('0.40'), c('10'), { tradeId: 't-1' }));
    expect(lines(path).length).toBe(1); // nothing written on the hot path
    await journal.flush();
    const written = lines(path);
    expect(written.map((l) => l.k)).toEqual(['session', 'intent', 'ack', 'fill', 'state']);
    expect(written[1]).toMatchObject({ coid, ticker: TICKER, side: 'bid', px: p('0.40'), cnt: c('10'), sub: 0, tif: 'good_till_canceled' });
    expect(written[2]).toMatchObject({ coid, oid: 'o-1', st: 'RESTING', ev: 'CREATE_ACK_OPEN', rem: c('10') });
    expect(written[3]).toMatchObject({ tid: 't-1', oid: 'o-1', coid, cnt: c('10') });
    expect(written[4]).toMatchObject({ coid, st: 'FILLED', ev: 'FILL_FULL', fil: c('10'), rem: 0 });
    await w.oms.stop();
  });

  it('keeps every entry when the ring fills between flushes', async () => {
    const path = join(dir, 'j.jsonl');
    const journal = new Journal(path, { capacity: 4 });
    const w = world({ journal });
    for (let i = 0; i < 10; i++) w.router.submit(w.intent);
    await journal.close();
    const written = lines(path);
    expect(written.filter((l) => l.k === 'intent').map((l) => l.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // A late venue answer after shutdown is dropped and counted, never thrown into the caller.
    w.entry.listener!.onCreateUnknown(w.oms.lastClientOrderId, 'EXEC_TIMEOUT');
    expect(journal.droppedAfterClose).toBe(1);
    expect(lines(path).length).toBe(written.length);
  });

  it('pumps while a write is in flight keep every line in order; flush resolves once all are on the file (fsync on)', async () => {
    const path = join(dir, 'j.jsonl');
    const journal = new Journal(path, { capacity: 8, fsync: true });
    const w = world({ journal });
    const flushes: Promise<void>[] = [];
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 5; i++) w.router.submit(w.intent);
      journal.pump(); // the tick's: starts a write or leaves the bytes for the one after the write in flight
      if (round % 7 === 3) flushes.push(journal.flush());
    }
    const done = journal.flush();
    let settled = false;
    void done.then(() => (settled = true));
    expect(settled).toBe(false); // a write is in flight: not yet on the file
    await done;
    expect(lines(path).filter((l) => l.k === 'intent').map((l) => l.n)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    await Promise.all(flushes); // the earlier ones resolved too
    expect(journal.writeError).toBeNull();
    await journal.flush(); // idle: resolves at once
    await w.oms.stop();
  });

  it('recover() of a missing file is empty', () => {
    const recovered = recover(join(dir, 'none.jsonl'));
    expect(recovered).toMatchObject({ lines: 0, counterMax: 0, sessionEpochMsMax: 0, orders: [], fills: [], kill: null });
  });
});

describe('restart from the journal', () => {
  it('after a crash right after "intent sent", reconciles that order instead of resending it', async () => {
    const path = join(dir, 'j.jsonl');
    const journal = new Journal(path);
    const first = world({ journal });
    first.router.submit(first.intent);
    const coid = first.oms.lastClientOrderId;
    first.oms.tick(); // the tick starts the journal flush without awaiting it...
    await journal.flush(); // ...so wait for the write to land before measuring the file
    const crashAt = statSync(path).size;
    first.entry.listener!.onCreateAck(coid, 'o-1', c('0'), c('10'), 0); // the venue took it...
    first.oms.tick();
    await journal.flush();
    truncateSync(path, crashAt); // ...but the process died before the ack reached the journal
    appendFileSync(path, '{"k":"ack","coid":"' + coid); // and left a torn line

    const recovered = recover(path);
    expect(recovered.badLines).toBe(1);
    expect(recovered.orders.map((o) => [o.clientOrderId, ORDER_STATE_NAMES[o.state]])).toEqual([[coid, 'PENDING_NEW']]);
    const clock = new ManualClock(START_MS + 5_000);
    const second = world({ journal: new Journal(path), recovered, clock });
    const order = second.oms.order(coid)!;
    expect(order.state).toBe(S.UNKNOWN);
    expect(second.gate.exposure.slot(second.market, 0)!.restingBid).toBe(c('10')); // counted while unknown
    second.entry.orders = [wireOrder('o-1', coid, 'resting', c('0'), c('10'))];
    await second.oms.tick();
    expect(order.state).toBe(S.RESTING);
    expect(order.orderId).toBe('o-1');
    expect(second.entry.creates).toEqual([]); // never resent
    await second.oms.stop();
  });

  it('closes a recovered order the venue never got once the grace period has passed, and rejects nothing acked', async () => {
    const path = join(dir, 'j.jsonl');
    const first = world({ journal: new Journal(path) });
    first.router.submit(first.intent);
    const lost = first.oms.lastClientOrderId;
    first.router.submit(first.intent);
    const acked = first.oms.lastClientOrderId;
    first.entry.listener!.onCreateAck(acked, 'o-2', c('0'), c('10'), 0);
    await first.oms.stop();

    const recovered = recover(path);
    const second = world({ journal: new Journal(path), recovered, clock: new ManualClock(START_MS + GRACE_MS) });
    second.entry.orders = []; // the venue lists neither (the acked one closed before the read window)
    await second.oms.tick();
    expect(second.oms.order(lost)!.state).toBe(S.REJECTED);
    expect(second.oms.order(acked)!.state).toBe(S.CANCELED);
    expect(second.gate.exposure.openOrders).toBe(0);
    await second.oms.stop();
  });

  it('continues the client order id counter across restarts, with a later epoch even if the clock stepped back', async () => {
    const path = join(dir, 'j.jsonl');
    const first = world({ journal: new Journal(path) });
    for (let i = 0; i < 3; i++) first.router.submit(first.intent);
    const last = parseClientOrderId(first.oms.lastClientOrderId)!;
    expect(last.counter).toBe(3);
    await first.oms.stop();

    const recovered = recover(path);
    expect(recovered.counterMax).toBe(3);
    const second = world({ journal: new Journal(path), recovered, clock: new ManualClock(START_MS - 60_000) });
    expect(second.router.submit(second.intent)).toBe(Deny.NONE);
    const next = parseClientOrderId(second.oms.lastClientOrderId)!;
    expect(next.counter).toBe(4);
    expect(next.sessionEpochMs).toBeGreaterThan(last.sessionEpochMs);
    await second.oms.stop();

    // A journal whose intent lines were all lost still carries the session line's epoch and counter.
    const third = world({ recovered: recover(path), clock: new ManualClock(START_MS - 120_000) });
    third.router.submit(third.intent);
    expect(parseClientOrderId(third.oms.lastClientOrderId)!.counter).toBe(5);
  });

  it('rebuilds positions and fill de-duplication from journaled fills, and keeps the kill switch engaged', async () => {
    const path = join(dir, 'j.jsonl');
    const first = world({ journal: new Journal(path) });
    first.oms.onFill(fill('o-x', '', 'bid', p('0.40'), c('3'), { tradeId: 't-1' }));
    first.oms.onFill(fill('o-x', '', 'ask', p('0.50'), c('1'), { tradeId: 't-2' }));
    await first.router.killSwitch('position breach', 'risk');
    await first.oms.stop();

    const second = world({ recovered: recover(path) });
    expect(second.oms.position(0, TICKER)!.position).toBe(c('2'));
    expect(second.oms.position(0, TICKER)!.realizedPnlCenticents).toBe(1000); // 1 x $0.10
    expect(second.gate.exposure.position(second.market, 0)).toBe(c('2'));
    second.oms.onFill(fill('o-x', '', 'bid', p('0.40'), c('3'), { tradeId: 't-1' })); // replayed by the socket
    expect(second.oms.position(0, TICKER)!.position).toBe(c('2'));
    expect(second.gate.killed).toBe(true);
    expect(second.oms.killSwitchState).toMatchObject({ reason: 'position breach', source: 'risk' });
    expect(second.router.submit(second.intent)).toBe(Deny.KILL_SWITCH);
  });
});

describe('Journal: the kill switch persists until released; a stop is not a kill', () => {
  it('a normal stop leaves the next start trading', async () => {
    const path = join(dir, 'stop.jsonl');
    const first = world({ journal: new Journal(path) });
    await first.router.cancelAllForStop('SIGINT');
    expect(first.gate.killed).toBe(true); // no new orders while this process stops
    await first.oms.stop();
    const second = world({ recovered: recover(path) });
    expect(second.oms.killSwitchState).toBeNull();
    expect(second.router.submit(second.intent)).toBe(Deny.NONE);
  });

  it('an engaged kill survives session lines and restarts; a release is journaled and clears it', async () => {
    const path = join(dir, 'kill.jsonl');
    const first = world({ journal: new Journal(path) });
    await first.router.killSwitch('operator SIGUSR2');
    await first.oms.stop();
    // A second run that never released it writes its own session line: still engaged.
    const second = world({ recovered: recover(path), journal: new Journal(path) });
    expect(second.oms.killSwitchState?.reason).toBe('operator SIGUSR2');
    second.router.releaseKillSwitch('--release-kill-switch');
    expect(second.gate.killed).toBe(false);
    await second.oms.stop();
    const lines = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { k: string; by?: string });
    expect(lines.filter((line) => line.k === 'release')).toEqual([expect.objectContaining({ by: '--release-kill-switch' })]);
    const third = world({ recovered: recover(path) });
    expect(third.oms.killSwitchState).toBeNull();
    expect(third.router.submit(third.intent)).toBe(Deny.NONE);
  });

  it('reads a kill line without a source (written by stops before this fix) as no kill', () => {
    const path = join(dir, 'legacy.jsonl');
    writeFileSync(path, '{"k":"session","t":1,"prefix":"rt","epoch":1,"counter":0}\n{"k":"kill","t":2,"reason":"SIGINT"}\n');
    expect(recover(path).kill).toBeNull();
  });
});

describe('ClientOrderIds', () => {
  it('formats prefix-epoch36-counter, parses back, and refuses bad prefixes', () => {
    const ids = new ClientOrderIds('mm_1', 1_800_000_000_123, 41);
    const id = ids.next();
    expect(id).toBe(`mm_1-${(1_800_000_000_123).toString(36)}-42`);
    expect(parseClientOrderId(id)).toEqual({ prefix: 'mm_1', sessionEpochMs: 1_800_000_000_123, counter: 42 });
    expect(parseClientOrderId('3f0d5c9e-8a61-4c1e-9a0b-2f4d7e6c1b11')).toBeNull();
    expect(() => new ClientOrderIds('bad-prefix', 1, 0)).toThrow(/prefix/);
    expect(() => new ClientOrderIds('', 1, 0)).toThrow(/prefix/);
  });
});

/**
 * Goal: the StrategyHost loads plugins from config entries (params validated, errors naming the id
 * and path), binds them to subaccount, markets and an order group, dispatches book, out-of-sync,
 * fill, order, lifecycle and timer events to the right instances, faults a throwing instance and
 * cancels its orders, and redeploys one instance from changed source without a restart.
 * Method: probe plugins written as .mjs files into a temp directory (rewritten to test the
 * cache-busting reload), run by a host over the real RiskGate and books with a fake OMS whose
 * cancels are acknowledged at once; a manual clock drives the timer through host.tick().
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asCount, IntentKind } from '../../src/core/index.ts';
import { ApplyStatus } from '../../src/book/index.ts';
import { StrategyError, StrategyHost } from '../../src/strategy/index.ts';
import type { StrategyEntry } from '../../src/strategy/index.ts';
import { harness, setBook } from './fake-ports.ts';
import type { Harness } from './fake-ports.ts';

const dir = mkdtempSync(join(tmpdir(), 'strategy-host-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Probe = unknown[][];
const probe = (): Probe => ((globalThis as Record<string, unknown>).__probe ??= []) as Probe;

function writeProbe(file: string, version: string, bookUpdates = ''): void {
  writeFileSync(join(dir, file), `
const VERSION = ${JSON.stringify(version)};
export default {
  name: 'probe',
  timerIntervalMs: 100,${bookUpdates === '' ? '' : `\n  bookUpdates: ${JSON.stringify(bookUpdates)},`}
  paramsSchema: {
    type: 'object', additionalProperties: false,
    properties: {
      price: { type: 'integer', minimum: 1, default: 4100 },
      place: { type: 'boolean', default: false },
      throwOn: { type: 'string', default: '' },
    },
  },
  create(params) {
    const log = (globalThis.__probe ??= []);
    const maybeThrow = (name) => { if (params.throwOn === name) throw new Error('boom in ' + name); };
    return {
      onStart(ctx) { log.push(['start', ctx.id, VERSION]); maybeThrow('onStart'); },
      onStop(ctx) { log.push(['stop', ctx.id, VERSION]); },
      onBook(book, ctx) {
        log.push(['book', ctx.id, VERSION, book.ticker]);
        if (globalThis.__wantNext === true) ctx.wantNextBook(book.ticker);
        if (params.place) log.push(['deny', ctx.id, ctx.place(book.ticker, 'bid', params.price, 100, 1)]);
        maybeThrow('onBook');
      },
      onBookOutOfSync(book, ctx) { log.push(['oos', ctx.id, book.ticker]); },
      onFill(fill, ctx) { log.push(['fill', ctx.id, fill.clientOrderId]); },
      onOrderUpdate(order, ctx) { log.push(['order', ctx.id, order.clientOrderId]); },
      onLifecycle(event, ctx) { log.push(['life', ctx.id, event.type]); },
      onTimer(now, ctx) { log.push(['timer', ctx.id, now]); },
    };
  },
};
`);
}

function entry(id: string, file: string, markets: string[], params: Record<string, unknown> = {}, extra: Partial<StrategyEntry> = {}): StrategyEntry {
  return { id, plugin: file, subaccount: 0, orderGroup: null, markets, params, ...extra };
}

async function failure(promise: Promise<unknown>): Promise<StrategyError> {
  try {
    await promise;
  } catch (error) {
    return error as StrategyError;
  }
  throw new Error('expected a failure');
}

let h: Harness;
let host: StrategyHost;

beforeEach(() => {
  probe().length = 0;
  h = harness();
  setBook(h.markets.addBook('KXA'), [['0.4000', '10']], [['0.4500', '10']]);
  setBook(h.markets.addBook('KXB'), [['0.2000', '10']], [['0.3000', '10']]);
  // The fake venue acknowledges cancels at once, so stops drain.
  h.oms.onAccepted = (record) => {
    if (record.kind === IntentKind.NEW) h.oms.ack(record.clientOrderId);
    if (record.kind === IntentKind.CANCEL) h.oms.ack(record.clientOrderId);
  };
  host = new StrategyHost({ ports: h.ports, rootDir: dir, drainTimeoutMs: 1_000, drainPollMs: 5, cancelRetryMs: 50 });
  writeProbe('probe.mjs', 'v1');
});

afterEach(async () => {
  await host.stopAll();
});

describe('StrategyHost', () => {
  it('starts instances, calls onStart and dispatches each book only to the instances of its market', async () => {
    await host.start([entry('a', 'probe.mjs', ['KXA']), entry('b', 'probe.mjs', ['KXA', 'KXB'])]);
    expect(h.markets.ensured).toEqual(['KXA', 'KXA', 'KXB']);
    host.onBookUpdate(h.markets.books.get('KXB')!);
    host.onBookUpdate(h.markets.books.get('KXA')!);
    expect(probe()).toEqual([
      ['start', 'a', 'v1'],
      ['start', 'b', 'v1'],
      ['book', 'b', 'v1', 'KXB'],
      ['book', 'a', 'v1', 'KXA'],
      ['book', 'b', 'v1', 'KXA'],
    ]);
    expect(host.summaries().map((s) => [s.id, s.status, s.strategyId])).toEqual([['a', 'running', 1], ['b', 'running', 2]]);
  });

  it("calls a 'bestPrice' plugin's onBook only when a best price moved; an 'every' plugin hears each change", async () => {
    writeProbe('top.mjs', 'top', 'bestPrice');
    await host.start([entry('every', 'probe.mjs', ['KXA']), entry('top', 'top.mjs', ['KXA'])]);
    const book = h.markets.books.get('KXA')!;
    const changes: Array<[0 | 1, number, number, boolean]> = [
      [0, 4000, 500, false], // more size at the best bid
      [0, 3900, 300, false], // a level under it
      [0, 4100, 200, true], // a better bid
      [0, 4100, -200, true], // gone again: the best falls back to 0.40
      [1, 5800, 100, true], // a NO bid at 0.58: an ask at 0.42, under the best ask 0.45
    ];
    const seen: string[] = [];
    for (const [side, price, delta, moved] of changes) {
      probe().length = 0;
      expect(book.applyDelta(side, price as never, asCount(delta))).toBe(ApplyStatus.OK);
      expect(book.topMoved).toBe(moved);
      host.onBookUpdate(book);
      seen.push(probe().map((event) => event[1]).join('+'));
    }
    expect(seen).toEqual(['every', 'every', 'every+top', 'every+top', 'every+top']);
    // ctx.wantNextBook: the next change reaches it once, though no best price moves.
    const heard = (side: 0 | 1, price: number, delta: number): string => {
      probe().length = 0;
      expect(book.applyDelta(side, price as never, asCount(delta))).toBe(ApplyStatus.OK);
      expect(book.topMoved).toBe(false);
      host.onBookUpdate(book);
      return probe().map((event) => event[1]).join('+');
    };
    const g = globalThis as Record<string, unknown>;
    g.__wantNext = true;
    try {
      expect(heard(0, 3800, 100)).toBe('every'); // not asked yet: the 'every' plugin asks (and is heard anyway)
      book.applyDelta(0, 4300 as never, asCount(100));
      host.onBookUpdate(book); // a better bid: both hear it, and both ask for the next change
    } finally {
      g.__wantNext = false;
    }
    expect(heard(0, 3800, 100)).toBe('every+top'); // asked for: heard once
    expect(heard(0, 3800, 100)).toBe('every'); // taken: no more
  });

  it("rejects a plugin whose bookUpdates is neither 'every' nor 'bestPrice'", async () => {
    writeProbe('odd.mjs', 'odd', 'sometimes');
    const error = await failure(host.start([entry('odd', 'odd.mjs', ['KXA'])]));
    expect(error.code).toBe('STRATEGY_PLUGIN_INVALID');
    expect(error.message).toContain("bookUpdates: must be 'every' or 'bestPrice'");
  });

  it('makes a second instance of a plugin with rehearse: true for the keep-warm, drops it when it throws, and anew on a redeploy', async () => {
    writeFileSync(join(dir, 'rehearsed.mjs'), `
export default {
  name: 'rehearsed', rehearse: true,
  paramsSchema: { type: 'object', additionalProperties: false, properties: { size: { type: 'integer', default: 3 } } },
  create(params) {
    const log = (globalThis.__probe ??= []);
    const n = log.filter((event) => event[0] === 'create').length + 1;
    log.push(['create', n, params.size]);
    return { n, onStart(ctx) { log.push(['start', ctx.id, n]); }, onBook(book, ctx) { log.push(['book', ctx.id, n]); } };
  },
};
`);
    await host.start([entry('r', 'rehearsed.mjs', ['KXA'], { size: 7 }), entry('a', 'probe.mjs', ['KXA'])]);
    // The deployed instance and a second one with the same params; only the deployed one started.
    expect(probe().filter((event) => event[0] === 'create' || event[0] === 'start')).toEqual([['create', 1, 7], ['create', 2, 7], ['start', 'r', 1], ['start', 'a', 'v1']]);
    const rehearsals = host.rehearsals;
    expect(rehearsals.map((r) => (r as unknown as { n: number }).n)).toEqual([2]);
    host.rehearsalFailed(rehearsals[0]!, new Error('boom in rehearsal'));
    expect(host.rehearsals).toEqual([]);
    expect(host.summaries().map((s) => [s.id, s.status])).toEqual([['r', 'running'], ['a', 'running']]);
    probe().length = 0;
    host.onBookUpdate(h.markets.books.get('KXA')!); // the deployment still trades
    expect(probe()).toEqual([['book', 'r', 1], ['book', 'a', 'v1', 'KXA']]);
    probe().length = 0;
    await host.redeploy('r', entry('r', 'rehearsed.mjs', ['KXA'], { size: 8 }));
    // A redeploy makes both anew, with the new params; the second is the rehearsal.
    expect(probe().filter((event) => event[0] === 'create')).toEqual([['create', 1, 8], ['create', 2, 8]]);
    expect(host.rehearsals.length).toBe(1);
    expect(host.rehearsals[0]).not.toBe(rehearsals[0]);
    expect((host.rehearsals[0] as unknown as { n: number }).n).toBe(2);
    await host.stop('r');
    expect(host.rehearsals).toEqual([]);
  });

  it('rejects a plugin whose rehearse is not a boolean', async () => {
    writeFileSync(join(dir, 'odd-rehearse.mjs'), `export default { name: 'odd', rehearse: 'yes', paramsSchema: { type: 'object' }, create() { return { onBook() {} }; } };`);
    const error = await failure(host.start([entry('odd', 'odd-rehearse.mjs', ['KXA'])]));
    expect(error.code).toBe('STRATEGY_PLUGIN_INVALID');
    expect(error.message).toContain('invalid plugin export');
    expect(error.problems).toContain('rehearse: must be a boolean');
  });

  it('reports every invalid entry at once, naming the strategy id and the params path', async () => {
    const error = await failure(
      host.start([entry('ok', 'probe.mjs', ['KXA']), entry('bad1', 'probe.mjs', ['KXA'], { price: 0, extra: 1 }), entry('bad2', 'missing.mjs', ['KXA'])]),
    );
    expect(error).toBeInstanceOf(StrategyError);
    expect(error.code).toBe('STRATEGY_PARAMS_INVALID');
    expect(error.message).toContain('strategies[bad1].params/price: must be >= 1');
    expect(error.message).toContain('strategies[bad1].params/extra: is not a parameter of this plugin');
    expect(error.message).toContain('strategy bad2: cannot import plugin missing.mjs');
    // Nothing was started.
    expect(host.summaries()).toEqual([]);
  });

  it('rejects a module whose default export is not a plugin', async () => {
    writeFileSync(join(dir, 'not-plugin.mjs'), 'export default { name: "x" };');
    const error = await failure(host.start([entry('np', 'not-plugin.mjs', ['KXA'])]));
    expect(error.code).toBe('STRATEGY_PLUGIN_INVALID');
    expect(error.message).toContain('paramsSchema: must be a JSON Schema object');
  });

  it('creates the order group at start, tags orders with it and releases it at stop', async () => {
    await host.start([entry('g', 'probe.mjs', ['KXA'], { place: true }, { subaccount: 2, orderGroup: { contractsLimit: asCount(10_000) } })]);
    expect(h.groups.created).toEqual([{ subaccount: 2, limit: 10_000, handle: 0 }]);
    host.onBookUpdate(h.markets.books.get('KXA')!);
    expect(h.oms.sent[0]).toMatchObject({ kind: IntentKind.NEW, subaccount: 2, orderGroup: 0, strategyId: 1 });
    await host.stop('g');
    expect(h.groups.released).toEqual([0]);
    expect(h.oms.live(1)).toHaveLength(0);
  });

  it('tells instances about out-of-sync books; their quotes are denied until the resync', async () => {
    await host.start([entry('a', 'probe.mjs', ['KXA'], { place: true })]);
    const book = h.markets.books.get('KXA')!;
    book.breakSync(ApplyStatus.SEQ_GAP);
    host.onBookOutOfSync(book);
    host.onBookUpdate(book);
    setBook(book, [['0.4000', '10']], [['0.4500', '10']]);
    host.onBookResynced(book);
    expect(probe().filter((e) => e[0] === 'oos' || e[0] === 'deny')).toEqual([['oos', 'a', 'KXA'], ['deny', 'a', 9 /* BOOK_NOT_SYNCED */], ['deny', 'a', 0]]);
  });

  it('routes fills and order updates to the owning instance, lifecycle by market', async () => {
    await host.start([entry('a', 'probe.mjs', ['KXA'], { place: true }), entry('b', 'probe.mjs', ['KXB'])]);
    host.onBookUpdate(h.markets.books.get('KXA')!);
    const id = h.oms.sent[0].clientOrderId;
    const order = h.oms.fill(id, 100);
    host.onOrderUpdate(order);
    host.onFill({ tradeId: 't', orderId: order.orderId, clientOrderId: id, marketTicker: 'KXA', bookSide: 'bid', yesPrice: order.price, count: asCount(100), isTaker: false, postPosition: asCount(100), subaccount: 0, tsMs: 1 });
    host.onLifecycle({ type: 'market_lifecycle_v2', marketTicker: 'KXB', eventType: 'deactivated' });
    host.onLifecycle({ type: 'event_lifecycle' });
    expect(probe().filter((e) => ['fill', 'order', 'life'].includes(e[0] as string))).toEqual([
      ['order', 'a', id],
      ['fill', 'a', id],
      ['life', 'b', 'market_lifecycle_v2'],
      ['life', 'a', 'event_lifecycle'],
      ['life', 'b', 'event_lifecycle'],
    ]);
  });

  it('drives onTimer from the shared tick at each instance interval', async () => {
    await host.start([entry('a', 'probe.mjs', ['KXA'])]);
    host.tick(); // not due yet
    h.clock.advance(100);
    host.tick();
    h.clock.advance(50);
    host.tick();
    h.clock.advance(50);
    host.tick();
    expect(probe().filter((e) => e[0] === 'timer').length).toBe(2);
  });

  it('faults an instance whose callback throws: stops dispatch to it and cancels its orders', async () => {
    await host.start([entry('bad', 'probe.mjs', ['KXA'], { place: true, throwOn: 'onBook' }), entry('good', 'probe.mjs', ['KXA'])]);
    host.onBookUpdate(h.markets.books.get('KXA')!);
    expect(host.summaries().find((s) => s.id === 'bad')?.status).toBe('faulted');
    expect(host.summaries().find((s) => s.id === 'bad')?.fault).toContain('boom in onBook');
    // The order it placed before throwing was cancelled through the gate.
    expect(h.oms.sent.map((r) => r.kind)).toEqual([IntentKind.NEW, IntentKind.CANCEL]);
    probe().length = 0;
    host.onBookUpdate(h.markets.books.get('KXA')!);
    expect(probe()).toEqual([['book', 'good', 'v1', 'KXA']]);
  });

  it('fails start when onStart throws, leaving nothing running', async () => {
    const error = await failure(host.start([entry('s', 'probe.mjs', ['KXA'], { throwOn: 'onStart' })]));
    expect(error.code).toBe('STRATEGY_START_FAILED');
    expect(host.summaries()).toEqual([]);
  });

  it('fails start for a market the runtime does not know', async () => {
    const error = await failure(host.start([entry('m', 'probe.mjs', ['KXNOPE'])]));
    expect(error.code).toBe('STRATEGY_START_FAILED');
    expect(error.message).toContain('KXNOPE');
  });

  it('redeploys one instance from changed source: stop, cancel its orders, reload, start', async () => {
    await host.start([entry('a', 'probe.mjs', ['KXA'], { place: true }), entry('b', 'probe.mjs', ['KXB'])]);
    host.onBookUpdate(h.markets.books.get('KXA')!);
    expect(h.oms.live(1)).toHaveLength(1);
    writeProbe('probe.mjs', 'v2');
    await host.redeploy('a', entry('a', 'probe.mjs', ['KXA'], { place: true, price: 3900 }));
    // The old order was cancelled before the new instance started.
    expect(h.oms.sent.map((r) => r.kind)).toEqual([IntentKind.NEW, IntentKind.CANCEL]);
    probe().length = 0;
    host.onBookUpdate(h.markets.books.get('KXA')!);
    host.onBookUpdate(h.markets.books.get('KXB')!);
    expect(probe()).toEqual([
      ['book', 'a', 'v2', 'KXA'],
      ['deny', 'a', 0],
      ['book', 'b', 'v1', 'KXB'],
    ]);
    expect(h.oms.sent[2]).toMatchObject({ kind: IntentKind.NEW, price: 3900, strategyId: 1 });
    expect(host.strategyNumber('a')).toBe(1);
  });

  it('keeps the running instance when the redeployed entry is invalid', async () => {
    await host.start([entry('a', 'probe.mjs', ['KXA'])]);
    const error = await failure(host.redeploy('a', entry('a', 'probe.mjs', ['KXA'], { price: -5 })));
    expect(error.code).toBe('STRATEGY_PARAMS_INVALID');
    expect(host.summaries()[0].status).toBe('running');
    expect(probe().filter((e) => e[0] === 'stop')).toEqual([]);
  });

  it('applies a new entry list: redeploys changed, deploys new, stops removed, leaves unchanged alone', async () => {
    await host.start([entry('same', 'probe.mjs', ['KXA']), entry('changed', 'probe.mjs', ['KXA']), entry('gone', 'probe.mjs', ['KXB'])]);
    const result = await host.applyEntries([entry('same', 'probe.mjs', ['KXA']), entry('changed', 'probe.mjs', ['KXB']), entry('new', 'probe.mjs', ['KXB'])]);
    expect(result).toMatchObject({ stopped: ['gone'], deployed: ['new'], redeployed: ['changed'], failed: [] });
    expect(host.summaries().map((s) => s.id).sort()).toEqual(['changed', 'new', 'same']);
    expect(probe().filter((e) => e[0] === 'start' && e[1] === 'same')).toHaveLength(1);
  });
});

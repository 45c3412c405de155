// Goal: on the order path an order of this session is known by its handle (its id's counter) and
// its client order id's string is never made (issue 29): the router's NEW sets the handle, the
// route writes the id's bytes into the create body, the journal writes them into its line, the
// route answers by the handle, and a cancel or amend by handle reaches the order; the bytes equal
// the id's text made afterwards; the text is made (once) when something reads it. Also the held
// path (a create held for the budget keeps its text id, and a handle-named cancel reaches a held
// amend of its order). Method: the real gate, OMS, router and journal over a ManualClock, a route
// that writes with the exec's CreateBodyWriter and answers as RestOrderEntry does, and a spy on
// the session's id maker (ClientOrderIds.format) counting the strings made.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createIntent, IntentKind } from '../../src/core/index.ts';
import type { Count, OrderIntent, Price } from '../../src/core/index.ts';
import { CreateBodyWriter, OneCancelBodyWriter } from '../../src/exec/index.ts';
import { ClientOrderIds, Journal, Order, OrderPool, OrderState, recover } from '../../src/oms/index.ts';
import type { ExecListener, NewOrder, VenueOrderRef } from '../../src/oms/index.ts';
import { Deny } from '../../src/risk/index.ts';
import { Router } from '../../src/router/index.ts';
import { c, FakeEntry, p, world } from './fakes.ts';

/** FakeEntry's reads, with creates written as the REST route writes them and answered by handle. */
class BytesEntry extends FakeEntry {
  readonly bodies: string[] = [];
  readonly handles: number[] = [];
  readonly #writer = new CreateBodyWriter();
  readonly #out = Buffer.alloc(4096);
  execListener: ExecListener | null = null;

  override setListener(listener: ExecListener): void {
    super.setListener(listener);
    this.execListener = listener;
  }

  override create(order: Readonly<NewOrder>): void {
    this.#writer.order = order;
    const end = this.#writer.writeInto(this.#out, 0);
    this.#writer.order = null;
    this.bodies.push(this.#out.toString('latin1', 0, end));
    this.handles.push(order.handle ?? 0);
  }
}

/** BytesEntry with cancels by the order, as RestOrderEntry's batched route sends them: the id's bytes in the body, answered by handle. */
class ByOrderEntry extends BytesEntry {
  readonly cancelBodies: string[] = [];
  readonly cancelHandles: number[] = [];
  readonly #cancelWriter = new OneCancelBodyWriter();
  readonly #cancelOut = Buffer.alloc(4096);

  /** As RestOrderEntry's batched route: ready when a batch signature is (the router asks before each cancel). */
  readonly cancelReadyAsked: number[] = [];
  cancelReady(order: Readonly<VenueOrderRef>): boolean {
    this.cancelReadyAsked.push(order.handle);
    return true;
  }

  cancelBatch(): void {
    throw new Error('no batch expected: every cancel was ready');
  }

  cancelOrder(order: Readonly<VenueOrderRef>): void {
    this.#cancelWriter.order = order;
    this.#cancelWriter.subaccount = order.subaccount;
    const end = this.#cancelWriter.writeInto(this.#cancelOut, 0);
    this.#cancelWriter.order = null;
    this.cancelBodies.push(this.#cancelOut.toString('latin1', 0, end));
    this.cancelHandles.push(order.handle);
  }
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

function setup(limits = {}, entry: BytesEntry = new BytesEntry()) {
  const dir = mkdtempSync(path.join(tmpdir(), 'client-id-handles-'));
  dirs.push(dir);
  const journalPath = path.join(dir, 'journal.jsonl');
  const journal = new Journal(journalPath);
  const w = world({ journal, limits });
  const router = new Router({ gate: w.gate, oms: w.oms, route: entry, clock: w.clock });
  const made = vi.spyOn(w.oms.clientOrderIds, 'format');
  return { w, entry, router, journal, journalPath, made };
}

function bid(market: number, price: string): OrderIntent {
  const intent = createIntent();
  intent.kind = IntentKind.NEW;
  intent.market = market;
  intent.side = 'bid';
  intent.price = p(price);
  intent.count = c('1');
  return intent;
}

function byHandle(kind: IntentKind, market: number, handle: number, price = '0.30'): OrderIntent {
  const intent = createIntent();
  intent.kind = kind;
  intent.market = market;
  intent.orderHandle = handle;
  intent.price = p(price);
  intent.count = c('1');
  return intent;
}

describe('orders by handle: no client order id string on the order path', () => {
  it('creates, answers, amends and cancels by handle; the bytes written equal the id made afterwards', async () => {
    const { w, entry, router, journal, journalPath, made } = setup();
    const handles: number[] = [];
    for (let i = 0; i < 50; i++) {
      const intent = bid(w.market, '0.40');
      expect(router.submit(intent)).toBe(Deny.NONE);
      expect(intent.clientOrderId).toBe('');
      expect(intent.orderHandle).toBeGreaterThan(0);
      handles.push(intent.orderHandle);
      entry.execListener!.onCreateAck(intent.orderHandle, `v-${i}`, 0 as Count, c('1'), 0); // answered by handle, as RestOrderEntry does
    }
    for (const [i, handle] of handles.entries()) {
      const kind = i % 2 === 0 ? IntentKind.CANCEL : IntentKind.AMEND;
      expect(router.submit(byHandle(kind, w.market, handle))).toBe(Deny.NONE);
    }
    expect(entry.cancels.map((cancel) => cancel.orderId)).toEqual(handles.flatMap((_, i) => (i % 2 === 0 ? [`v-${i}`] : [])));
    expect(entry.amends.map((amend) => amend.orderId)).toEqual(handles.flatMap((_, i) => (i % 2 === 1 ? [`v-${i}`] : [])));
    for (const [i, handle] of handles.entries()) if (i % 2 === 0) entry.execListener!.onCancelAck(`v-${i}`, c('1'), 0);
    await journal.flush();
    expect(entry.handles).toEqual(handles);
    expect(made).not.toHaveBeenCalled(); // no id string made on the way

    // Now made, for a person: each equals what went out as bytes, in the body and in the journal.
    const ids = handles.map((handle) => w.oms.clientOrderIds.format(handle));
    expect(entry.bodies.map((body) => (JSON.parse(body) as { client_order_id: string }).client_order_id)).toEqual(ids);
    const lines = readFileSync(journalPath, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { k: string; coid?: string });
    expect(lines.filter((line) => line.k === 'intent').map((line) => line.coid)).toEqual(ids);
    expect(new Set(lines.filter((line) => line.coid !== undefined).map((line) => line.coid))).toEqual(new Set(ids));
    for (const [i, handle] of handles.entries()) {
      const order = w.oms.orderByHandle(handle)!;
      expect(order.state).toBe(i % 2 === 0 ? OrderState.CANCELED : OrderState.PENDING_AMEND);
      expect(order.clientOrderId).toBe(ids[i]);
      expect(w.oms.order(ids[i]!)).toBe(order); // and by its text
    }
  });

  it('venue ids as bytes: acked from an answer\'s bytes, cancelled by the order and answered by handle, journaled; no venue id string made until read', async () => {
    const entry = new ByOrderEntry();
    const { w, router, journal, journalPath } = setup({}, entry);
    const venueIdRead = vi.spyOn(Order.prototype, 'orderId', 'get');
    const answer = Buffer.alloc(256);
    const venueIds: string[] = [];
    const handles: number[] = [];
    for (let i = 0; i < 40; i++) {
      const intent = bid(w.market, '0.40');
      expect(router.submit(intent)).toBe(Deny.NONE);
      handles.push(intent.orderHandle);
      // The id inside a response's bytes, among other bytes (a UUID, as the venue's are).
      const id = `9b8e0d3f-2c1a-4e01-a5e1-${String(i).padStart(12, '0')}`;
      venueIds.push(id);
      answer.fill(0x20);
      const start = 17 + (i % 5);
      answer.write(id, start, 'latin1');
      entry.execListener!.onCreateAckBytes!(intent.orderHandle, answer, start, start + id.length, 0 as Count, c('1'), 0);
    }
    answer.fill(0x7a); // the answer's buffer is reused: the OMS kept its own copy
    for (const handle of handles) expect(router.submit(byHandle(IntentKind.CANCEL, w.market, handle))).toBe(Deny.NONE);
    expect(entry.cancelHandles).toEqual(handles);
    expect(entry.cancelReadyAsked).toEqual(handles); // asked by the order, its id not made for it
    expect(entry.cancels).toHaveLength(0); // none went by text
    for (const handle of handles.slice(0, 30)) entry.execListener!.onCancelAck(handle, c('1'), 0);
    entry.execListener!.onCancelReject(handles[30]!, { status: 200, code: 'not_found', message: 'gone', details: '' });
    for (const handle of handles.slice(31)) entry.execListener!.onCancelUnknown(handle, 'EXEC_TIMEOUT');
    await journal.flush();
    expect(venueIdRead).not.toHaveBeenCalled(); // on the way: bytes only

    expect(entry.cancelBodies.map((body) => (JSON.parse(body) as { orders: { order_id: string }[] }).orders[0]!.order_id)).toEqual(venueIds);
    for (const [i, handle] of handles.entries()) {
      const order = w.oms.orderByHandle(handle)!;
      expect(order.state).toBe(i < 30 ? OrderState.CANCELED : OrderState.UNKNOWN); // not_found and a timeout: reconciliation decides
      expect(order.orderId).toBe(venueIds[i]); // made now, from the bytes
      expect(w.oms.orderByOrderId(venueIds[i]!)).toBe(order);
    }
    // The journal wrote the ids from the bytes; a restart reads them back.
    await journal.close();
    const lines = readFileSync(journalPath, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { k: string; oid?: string; n?: number });
    expect(new Set(lines.filter((line) => line.oid !== undefined && line.oid !== '').map((line) => line.oid))).toEqual(new Set(venueIds));
    const recovered = recover(journalPath);
    expect(recovered.orders.map((order) => order.orderId)).toEqual(venueIds);
  });

  it('reads a handle back from a journal it wrote: the restart finds the order by its id text', async () => {
    const { w, router, journal, journalPath } = setup();
    const intent = bid(w.market, '0.40');
    expect(router.submit(intent)).toBe(Deny.NONE);
    await journal.close();
    const line = JSON.parse(readFileSync(journalPath, 'utf8').trim().split('\n').find((l) => l.includes('"intent"'))!) as { coid: string; n: number };
    expect(line.n).toBe(intent.orderHandle);
    expect(line.coid).toBe(`${w.oms.clientOrderIds.head}${intent.orderHandle}`);
  });

  it('a create held for the budget keeps its text id; a cancel by handle drops a held amend of its order', () => {
    // 10 write tokens a second, capacity 20: two creates, then everything waits.
    const { w, entry, router } = setup({ rateTier: 'custom', writeTokensPerSecond: 10, writeCapacityTokens: 20, readTokensPerSecond: 100, cancelReserveShare: 0 });
    const first = bid(w.market, '0.40');
    expect(router.submit(first)).toBe(Deny.NONE);
    expect(first.orderHandle).toBeGreaterThan(0);
    entry.execListener!.onCreateAck(first.orderHandle, 'v-first', 0 as Count, c('1'), 0);
    const second = bid(w.market, '0.41');
    expect(router.submit(second)).toBe(Deny.NONE);
    const held = bid(w.market, '0.42');
    expect(router.submit(held)).toBe(Deny.NONE); // held: the bucket is empty
    expect(router.held.size).toBe(1);
    expect(held.orderHandle).toBe(0);
    expect(held.clientOrderId).not.toBe(''); // its id was made when it was held
    // An amend of the first order is held too, then a cancel by the first's handle replaces it.
    expect(router.submit(byHandle(IntentKind.AMEND, w.market, first.orderHandle, '0.35'))).toBe(Deny.NONE);
    expect(router.held.size).toBe(2);
    router.submit(byHandle(IntentKind.CANCEL, w.market, first.orderHandle));
    expect(router.held.size).toBe(1); // the held amend is gone: its order is being cancelled
    expect(entry.amends).toHaveLength(0);
  });

  it('writes ids from the counter for prefixes, epochs and counters at their limits', () => {
    const writer = new CreateBodyWriter();
    const out = Buffer.alloc(4096);
    for (const [prefix, epoch] of [['a', 1], ['mm_1', 1_798_761_600_000], ['p'.repeat(16), Number.MAX_SAFE_INTEGER]] as const) {
      for (const counter of [1, 9, 10, 99, 100, 2 ** 31, 2 ** 32 + 1, Number.MAX_SAFE_INTEGER]) {
        const ids = new ClientOrderIds(prefix, epoch, counter - 1);
        const order = new OrderPool().take().reinit('', ids.take(), 'KX-T', 0, 'ask', 5500 as Price, 300, 'good_till_canceled', true, false, 'maker', 0, null, -1, 0, 0, ids);
        expect(order.handle).toBe(counter);
        writer.order = order;
        const body = JSON.parse(out.toString('latin1', 0, writer.writeInto(out, 0))) as { client_order_id: string };
        expect(body.client_order_id).toBe(`${prefix}-${epoch.toString(36)}-${counter}`);
        expect(order.clientOrderId).toBe(body.client_order_id);
      }
    }
  });
});

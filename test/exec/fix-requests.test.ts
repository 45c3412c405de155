// Goal: the FIX route's requests in flight (src/exec/fix/fix-requests.ts) are found from a report's
// ClOrdID(11) bytes and from their MsgSeqNum, whichever way the ClOrdID went out: ours (cancel,
// replace: prefix + counter), a create by handle (the OMS's id written by the order, its string
// never made), a create by text (another session's id, a held create of this one, a UUID). More
// requests are in flight than the rings hold; ids that only look like ours are not matched.
// Method: 6,000 requests tracked at once (rings of 4,096), each answered by a parsed FIX message
// carrying the ClOrdID bytes the route wrote; the order's clientOrderId getter and the id maker's
// format() are watched (never called for a create by handle); then half released.

import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import type { Count, Price } from '../../src/core/index.ts';
import { FixEncoder, FixMessage, MsgType, parseMessage, Tag } from '../../src/fix/index.ts';
import { FixRequests, Kind, type Pending } from '../../src/exec/fix/fix-requests.ts';
import { ClientOrderIds, type NewOrder } from '../../src/oms/index.ts';

const encoder = new FixEncoder();

/** A parsed ExecutionReport whose ClOrdID is `id` (bytes). */
function report(id: Uint8Array): FixMessage {
  const bytes = encoder.begin(MsgType.ExecutionReport, 'KalshiNR', 'me', 7, 1_798_761_600_000).bytes(Tag.ClOrdID, id, 0, id.length).string(Tag.ExecType, '0').finish();
  const message = parseMessage(Buffer.from(bytes), new FixMessage());
  if (!(message instanceof FixMessage)) throw message;
  return message;
}

function byHandle(ids: ClientOrderIds, handle: number, reads: { count: number }): NewOrder {
  return {
    get clientOrderId(): string {
      reads.count++;
      return ids.format(handle);
    },
    handle,
    writeClientOrderId: (out: Buffer, at: number) => ids.writeInto(out, at, handle),
    ticker: 'T', side: 'bid', price: 1000 as Price, count: 100 as Count, timeInForce: 'good_till_canceled', postOnly: false, reduceOnly: false,
    selfTradePrevention: 'taker_at_cross', subaccount: 0, orderGroupId: null, expirationTs: 0,
  };
}

function byText(clientOrderId: string): NewOrder {
  return {
    clientOrderId, ticker: 'T', side: 'bid', price: 1000 as Price, count: 100 as Count, timeInForce: 'good_till_canceled', postOnly: false,
    reduceOnly: false, selfTradePrevention: 'taker_at_cross', subaccount: 0, orderGroupId: null, expirationTs: 0,
  };
}

describe('FixRequests', () => {
  it('finds 6,000 requests in flight from their ClOrdID bytes and MsgSeqNum, ids of creates by handle never made', () => {
    const ids = new ClientOrderIds('mm1', 1_798_761_600_000, 0);
    const requests = new FixRequests('fxabc-');
    const reads = { count: 0 };
    const format = vi.spyOn(ids, 'format');
    const sent: { pending: Pending; id: Uint8Array; text: string }[] = [];
    for (let seq = 1; seq <= 6_000; seq++) {
      let pending: Pending;
      let end: number;
      if (seq % 3 === 0) {
        pending = requests.take(Kind.CANCEL);
        pending.key = `venue-${seq}`;
        end = requests.ownId(pending);
      } else if (seq % 97 === 0) {
        // Text: another tool's UUID, or this session's id already made (a held create).
        const order = byText(seq % 2 === 0 ? randomUUID() : `${ids.head}${ids.take()}`);
        pending = requests.take(Kind.CREATE);
        end = requests.createId(pending, order);
        expect(end).toBe(-1);
        requests.track(pending, seq, seq);
        const text = order.clientOrderId;
        sent.push({ pending, id: Buffer.from(text, 'latin1'), text });
        continue;
      } else {
        pending = requests.take(Kind.CREATE);
        end = requests.createId(pending, byHandle(ids, ids.take(), reads));
        expect(end).toBeGreaterThan(0);
      }
      const id = Uint8Array.from(requests.scratch.subarray(0, end));
      requests.track(pending, seq, seq);
      sent.push({ pending, id, text: Buffer.from(id).toString('latin1') });
    }
    expect(reads.count).toBe(0);
    expect(format).not.toHaveBeenCalled();
    expect(requests.inFlight).toBe(6_000);

    const same = (what: string, ours: unknown, theirs: unknown): void => {
      if (ours !== theirs) expect(ours, what).toBe(theirs);
    };
    for (const { pending, id, text } of sent) {
      same(`by ClOrdID ${text}`, requests.byClOrdId(report(id)), pending);
      same(`by text ${text}`, requests.byClOrdIdText(text), pending);
      same(`by seq ${pending.seq}`, requests.bySeq(pending.seq), pending);
      same(`id of ${pending.seq}`, requests.clOrdIdOf(pending), text);
    }
    // The ids a create by handle went out with are the OMS's own ids, byte for byte.
    const firstByHandle = sent.find((entry) => entry.pending.handle > 0)!;
    expect(firstByHandle.text).toBe(ids.format(firstByHandle.pending.handle));

    // Ids that only look like ours: another session's head, a leading zero, a trailing letter, no digits.
    const other = new ClientOrderIds('mm1', 1_798_761_600_001, 0);
    for (const text of [other.format(1), `${ids.head}01`, `${ids.head}1x`, ids.head, 'fxabc-', 'fxabc-03', 'fxabc-99999999', randomUUID()]) {
      expect(requests.byClOrdId(report(Buffer.from(text, 'latin1'))), text).toBeUndefined();
    }

    // Half answered: gone from every index; the rest still found.
    for (let k = 0; k < sent.length; k += 2) requests.release(sent[k]!.pending);
    expect(requests.inFlight).toBe(3_000);
    for (let k = 0; k < sent.length; k++) {
      const { pending, id, text } = sent[k]!;
      if (k % 2 === 0) {
        same(`released ${text}`, requests.byClOrdId(report(id)), undefined);
      } else {
        same(`kept ${text}`, requests.byClOrdId(report(id)), pending);
        same(`kept seq ${pending.seq}`, requests.bySeq(pending.seq), pending);
      }
    }
    expect(requests.all().length).toBe(3_000);
  });

  it('a create by handle of another id head goes as text (one head per route) and is found by it', () => {
    const requests = new FixRequests('fxabc-');
    const first = new ClientOrderIds('a', 1_798_761_600_000, 0);
    const second = new ClientOrderIds('b', 1_798_761_600_000, 0);
    const reads = { count: 0 };
    const one = requests.take(Kind.CREATE);
    expect(requests.createId(one, byHandle(first, first.take(), reads))).toBeGreaterThan(0);
    requests.track(one, 1, 0);
    const two = requests.take(Kind.CREATE);
    expect(requests.createId(two, byHandle(second, second.take(), reads))).toBe(-1);
    requests.track(two, 2, 0);
    expect(two.key).toBe(second.format(1));
    expect(requests.byClOrdId(report(Buffer.from(first.format(1), 'latin1')))).toBe(one);
    expect(requests.byClOrdId(report(Buffer.from(second.format(1), 'latin1')))).toBe(two);

    // A handle whose written id does not end in it (not the OMS's format) goes as text too.
    const odd = requests.take(Kind.CREATE);
    const oddOrder = { ...byText('other-tool-7'), handle: 9, writeClientOrderId: (out: Buffer, at: number) => at + out.write('other-tool-7', at, 'latin1') };
    expect(requests.createId(odd, oddOrder)).toBe(-1);
    expect(odd.key).toBe('other-tool-7');
  });
});

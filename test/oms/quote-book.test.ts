// Goal: the quote book's state machine and bookkeeping (src/oms/quote-book.ts, quote-state.ts):
// the lifecycle open -> accepted -> confirmed -> executed from the route's answers and the
// channel, in either order (the socket may beat the HTTP answer); cancels, expiry (quote_expired,
// rfq_deleted, a newer quote replacing ours, the confirm window); a create rejected; a pair the
// table lacks kept and flagged for reconciliation; the open count the gate reads; every change
// journaled and a restart recovering the quotes not closed; reconciliation from the venue's list
// (a quote a roll cleared is absent and becomes cancelled; an accepted one is reported to the strategy).
// Method: a QuoteBook over a ManualClock, a real Journal in a temp dir, a fake route (QuoteEntry)
// whose listQuotes answer the test sets; messages as plain objects shaped like the feed's records.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, CENTICENTS_INVALID, COUNT_INVALID } from '../../src/core/index.ts';
import type { Count, Price } from '../../src/core/index.ts';
import { CONFIRM_WINDOW_MS, Journal, QUOTE_TRANSITIONS, QuoteBook, QuoteEvent, QuoteResult, QuoteState, nextQuoteState, recover } from '../../src/oms/index.ts';
import type { Quote, QuoteEntry, QuoteListener, QuoteMessageInput, QuoteRequest, WireQuote } from '../../src/oms/index.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

class FakeRoute implements QuoteEntry {
  listener: QuoteListener | null = null;
  sent: string[] = [];
  listed: WireQuote[] = [];
  setListener(listener: QuoteListener): void {
    this.listener = listener;
  }
  create(quote: QuoteRequest): void {
    this.sent.push(`create ${quote.rfqId}`);
  }
  cancel(quote: QuoteRequest): void {
    this.sent.push(`cancel ${quote.quoteId}`);
  }
  confirm(quote: QuoteRequest): void {
    this.sent.push(`confirm ${quote.quoteId}`);
  }
  async listQuotes(): Promise<WireQuote[]> {
    return this.listed;
  }
}

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'quote-book-'));
  dirs.push(dir);
  const path = join(dir, 'journal.jsonl');
  const clock = new ManualClock(1_000_000);
  const journal = new Journal(path);
  const openCounts: number[] = [];
  const updates: string[] = [];
  const book = new QuoteBook({ clock, journal, onOpenCount: (n) => openCounts.push(n) });
  book.setUpdateSink({ onQuoteUpdate: (q: Quote) => updates.push(`${q.quoteId}:${q.status}`) });
  const route = new FakeRoute();
  book.setEntry(route);
  book.onRfq({ eventType: 'created', id: 'rfq-1', creatorId: '', marketTicker: 'KX-A', eventTicker: 'KX', contracts: 1000 as Count, targetCost: CENTICENTS_INVALID, tsMs: 0 });
  const accept = (rfq = 'rfq-1'): Quote => book.accept(rfq, 'KX-A', 0, 4800 as Price, 4700 as Price, 1000 as Count, true, 0, 1);
  return { book, clock, journal, path, openCounts, updates, route, accept };
}

function message(eventType: QuoteMessageInput['eventType'], quoteId: string, extra: Partial<QuoteMessageInput> = {}): QuoteMessageInput {
  return { eventType, quoteId, rfqId: 'rfq-1', acceptedSide: '', contractsAccepted: COUNT_INVALID, orderId: '', clientOrderId: '', subaccount: -1, ...extra };
}

describe('quote state table', () => {
  it('has one row per (state, event) and a next state for every row', () => {
    const seen = new Set<string>();
    for (const row of QUOTE_TRANSITIONS) {
      const key = `${row.state}/${row.event}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
      expect(nextQuoteState(row.state, row.event)).toBe(row.next);
    }
    expect(nextQuoteState(QuoteState.EXECUTED, QuoteEvent.CANCEL_SENT)).toBe(-1);
    expect(nextQuoteState(QuoteState.REJECTED, QuoteEvent.WS_ACCEPTED)).toBe(-1);
  });
});

describe('quote book', () => {
  it('reports what each quote exposes to the gate: both bids while open, the other side of the one taken, nothing once closed', () => {
    const exposed: string[] = [];
    const book = new QuoteBook({ clock: new ManualClock(1_000_000), journal: null, onExposure: (q: Quote) => exposed.push(`${q.handle}:${q.exposedSides}`) });
    book.setEntry(new FakeRoute());
    book.onRfq({ eventType: 'created', id: 'rfq-1', creatorId: '', marketTicker: 'KX-A', eventTicker: 'KX', contracts: 1000 as Count, targetCost: CENTICENTS_INVALID, tsMs: 0 });
    const quote = book.accept('rfq-1', 'KX-A', 0, 4800 as Price, 4700 as Price, 1000 as Count, true, 0, 1);
    book.onQuoteCreateAck(quote.handle, 'q-1');
    book.onQuoteMessage(message('accepted', 'q-1', { acceptedSide: 'yes' })); // the creator buys YES: we buy NO
    book.onQuoteMessage(message('executed', 'q-1', { orderId: 'o-1' }));
    expect(exposed).toEqual([`${quote.handle}:3`, `${quote.handle}:3`, `${quote.handle}:2`, `${quote.handle}:0`]);
    const yesOnly = book.accept('rfq-1', 'KX-A', 0, 4800 as Price, 0 as Price, 1000 as Count, true, 0, 1);
    book.onQuoteCreateReject(yesOnly.handle, 'NOT_FOUND', 404);
    expect(exposed.slice(-2)).toEqual([`${yesOnly.handle}:1`, `${yesOnly.handle}:0`]);
  });

  it('lifecycle from the route answers and the channel: open, accepted, confirming, executed; journaled', async () => {
    const { book, accept, updates, openCounts, journal, path } = setup();
    const quote = accept();
    expect(quote.state).toBe(QuoteState.PENDING_NEW);
    expect(book.openCount).toBe(1);
    book.onQuoteCreateAck(quote.handle, 'q-1');
    expect(quote.state).toBe(QuoteState.OPEN);
    expect(book.onQuoteMessage(message('created', 'q-1'))).toBe(quote);
    expect(book.readyToConfirm(quote.handle, 1)).toBe(QuoteResult.NOT_ACTIONABLE);
    book.onQuoteMessage(message('accepted', 'q-1', { acceptedSide: 'yes' }));
    expect([quote.state, quote.acceptedSide]).toEqual([QuoteState.ACCEPTED, 'yes']);
    expect(book.readyToConfirm(quote.handle, 2)).toBe(QuoteResult.UNKNOWN); // another strategy's
    expect(book.readyToConfirm(quote.handle, 1)).toBe(QuoteResult.READY);
    book.confirmSent(quote);
    expect(quote.state).toBe(QuoteState.PENDING_CONFIRM);
    book.onQuoteMessage(message('executed', 'q-1', { orderId: 'o-9' }));
    expect([quote.state, quote.orderId]).toEqual([QuoteState.EXECUTED, 'o-9']);
    book.onQuoteConfirmAck(quote.handle); // the answer after the message
    expect(quote.state).toBe(QuoteState.EXECUTED);
    expect(book.openCount).toBe(0);
    expect(openCounts).toEqual([1, 0]);
    // Own requests (confirm sent) are not reported back; the venue's changes are.
    expect(updates).toEqual(['q-1:open', 'q-1:accepted', 'q-1:executed']);
    await journal.close();
    const lines = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((l) => `${l.st}/${l.ev}`)).toEqual(['pending/', 'open/CREATE_ACK', 'open/WS_CREATED', 'accepted/WS_ACCEPTED', 'confirming/CONFIRM_SENT', 'executed/WS_EXECUTED', 'executed/CONFIRM_ACK']);
    expect(lines[1]).toMatchObject({ k: 'quote', qid: 'q-1', rfq: 'rfq-1', ticker: 'KX-A', yes: 4800, no: 4700, cnt: 1000, sub: 0, strat: 1, po: true });
  });

  it('quote_created before the HTTP answer: matched to the pending create on the same RFQ', () => {
    const { book, accept } = setup();
    const quote = accept();
    expect(book.onQuoteMessage(message('created', 'q-7'))).toBe(quote);
    expect([quote.quoteId, quote.state]).toEqual(['q-7', QuoteState.OPEN]);
    book.onQuoteCreateAck(quote.handle, 'q-7');
    expect(quote.state).toBe(QuoteState.OPEN);
    expect(book.onQuoteMessage(message('created', 'q-other', { rfqId: 'rfq-x' }))).toBe(null); // not ours
  });

  it('cancel: ack, expiry answers, a refused cancel is reconciled; accept crossing a cancel', () => {
    const { book, accept } = setup();
    const a = accept();
    book.onQuoteCreateAck(a.handle, 'q-a');
    expect(book.readyToCancel(a.handle, 1)).toBe(QuoteResult.READY);
    book.cancelSent(a);
    expect(book.readyToCancel(a.handle, 1)).toBe(QuoteResult.NOT_ACTIONABLE);
    book.onQuoteCancelAck(a.handle);
    expect(a.state).toBe(QuoteState.CANCELLED);

    const b = accept();
    book.onQuoteCreateAck(b.handle, 'q-b');
    book.cancelSent(b);
    book.onQuoteCancelReject(b.handle, 'quote_expired', 400);
    expect(b.state).toBe(QuoteState.CANCELLED);

    const c = accept();
    book.onQuoteCreateAck(c.handle, 'q-c');
    book.cancelSent(c);
    book.onQuoteMessage(message('accepted', 'q-c', { acceptedSide: 'no' })); // the creator was first
    expect(c.state).toBe(QuoteState.ACCEPTED);
    book.onQuoteCancelReject(c.handle, 'invalid_quote_status', 400);
    expect([c.state, c.needsReconcile]).toEqual([QuoteState.ACCEPTED, true]);
  });

  it('a newer quote on the same RFQ replaces ours; rfq_deleted closes open and accepted quotes; a reject closes a pending one', () => {
    const { book, accept } = setup();
    const first = accept();
    book.onQuoteCreateAck(first.handle, 'q-1');
    const second = accept();
    book.onQuoteCreateAck(second.handle, 'q-2');
    expect([first.state, first.lastCode]).toEqual([QuoteState.CANCELLED, 'replaced']);
    expect(second.state).toBe(QuoteState.OPEN);
    book.onRfq({ eventType: 'deleted', id: 'rfq-1', creatorId: '', marketTicker: 'KX-A', eventTicker: '', contracts: COUNT_INVALID, targetCost: CENTICENTS_INVALID, tsMs: 0 });
    expect(second.state).toBe(QuoteState.CANCELLED);
    expect(book.rfq('rfq-1')).toBeUndefined();
    const third = accept('rfq-2');
    book.onQuoteCreateReject(third.handle, 'invalid_order', 400);
    expect(third.state).toBe(QuoteState.REJECTED);
    expect(book.openCount).toBe(0);
  });

  it('the confirm window: an accepted quote not confirmed in time is cancelled at the tick', () => {
    const { book, accept, clock } = setup();
    const quote = accept();
    book.onQuoteCreateAck(quote.handle, 'q-1');
    book.onQuoteMessage(message('accepted', 'q-1', { acceptedSide: 'yes' }));
    clock.advance(CONFIRM_WINDOW_MS);
    book.tick();
    expect(quote.state).toBe(QuoteState.ACCEPTED);
    clock.advance(1);
    book.tick();
    expect([quote.state, quote.lastCode]).toEqual([QuoteState.CANCELLED, 'confirm window passed']);
  });

  it('a message the table does not expect is counted and flagged, the state kept', () => {
    const { book, accept } = setup();
    const quote = accept();
    book.onQuoteCreateReject(quote.handle, 'invalid_order', 400);
    book.onQuoteCancelAck(quote.handle); // REJECTED has no CANCEL_ACK row
    expect([quote.state, quote.needsReconcile, book.stats.anomalies]).toEqual([QuoteState.REJECTED, true, 1]);
  });

  it('reconciles from the venue list: absent (a roll cleared it) -> cancelled, accepted reported, pending matched by RFQ', async () => {
    const { book, accept, route, updates } = setup();
    book.onRfq({ eventType: 'created', id: 'rfq-2', creatorId: '', marketTicker: 'KX-A', eventTicker: '', contracts: 500 as Count, targetCost: CENTICENTS_INVALID, tsMs: 0 });
    const gone = accept();
    book.onQuoteCreateAck(gone.handle, 'q-gone');
    const taken = accept('rfq-2');
    book.onQuoteCreateAck(taken.handle, 'q-taken');
    const lost = accept('rfq-3');
    book.onQuoteCreateUnknown(lost.handle, 'EXEC_TIMEOUT');
    const wire = (quoteId: string, rfqId: string, status: WireQuote['status'], acceptedSide: WireQuote['acceptedSide'] = ''): WireQuote =>
      ({ quoteId, rfqId, marketTicker: 'KX-A', status, yesBid: 4800 as Price, noBid: 4700 as Price, acceptedSide, subaccount: 0, acceptedMs: 0 });
    route.listed = [wire('q-taken', 'rfq-2', 'accepted', 'no'), wire('q-lost', 'rfq-3', 'open')];
    expect(await book.reconcile()).toBe(3);
    expect(gone.state).toBe(QuoteState.CANCELLED);
    expect([taken.state, taken.acceptedSide]).toEqual([QuoteState.ACCEPTED, 'no']);
    expect([lost.state, lost.quoteId]).toEqual([QuoteState.OPEN, 'q-lost']);
    expect(updates).toEqual(expect.arrayContaining(['q-gone:cancelled', 'q-taken:accepted', 'q-lost:open']));
    expect(book.openCount).toBe(2);
  });

  it('a restart recovers the quotes not closed from the journal and reconciles them', async () => {
    const { book, accept, journal, path, route } = setup();
    const closed = accept();
    book.onQuoteCreateAck(closed.handle, 'q-1');
    book.cancelSent(closed);
    book.onQuoteCancelAck(closed.handle);
    const open = accept();
    book.onQuoteCreateAck(open.handle, 'q-2');
    book.onQuoteMessage(message('accepted', 'q-2', { acceptedSide: 'yes' }));
    await journal.close();
    const recovered = recover(path);
    expect(recovered.quotes!.map((q) => [q.quoteId, q.state])).toEqual([['q-1', QuoteState.CANCELLED], ['q-2', QuoteState.ACCEPTED]]);
    const again = new QuoteBook({ clock: new ManualClock(2_000_000), journal: null, recovered: recovered.quotes });
    expect(again.openCount).toBe(1);
    const quote = again.quoteById('q-2')!;
    expect([quote.state, quote.acceptedSide, quote.yesBid, quote.count]).toEqual([QuoteState.ACCEPTED, 'yes', 4800, 1000]);
    again.setEntry(route);
    route.listed = [];
    await again.reconcile();
    expect(quote.state).toBe(QuoteState.CANCELLED);
  });

  it('sizes a target-cost RFQ quote from the price the creator pays, floored to 0.01', () => {
    const { book } = setup();
    book.onRfq({ eventType: 'created', id: 'rfq-t', creatorId: '', marketTicker: 'KX-A', eventTicker: '', contracts: 0 as Count, targetCost: 100_000, tsMs: 0 }); // $10
    const rfq = book.rfq('rfq-t')!;
    // YES side: $10 / (1 - 0.47) = 18.867 -> 18.86; NO side: $10 / (1 - 0.48) = 19.23 -> the larger
    expect(QuoteBook.quoteCount(rfq, 4800 as Price, 4700 as Price)).toBe(1923);
    expect(QuoteBook.quoteCount(rfq, 0 as Price, 4700 as Price)).toBe(1886);
  });

  it('keeps the open quotes in handle order as they open and close, and prunes closed quotes beyond 1,000, oldest first', () => {
    const { book, accept } = setup();
    const open = (): number[] => {
      const handles: number[] = [];
      for (let i = 0; i < book.openCount; i++) handles.push(book.openQuoteAt(i).handle);
      return handles;
    };
    const [a, b, c] = [accept(), accept(), accept()];
    expect(open()).toEqual([a.handle, b.handle, c.handle]);
    book.onQuoteCreateReject(b.handle, 'NOT_FOUND', 404); // closes the middle one
    expect(open()).toEqual([a.handle, c.handle]);
    expect(book.liveQuotes().map((q) => q.handle)).toEqual([a.handle, c.handle]);
    const d = accept();
    expect(open()).toEqual([a.handle, c.handle, d.handle]);
    // The newest RFQ is answered by identity; an older one and a deleted one by the map.
    book.onRfq({ eventType: 'created', id: 'rfq-2', creatorId: '', marketTicker: 'KX-A', eventTicker: 'KX', contracts: 500 as Count, targetCost: CENTICENTS_INVALID, tsMs: 0 });
    expect([book.rfq('rfq-2')?.contracts, book.rfq('rfq-1')?.contracts]).toEqual([500, 1000]);
    book.onRfq({ eventType: 'deleted', id: 'rfq-2', creatorId: '', marketTicker: 'KX-A', eventTicker: 'KX', contracts: 500 as Count, targetCost: CENTICENTS_INVALID, tsMs: 0 });
    expect(book.rfq('rfq-2')).toBeUndefined();
    // rfq_deleted closes the open quotes on its RFQ, in handle order, as the list shrinks under the walk.
    book.onRfq({ eventType: 'deleted', id: 'rfq-1', creatorId: '', marketTicker: 'KX-A', eventTicker: 'KX', contracts: 1000 as Count, targetCost: CENTICENTS_INVALID, tsMs: 0 });
    expect([book.openCount, open()]).toEqual([0, []]);
    expect([a.liveIndex, c.liveIndex, d.liveIndex]).toEqual([-1, -1, -1]);
    // 1,000 closed quotes are kept for lookups; the 1,001st closed prunes the oldest closed one (b, then a, ...).
    book.onRfq({ eventType: 'created', id: 'rfq-1', creatorId: '', marketTicker: 'KX-A', eventTicker: 'KX', contracts: 1000 as Count, targetCost: CENTICENTS_INVALID, tsMs: 0 });
    const closedBefore = 4; // b, then a, c, d (in the order they closed)
    const more: Quote[] = [];
    for (let i = 0; i < 1_000 - closedBefore; i++) {
      const quote = accept();
      book.onQuoteCreateReject(quote.handle, 'NOT_FOUND', 404);
      more.push(quote);
    }
    expect(book.quote(b.handle)).toBe(b);
    const next = accept();
    book.onQuoteCreateAck(next.handle, 'q-next');
    book.onQuoteMessage(message('accepted', 'q-next', { acceptedSide: 'no' }));
    book.onQuoteMessage(message('executed', 'q-next', { orderId: 'o-1' })); // the 1,001st closed
    expect(book.quote(b.handle)).toBeUndefined();
    expect(book.quote(a.handle)).toBe(a);
    expect(book.quoteById('q-next')).toBe(next);
    const last = accept();
    book.onQuoteCreateReject(last.handle, 'NOT_FOUND', 404);
    expect([book.quote(a.handle), book.quote(c.handle), book.quote(more[0]!.handle)]).toEqual([undefined, c, more[0]]);
    expect(book.openCount).toBe(0);
  });
});

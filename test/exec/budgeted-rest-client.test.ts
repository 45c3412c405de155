// Goal: the cold-path read client spends the read budget, waits (asynchronously, in order) when the
// bucket is empty, and retries a 429 with backoff (Retry-After honoured, attempts bounded) instead
// of failing. Method: a fake clock and fake timers drive ReadPacer and BudgetedRestClient over a
// scripted transport; one test runs the real SignedRestClient against a node:http server on
// 127.0.0.1 that answers 429 twice before 200.

import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BudgetedRestClient, EndpointCosts, ReadPacer, ReadPacerClosedError, retryAfterMs, type PacerTimers, type SignedTransport } from '../../src/exec/index.ts';
import { signedClientFor } from '../../src/exec/rest/signed-rest-client.ts';
import { ExecError } from '../../src/oms/index.ts';
import { RateBudget } from '../../src/risk/rate-budget.ts';

class FakeTime implements PacerTimers {
  nowMs = 1_000_000;
  #timers: { atMs: number; callback: () => void; id: number }[] = [];
  #nextId = 1;
  readonly clock = { nowMs: (): number => this.nowMs };
  setTimeout(callback: () => void, delayMs: number): unknown {
    const id = this.#nextId++;
    this.#timers.push({ atMs: this.nowMs + delayMs, callback, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#timers = this.#timers.filter((timer) => timer.id !== handle);
  }
  get pending(): number {
    return this.#timers.length;
  }
  /** Moves time forward, firing due timers in order, and lets the promise jobs they start run. */
  async advance(ms: number): Promise<void> {
    const endMs = this.nowMs + ms;
    await flush(); // what was started before the call schedules its timers first
    for (let guard = 0; guard < 10_000; guard++) {
      this.#timers.sort((a, b) => a.atMs - b.atMs);
      const next = this.#timers[0];
      if (next === undefined || next.atMs > endMs) break;
      this.#timers.shift();
      this.nowMs = next.atMs;
      next.callback();
      await flush();
    }
    this.nowMs = endMs;
    await flush();
  }
}

/** Lets every promise job queued so far (and those they queue) run: one macrotask turn. */
async function flush(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

/** A transport answering from a script of statuses; records when each request went out. */
function scriptedTransport(time: FakeTime, script: { status: number; retryAfter?: string }[]): SignedTransport & { sentAtMs: number[] } {
  const sentAtMs: number[] = [];
  return {
    sentAtMs,
    sign: async () => ({ timestampText: String(time.nowMs), signature: 'sig' }),
    send: async () => {
      sentAtMs.push(time.nowMs);
      const step = script[Math.min(sentAtMs.length - 1, script.length - 1)];
      const text = step.status === 200 ? '{"ok":true}' : '{"error":"too many requests"}';
      return { status: step.status, retryAfter: step.retryAfter ?? null, text };
    },
  };
}

describe('ReadPacer', () => {
  it('serves reads at once while tokens last, then waits for refill in FIFO order', async () => {
    const time = new FakeTime();
    const pacer = new ReadPacer(10, 20, time.clock, time); // 10 tokens/s, 20 held
    const order: number[] = [];
    // Each read is answered at once (settled): only refill limits them here.
    pacer.settled(await pacer.take(10));
    pacer.settled(await pacer.take(10));
    const third = pacer.take(10).then((granted) => { pacer.settled(granted); order.push(3); });
    const fourth = pacer.take(5).then((granted) => { pacer.settled(granted); order.push(4); });
    await flush();
    expect(order).toEqual([]);
    expect(pacer.queued).toBe(2);
    await time.advance(999);
    expect(order).toEqual([]); // 9.99 tokens: not yet
    await time.advance(1);
    await third;
    expect(order).toEqual([3]);
    await time.advance(500);
    await fourth;
    expect(order).toEqual([3, 4]);
    expect(pacer.waits).toBe(2);
    expect(time.pending).toBe(0);
  });

  it('a 429 empties the bucket; a new budget applies to waiting reads; close rejects them', async () => {
    const time = new FakeTime();
    const pacer = new ReadPacer(10, 100, time.clock, time);
    pacer.onRateLimited();
    let done = false;
    const waiting = pacer.take(50).then(() => (done = true));
    await time.advance(1_000); // 10 tokens at 10/s
    expect(done).toBe(false);
    pacer.setBudget(100, 100); // 10 held, then 100/s: 40 more in 400 ms
    await time.advance(400);
    await waiting;
    expect(done).toBe(true);
    const stuck = pacer.take(100);
    pacer.close();
    await expect(stuck).rejects.toBeInstanceOf(ReadPacerClosedError);
    await expect(pacer.take(1)).rejects.toBeInstanceOf(ReadPacerClosedError);
  });

  it('an arrival skew keeps its refill unspent in both mirrors; the steady rate stays the refill\'s', async () => {
    const time = new FakeTime();
    const pacer = new ReadPacer(200, 200, time.clock, time);
    pacer.setArrivalSkew(100); // 20 tokens of headroom
    let served = 0;
    const reads = Array.from({ length: 30 }, () => pacer.take(10).then((granted) => { pacer.settled(granted); served++; }));
    await flush();
    expect(served).toBe(18); // 180 of 200: the first burst is lower by the headroom
    await time.advance(1_000); // 200 tokens more: 20 reads of 10
    expect(served).toBe(30);
    await Promise.all(reads);
    const budget = new RateBudget(100, 100, 0.2, 200, time.nowMs, 100); // 10 write tokens of headroom, 20 reserved
    let creates = 0;
    while (creates < 100 && budget.tryTakeWrite(10, false, time.nowMs)) creates++;
    expect(creates).toBe(7); // 100 - 20 reserve - 10 headroom
    let cancels = 0;
    while (cancels < 100 && budget.tryTakeWrite(2, true, time.nowMs)) cancels++;
    expect(cancels).toBe(10); // the reserve, never the headroom
    time.nowMs += 1_000;
    creates = 0;
    while (creates < 100 && budget.tryTakeWrite(10, false, time.nowMs)) creates++;
    expect(creates).toBe(7); // refilled to 100: the same floor
  });

  it('the gate\'s synchronous reads and the queued reads spend one bucket (the venue has one per key)', async () => {
    const time = new FakeTime();
    const pacer = new ReadPacer(10, 30, time.clock, time);
    const budget = new RateBudget(100, 100, 0.2, 10, time.nowMs); // its own read bucket would hold 10 more
    budget.shareReads(pacer);
    expect(budget.tryTakeRead(10, time.nowMs)).toBe(true); // reconciliation: from the pacer's 30
    expect(pacer.available()).toBe(20);
    pacer.settled(await pacer.take(20));
    expect(budget.readTokens(time.nowMs)).toBe(0);
    expect(budget.tryTakeRead(1, time.nowMs)).toBe(false); // empty: the gate's own bucket is not spent instead
    let served = false;
    const queued = pacer.take(10).then((granted) => { pacer.settled(granted); served = true; });
    await time.advance(500); // 5 tokens: the queued read is still short
    expect(budget.tryTakeRead(5, time.nowMs)).toBe(false); // a queued read is ahead: no jumping the queue
    await time.advance(500);
    await queued;
    expect(served).toBe(true);
    await time.advance(200);
    expect(budget.tryTakeRead(2, time.nowMs)).toBe(true);
    expect(pacer.available()).toBe(0);
  });
});

describe('ReadPacer: reads on the way', () => {
  it('holds at most its capacity less the reads not yet settled; a read only a settle can pay for waits for one, not a timer', async () => {
    const time = new FakeTime();
    const pacer = new ReadPacer(100, 100, time.clock, time); // Basic-like: 100 a second, 100 held
    const first = await pacer.take(60);
    expect(pacer.inFlight).toBe(60);
    await time.advance(1_000); // the venue's bucket sat full with these 60 on the way: ours may not refill past 40
    expect(pacer.available()).toBe(40);
    let served = false;
    const waiting = pacer.take(50).then((granted) => { served = true; return granted; });
    await time.advance(2_000);
    expect(served).toBe(false); // no refill can pay it while the 60 count
    expect(time.pending).toBe(0); // and no timer spins meanwhile
    pacer.settled(first); // answered: the venue charged them at 40 left, and refills from there
    await flush();
    expect(served).toBe(false); // 40 < 50
    await time.advance(100); // +10
    const granted = await waiting;
    expect(served).toBe(true);
    expect(granted).toBe(50);
    expect(pacer.inFlight).toBe(50);
    pacer.settled(granted);
    expect(pacer.inFlight).toBe(0);
    expect(pacer.available()).toBe(0);
  });

  it('the gate\'s synchronous reads (tryTakeNow) count on the way until settleNow, as take()\'s do', async () => {
    const time = new FakeTime();
    const pacer = new ReadPacer(100, 100, time.clock, time);
    const budget = new RateBudget(100, 100, 0.2, 10, time.nowMs);
    budget.shareReads(pacer);
    for (let i = 0; i < 6; i++) expect(budget.tryTakeRead(10, time.nowMs)).toBe(true); // a reconciliation round: 6 reads
    expect(pacer.inFlight).toBe(60);
    await time.advance(1_000); // the venue's bucket sat full with these 60 on the way
    expect(pacer.available()).toBe(40);
    budget.settleRead(10);
    expect(pacer.inFlight).toBe(50);
    for (let i = 0; i < 5; i++) budget.settleRead(10);
    expect(pacer.inFlight).toBe(0);
    await time.advance(1_000);
    expect(pacer.available()).toBe(100);
    // A cost above what the bucket can ever give takes all of it (#due), and settles the same.
    expect(budget.tryTakeRead(200, time.nowMs)).toBe(true);
    expect(pacer.inFlight).toBe(100);
    budget.settleRead(200);
    expect(pacer.inFlight).toBe(0);
  });

  it('BudgetedRestClient settles every read it took, answered or failed', async () => {
    const time = new FakeTime();
    const pacer = new ReadPacer(100, 100, time.clock, time);
    let failNext = true;
    let seenInFlight = -1;
    const client = new BudgetedRestClient({
      pacer, clock: time.clock, timers: time,
      transport: {
        sign: async () => ({ timestampText: '1', signature: 's' }),
        send: async () => {
          seenInFlight = pacer.inFlight;
          if (failNext) { failNext = false; throw new Error('socket closed'); }
          return { status: 200, retryAfter: null, text: '{"ok":true}' };
        },
      } as unknown as SignedTransport,
    });
    await expect(client.get('/trade-api/v2/markets')).rejects.toThrow('socket closed');
    expect(seenInFlight).toBe(10);
    expect(pacer.inFlight).toBe(0);
    await expect(client.get('/trade-api/v2/markets')).resolves.toEqual({ ok: true });
    expect(pacer.inFlight).toBe(0);
  });
});

describe('BudgetedRestClient', () => {
  it('retries a 429 after doubling backoff and pays the bucket again', async () => {
    const time = new FakeTime();
    const transport = scriptedTransport(time, [{ status: 429 }, { status: 429 }, { status: 200 }]);
    const pacer = new ReadPacer(200, 200, time.clock, time);
    const client = new BudgetedRestClient({ transport, pacer, clock: time.clock, timers: time, retry: { attemptsMax: 5, backoffBaseMs: 100, backoffMaxMs: 1_000, retryAfterMaxMs: 10_000 } });
    let body: unknown = null;
    const read = client.get('/trade-api/v2/markets?tickers=A').then((value) => (body = value));
    await time.advance(5_000);
    await read;
    expect(body).toEqual({ ok: true });
    expect(client.retries).toBe(2);
    expect(pacer.rateLimited).toBe(2);
    const start = transport.sentAtMs[0];
    // 100 ms backoff, then the emptied bucket's refill of 10 tokens (50 ms at 200/s) is already covered.
    expect(transport.sentAtMs.map((t) => t - start)).toEqual([0, 100, 300]);
  });

  it('honours Retry-After above the backoff', async () => {
    const time = new FakeTime();
    const transport = scriptedTransport(time, [{ status: 429, retryAfter: '2' }, { status: 200 }]);
    const client = new BudgetedRestClient({ transport, pacer: new ReadPacer(200, 200, time.clock, time), clock: time.clock, timers: time });
    const read = client.get('/trade-api/v2/account/limits');
    await time.advance(10_000);
    await expect(read).resolves.toEqual({ ok: true });
    expect(transport.sentAtMs[1] - transport.sentAtMs[0]).toBe(2_000);
    expect(retryAfterMs(new Date(time.nowMs + 3_000).toUTCString(), time.nowMs)).toBeGreaterThan(1_000);
    expect(retryAfterMs('soon', time.nowMs)).toBe(0);
  });

  it('gives up after attemptsMax with the 429 as an ExecError', async () => {
    const time = new FakeTime();
    const transport = scriptedTransport(time, [{ status: 429 }]);
    const client = new BudgetedRestClient({ transport, pacer: new ReadPacer(200, 200, time.clock, time), clock: time.clock, timers: time, retry: { attemptsMax: 3, backoffBaseMs: 10, backoffMaxMs: 20, retryAfterMaxMs: 100 } });
    const read = client.get('/trade-api/v2/portfolio/positions');
    const settled = read.catch((error: unknown) => error);
    await time.advance(5_000);
    const error = await settled;
    expect(error).toBeInstanceOf(ExecError);
    expect((error as ExecError).status).toBe(429);
    expect(transport.sentAtMs.length).toBe(3);
  });

  it('charges the venue\'s endpoint costs, templates matched by segment', async () => {
    const costs = EndpointCosts.fromJson({ default_cost: 10, endpoint_costs: [{ method: 'GET', path: '/trade-api/v2/portfolio/orders/{order_id}', cost: 2 }] })!;
    expect(costs.costOf('GET', '/trade-api/v2/portfolio/orders/abc?subaccount=1')).toBe(2);
    expect(costs.costOf('GET', '/trade-api/v2/portfolio/orders')).toBe(10);
    expect(costs.costOf('DELETE', '/trade-api/v2/portfolio/orders/abc')).toBe(10);
    expect(EndpointCosts.fromJson({ endpoint_costs: [] })).toBeNull();
  });
});

describe('BudgetedRestClient over a real socket', () => {
  let server: Server | null = null;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server === null ? resolve() : server.close(() => resolve())));
    server = null;
  });

  it('a scripted server answering 429 twice: the read completes on the third request', async () => {
    let requests = 0;
    server = createServer((req, res) => {
      requests++;
      if (requests <= 2) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
        res.end('{"error":"too many requests"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ markets: [], cursor: '', signed: typeof req.headers['kalshi-access-signature'] === 'string' }));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const clock = { nowMs: (): number => Date.now() };
    const { client: transport, prefix } = signedClientFor({
      baseUrl: `http://127.0.0.1:${port}/trade-api/v2`, keyId: 'test-key', privateKey, clock, connections: 1,
      connectTimeoutMs: 2_000, headersTimeoutMs: 2_000, bodyTimeoutMs: 2_000, keepAliveTimeoutMs: 10_000, tls: null,
    });
    const client = new BudgetedRestClient({ transport, pacer: new ReadPacer(200, 200, clock), clock, retry: { attemptsMax: 4, backoffBaseMs: 5, backoffMaxMs: 20, retryAfterMaxMs: 100 } });
    try {
      const body = await client.get(`${prefix}/markets?tickers=A`);
      expect(body).toEqual({ markets: [], cursor: '', signed: true });
      expect(requests).toBe(3);
      expect(client.retries).toBe(2);
    } finally {
      client.close();
      await transport.close();
    }
  });
});

// Goal: the REST request lanes (src/sim/server/rest/request-lanes.ts) keep one caller's expensive
// requests from holding up another's: a lane under its slice runs a request at once; a lane that
// used its slice queues the rest, FIFO, for the next turn (setImmediate) while other lanes still
// run at once; a full lane refuses; close drops what waits. Method: the class alone with a fake
// handler that records the order of calls and, for "expensive" items, moves a fake clock past the
// 1 ms slice (so the outcome depends on the slice being used, never on the machine's load).

import { describe, expect, it } from 'vitest';
import { RequestLanes } from '../../../../src/sim/server/rest/request-lanes.ts';

interface Item {
  name: string;
  /** The handler takes this long on the fake clock (more than the slice: the lane has used its turn). */
  spinMs: number;
}

function lanes(maxQueued = 16): { lanes: RequestLanes<Item>; ran: string[]; deferred: string[]; refused: string[] } {
  const ran: string[] = [];
  const deferred: string[] = [];
  const refused: string[] = [];
  let nowMs = 0;
  const result = new RequestLanes<Item>({
    run: (item, isDeferred) => {
      ran.push(item.name);
      if (isDeferred) deferred.push(item.name);
      nowMs += item.spinMs; // stands for an expensive handler
    },
    now: () => nowMs,
    refuse: (item) => refused.push(item.name),
    sliceMs: 1,
    maxQueued,
  });
  return { lanes: result, ran, deferred, refused };
}

function nextTurns(count: number): Promise<void> {
  let chain = Promise.resolve();
  for (let i = 0; i < count; i++) chain = chain.then(() => new Promise<void>((done) => setImmediate(done)));
  return chain;
}

describe('request lanes', () => {
  it('runs at once while a lane has slice left; a busy lane waits its turn, another lane does not', async () => {
    const { lanes: subject, ran, deferred } = lanes();
    subject.submit('a', { name: 'a1', spinMs: 2 });
    subject.submit('a', { name: 'a2', spinMs: 2 });
    subject.submit('a', { name: 'a3', spinMs: 0 });
    subject.submit('b', { name: 'b1', spinMs: 0 });
    expect(ran).toEqual(['a1', 'b1']);
    await nextTurns(5);
    expect(ran).toEqual(['a1', 'b1', 'a2', 'a3']);
    expect(deferred).toEqual(['a2', 'a3']);
  });

  it('a waiting lane keeps its order even after its slice is back; cheap lanes never wait', async () => {
    const { lanes: subject, ran } = lanes();
    for (let i = 1; i <= 4; i++) subject.submit('a', { name: `a${i}`, spinMs: 2 });
    for (let i = 1; i <= 3; i++) subject.submit('b', { name: `b${i}`, spinMs: 0 });
    expect(ran).toEqual(['a1', 'b1', 'b2', 'b3']);
    await nextTurns(10);
    expect(ran.filter((name) => name.startsWith('a'))).toEqual(['a1', 'a2', 'a3', 'a4']);
  });

  it('a full lane refuses; close drops what waits', async () => {
    const { lanes: subject, ran, refused } = lanes(2);
    subject.submit('a', { name: 'a1', spinMs: 2 });
    subject.submit('a', { name: 'a2', spinMs: 0 });
    subject.submit('a', { name: 'a3', spinMs: 0 });
    subject.submit('a', { name: 'a4', spinMs: 0 });
    expect(refused).toEqual(['a4']);
    subject.close();
    await nextTurns(3);
    expect(ran).toEqual(['a1']);
    subject.submit('b', { name: 'b1', spinMs: 0 });
    expect(ran).toEqual(['a1']);
  });
});

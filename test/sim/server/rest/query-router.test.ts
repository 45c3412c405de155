// Goal: query strings accept repeated keys and comma lists, reject bad integers and over-maximum
// limits with the bare {"msg"} shape, and the router prefers static paths, decodes parameters and
// tells 404 from 405. Method: call Query and Router directly.

import { describe, expect, it } from 'vitest';
import { Query } from '../../../../src/sim/server/rest/query.ts';
import { RestError } from '../../../../src/sim/server/rest/reply.ts';
import { route } from '../../../../src/sim/server/rest/route.ts';
import { Router } from '../../../../src/sim/server/rest/router.ts';

describe('Query', () => {
  it('arrays as repeated keys or comma lists', () => {
    expect(new Query('tickers=A&tickers=B').list('tickers')).toEqual(['A', 'B']);
    expect(new Query('tickers=A,B&tickers=C').list('tickers')).toEqual(['A', 'B', 'C']);
    expect(new Query('tickers=A%2CB').list('tickers')).toEqual(['A', 'B']);
    expect(new Query('').list('tickers')).toBeNull();
  });

  it('limit above the maximum is a 400 {"msg"}; bad integers too', () => {
    expect(new Query('limit=1000').limit(100, 1000)).toBe(1000);
    expect(new Query('').limit(100, 1000)).toBe(100);
    for (const raw of ['limit=1001', 'limit=0', 'limit=abc', 'limit=1.5', 'limit=-1']) {
      let caught: unknown;
      try {
        new Query(raw).limit(100, 1000);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(RestError);
      const reply = (caught as RestError).reply;
      expect(reply.status).toBe(400);
      expect(Object.keys(JSON.parse(reply.body!))).toEqual(['msg']);
    }
    expect(() => new Query('x=%E0%A4%A')).toThrow(RestError);
  });
});

describe('Router', () => {
  const router = new Router();
  const handle = () => ({ status: 200, body: '{}' });
  router.add(route('GET', '/portfolio/orders/{order_id}', { auth: true }, handle));
  router.add(route('GET', '/portfolio/orders/queue_positions', { auth: true }, handle));
  router.add(route('DELETE', '/portfolio/events/orders/{order_id}', { auth: true }, handle));
  router.add(route('DELETE', '/portfolio/events/orders/batched', { auth: true }, handle));

  it('static beats parameter; parameters are decoded', () => {
    expect(router.match('GET', '/portfolio/orders/queue_positions').route?.path).toBe('/portfolio/orders/queue_positions');
    const byId = router.match('GET', '/portfolio/orders/abc%2Fdef');
    expect(byId.route?.path).toBe('/portfolio/orders/{order_id}');
    expect(byId.params.order_id).toBe('abc/def');
    expect(router.match('DELETE', '/portfolio/events/orders/batched').route?.path).toBe('/portfolio/events/orders/batched');
  });

  it('unknown path vs wrong method', () => {
    expect(router.match('GET', '/nope')).toMatchObject({ route: null, pathKnown: false });
    expect(router.match('POST', '/portfolio/orders/x')).toMatchObject({ route: null, pathKnown: true });
    expect(router.match('GET', '/portfolio/orders/')).toMatchObject({ route: null, pathKnown: false });
  });
});

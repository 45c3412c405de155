// Goal: the clearing client (src/clearing) against a server that says exactly what the test
// scripts: int64 centicents past 2^53 arrive exact; all three detail arrays past the 1,000-row
// inline cap are paged to the full set (one request per page, the bearer header on each); 401,
// 403, other 4xx, 5xx, malformed or oversize bodies, wrong field types and a stuck pager each give
// their ClearingError code and never the token. Method: a scripted node:http server on
// 127.0.0.1:0 (scripted-server.ts); the simulator cannot produce these values (clearing-sim.test.ts
// covers it).

import { afterEach, describe, expect, it } from 'vitest';
import {
  CLEARING_ERROR_CODES,
  ClearingClient,
  ClearingCredential,
  ClearingError,
  readCompleteObligations,
  renderCsv,
  renderTable,
  totalsOf,
} from '../../src/clearing/index.ts';
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from './scripted-server.ts';
import { readFileSync } from 'node:fs';

const TOKEN = 'tok-Secret-0123456789abcdef';
const credential = new ClearingCredential('admin-7', TOKEN);
let server: ScriptedServer | null = null;
let client: ClearingClient | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
  await server?.close();
  server = null;
});

async function serve(handler: Parameters<typeof startScriptedServer>[0], options: { maxBodyBytes?: number } = {}): Promise<ClearingClient> {
  server = await startScriptedServer(handler);
  client = new ClearingClient({ baseUrl: server.url, credential, ...options });
  return client;
}

async function failure(promise: Promise<unknown>): Promise<ClearingError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ClearingError);
    expect(String((error as Error).message)).not.toContain(TOKEN);
    return error as ClearingError;
  }
  throw new Error('expected a ClearingError');
}

const BIG = 2n ** 53n + 1n; // 9007199254740993: a float cannot hold it
const INT64_MAX = 2n ** 63n - 1n;

function settlementRow(i: number, pnl: bigint, fees: bigint): string {
  return `{"id":"sd-${i}","market_ticker":"KXBTCPERP","subtrader_id":"${i % 64}","position_quantity_fp":"-${i}.00","pnl_centicents":${pnl},"total_fees_centicents":${fees},"total_amount_centicents":${pnl - fees}}`;
}
function marginRow(i: number, margin: bigint, delta: bigint): string {
  return `{"id":"mm-${i}","subtrader_id":"${i}","maintenance_margin_centicents":${margin},"maintenance_margin_delta_centicents":${delta}}`;
}
function fundingRow(i: number, amount: bigint): string {
  return `{"id":"fp-${i}","market_ticker":"KXBTCPERP","subtrader_id":"0","funding_time":"2026-01-01T01:00:00.000Z","position_quantity_fp":"1.00","notional_value_centicents":${BIG},"funding_amount_centicents":${amount}}`;
}

/**
 * One obligation with `n` rows in each array (row i: pnl BIG + i below row 1,000 and i after, fees
 * i, margin BIG below row 1,000 and 1 after, delta 1, funding -i; the obligation's sums stay inside
 * int64), inline capped at 1,000, the rest behind the detail routes in pages of `limit`.
 */
function truncatedServer(n: number): (r: { path: string; query: URLSearchParams }) => ScriptedReply {
  const pnlOf = (i: number): bigint => (i < 1000 ? BIG : 0n) + BigInt(i);
  const marginOf = (i: number): bigint => (i < 1000 ? BIG : 1n);
  const settlement = Array.from({ length: n }, (_, i) => settlementRow(i, pnlOf(i), BigInt(i)));
  const margins = Array.from({ length: n }, (_, i) => marginRow(i, marginOf(i), 1n));
  const funding = Array.from({ length: n }, (_, i) => fundingRow(i, -BigInt(i)));
  let pnl = 0n;
  let fees = 0n;
  let margin = 0n;
  for (let i = 0; i < n; i++) {
    pnl += pnlOf(i);
    fees += BigInt(i);
    margin += marginOf(i);
  }
  const amount = pnl - fees - BigInt(n);
  const arrays: Record<string, string[]> = { settlement_details: settlement, maintenance_margin_details: margins, funding_payments: funding };
  return ({ path, query }) => {
    if (path === '/clearing-api/v1/margin/active_obligations') {
      const inline = (rows: string[]): string => `[${rows.slice(0, 1000).join(',')}]`;
      return {
        body: `{"obligations":[{"id":"obl 1/x","user_id":"m-1","amount_centicents":${amount},"fees_centicents":${fees},"maintenance_margin_centicents":${margin},"pnl_centicents":${pnl},` +
          `"execution_time":"2026-01-02T00:00:00.000Z","last_updated_ts":"2026-01-01T00:00:00.000Z","asset_class":"Crypto","receives":[{"id":"r1","type":"wire","amount_centicents":${INT64_MAX},"external_reference":"x","created_ts":"2026-01-01T00:00:00.000Z"}],` +
          `"settlement_details":${inline(settlement)},"maintenance_margin_details":${inline(margins)},"funding_payments":${inline(funding)},` +
          `"settlement_details_truncated":true,"maintenance_margin_details_truncated":true,"funding_payments_truncated":true,"future_field":{"x":[1.5]}}]}`,
      };
    }
    const match = /^\/clearing-api\/v1\/margin\/obligations\/obl%201%2Fx\/(\w+)$/.exec(path);
    if (match === null || arrays[match[1]] === undefined) return { status: 404, body: '{"code":"not_found","message":"no route"}' };
    const rows = arrays[match[1]];
    const limit = Number(query.get('limit'));
    const start = query.has('cursor') ? Number(query.get('cursor')) : 0;
    const end = Math.min(rows.length, start + limit);
    return { body: `{"${match[1]}":[${rows.slice(start, end).join(',')}],"cursor":"${end < rows.length ? end : ''}"}` };
  };
}

describe('clearing client against a scripted server', () => {
  it('carries int64 centicents past 2^53 exactly and pages every truncated array to its full set', async () => {
    const c = await serve(truncatedServer(2_345));
    const [complete] = await readCompleteObligations(c, { pageLimit: 1000 });
    const o = complete.obligation;
    expect(complete.paged).toEqual(['settlement_details', 'maintenance_margin_details', 'funding_payments']);
    expect(o.settlementDetails).toHaveLength(2_345);
    expect(o.maintenanceMarginDetails).toHaveLength(2_345);
    expect(o.fundingPayments).toHaveLength(2_345);
    expect(o.settlementDetails[1].pnlCenticents).toBe(9_007_199_254_740_994n);
    expect(o.fundingPayments[7].notionalValueCenticents).toBe(9_007_199_254_740_993n);
    expect(o.receives[0].amountCenticents).toBe(INT64_MAX);
    expect(o.settlementDetails[2_344].positionQuantityFp).toBe('-2344.00');
    const totals = totalsOf(complete);
    expect(totals.mismatches).toEqual([]);
    expect(totals.settlementPnl).toBe(o.pnlCenticents);
    expect(totals.margin).toBe(BIG * 1_000n + 1_345n); // 9,007,199,254,740,994,345: far past a double's exact range
    expect(o.maintenanceMarginCenticents).toBe(9_007_199_254_740_994_345n);
    expect(totals.funding).toBe(-((2_344n * 2_345n) / 2n));
    // One inline read plus three pages per array; every request bears the token, nothing else does.
    expect(server!.seen).toHaveLength(1 + 3 * 3);
    for (const request of server!.seen) expect(request.authorization).toBe(`Bearer admin-7:${TOKEN}`);
    expect(server!.seen[1].query.get('limit')).toBe('1000');
    expect(server!.seen[1].query.has('cursor')).toBe(false);
    // The CSV keeps the exact integers.
    const csv = renderCsv([totals]);
    expect(csv).toContain(',9007199254740994345,');
    expect(renderTable([totals], '')).toContain('900719925474099.4345'); // the same in exact dollars
  });

  it('maps 401, 403, other 4xx and 5xx to their codes with the server code, without the token', async () => {
    const replies: ScriptedReply[] = [
      { status: 401, body: '{"code":"unauthorized","message":"missing or invalid credentials"}' },
      { status: 403, body: '{"code":"forbidden","message":"not permitted"}' },
      { status: 404, body: '{"error":{"code":"not_found","message":"obligation not found"}}' },
      { status: 429, body: 'too many' },
      { status: 500, body: '{"code":"internal_server_error","message":"boom"}' },
      { status: 503, body: '' },
      { status: 302, body: '', headers: { location: 'http://127.0.0.1:1/' } },
    ];
    const c = await serve(() => replies.shift()!);
    const expected: Array<[string, number, string]> = [
      ['CLEARING_UNAUTHORIZED', 401, 'unauthorized'],
      ['CLEARING_FORBIDDEN', 403, 'forbidden'],
      ['CLEARING_CLIENT_ERROR', 404, 'not_found'],
      ['CLEARING_CLIENT_ERROR', 429, ''],
      ['CLEARING_SERVER_ERROR', 500, 'internal_server_error'],
      ['CLEARING_SERVER_ERROR', 503, ''],
      ['CLEARING_UNEXPECTED_STATUS', 302, ''],
    ];
    for (const [code, status, serverCode] of expected) {
      const error = await failure(c.activeObligations());
      expect([error.code, error.status, error.serverCode]).toEqual([code, status, serverCode]);
    }
    expect(server!.seen).toHaveLength(7); // no retries
  });

  it('refuses malformed bodies with CLEARING_MALFORMED_BODY naming the path', async () => {
    const ok = (settlement: string): string =>
      `{"obligations":[{"id":"o","user_id":"u","amount_centicents":1,"fees_centicents":0,"maintenance_margin_centicents":0,"pnl_centicents":1,"execution_time":"t","last_updated_ts":"t","asset_class":"Crypto","receives":[],"settlement_details":[${settlement}],"maintenance_margin_details":[],"funding_payments":[]}]}`;
    const cases: Array<[string | Buffer, string, RegExp]> = [
      ['{"obligations":[', 'CLEARING_MALFORMED_BODY', /not JSON/],
      ['<html>', 'CLEARING_MALFORMED_BODY', /not JSON/],
      [Buffer.from([0x7b, 0xff, 0x7d]), 'CLEARING_MALFORMED_BODY', /not UTF-8/],
      ['{}', 'CLEARING_MALFORMED_BODY', /\$\.obligations: expected an array, got missing/],
      ['{"obligations":[1]}', 'CLEARING_MALFORMED_BODY', /\$\.obligations\[0\]: expected an object/],
      [ok(settlementRow(0, 1n, 0n).replace('"pnl_centicents":1', '"pnl_centicents":1.5')), 'CLEARING_MALFORMED_BODY', /settlement_details\[0\]\.pnl_centicents: expected an int64 integer, got the non-integer number 1\.5/],
      [ok(settlementRow(0, 1n, 0n).replace('"pnl_centicents":1', '"pnl_centicents":"1"')), 'CLEARING_MALFORMED_BODY', /pnl_centicents: expected an int64 integer, got a string/],
      [ok(settlementRow(0, 2n ** 63n, 0n)), 'CLEARING_INT64_RANGE', /pnl_centicents: 9223372036854775808 is outside int64/],
      [ok(settlementRow(0, 1n, 0n).replace('"-0.00"', '"lots"')), 'CLEARING_MALFORMED_BODY', /position_quantity_fp: expected a fixed-point count/],
      [ok('').replace('"receives":[]', '"receives":null'), 'CLEARING_MALFORMED_BODY', /\$\.obligations\[0\]\.receives: expected an array, got null/],
      [ok('').replace('"funding_payments":[]', '"funding_payments":[],"funding_payments_truncated":"yes"'), 'CLEARING_MALFORMED_BODY', /funding_payments_truncated: expected a boolean/],
    ];
    const queue = [...cases];
    const c = await serve(() => ({ body: queue.shift()![0] }));
    for (const [, code, message] of cases) {
      const error = await failure(c.activeObligations());
      expect(error.code).toBe(code);
      expect(error.message).toMatch(message);
    }
  });

  it('bounds the body size', async () => {
    const c = await serve(() => ({ body: `{"obligations":[],"pad":"${'x'.repeat(10_000)}"}` }), { maxBodyBytes: 4_096 });
    expect((await failure(c.activeObligations())).code).toBe('CLEARING_BODY_TOO_LARGE');
  });

  it('stops a pager that makes no progress or loses an inline row', async () => {
    const inline = Array.from({ length: 1000 }, (_, i) => settlementRow(i, 1n, 0n)).join(',');
    const body = `{"obligations":[{"id":"o","user_id":"u","amount_centicents":1000,"fees_centicents":0,"maintenance_margin_centicents":0,"pnl_centicents":1000,"execution_time":"t","last_updated_ts":"t","asset_class":"Crypto","receives":[],"settlement_details":[${inline}],"settlement_details_truncated":true,"maintenance_margin_details":[],"funding_payments":[]}]}`;
    let served = 0;
    const pages: Record<string, (query: URLSearchParams) => string> = {
      repeat: () => `{"settlement_details":[${settlementRow(10_000 + ++served, 1n, 0n)}],"cursor":"same"}`,
      empty: () => '{"settlement_details":[],"cursor":"next"}',
      missing: () => `{"settlement_details":[${settlementRow(5000, 1n, 0n)}],"cursor":""}`,
      duplicate: (q) => `{"settlement_details":[${settlementRow(1, 1n, 0n)}],"cursor":"${q.has('cursor') ? '' : 'c'}"}`,
      endless: (q) => `{"settlement_details":[${settlementRow(Number(q.get('cursor') ?? 0) + 2000, 1n, 0n)}],"cursor":"${Number(q.get('cursor') ?? 0) + 1}"}`,
    };
    let mode = 'repeat';
    const c = await serve(({ path, query }) => (path.endsWith('/active_obligations') ? { body } : { body: pages[mode](query) }));
    const expectations: Array<[string, RegExp, number?]> = [
      ['repeat', /cursor repeated/],
      ['empty', /empty page still names a cursor/],
      ['missing', /inline row sd-0 missing/],
      ['duplicate', /row sd-1 sent twice/],
      ['endless', /more than 25 pages/, 25],
    ];
    for (const [name, message, pagesMax] of expectations) {
      mode = name;
      const error = await failure(readCompleteObligations(c, pagesMax === undefined ? {} : { pagesMax }));
      expect([name, error.code]).toEqual([name, 'CLEARING_PAGING']);
      expect(error.message).toMatch(message);
    }
    // A deadline already passed stops before the first page.
    mode = 'endless';
    let t = 0;
    const error = await failure(readCompleteObligations(c, { deadlineMs: 10, now: () => (t += 20) }));
    expect(error.code).toBe('CLEARING_TIMEOUT');
  });

  it('reports an unreachable server and a bad URL with codes', async () => {
    server = await startScriptedServer(() => ({ body: '{}' }));
    const url = server.url;
    await server.close();
    server = null;
    client = new ClearingClient({ baseUrl: url, credential });
    expect((await failure(client.activeObligations())).code).toBe('CLEARING_UNREACHABLE');
    expect(() => new ClearingClient({ baseUrl: 'ftp://x/', credential })).toThrow(expect.objectContaining({ code: 'CLEARING_BAD_URL' }));
    expect(() => new ClearingClient({ baseUrl: 'not a url', credential })).toThrow(expect.objectContaining({ code: 'CLEARING_BAD_URL' }));
  });

  it('keeps the token out of the credential\'s string and JSON forms', () => {
    expect(String(credential)).not.toContain(TOKEN);
    expect(JSON.stringify({ credential })).not.toContain(TOKEN);
    expect(credential.authorization()).toBe(`Bearer admin-7:${TOKEN}`);
    expect(() => new ClearingCredential('a:b', 'x')).toThrow(expect.objectContaining({ code: 'CLEARING_BAD_CREDENTIAL' }));
    expect(() => new ClearingCredential('a', 'has space')).toThrow(expect.objectContaining({ code: 'CLEARING_BAD_CREDENTIAL' }));
  });

  it('documents every error code in docs/clearing.md', () => {
    const doc = readFileSync('docs/clearing.md', 'utf8');
    for (const code of Object.keys(CLEARING_ERROR_CODES)) expect(doc, code).toContain(`\`${code}\``);
  });
});

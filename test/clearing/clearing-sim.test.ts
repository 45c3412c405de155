// Goal: the clearing client and the `obligations` command against the simulator's clearing-member
// API over real sockets: decoded obligations equal the wire values field by field, the detail sums
// reconcile with the obligation and with the Margin engine's own fills and funding, funding
// payments past the 1,000-row cap are paged to the full set, 401 and 403 surface as coded errors
// and exit status 3 without the token, the CSV parses back to the same exact integers, and the
// demo credential `npm run sim` writes makes `clearing obligations` work with no flags.
// Method: in-process simulators on 127.0.0.1:0 (test/sim/margin/margin-sim.ts with a manual clock
// for funding; startSim through test/sim/helpers for the demo credential), the client and
// runClearingCli called in process, and the command once as a real process (node --import tsx).

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClearingClient, ClearingCredential, ClearingError, CSV_COLUMNS, readCompleteObligations, totalsOf } from '../../src/clearing/index.ts';
import { EXIT, runClearingCli, type CliIo } from '../../src/clearing/main.ts';
import { CLEARING_PREFIX } from '../../src/sim/clearing/index.ts';
import { marginOrder, startMarginSim, type MarginSim } from '../sim/margin/margin-sim.ts';
import { startTestSim } from '../sim/helpers/test-sim.ts';
import { RestClient } from '../sim/helpers/clients.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'clearing-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function marginSim(options: Parameters<typeof startMarginSim>[0] = {}): Promise<MarginSim> {
  const sim = await startMarginSim(options);
  cleanups.push(() => sim.close());
  return sim;
}

function clientFor(sim: MarginSim, credential: { adminUserId: string; accessToken: string }): ClearingClient {
  const client = new ClearingClient({ baseUrl: `${sim.httpUrl}${CLEARING_PREFIX}`, credential: new ClearingCredential(credential.adminUserId, credential.accessToken) });
  cleanups.push(() => client.close());
  return client;
}

/** Captured stdout/stderr of an in-process command run. */
async function cli(argv: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { env, cwd, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) };
  const code = await runClearingCli(argv, io);
  return { code, stdout, stderr };
}

/** RFC 4180 reader: quoted fields with doubled quotes, CRLF records. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(field); field = ''; }
    else if (c === '\r' && text[i + 1] === '\n') { row.push(field); rows.push(row); row = []; field = ''; i++; }
    else field += c;
  }
  expect(field === '' && row.length === 0, 'CSV ends with a complete record').toBe(true);
  return rows;
}

/** Alice trades on two markets from two subaccounts against bob; funding falls once. */
async function tradeAndFund(sim: MarginSim): Promise<void> {
  const alice = sim.user('alice');
  const bob = sim.user('bob');
  const ok = async (reply: Promise<{ status: number; text: string }>): Promise<void> => expect((await reply).status, (await reply).text).toBe(201);
  await ok(bob.post('/margin/orders', marginOrder({ side: 'ask', count: '7', price: '99.50' })));
  await ok(alice.post('/margin/orders', marginOrder({ side: 'bid', count: '7', price: '99.50' })));
  await ok(bob.post('/margin/orders', marginOrder({ side: 'bid', count: '2', price: '99.00' })));
  await ok(alice.post('/margin/orders', marginOrder({ side: 'ask', count: '2', price: '99.00' })));
  await ok(bob.post('/margin/orders', marginOrder({ ticker: 'KXETHPERP', side: 'bid', count: '30', price: '30.10' })));
  await ok(alice.post('/margin/orders', marginOrder({ ticker: 'KXETHPERP', side: 'ask', count: '30', price: '30.10', subaccount: 1 })));
  sim.clock.advance(3_600_000);
}

describe('clearing client against the simulator', () => {
  it('decodes obligations equal to the wire, reconciling with the engine', async () => {
    const sim = await marginSim();
    await tradeAndFund(sim);
    const credential = sim.services.clearing.issue('alice');
    const client = clientFor(sim, credential);
    const complete = await readCompleteObligations(client);
    const wire = await (await fetch(`${sim.httpUrl}${CLEARING_PREFIX}/margin/active_obligations`, { headers: { authorization: `Bearer ${credential.adminUserId}:${credential.accessToken}` } })).json() as any;
    expect(complete).toHaveLength(1);
    const [{ obligation: o, paged }] = complete;
    const w = wire.obligations[0];
    expect(paged).toEqual([]);
    expect([o.id, o.userId, o.assetClass, o.executionTime, o.lastUpdatedTs]).toEqual([w.id, w.user_id, w.asset_class, w.execution_time, w.last_updated_ts]);
    expect([o.amountCenticents, o.pnlCenticents, o.feesCenticents, o.maintenanceMarginCenticents]).toEqual([w.amount_centicents, w.pnl_centicents, w.fees_centicents, w.maintenance_margin_centicents].map(BigInt));
    expect(o.settlementDetails.map((d) => [d.id, d.marketTicker, d.subtraderId, d.positionQuantityFp, d.pnlCenticents, d.totalFeesCenticents, d.totalAmountCenticents])).toEqual(
      w.settlement_details.map((d: any) => [d.id, d.market_ticker, d.subtrader_id, d.position_quantity_fp, BigInt(d.pnl_centicents), BigInt(d.total_fees_centicents), BigInt(d.total_amount_centicents)]),
    );
    // Two markets x two subaccounts traded: BTC on 0, ETH on 1 (short 30).
    expect(o.settlementDetails.map((d) => `${d.marketTicker}/${d.subtraderId}/${d.positionQuantityFp}`).sort()).toEqual(['KXBTCPERP/0/5.00', 'KXETHPERP/1/-30.00']);
    expect(o.maintenanceMarginDetails.map((m) => m.subtraderId).sort()).toEqual(['0', '1']);
    const totals = totalsOf(complete[0]);
    expect(totals.mismatches).toEqual([]);
    // Against the engine itself, not only the response's own sums.
    let fees = 0n;
    for (const fill of sim.margin.fills) if (fill.userId === 'alice') fees += BigInt(fill.fee);
    let funding = 0n;
    for (const payment of sim.margin.fundingPayments) if (payment.userId === 'alice') funding += BigInt(payment.amount);
    expect(o.feesCenticents).toBe(fees);
    expect(totals.funding).toBe(funding);
    expect(o.fundingPayments).toHaveLength(2); // one funding time, two positions
    expect(totals.fundingRows).toBe(2);
  });

  it('pages funding payments past the 1,000-row inline cap to the engine\'s full set', async () => {
    const catalog = JSON.parse(readFileSync('config/margin-markets.json', 'utf8'));
    catalog.markets[0].funding_interval_seconds = 1;
    const sim = await marginSim({ catalog });
    await sim.user('bob').post('/margin/orders', marginOrder({ side: 'ask', count: '1', price: '101.00' }));
    await sim.user('alice').post('/margin/orders', marginOrder({ side: 'bid', count: '1', price: '101.00' }));
    sim.clock.advance(2_345_000); // 2,345 funding times
    const client = clientFor(sim, sim.services.clearing.issue('alice'));
    const [inline] = await client.activeObligations();
    expect(inline.fundingPayments).toHaveLength(1000);
    expect(inline.fundingPaymentsTruncated).toBe(true);
    const [complete] = await readCompleteObligations(client, { pageLimit: 700 });
    expect(complete.paged).toEqual(['funding_payments']);
    const engine = sim.margin.fundingPayments.filter((p) => p.userId === 'alice');
    expect(engine).toHaveLength(2_345);
    expect(complete.obligation.fundingPayments.map((p) => [p.id, p.fundingAmountCenticents])).toEqual(engine.map((p) => [p.id, BigInt(p.amount)]));
    const totals = totalsOf(complete);
    expect(totals.mismatches).toEqual([]);
    expect(totals.funding).toBe(-2_345n * 7_575n); // capped rate +0.75% on $101: the long pays each second
    // The command pages too, and says so.
    const file = join(tempDir(), 'cred');
    const c = sim.services.clearing.issue('alice');
    writeFileSync(file, `${c.adminUserId}:${c.accessToken}\n`, { mode: 0o600 });
    const run = await cli(['obligations', '--csv', '--url', `${sim.httpUrl}${CLEARING_PREFIX}`, '--credential-file', file]);
    expect(run.code).toBe(EXIT.OK);
    const [header, row] = parseCsv(run.stdout);
    const record = Object.fromEntries(header.map((name, i) => [name, row[i]]));
    expect(record.funding_rows).toBe('2345');
    expect(record.paged).toBe('funding_payments');
    expect(record.funding_centicents).toBe(String(-2_345 * 7_575));
  });

  it('refuses bad credentials with 401 and missing permissions with 403, as codes and exit status 3', async () => {
    const sim = await marginSim();
    const url = `${sim.httpUrl}${CLEARING_PREFIX}`;
    const good = sim.services.clearing.issue('alice');
    const obligationsOnly = sim.services.clearing.issue('alice', ['obligations']);
    const fundingOnly = sim.services.clearing.issue('alice', ['funding']);
    const expectCode = async (promise: Promise<unknown>, code: string, status: number): Promise<void> => {
      const error = await promise.then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(ClearingError);
      expect([(error as ClearingError).code, (error as ClearingError).status]).toEqual([code, status]);
    };
    await expectCode(clientFor(sim, { adminUserId: good.adminUserId, accessToken: 'wrong-token' }).activeObligations(), 'CLEARING_UNAUTHORIZED', 401);
    await expectCode(clientFor(sim, { adminUserId: 'nobody', accessToken: good.accessToken }).activeObligations(), 'CLEARING_UNAUTHORIZED', 401);
    await expectCode(clientFor(sim, obligationsOnly).fundingEstimates(), 'CLEARING_FORBIDDEN', 403);
    await expectCode(clientFor(sim, fundingOnly).activeObligations(), 'CLEARING_FORBIDDEN', 403);
    await expectCode(clientFor(sim, good).detailPage('no-such-obligation', 'funding_payments', ''), 'CLEARING_CLIENT_ERROR', 404);
    expect(await clientFor(sim, good).activeObligations()).toEqual([]); // none pending: an empty array
    expect(await clientFor(sim, good).fundingEstimates()).toEqual(new Map([['Crypto', { estimatedFundingCenticents: 0n, nextFundingTime: '2026-01-01T01:00:00.000Z' }]]));

    const wrong = await cli(['obligations', '--url', url], { CLEARING_CREDENTIAL: `${good.adminUserId}:not-the-token-${good.accessToken.slice(0, 3)}` });
    expect(wrong.code).toBe(EXIT.AUTH);
    expect(wrong.stderr).toMatch(/^clearing: CLEARING_UNAUTHORIZED: authentication failed for admin user admin-/);
    expect(wrong.stdout).toBe('');
    const forbidden = await cli(['obligations', '--url', url], { CLEARING_CREDENTIAL: `${fundingOnly.adminUserId}:${fundingOnly.accessToken}` });
    expect(forbidden.code).toBe(EXIT.AUTH);
    expect(forbidden.stderr).toContain('CLEARING_FORBIDDEN');
    expect(forbidden.stderr + forbidden.stdout).not.toContain(fundingOnly.accessToken);
    const malformed = await cli(['obligations', '--url', url], { CLEARING_CREDENTIAL: 'no-colon-here' });
    expect([malformed.code, malformed.stderr]).toEqual([EXIT.CREDENTIAL, 'clearing: CLEARING_BAD_CREDENTIAL: expected admin_user_id:access_token\n']);
    const usage = await cli(['obligatons']);
    expect(usage.code).toBe(EXIT.USAGE);
    expect(usage.stderr).toContain('unknown command');
  });

  it('prints a table, and CSV that parses back to the client\'s exact totals', async () => {
    const sim = await marginSim();
    await tradeAndFund(sim);
    const credential = sim.services.clearing.issue('alice');
    const env = { CLEARING_CREDENTIAL: `${credential.adminUserId}:${credential.accessToken}`, CLEARING_URL: `${sim.httpUrl}${CLEARING_PREFIX}` };
    const [complete] = await readCompleteObligations(clientFor(sim, credential));
    const totals = totalsOf(complete);
    const csv = await cli(['obligations', '--csv'], env);
    expect(csv.code).toBe(EXIT.OK);
    const rows = parseCsv(csv.stdout);
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    expect(rows).toHaveLength(2);
    const record = Object.fromEntries(rows[0].map((name, i) => [name, rows[1][i]]));
    const o = complete.obligation;
    expect(record).toEqual({
      obligation_id: o.id, user_id: 'alice', asset_class: 'Crypto', execution_time: o.executionTime, last_updated_ts: o.lastUpdatedTs,
      amount_centicents: String(o.amountCenticents), pnl_centicents: String(o.pnlCenticents), fees_centicents: String(o.feesCenticents),
      maintenance_margin_centicents: String(o.maintenanceMarginCenticents),
      settlement_rows: '2', settlement_pnl_centicents: String(totals.settlementPnl), settlement_fees_centicents: String(totals.settlementFees),
      settlement_total_centicents: String(totals.settlementTotal),
      margin_rows: '2', margin_centicents: String(totals.margin), margin_delta_centicents: String(totals.marginDelta),
      funding_rows: '2', funding_centicents: String(totals.funding), paged: '', reconciled: 'yes',
    });
    // The sums hold on the parsed-back text, too.
    expect(BigInt(record.pnl_centicents)).toBe(BigInt(record.settlement_pnl_centicents));
    expect(BigInt(record.amount_centicents)).toBe(BigInt(record.pnl_centicents) - BigInt(record.fees_centicents) - BigInt(record.margin_delta_centicents));

    const table = await cli(['obligations'], env);
    expect(table.code).toBe(EXIT.OK);
    const lines = table.stdout.split('\n');
    expect(lines[0]).toMatch(/^OBLIGATION +CLASS +EXECUTION +AMOUNT \$/);
    expect(lines[2]).toContain(o.id);
    const dollars = (c: bigint): string => `${c < 0n ? '-' : ''}${(c < 0n ? -c : c) / 10_000n}.${String((c < 0n ? -c : c) % 10_000n).padStart(4, '0')}`;
    expect(lines[2]).toContain(` ${dollars(o.amountCenticents)} `);
    expect(lines[2]).toMatch(/ yes$/);
    expect(table.stdout).toContain(`1 obligation(s); net amount ${dollars(o.amountCenticents)} $ (${o.amountCenticents} centicents`);

    const funding = await cli(['funding-estimate', '--csv'], env);
    expect(funding.code).toBe(EXIT.OK);
    expect(parseCsv(funding.stdout)[1][0]).toBe('Crypto');
  });

  it('works out of the box with the demo credential the simulator writes, also as a process', async () => {
    const cwd = tempDir();
    const keysDir = join(cwd, 'var', 'sim-keys');
    mkdirSync(keysDir, { recursive: true });
    const sim = await startTestSim({ keysDir });
    cleanups.push(() => sim.close());
    const demo = new RestClient(sim.httpUrl, sim.demoKey);
    const bob = new RestClient(sim.httpUrl, sim.createApiKey({ scopes: ['read', 'write'], userId: 'bob' }));
    expect((await bob.post('/margin/orders', marginOrder({ side: 'ask', count: '3', price: '100.00' }))).status).toBe(201);
    expect((await demo.post('/margin/orders', marginOrder({ side: 'bid', count: '3', price: '100.00' }))).status).toBe(201);
    expect(sim.demoClearing.credentialPath).toBe(join(keysDir, 'clearing-credential.json'));
    expect(sim.demoClearing.memberUserId).toBe(sim.userId);

    const run = await cli(['obligations'], {}, cwd); // no flags, no environment: the default file
    expect(run.stderr).toBe('');
    expect(run.code).toBe(EXIT.OK);
    expect(run.stdout).toContain(`-Crypto-${sim.userId}`);
    expect(run.stdout).toContain('1 obligation(s)');

    const child = spawn(process.execPath, ['--import', 'tsx', 'src/clearing/main.ts', 'obligations', '--csv', '--credential-file', sim.demoClearing.credentialPath], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CLEARING_CREDENTIAL: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    expect([code, stderr]).toEqual([0, '']);
    const rows = parseCsv(stdout);
    expect(rows).toHaveLength(2);
    expect(rows[1][1]).toBe(sim.userId);
    expect(rows[1][rows[0].indexOf('reconciled')]).toBe('yes');

    // A wrong token in a file: exit 3, a clear message, the token nowhere.
    const badFile = join(cwd, 'bad.json');
    writeFileSync(badFile, JSON.stringify({ adminUserId: sim.demoClearing.adminUserId, accessToken: 'XXXXdefinitely-wrongXXXX', url: sim.demoClearing.url }), { mode: 0o600 });
    const bad = spawn(process.execPath, ['--import', 'tsx', 'src/clearing/main.ts', 'obligations', '--credential-file', badFile], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let badOut = '';
    bad.stdout.on('data', (chunk) => (badOut += chunk));
    bad.stderr.on('data', (chunk) => (badOut += chunk));
    expect(await new Promise<number | null>((done) => bad.on('close', done))).toBe(EXIT.AUTH);
    expect(badOut).toContain('CLEARING_UNAUTHORIZED');
    expect(badOut).not.toContain('definitely-wrong');
    expect(badOut).not.toContain(sim.demoClearing.accessToken);
  });
});

// Goal: ExitTriggerClient's pure parts without a venue: the SET/UPDATE bodies it builds match the
// OpenAPI request schemas (read from ../shared/spec/schemas/margin-api.openapi.yaml at test time)
// for every shape, with prices as 4-decimal dollar strings and counts as whole-contract fp strings;
// the pre-send rules refuse what the venue would reject (coded, nothing sent); ExitTrigger answers
// decode into integer units by scanning (6-decimal response prices too, never through a float) and
// malformed ones are unknown-outcome errors; SignedRestClient failures map to rejected (4xx, with
// the venue's code) or unknown (no answer, 5xx).
// Method: direct calls of the exported encoders, checks and decoders; a SignedRestClient stub that
// throws scripted ExecErrors for the error mapping through the client.

import { describe, expect, it } from 'vitest';
import { COUNT_INVALID, PRICE_INVALID, createTriggerIntent, type Count, type ExitTriggerIntent, type Price } from '../../src/core/index.ts';
import { ExitTriggerClient, TriggerRefusal, encodeSetTrigger, encodeUpdateTrigger, parseExitTrigger, triggerErrorOf, triggerSetProblem } from '../../src/exec/margin/index.ts';
import type { SignedRestClient } from '../../src/exec/rest/signed-rest-client.ts';
import { ExecError, ExitTriggerError } from '../../src/oms/index.ts';
import { errorsOf, OpenApiValidator } from '../sim/helpers/schemas.ts';

const spec = new OpenApiValidator(() => {}, 'margin-api.openapi.yaml');
const CROSS = '/margin/cross/positions/{ticker}/exit_trigger';
const ISOLATED = '/margin/isolated/positions/{ticker}/exit_trigger';
const BY_ID = '/margin/cross/positions/{ticker}/exit_trigger/{trigger_id}';

function intent(overrides: Partial<ExitTriggerIntent>): ExitTriggerIntent {
  return { ...createTriggerIntent(), market: 0, ...overrides };
}

function validBody(path: string, body: string): Record<string, unknown> {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  const validate = spec.request('PUT', path);
  expect(validate(parsed), `${body}: ${errorsOf(validate)}`).toBe(true);
  return parsed;
}

describe('request bodies', () => {
  const shapes: [string, Partial<ExitTriggerIntent>, string][] = [
    ['whole bracket', { stopLossPrice: 950_000 as Price, takeProfitPrice: 1_100_000 as Price }, '{"kind":"bracket","stop_loss_price":"95.0000","take_profit_price":"110.0000"}'],
    ['take-profit only', { takeProfitPrice: 5_600 as Price }, '{"kind":"bracket","take_profit_price":"0.5600"}'],
    ['count bracket', { stopLossPrice: 1_000_000_000 as Price, count: 300 as Count, clientTriggerId: 'c-1' }, '{"kind":"bracket","stop_loss_price":"100000.0000","count":"3.00","client_trigger_id":"c-1"}'],
    ['anchored bracket', { stopLossPrice: 900_000 as Price, anchorOrderId: 'ord-"1"', clientTriggerId: 'a-1' }, '{"kind":"bracket","stop_loss_price":"90.0000","anchor_order_id":"ord-\\"1\\"","client_trigger_id":"a-1"}'],
    ['trailing amount', { kind: 'trailing', trailAmount: 20_000 as Price }, '{"kind":"trailing","trail_amount":"2.0000"}'],
    ['trailing bps', { kind: 'trailing', trailBps: 9_999 }, '{"kind":"trailing","trail_bps":9999}'],
  ];
  for (const [name, overrides, expected] of shapes) {
    it(`${name}: the exact bytes, valid for the cross schema (and the isolated one when whole)`, () => {
      const one = intent(overrides);
      expect(triggerSetProblem(one)).toBeNull();
      const body = encodeSetTrigger(one);
      expect(body).toBe(expected);
      validBody(CROSS, body);
      if (one.count === COUNT_INVALID && one.anchorOrderId === '') {
        const isolated = intent({ ...overrides, isolated: true });
        expect(triggerSetProblem(isolated)).toBeNull();
        validBody(ISOLATED, encodeSetTrigger(isolated));
      }
    });
  }

  it('update: the legs given, an omitted one left out (the venue clears it)', () => {
    expect(validBody(BY_ID, encodeUpdateTrigger(910_000 as Price, PRICE_INVALID))).toEqual({ stop_loss_price: '91.0000' });
    expect(validBody(BY_ID, encodeUpdateTrigger(910_000 as Price, 1_200_000 as Price))).toEqual({ stop_loss_price: '91.0000', take_profit_price: '120.0000' });
  });

  it('the validator is live: a body breaking the schema fails it', () => {
    const validate = spec.request('PUT', CROSS);
    expect(validate({ kind: 'bracket', stop_loss_price: 95 })).toBe(false);
    expect(validate({ kind: 'trailing', trail_bps: 10_000 })).toBe(false);
    expect(validate({ kind: 'other' })).toBe(false);
  });
});

describe('pre-send rules', () => {
  const refusals: [Partial<ExitTriggerIntent>, TriggerRefusal][] = [
    [{ stopLossPrice: 950_000 as Price, subaccount: 64 }, TriggerRefusal.SUBACCOUNT_INVALID],
    [{ stopLossPrice: 950_000 as Price, isolated: true, subaccount: 2 }, TriggerRefusal.SUBACCOUNT_INVALID],
    [{ stopLossPrice: 0 as Price }, TriggerRefusal.PRICE_INVALID],
    [{ stopLossPrice: 0.5 as Price }, TriggerRefusal.PRICE_INVALID],
    [{ kind: 'trailing', trailAmount: -5 as Price }, TriggerRefusal.PRICE_INVALID],
    [{ kind: 'trailing', trailBps: 10_000 }, TriggerRefusal.TRAIL_BPS_INVALID],
    [{}, TriggerRefusal.SHAPE_INVALID], // a bracket with no leg
    [{ stopLossPrice: 950_000 as Price, trailBps: 5 }, TriggerRefusal.SHAPE_INVALID],
    [{ kind: 'trailing', trailBps: 5, trailAmount: 100 as Price }, TriggerRefusal.SHAPE_INVALID],
    [{ kind: 'trailing' }, TriggerRefusal.SHAPE_INVALID],
    [{ kind: 'trailing', stopLossPrice: 950_000 as Price, trailBps: 5 }, TriggerRefusal.SHAPE_INVALID],
    [{ kind: 'trailing', trailBps: 5, count: 100 as Count, clientTriggerId: 'x' }, TriggerRefusal.SHAPE_INVALID],
    [{ stopLossPrice: 950_000 as Price, count: 100 as Count, anchorOrderId: 'o', clientTriggerId: 'x' }, TriggerRefusal.SHAPE_INVALID],
    [{ stopLossPrice: 950_000 as Price, isolated: true, count: 100 as Count, clientTriggerId: 'x' }, TriggerRefusal.SHAPE_INVALID],
    [{ stopLossPrice: 950_000 as Price, count: 150 as Count, clientTriggerId: 'x' }, TriggerRefusal.COUNT_NOT_WHOLE],
    [{ stopLossPrice: 950_000 as Price, count: 0 as Count, clientTriggerId: 'x' }, TriggerRefusal.COUNT_NOT_WHOLE],
    [{ stopLossPrice: 950_000 as Price, count: 100 as Count }, TriggerRefusal.CLIENT_TRIGGER_ID_INVALID],
    [{ stopLossPrice: 950_000 as Price, anchorOrderId: 'o', clientTriggerId: 'x'.repeat(65) }, TriggerRefusal.CLIENT_TRIGGER_ID_INVALID],
    [{ stopLossPrice: 950_000 as Price, clientTriggerId: 'x' }, TriggerRefusal.CLIENT_TRIGGER_ID_INVALID],
  ];
  it('each broken rule has its code; the client refuses before sending', async () => {
    let sent = 0;
    const stub = { call: async () => { sent++; return null; } } as unknown as SignedRestClient;
    const client = new ExitTriggerClient(stub, '/trade-api/v2');
    for (const [overrides, code] of refusals) {
      const one = intent(overrides);
      expect(triggerSetProblem(one)?.[0], JSON.stringify(overrides)).toBe(code);
      await expect(client.set('KXBTCPERP', one)).rejects.toMatchObject({ outcome: 'refused', code, status: 0 });
    }
    await expect(client.update('KXBTCPERP', 0, 'et-1', PRICE_INVALID, PRICE_INVALID)).rejects.toMatchObject({ code: TriggerRefusal.SHAPE_INVALID });
    await expect(client.update('KXBTCPERP', 0, '', 10 as Price, PRICE_INVALID)).rejects.toMatchObject({ code: TriggerRefusal.TRIGGER_ID_MISSING });
    await expect(client.cancelById('KXBTCPERP', 0, '')).rejects.toMatchObject({ code: TriggerRefusal.TRIGGER_ID_MISSING });
    await expect(client.list('KXBTCPERP', 3, true, null)).rejects.toMatchObject({ code: TriggerRefusal.SUBACCOUNT_INVALID });
    expect(sent).toBe(0);
  });
});

describe('decoding ExitTrigger', () => {
  const full = {
    id: 'et-1', ticker: 'KXBTCPERP', kind: 'bracket', status: 'pending_on_entry', status_reason: 'position_closed', triggered_leg: 'take_profit',
    triggered_order_id: 'o-9', anchor_order_id: 'o-1', client_trigger_id: 'a-1', stop_loss_price: '95.000000', take_profit_price: '100000.0000',
    count: '4.00', filled_count: '4.00', created_time: '2026-01-01T00:00:00Z', updated_time: '2026-01-01T00:00:01.500Z',
  };

  it('every field in core units; 6-decimal response prices scan exactly', () => {
    const validate = spec.component('ExitTrigger');
    expect(validate(full), errorsOf(validate)).toBe(true);
    expect(parseExitTrigger(full)).toEqual({
      triggerId: 'et-1', ticker: 'KXBTCPERP', kind: 'bracket', status: 'pending_on_entry', statusReason: 'position_closed', triggeredLeg: 'take_profit',
      triggeredOrderId: 'o-9', anchorOrderId: 'o-1', clientTriggerId: 'a-1', stopLossPrice: 950_000, takeProfitPrice: 1_000_000_000,
      trailAmount: PRICE_INVALID, trailBps: 0, watermarkPrice: PRICE_INVALID, effectiveStopPrice: PRICE_INVALID, count: 400, filledCount: 400,
      createdTimeMs: Date.UTC(2026, 0, 1), updatedTimeMs: Date.UTC(2026, 0, 1) + 1_500,
    });
    const trailing = parseExitTrigger({ ...full, kind: 'trailing', stop_loss_price: undefined, take_profit_price: undefined, trail_bps: 25, watermark_price: '0.1', effective_stop_price: '0.0998' });
    expect(trailing).toMatchObject({ trailBps: 25, watermarkPrice: 1_000, effectiveStopPrice: 998, stopLossPrice: PRICE_INVALID });
    expect(parseExitTrigger({ ...full, status: 'archived' }).status).toBe('unknown'); // a newer status: never read as ended
  });

  it('malformed answers are unknown-outcome errors', () => {
    const broken: Record<string, unknown>[] = [
      { ...full, id: '' }, { ...full, kind: 'stop' }, { ...full, count: '1.5.0' }, { ...full, filled_count: undefined },
      { ...full, stop_loss_price: '95.000001' }, { ...full, stop_loss_price: 95 }, { ...full, triggered_leg: 'both' }, { ...full, trail_bps: -1 },
      { ...full, take_profit_price: '1e3' },
    ];
    for (const object of broken) {
      let thrown: unknown = null;
      try {
        parseExitTrigger(object);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(object)).toBeInstanceOf(ExitTriggerError);
      expect(thrown).toMatchObject({ outcome: 'unknown', code: 'EXEC_BAD_RESPONSE' });
    }
  });
});

describe('errors', () => {
  it('4xx keeps the venue code (rejected); 429 is rejected; 5xx, timeouts and disconnects are unknown', () => {
    const reject = (status: number, code: string) => new ExecError(status === 429 ? 'EXEC_RATE_LIMITED' : 'EXEC_REJECTED', 'x', status, { status, code, message: `m-${code}`, details: 'anchor_order_id' });
    expect(triggerErrorOf(reject(409, 'anchor_order_unavailable'))).toMatchObject({ outcome: 'rejected', status: 409, code: 'anchor_order_unavailable', message: 'm-anchor_order_unavailable', details: 'anchor_order_id' });
    expect(triggerErrorOf(reject(409, 'idempotency_key_already_used'))).toMatchObject({ outcome: 'rejected', code: 'idempotency_key_already_used' });
    expect(triggerErrorOf(reject(400, 'exit_trigger_count_exceeds_position'))).toMatchObject({ outcome: 'rejected', status: 400, code: 'exit_trigger_count_exceeds_position' });
    expect(triggerErrorOf(reject(429, 'EXEC_RATE_LIMITED'))).toMatchObject({ outcome: 'rejected', status: 429 });
    expect(triggerErrorOf(new ExecError('EXEC_HTTP_5XX', 'x', 502, { status: 502, code: 'internal', message: '', details: '' }))).toMatchObject({ outcome: 'unknown', status: 502, code: 'EXEC_HTTP_5XX' });
    expect(triggerErrorOf(new ExecError('EXEC_TIMEOUT', 'x'))).toMatchObject({ outcome: 'unknown', status: 0, code: 'EXEC_TIMEOUT' });
    expect(triggerErrorOf(new Error('boom'))).toMatchObject({ outcome: 'unknown', code: 'EXEC_DISCONNECTED' });
  });

  it('through the client: the transport error arrives as ExitTriggerError, paths name the slot', async () => {
    const paths: string[] = [];
    const stub = {
      call: async (method: string, path: string) => {
        paths.push(`${method} ${path}`);
        throw new ExecError('EXEC_REJECTED', 'x', 404, { status: 404, code: 'not_found', message: 'exit trigger not found', details: '' });
      },
    } as unknown as SignedRestClient;
    const client = new ExitTriggerClient(stub, '/trade-api/v2');
    await expect(client.cancelById('KX/1', 2, 'et 1')).rejects.toMatchObject({ outcome: 'rejected', status: 404, code: 'not_found' });
    await expect(client.cancel('KXBTCPERP', 0, true, 'trailing')).rejects.toBeInstanceOf(ExitTriggerError);
    await expect(client.list('KXBTCPERP', 5, false, null)).rejects.toBeInstanceOf(ExitTriggerError);
    expect(paths).toEqual([
      'DELETE /trade-api/v2/margin/cross/positions/KX%2F1/exit_trigger/et%201?subaccount=2',
      'DELETE /trade-api/v2/margin/isolated/positions/KXBTCPERP/exit_trigger?kind=trailing',
      'GET /trade-api/v2/margin/cross/positions/KXBTCPERP/exit_trigger?subaccount=5',
    ]);
  });
});

// Goal: the logger writes parseable JSON lines at the asked level, pretty output when asked, and
// never writes a secret. Method: log into an in-memory Writable, parse or scan what was written;
// secrets are distinctive marker strings placed under every field name and depth the redaction
// list claims to cover, plus inside Secret wrappers deeper than path redaction reaches.

import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, resolvePretty, Secret, SECRET_FIELD_NAMES, TelemetryError } from '../../src/telemetry/index.ts';

function memorySink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  return { stream, text: () => chunks.join('') };
}

describe('createLogger', () => {
  it('writes one JSON object per line with level label, name and fields', () => {
    const sink = memorySink();
    const log = createLogger({ destination: sink.stream, name: 'test', level: 'debug' });
    log.debug({ orderId: 'o-1', latencyNs: 1234 }, 'ack');
    log.trace('not written at debug');
    const lines = sink.text().trim().split('\n');
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0]!);
    expect(record).toMatchObject({ level: 'debug', name: 'test', orderId: 'o-1', latencyNs: 1234, msg: 'ack' });
  });

  it('defaults to info and rejects an unknown level with a code', () => {
    const sink = memorySink();
    const log = createLogger({ destination: sink.stream });
    log.debug('hidden');
    log.info('shown');
    expect(sink.text()).not.toContain('hidden');
    expect(sink.text()).toContain('shown');
    expect(() => createLogger({ level: 'verbose', destination: sink.stream })).toThrowError(TelemetryError);
    try {
      createLogger({ level: 'verbose', destination: sink.stream });
    } catch (error) {
      expect((error as TelemetryError).code).toBe('TELEMETRY_LEVEL_INVALID');
    }
  });

  it('writes pretty text instead of JSON when pretty is true', () => {
    const sink = memorySink();
    const log = createLogger({ destination: sink.stream, pretty: true });
    log.info({ ticker: 'KXDEMO-26DEC31-T50' }, 'book synced');
    const text = sink.text();
    expect(text).toContain('book synced');
    expect(text).toContain('KXDEMO-26DEC31-T50');
    expect(() => JSON.parse(text.trim().split('\n')[0]!)).toThrow();
  });

  it('chooses pretty only for a TTY stdout in auto mode', () => {
    const sink = memorySink();
    expect(resolvePretty(true, sink.stream)).toBe(true);
    expect(resolvePretty(false, undefined)).toBe(false);
    // An explicit destination is never a terminal we know about: auto means JSON.
    expect(resolvePretty('auto', sink.stream)).toBe(false);
    expect(resolvePretty(undefined, undefined)).toBe(process.stdout.isTTY === true);
  });
});

describe('redaction', () => {
  const marker = (i: number): string => `SECRET-MARKER-${i}-zq`;

  function secretsObject(): { value: Record<string, unknown>; markers: string[] } {
    const markers: string[] = [];
    let i = 0;
    const fields = (): Record<string, string> => {
      const out: Record<string, string> = {};
      for (const name of SECRET_FIELD_NAMES) {
        const m = marker(i++);
        markers.push(m);
        out[name] = m;
      }
      return out;
    };
    const headers = (): Record<string, string> => {
      const values: Record<string, string> = {};
      for (const name of ['kalshi-access-signature', 'KALSHI-ACCESS-SIGNATURE', 'authorization', 'cookie']) {
        const m = marker(i++);
        markers.push(m);
        values[name] = m;
      }
      return { ...values, 'kalshi-access-key': 'visible-key-id' };
    };
    const deepSecret = marker(i++);
    markers.push(deepSecret);
    const value = {
      ...fields(),
      headers: headers(),
      request: { ...fields(), headers: headers(), venue: { ...fields(), auth: { ...fields(), headers: headers() } } },
      // Deeper than path redaction reaches: only the Secret wrapper protects it.
      a: { b: { c: { d: { e: { wrapped: new Secret(deepSecret) } } } } },
      ticker: 'KXDEMO-26DEC31-T50',
    };
    return { value, markers };
  }

  for (const pretty of [false, true]) {
    it(`never writes a secret value (${pretty ? 'pretty' : 'JSON'})`, () => {
      const sink = memorySink();
      const log = createLogger({ destination: sink.stream, pretty, level: 'trace' });
      const { value, markers } = secretsObject();
      log.info(value, 'order sent');
      log.child({ privateKeyPem: marker(9999) }).warn({ credentials: { token: marker(9998) } }, 'child');
      markers.push(marker(9999), marker(9998));
      const text = sink.text();
      expect(text).toContain('KXDEMO-26DEC31-T50');
      expect(text).toContain('visible-key-id');
      expect(text).toContain('[Redacted]');
      for (const m of markers) expect(text).not.toContain(m);
      expect(text).not.toContain('SECRET-MARKER');
    });
  }

  it('leaves the logged object itself untouched', () => {
    const sink = memorySink();
    const log = createLogger({ destination: sink.stream });
    const input = { privateKey: 'keep-me', nested: { token: 'keep-me-too' } };
    log.info(input, 'x');
    expect(input.privateKey).toBe('keep-me');
    expect(input.nested.token).toBe('keep-me-too');
  });
});

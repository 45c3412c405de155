// Goal: secrets never live in config files, and credentials come only from the environment (or a
// file the environment names), with clear coded errors when they are missing or unusable, and
// without ever printing the key. Method: generate throwaway RSA and EC keys, point env maps and
// temp files at them, load remote and embedded configs, and check credentials, issue codes and
// that no PEM text appears in error messages or in JSON of the loaded config.

import { generateKeyPairSync, sign, verify, constants } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, validateConfig, type ConfigIssue } from '../../src/runtime/config.ts';

const tempDir = mkdtempSync(join(tmpdir(), 'config-secrets-test-'));
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const rsaPem = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const rsaPkcs1Pem = rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const ecPem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const rsaPath = join(tempDir, 'rsa.pem');
const ecPath = join(tempDir, 'ec.pem');
const notKeyPath = join(tempDir, 'not-a-key.txt');
writeFileSync(rsaPath, rsaPkcs1Pem);
writeFileSync(ecPath, ecPem);
writeFileSync(notKeyPath, 'hello\n');
const pemBody = rsaPem.split('\n')[5]!; // a line from the middle of the key, to search for leaks

const remote = { venue: { mode: 'remote', restUrl: 'https://example.test/trade-api/v2', wsUrl: 'wss://example.test/trade-api/ws/v2' } };

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const lines = (issues: readonly ConfigIssue[]): string[] => issues.map((i) => `${i.code} ${i.path}: ${i.message}`);

describe('credentials from the environment', () => {
  it('loads the key id and an RSA key from the file named by the path variable', () => {
    const config = validateConfig(remote, 'cfg.json', { KALSHI_API_KEY_ID: 'key-123', KALSHI_PRIVATE_KEY_PATH: rsaPath });
    const credentials = config.credentials.venue!;
    expect(credentials.keyId).toBe('key-123');
    expect(credentials.privateKeySource).toBe(`file ${rsaPath}`);
    expect(credentials.privateKeyPem.reveal()).toBe(rsaPkcs1Pem);
    // The parsed key signs what the exchange verifies: RSA-PSS SHA-256, salt = digest length.
    const message = Buffer.from('1703123456789GET/trade-api/v2/portfolio/balance');
    const options = { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST };
    const signature = sign('sha256', message, { key: credentials.privateKey, ...options });
    expect(verify('sha256', message, { key: rsa.publicKey, ...options }, signature)).toBe(true);
  });

  it('loads PEM text from the PEM variable, and honours renamed variable names', () => {
    const config = validateConfig(
      { venue: { ...remote.venue, keyIdEnv: 'MY_KEY_ID', privateKeyPemEnv: 'MY_PEM' } },
      'cfg.json',
      { MY_KEY_ID: 'key-9', MY_PEM: rsaPem, KALSHI_API_KEY_ID: 'ignored' },
    );
    expect(config.credentials.venue!.keyId).toBe('key-9');
    expect(config.credentials.venue!.privateKeySource).toBe('environment MY_PEM');
  });

  it('never prints the key: JSON, inspect and String of the config hold no PEM text', () => {
    const config = validateConfig(remote, 'cfg.json', { KALSHI_API_KEY_ID: 'key-123', KALSHI_PRIVATE_KEY_PEM: rsaPem });
    for (const text of [JSON.stringify(config), inspect(config, { depth: 10 }), String(config.credentials.venue!.privateKeyPem)]) {
      expect(text).not.toContain(pemBody);
      expect(text).not.toContain('PRIVATE KEY');
    }
    expect(Object.isFrozen(config.credentials.venue)).toBe(true);
  });

  it('fails with SECRET_MISSING naming each missing variable in remote mode', () => {
    const error = configError(() => validateConfig(remote, 'cfg.json', {}));
    expect(lines(error.issues)).toEqual([
      'SECRET_MISSING /venue/keyIdEnv: environment variable KALSHI_API_KEY_ID (the API key id) is not set; required when /venue/mode is "remote"',
      'SECRET_MISSING /venue/privateKeyPathEnv: neither KALSHI_PRIVATE_KEY_PATH (path of the private key PEM file) nor KALSHI_PRIVATE_KEY_PEM (the PEM text) is set; required when /venue/mode is "remote"',
    ]);
    // Blank counts as missing.
    const blank = configError(() => validateConfig(remote, 'cfg.json', { KALSHI_API_KEY_ID: '  ', KALSHI_PRIVATE_KEY_PATH: rsaPath }));
    expect(blank.issues.map((i) => i.code)).toEqual(['SECRET_MISSING']);
  });

  it('fails when the named file is missing, not a key, not RSA, or both sources are set', () => {
    const env = { KALSHI_API_KEY_ID: 'k' };
    const missing = join(tempDir, 'nope.pem');
    const cases: [Record<string, string>, string][] = [
      [{ ...env, KALSHI_PRIVATE_KEY_PATH: missing }, `SECRET_MISSING /venue/privateKeyPathEnv: cannot read the private key file named by KALSHI_PRIVATE_KEY_PATH (${missing}): ENOENT`],
      [{ ...env, KALSHI_PRIVATE_KEY_PATH: notKeyPath }, `SECRET_INVALID /venue/privateKeyPathEnv: file ${notKeyPath} does not contain a PEM private key (-----BEGIN ... PRIVATE KEY-----)`],
      [{ ...env, KALSHI_PRIVATE_KEY_PATH: ecPath }, `SECRET_INVALID /venue/privateKeyPathEnv: file ${ecPath} holds a ec key; the exchange signs with RSA-PSS keys`],
      [{ ...env, KALSHI_PRIVATE_KEY_PEM: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' }, 'SECRET_INVALID /venue/privateKeyPemEnv: environment KALSHI_PRIVATE_KEY_PEM holds a private key Node cannot read (ERR_OSSL_UNSUPPORTED)'],
      [{ ...env, KALSHI_PRIVATE_KEY_PATH: rsaPath, KALSHI_PRIVATE_KEY_PEM: rsaPem }, 'INCONSISTENT_VALUES /venue/privateKeyPathEnv: both KALSHI_PRIVATE_KEY_PATH and KALSHI_PRIVATE_KEY_PEM are set; set only one'],
    ];
    for (const [environment, expected] of cases) {
      const error = configError(() => validateConfig(remote, 'cfg.json', environment));
      const got = lines(error.issues);
      if (expected.includes('ERR_OSSL_UNSUPPORTED')) {
        // OpenSSL's code for undecodable DER varies by build; the sentence around it does not.
        expect(got).toHaveLength(1);
        expect(got[0]).toMatch(/^SECRET_INVALID \/venue\/privateKeyPemEnv: environment KALSHI_PRIVATE_KEY_PEM holds a private key Node cannot read \(\w+\)$/);
      } else {
        expect(got).toEqual([expected]);
      }
      expect(error.message).not.toContain(pemBody);
    }
  });

  it('does not read the environment in embedded mode', () => {
    const config = validateConfig({ venue: { mode: 'embedded' } }, 'cfg.json', { KALSHI_API_KEY_ID: 'k', KALSHI_PRIVATE_KEY_PATH: join(tempDir, 'nope.pem') });
    expect(config.credentials.venue).toBeNull();
  });

  it('does not echo a value given where a variable name belongs', () => {
    const error = configError(() => validateConfig({ venue: { keyIdEnv: 'a1b2c3d4-5e6f-7a8b-9c0d-e1f2a3b4c5d6' } }, 'cfg.json', {}));
    expect(lines(error.issues)).toEqual([
      'SCHEMA_VIOLATION /venue/keyIdEnv: must be an environment variable name (A-Z, 0-9 and _, not starting with a digit), not the secret itself',
    ]);
    expect(error.message).not.toContain('a1b2c3d4');
  });
});

describe('secrets written into the config', () => {
  it('rejects a PEM private key anywhere, without repeating it', () => {
    const documents: [unknown, string][] = [
      [{ venue: { privateKeyPem: rsaPem } }, '/venue/privateKeyPem'],
      [{ venue: { privateKeyPathEnv: rsaPem } }, '/venue/privateKeyPathEnv'],
      [{ strategies: [{ id: 'mm', plugin: 'strategies/a.ts', markets: ['A'], params: { nested: [{ key: rsaPkcs1Pem }] } }] }, '/strategies/0/params/nested/0/key'],
      [{ note: ecPem }, '/note'],
    ];
    for (const [document, path] of documents) {
      const error = configError(() => validateConfig(document, 'cfg.json', {}));
      const secretIssues = error.issues.filter((i) => i.code === 'SECRET_IN_CONFIG');
      expect(secretIssues.map((i) => i.path)).toEqual([path]);
      expect(secretIssues[0]!.message).toMatch(/^contains a PEM private key; keep keys out of config files/);
      // Reported once, as a secret, not also as an unknown key.
      expect(error.issues.filter((i) => i.path === path)).toHaveLength(1);
      expect(error.message).not.toContain(pemBody);
      expect(error.message).not.toContain('BEGIN');
    }
  });

  it('rejects a PEM key in a file that is not even valid JSON', () => {
    const text = `{ "venue": { "key": "${rsaPem}" } }`; // raw newlines: invalid JSON
    const error = configError(() => parseConfig(text, 'cfg.json', {}));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(lines(error.issues)).toEqual([expect.stringMatching(/^SECRET_IN_CONFIG \/: contains a PEM private key/)]);
    expect(error.message).not.toContain(pemBody);
  });

  it('rejects values under secret-only key names such as token and password', () => {
    const error = configError(() => validateConfig({
      telemetry: { token: 'abc' },
      strategies: [{ id: 'mm', plugin: 'strategies/a.ts', markets: ['A'], params: { apiKeySecret: 'x', Password: 'y', tokenBucketSize: 5 } }],
    }, 'cfg.json', {}));
    expect(lines(error.issues)).toEqual([
      'SECRET_IN_CONFIG /strategies/0/params/Password: looks like a secret; config files name environment variables (e.g. /venue/keyIdEnv), the environment holds the value',
      'SECRET_IN_CONFIG /strategies/0/params/apiKeySecret: looks like a secret; config files name environment variables (e.g. /venue/keyIdEnv), the environment holds the value',
      'SECRET_IN_CONFIG /telemetry/token: looks like a secret; config files name environment variables (e.g. /venue/keyIdEnv), the environment holds the value',
    ]);
    expect(error.message).not.toContain('abc');
  });
});

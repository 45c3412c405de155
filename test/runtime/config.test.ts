// Goal: the config loader accepts the committed defaults, converts fixed-point strings to integer
// units, reports every violation at once with its file, JSON path and expectation, names renamed
// keys' replacements, and returns a deep-frozen object. Method: validate in-memory documents and
// temp files, then compare ConfigError issues (code + path) and message lines with exact
// expectations; mutation attempts on the result must throw (test files are strict-mode ESM).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ConfigError, defaultConfig, loadConfig, parseConfig, RENAMED_KEYS, validateConfig, type ConfigIssue,
} from '../../src/runtime/config.ts';

const tempDir = mkdtempSync(join(tmpdir(), 'config-test-'));
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const codesAndPaths = (issues: readonly ConfigIssue[]): string[] => issues.map((i) => `${i.code} ${i.path}`);

const strategy = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  id: 'mm', plugin: 'strategies/market-maker.ts', markets: ['KXDEMO-26DEC31-T50'], ...extra,
});

describe('defaults', () => {
  it('an empty document is valid and gets every default, converted to units', () => {
    const config = defaultConfig();
    expect(config.venue).toEqual({
      mode: 'embedded', restUrl: null, wsUrl: null,
      keyIdEnv: 'KALSHI_API_KEY_ID', privateKeyPathEnv: 'KALSHI_PRIVATE_KEY_PATH', privateKeyPemEnv: 'KALSHI_PRIVATE_KEY_PEM', restrictedSubaccount: -1, orderWatchdog: true,
      fix: { host: null, port: null, sessionName: 'KalshiNR', tls: true, heartbeatIntervalS: 30, cancelOrdersOnDisconnect: true, marketDataHost: null, marketDataPort: null, rfqPort: null },
    });
    expect(config.risk.maxOrderCount).toBe(10_000); // "100.00" contracts in 1/100 contract
    expect(config.risk.maxOrderNotionalDollars).toBe(1_000_000); // "100.00" dollars in 1/10,000 dollar
    expect(config.risk.maxPositionPerMarket).toBe(50_000);
    expect(config.risk.maxPositionPerSubaccount).toBe(200_000);
    expect(config.risk.maxRestingExposureDollars).toBe(10_000_000);
    expect(config.risk.tradingState).toBe('active');
    expect(config.sim.timestampWindowPastMs).toBe(10_000);
    expect(config.sim.timestampWindowFutureMs).toBe(30_000);
    expect(config.strategies).toEqual([]);
    expect(config.telemetry).toEqual({ logLevel: 'info', pretty: 'auto', statusIntervalMs: 10_000, eventLoopStallSampleMs: 20, metrics: { enabled: false, host: '127.0.0.1', port: 9464 },
      dashboard: { enabled: false, host: '127.0.0.1', port: 9465, token: null, pushIntervalMs: 250 } });
    expect(config.record).toEqual({ enabled: false, dir: 'var/recordings' });
    expect(config.credentials).toEqual({ venue: null });
  });

  it('config/runtime.json passes and describes one market-maker on subaccount 1', () => {
    const config = loadConfig('config/runtime.json', {});
    expect(config.venue.mode).toBe('embedded');
    expect(Object.keys(config).sort()).toEqual(['credentials', 'exec', 'feed', 'fleet', 'margin', 'process', 'record', 'rfq', 'risk', 'sim', 'strategies', 'telemetry', 'venue', 'workers']);
    expect(config.strategies).toEqual([{
      id: 'mm-demo', plugin: 'strategies/market-maker.ts', subaccount: 1,
      orderGroup: { contractsLimit: 100_000 }, markets: ['KXDEMO-26DEC31-T50'], params: {}, route: 'rest', holdIntents: true, priority: 1,
    }]);
  });

  it('fills strategy defaults per entry', () => {
    const config = validateConfig({ strategies: [strategy(), strategy({ id: 'mm2', subaccount: 63 })] }, 'x.json', {});
    expect(config.strategies.map((s) => [s.subaccount, s.orderGroup, s.params, s.route])).toEqual([[0, null, {}, 'rest'], [63, null, {}, 'rest']]);
  });

  it('a strategy on the FIX route needs the FIX host and port of a remote venue', () => {
    const remote = { mode: 'remote', restUrl: 'https://x.example/trade-api/v2', wsUrl: 'wss://x.example/trade-api/ws/v2' };
    const env = { KALSHI_API_KEY_ID: 'k', KALSHI_PRIVATE_KEY_PATH: '/nonexistent.pem' };
    let error: unknown = null;
    try {
      validateConfig({ venue: remote, strategies: [strategy({ route: 'fix' })] }, 'x.json', env);
    } catch (caught) {
      error = caught;
    }
    expect(String((error as Error).message)).toMatch(/\/venue\/fix\/host/);
    expect(validateConfig({ strategies: [strategy({ route: 'fix' })] }, 'x.json', {}).strategies[0].route).toBe('fix'); // embedded: the simulator's acceptor
  });

  it('quotes over FIX need the FIX host and the KalshiRFQ port of a remote venue', () => {
    const remote = { mode: 'remote', restUrl: 'https://x.example/trade-api/v2', wsUrl: 'wss://x.example/trade-api/ws/v2' };
    const env = { KALSHI_API_KEY_ID: 'k', KALSHI_PRIVATE_KEY_PATH: '/nonexistent.pem' };
    const messageOf = (document: Record<string, unknown>): string => {
      try {
        validateConfig(document, 'x.json', env);
        return '';
      } catch (caught) {
        return String((caught as Error).message);
      }
    };
    const message = messageOf({ venue: remote, rfq: { enabled: true, route: 'fix' } });
    expect(message).toMatch(/\/venue\/fix\/host/);
    expect(message).toMatch(/\/venue\/fix\/rfqPort/);
    expect(messageOf({ venue: { ...remote, fix: { host: 'fix.example', rfqPort: 8232 } }, rfq: { enabled: true, route: 'fix' } })).not.toMatch(/rfqPort|\/venue\/fix\/host/);
    expect(validateConfig({ rfq: { enabled: true, route: 'fix' } }, 'x.json', {}).rfq.route).toBe('fix'); // embedded: the simulator's acceptor
    expect(validateConfig({}, 'x.json', {}).rfq.route).toBe('rest');
  });

  it('converts fixed-point strings exactly, with or without trailing decimals', () => {
    const config = validateConfig({ risk: { maxOrderCount: '7', maxPositionPerMarket: '0.5', maxOrderNotionalDollars: '12.3456', maxRestingExposureDollars: '0.017500' } }, 'x.json', {});
    expect(config.risk.maxOrderCount).toBe(700);
    expect(config.risk.maxPositionPerMarket).toBe(50);
    expect(config.risk.maxOrderNotionalDollars).toBe(123_456);
    expect(config.risk.maxRestingExposureDollars).toBe(175);
  });

  it('does not modify the caller\'s object', () => {
    const input = { risk: { maxOrderCount: '5.00' } };
    validateConfig(input, 'x.json', {});
    expect(input).toEqual({ risk: { maxOrderCount: '5.00' } });
  });
});

describe('violations', () => {
  it('reports each kind with its path and expectation', () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ sim: { seed: 'one' } }, '/sim/seed', 'must be integer (got string "one")'],
      [{ sim: { seed: 1.5 } }, '/sim/seed', 'must be integer (got number 1.5)'],
      [{ sim: { seed: -1 } }, '/sim/seed', 'must be >= 0 (got number -1)'],
      [{ feed: { commandsPerSecond: 20_000 } }, '/feed/commandsPerSecond', 'must be <= 10000 (got number 20000)'],
      [{ venue: { mode: 'paper' } }, '/venue/mode', 'must be one of "embedded", "remote" (got string "paper")'],
      [{ venue: { restUrl: 'ftp://x' } }, '/venue/restUrl', 'must be an http:// or https:// URL, or null (got string "ftp://x")'],
      [{ venue: { wsUrl: 'not a url' } }, '/venue/wsUrl', 'must be a ws:// or wss:// URL, or null (got string "not a url")'],
      [{ risk: { maxOrderCount: 100 } }, '/risk/maxOrderCount', 'must be a contract count as a string with at most 2 decimals, e.g. "100.00" (got number 100)'],
      [{ risk: { maxOrderCount: '1.005' } }, '/risk/maxOrderCount', 'must be a contract count as a string with at most 2 decimals, e.g. "100.00" (got string "1.005")'],
      [{ risk: { maxOrderNotionalDollars: '-5.00' } }, '/risk/maxOrderNotionalDollars', 'must be a non-negative dollar amount as a string with at most 4 decimals, e.g. "50.00" (got string "-5.00")'],
      [{ risk: { cancelReserveFraction: 1 } }, '/risk/cancelReserveFraction', 'must be <= 0.9 (got number 1)'],
      [{ strategies: [strategy({ subaccount: 64 })] }, '/strategies/0/subaccount', 'must be <= 63 (got number 64)'],
      [{ strategies: [strategy({ plugin: '../evil.ts' })] }, '/strategies/0/plugin', 'must be a module path under strategies/ ending in .ts, .js or .mjs, e.g. "strategies/market-maker.ts" (got string "../evil.ts")'],
      [{ strategies: [strategy({ markets: ['kxlower'] })] }, '/strategies/0/markets/0', 'must be a market ticker: uppercase letters, digits, \'.\', \'_\' or \'-\', e.g. "KXDEMO-26DEC31-T50" (got string "kxlower")'],
      [{ strategies: [strategy({ markets: [] })] }, '/strategies/0/markets', 'must NOT have fewer than 1 items (got an empty array)'],
      [{ strategies: [strategy({ orderGroup: 5 })] }, '/strategies/0/orderGroup', 'must be an object { "contractsLimit": "<contracts>" } or null (got number 5)'],
      [{ strategies: [strategy({ orderGroup: { contractsLimit: '0.00' } })] }, '/strategies/0/orderGroup/contractsLimit', 'must be a contract count above zero as a string with at most 2 decimals, e.g. "100.00" (got string "0.00")'],
      [{ strategies: [strategy({ params: [] })] }, '/strategies/0/params', 'must be object (got an empty array)'],
      [{ strategies: {} }, '/strategies', 'must be array (got an object)'],
      [{ strategies: [{ id: 'mm', plugin: 'strategies/a.ts' }] }, '/strategies/0/markets', 'required key is missing'],
      [{ telemetry: { pretty: 'yes' } }, '/telemetry/pretty', 'must be one of "auto", true, false (got string "yes")'],
    ];
    for (const [document, path, message] of cases) {
      const error = configError(() => validateConfig(document, 'cfg.json', {}));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.issues.map((i) => `${i.path}: ${i.message}`), JSON.stringify(document)).toEqual([`${path}: ${message}`]);
      expect(error.message).toBe(`cfg.json: 1 problem\ncfg.json: ${path}: ${message}`);
    }
  });

  it('rejects a document that is not an object', () => {
    for (const document of [[], 'x', 3, null]) {
      const error = configError(() => validateConfig(document, 'cfg.json', {}));
      expect(codesAndPaths(error.issues)).toEqual(['SCHEMA_VIOLATION /']);
      expect(error.issues[0]!.message).toMatch(/^must be object \(got /);
    }
  });

  it('reports unknown keys at every level with the allowed keys', () => {
    const error = configError(() => validateConfig({
      colour: 'red',
      feed: { staleBookMS: 1 },
      strategies: [strategy({ orderGroup: { contractsLimit: '5.00', autoCancel: true } }), strategy({ id: 'b', extra: 1 })],
    }, 'cfg.json', {}));
    expect(codesAndPaths(error.issues)).toEqual([
      'UNKNOWN_KEY /colour',
      'UNKNOWN_KEY /feed/staleBookMS',
      'UNKNOWN_KEY /strategies/0/orderGroup/autoCancel',
      'UNKNOWN_KEY /strategies/1/extra',
    ]);
    expect(error.issues[1]!.message).toBe('unknown key; allowed keys here: source, staleBookMs, reconnectBackoffMinMs, reconnectBackoffMaxMs, commandsPerSecond, turnBudgetUs');
    expect(error.issues[2]!.message).toBe('unknown key; allowed keys here: contractsLimit');
  });

  it('names the replacement of a renamed key, array indexes included', () => {
    const error = configError(() => validateConfig({
      risk: { maxOrderSize: '5.00' },
      telemetry: { level: 'debug' },
      strategies: [strategy(), { id: 'b', plugin: 'strategies/b.ts', tickers: ['A'] }],
    }, 'cfg.json', {}));
    expect(error.issues.map((i) => `${i.code} ${i.path}: ${i.message}`)).toEqual([
      'RENAMED_KEY /risk/maxOrderSize: renamed to /risk/maxOrderCount',
      'MISSING_KEY /strategies/1/markets: required key is missing',
      'RENAMED_KEY /strategies/1/tickers: renamed to /strategies/1/markets',
      'RENAMED_KEY /telemetry/level: renamed to /telemetry/logLevel',
    ]);
  });

  it('says what to do about a removed key instead of calling it unknown', () => {
    const error = configError(() => validateConfig({ feed: { transport: 'undici' } }, 'cfg.json', {}));
    expect(error.issues.map((i) => `${i.code} ${i.path}`)).toEqual(['REMOVED_KEY /feed/transport']);
    expect(error.issues[0]!.message).toMatch(/^removed: the feed always reads with the runtime's own WebSocket client/);
  });

  it('keeps every renamed-key entry pointing from an unknown key to a known one', () => {
    for (const { from, to } of RENAMED_KEYS) {
      const fromSegments = from.split('/').slice(1).map((s) => (s === '*' ? '0' : s));
      const toSegments = to.split('/').slice(1).map((s) => (s === '*' ? '0' : s));
      // The new key exists in a loaded config.
      let node: unknown = validateConfig({ strategies: [strategy()] }, 'x.json', {});
      for (const segment of toSegments) {
        expect(node !== null && typeof node === 'object' && segment in node, to).toBe(true);
        node = (node as Record<string, unknown>)[segment];
      }
      // The old key is reported as renamed, naming the new one.
      const document: Record<string, any> = { strategies: [strategy()] };
      let parent: Record<string, any> = document;
      for (const segment of fromSegments.slice(0, -1)) parent = parent[segment] ??= {};
      parent[fromSegments.at(-1)!] = 'X';
      const issues = configError(() => validateConfig(document, 'x.json', {})).issues;
      const renamed = issues.find((i) => i.code === 'RENAMED_KEY');
      expect(renamed?.path).toBe(`/${fromSegments.join('/')}`);
      expect(renamed?.message.startsWith(`renamed to /${toSegments.join('/')}`)).toBe(true);
    }
  });

  it('checks values that are only wrong together', () => {
    const error = configError(() => validateConfig({
      venue: { mode: 'remote' },
      feed: { reconnectBackoffMinMs: 5_000, reconnectBackoffMaxMs: 1_000 },
      strategies: [strategy(), strategy({ id: 'other' }), strategy()],
    }, 'cfg.json', { KALSHI_API_KEY_ID: 'id', KALSHI_PRIVATE_KEY_PEM: 'not a key' }));
    expect(error.issues.map((i) => `${i.code} ${i.path}: ${i.message}`)).toEqual([
      'INCONSISTENT_VALUES /feed/reconnectBackoffMinMs: must be <= /feed/reconnectBackoffMaxMs (1000)',
      'DUPLICATE_VALUE /strategies/2/id: duplicates /strategies/0/id ("mm"); ids must be unique',
      'SECRET_INVALID /venue/privateKeyPemEnv: environment KALSHI_PRIVATE_KEY_PEM does not contain a PEM private key (-----BEGIN ... PRIVATE KEY-----)',
      'INCONSISTENT_VALUES /venue/restUrl: required when /venue/mode is "remote"',
      'INCONSISTENT_VALUES /venue/wsUrl: required when /venue/mode is "remote"',
    ]);
  });

  it('reports every violation at once, one line each, sorted by path', () => {
    const error = configError(() => validateConfig({
      venue: { mode: 'paper', apiKeyIdEnv: 'X' },
      sim: { seed: 'one', activityUpdatesPerSec: -3, marginActivityUpdatesPerSec: 2.5 },
      risk: { maxOrderCount: 100, tradingState: 'go' },
      strategies: [{ id: 'Bad Id', plugin: 'strategies/a.ts', markets: ['OK'], subaccount: 99 }],
      exec: { signing: 'later', connections: 0 },
      nope: true,
    }, 'config/runtime.json', {}));
    expect(codesAndPaths(error.issues)).toEqual([
      'SCHEMA_VIOLATION /exec/connections',
      'SCHEMA_VIOLATION /exec/signing',
      'UNKNOWN_KEY /nope',
      'SCHEMA_VIOLATION /risk/maxOrderCount',
      'SCHEMA_VIOLATION /risk/tradingState',
      'SCHEMA_VIOLATION /sim/activityUpdatesPerSec',
      'SCHEMA_VIOLATION /sim/marginActivityUpdatesPerSec',
      'SCHEMA_VIOLATION /sim/seed',
      'SCHEMA_VIOLATION /strategies/0/id',
      'SCHEMA_VIOLATION /strategies/0/subaccount',
      'RENAMED_KEY /venue/apiKeyIdEnv',
      'SCHEMA_VIOLATION /venue/mode',
    ]);
    const lines = error.message.split('\n');
    expect(lines[0]).toBe('config/runtime.json: 12 problems');
    expect(lines).toHaveLength(13);
    expect(lines).toContain('config/runtime.json: /sim/seed: must be integer (got string "one")');
    for (const line of lines.slice(1)) expect(line).toMatch(/^config\/runtime\.json: \/\S*: .+/);
  });
});

describe('files', () => {
  it('loads a file and names it in errors', () => {
    const good = join(tempDir, 'good.json');
    writeFileSync(good, JSON.stringify({ sim: { seed: 7 } }));
    expect(loadConfig(good, {}).sim.seed).toBe(7);
    const bad = join(tempDir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ sim: { seed: 'x' } }));
    expect(configError(() => loadConfig(bad, {})).message).toBe(`${bad}: 1 problem\n${bad}: /sim/seed: must be integer (got string "x")`);
  });

  it('says where JSON is broken without quoting the file', () => {
    const error = configError(() => parseConfig('{\n  "sim": {\n    "seed": 1,\n  }\n}', 'broken.json', {}));
    expect(error.code).toBe('CONFIG_NOT_JSON');
    expect(error.message).toMatch(/^broken\.json: not valid JSON: line 4 column 3: /);
    const quoted = configError(() => parseConfig('secretish-text', 'q.json', {}));
    expect(quoted.code).toBe('CONFIG_NOT_JSON');
    expect(quoted.message).not.toContain('secretish');
  });

  it('reports an unreadable file with a code', () => {
    const error = configError(() => loadConfig(join(tempDir, 'missing.json'), {}));
    expect(error.code).toBe('CONFIG_UNREADABLE');
    expect(error.message).toContain('ENOENT');
  });
});

describe('deep freeze', () => {
  it('freezes every level, arrays and plugin params included', () => {
    const config = validateConfig({ strategies: [strategy({ params: { spread: { ticks: 2 }, sizes: [1, 2] } })] }, 'x.json', {});
    const mutable = config as unknown as Record<string, any>;
    expect(Object.isFrozen(config)).toBe(true);
    expect(() => { mutable.risk.maxOrderCount = 1; }).toThrow(TypeError);
    expect(() => { mutable.venue = {}; }).toThrow(TypeError);
    expect(() => { mutable.strategies.push({}); }).toThrow(TypeError);
    expect(() => { mutable.strategies[0].markets[0] = 'X'; }).toThrow(TypeError);
    expect(() => { mutable.strategies[0].params.spread.ticks = 9; }).toThrow(TypeError);
    expect(() => { mutable.strategies[0].params.sizes.push(3); }).toThrow(TypeError);
    expect(() => { mutable.credentials.venue = null; }).toThrow(TypeError);
    expect(() => { delete mutable.telemetry.logLevel; }).toThrow(TypeError);
    expect(config.strategies[0]!.params).toEqual({ spread: { ticks: 2 }, sizes: [1, 2] });
  });
});

/**
 * Goal: the main job's command line parses --config, --venue, --duration, --release-kill-switch and --help, refuses
 * anything else with a UsageError (exit code 2), and derives REST and WebSocket URLs from a venue.
 * Method: table-driven calls of parseCliArgs and venueUrls.
 */

import { describe, expect, it } from 'vitest';
import { UsageError, parseCliArgs, venueUrls } from '../../src/runtime/cli-args.ts';

describe('parseCliArgs', () => {
  it('defaults to config/runtime.json, the config venue and no duration', () => {
    expect(parseCliArgs([])).toEqual({ configPath: 'config/runtime.json', venue: null, durationSec: 0, releaseKillSwitch: false, json: false, help: false });
  });

  it('reads every flag', () => {
    expect(parseCliArgs(['--config', 'x.json', '--venue', 'http://127.0.0.1:9000', '--duration', '30', '--release-kill-switch', '--json', '--help'])).toEqual({
      configPath: 'x.json', venue: 'http://127.0.0.1:9000', durationSec: 30, releaseKillSwitch: true, json: true, help: true,
    });
  });

  it.each([
    [['--bogus'], 'unknown argument "--bogus"'],
    [['--config'], '--config needs a value'],
    [['--config', '--duration', '3'], '--config needs a value'],
    [['--duration', '0'], '--duration needs a whole number of seconds >= 1'],
    [['--duration', '1.5'], '--duration needs a whole number of seconds >= 1'],
    [['--duration', '-3'], '--duration needs a whole number of seconds >= 1'],
    [['--venue', 'ftp://x'], '--venue needs an http(s) URL'],
    [['--venue', 'not a url'], '--venue needs an http(s) URL'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCliArgs(argv)).toThrowError(UsageError);
    expect(() => parseCliArgs(argv)).toThrowError(message);
  });
});

describe('venueUrls', () => {
  it.each([
    ['http://127.0.0.1:9000', 'http://127.0.0.1:9000/trade-api/v2', 'ws://127.0.0.1:9000/trade-api/ws/v2'],
    ['http://127.0.0.1:9000/', 'http://127.0.0.1:9000/trade-api/v2', 'ws://127.0.0.1:9000/trade-api/ws/v2'],
    ['https://api.example.com/trade-api/v2', 'https://api.example.com/trade-api/v2', 'wss://api.example.com/trade-api/ws/v2'],
    ['https://host.example/prefix/trade-api/v2', 'https://host.example/prefix/trade-api/v2', 'wss://host.example/prefix/trade-api/ws/v2'],
  ])('%s', (venue, restUrl, wsUrl) => {
    expect(venueUrls(venue)).toEqual({ restUrl, wsUrl });
  });
});

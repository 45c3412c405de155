/**
 * Loads the runtime configuration for the main job, applying `--venue <url>`: the venue becomes
 * remote at that URL and the loader reads the API key from the environment variables the config
 * names (KALSHI_API_KEY_ID, KALSHI_PRIVATE_KEY_PATH / _PEM by default). Validation, defaults and
 * error reporting stay config.ts's; this file only rewrites the venue before validation.
 */

import { readFileSync } from 'node:fs';
import { loadConfig, parseConfig, validateConfig } from './config.ts';
import type { DeepReadonly, Env, RuntimeConfig } from './config.ts';
import { venueUrls } from './cli-args.ts';

export function loadRuntimeConfig(path: string, venue: string | null, env: Env = process.env): DeepReadonly<RuntimeConfig> {
  if (venue === null) return loadConfig(path, env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return loadConfig(path, env); // throws CONFIG_UNREADABLE with the file's name
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return parseConfig(text, path, env); // throws CONFIG_NOT_JSON (or SECRET_IN_CONFIG)
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const current = typeof record.venue === 'object' && record.venue !== null ? (record.venue as Record<string, unknown>) : {};
    const urls = venueUrls(venue);
    record.venue = { ...current, mode: 'remote', restUrl: urls.restUrl, wsUrl: urls.wsUrl };
  }
  return validateConfig(value, path, env);
}

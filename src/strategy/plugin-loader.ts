/**
 * Loads a strategy plugin module and validates an instance's params against the plugin's JSON
 * Schema (ajv, every violation at once, defaults filled in, result deep-frozen). A redeploy loads
 * the module again with a cache-busting query so the new source runs; only the plugin file itself
 * is re-evaluated (modules it imports stay cached: keep plugins self-contained, or restart).
 * Errors are StrategyErrors naming the strategy id and each JSON path. This file owns loading and
 * validation; it never starts a strategy.
 */

import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Ajv2020Module, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Count } from '../core/index.ts';
import { StrategyError } from './strategy-error.ts';
import type { StrategyPlugin } from './strategy.ts';

/** One `strategies[]` entry of the configuration (src/runtime/config.ts StrategyConfig satisfies it). */
export interface StrategyEntry {
  readonly id: string;
  /** Module path, relative to the project root (or absolute). */
  readonly plugin: string;
  readonly subaccount: number;
  readonly orderGroup: { readonly contractsLimit: Count } | null;
  readonly markets: readonly string[];
  readonly params: Readonly<Record<string, unknown>>;
  /** The order-entry route its orders go out on ('rest', 'fix'); default 'rest'. */
  readonly route?: string;
  /** When the write bucket is empty: true (default) the router holds its creates and amends; false they are denied RATE_LIMITED. */
  readonly holdIntents?: boolean;
  /** Held intents it may send per turn of the router's rotation across strategies (default 1). */
  readonly priority?: number;
}

export interface LoadedPlugin {
  readonly plugin: StrategyPlugin;
  /** Validated params: defaults filled in, deep-frozen. */
  readonly params: Readonly<Record<string, unknown>>;
  /** Effective onTimer interval, ms; 0 = no timer. */
  readonly timerIntervalMs: number;
  /** onBook on every book change (true) or only when a best price moved (plugin bookUpdates 'bestPrice'). */
  readonly everyBookUpdate: boolean;
  /** The URL imported (with its cache-busting query when reloaded). */
  readonly moduleUrl: string;
}

export interface LoadOptions {
  /** Directory plugin paths are relative to (the project root). */
  rootDir: string;
  /** Appended as `?v=<cacheBust>` to force a fresh evaluation; '' for a plain import. */
  cacheBust?: string;
}

export function pluginUrl(entry: StrategyEntry, options: LoadOptions): string {
  const path = isAbsolute(entry.plugin) ? entry.plugin : resolve(options.rootDir, entry.plugin);
  const url = pathToFileURL(path).href;
  return options.cacheBust === undefined || options.cacheBust === '' ? url : `${url}?v=${encodeURIComponent(options.cacheBust)}`;
}

export async function loadPlugin(entry: StrategyEntry, options: LoadOptions): Promise<LoadedPlugin> {
  const moduleUrl = pluginUrl(entry, options);
  let module: Record<string, unknown>;
  try {
    module = (await import(moduleUrl)) as Record<string, unknown>;
  } catch (error) {
    throw new StrategyError('STRATEGY_PLUGIN_NOT_FOUND', entry.id, `cannot import plugin ${entry.plugin}: ${(error as Error).message}`);
  }
  const plugin = checkPluginShape(entry, module.default);
  const params = validateParams(entry, plugin);
  return { plugin, params, timerIntervalMs: timerIntervalOf(plugin, params), everyBookUpdate: plugin.bookUpdates !== 'bestPrice', moduleUrl };
}

function checkPluginShape(entry: StrategyEntry, value: unknown): StrategyPlugin {
  const problems: string[] = [];
  if (typeof value !== 'object' || value === null) {
    throw new StrategyError('STRATEGY_PLUGIN_INVALID', entry.id, `${entry.plugin}: default export must be a plugin object { name, paramsSchema, create }`);
  }
  const candidate = value as Record<string, unknown>;
  if (typeof candidate.name !== 'string' || candidate.name === '') problems.push('name: must be a non-empty string');
  if (typeof candidate.paramsSchema !== 'object' || candidate.paramsSchema === null) problems.push('paramsSchema: must be a JSON Schema object');
  if (typeof candidate.create !== 'function') problems.push('create: must be a function (params) => Strategy');
  const interval = candidate.timerIntervalMs;
  if (interval !== undefined && !(Number.isInteger(interval) && (interval as number) >= 0)) problems.push('timerIntervalMs: must be an integer >= 0');
  const bookUpdates = candidate.bookUpdates;
  if (bookUpdates !== undefined && bookUpdates !== 'every' && bookUpdates !== 'bestPrice') problems.push("bookUpdates: must be 'every' or 'bestPrice'");
  if (candidate.rehearse !== undefined && typeof candidate.rehearse !== 'boolean') problems.push('rehearse: must be a boolean');
  if (problems.length > 0) throw new StrategyError('STRATEGY_PLUGIN_INVALID', entry.id, `${entry.plugin}: invalid plugin export`, problems);
  return value as StrategyPlugin;
}

/** Validates a copy of entry.params; throws STRATEGY_PARAMS_INVALID listing every violation by path. */
export function validateParams<P = Record<string, unknown>>(entry: StrategyEntry, plugin: StrategyPlugin<P>): Readonly<P> {
  const validate = paramsValidator(entry, plugin.paramsSchema as Record<string, unknown>);
  const params: unknown = structuredClone(entry.params ?? {});
  if (!validate(params)) {
    const problems = (validate.errors ?? []).map((error) => describeError(entry.id, error));
    throw new StrategyError('STRATEGY_PARAMS_INVALID', entry.id, `params do not match the schema of plugin ${plugin.name}`, problems);
  }
  return deepFreeze(params as P);
}

/**
 * Compiled validators by schema object. ajv compiles a schema into new JavaScript, which V8 parses
 * and optimizes anew each time: a sweep's replays (one deploy per combination) spent a core's
 * fraction of background compiler threads on it. A module's schema object is the same on every
 * load until the module is loaded again (a redeploy's new source brings a new object).
 */
const validators = new WeakMap<object, ValidateFunction>();

function paramsValidator(entry: StrategyEntry, schema: Record<string, unknown>): ValidateFunction {
  const cached = validators.get(schema);
  if (cached !== undefined) return cached;
  const Ajv2020 = Ajv2020Module.default;
  const addFormats = addFormatsModule.default;
  // An instance per schema: plugin schemas may carry an $id, which one instance accepts only once.
  const ajv = new Ajv2020({ allErrors: true, useDefaults: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    throw new StrategyError('STRATEGY_PLUGIN_INVALID', entry.id, `${entry.plugin}: paramsSchema does not compile: ${(error as Error).message}`);
  }
  validators.set(schema, validate);
  return validate;
}

function describeError(id: string, error: ErrorObject): string {
  let path = error.instancePath;
  let message = error.message ?? 'is invalid';
  if (error.keyword === 'required') {
    path = `${path}/${String((error.params as { missingProperty: string }).missingProperty)}`;
    message = 'is required';
  } else if (error.keyword === 'additionalProperties') {
    path = `${path}/${String((error.params as { additionalProperty: string }).additionalProperty)}`;
    message = 'is not a parameter of this plugin';
  } else if (error.keyword === 'enum') {
    message = `must be one of ${JSON.stringify((error.params as { allowedValues: unknown[] }).allowedValues)}`;
  }
  return `strategies[${id}].params${path === '' ? '' : path}: ${message}`;
}

function timerIntervalOf(plugin: StrategyPlugin, params: Readonly<Record<string, unknown>>): number {
  const fromParams = params.timerIntervalMs;
  if (typeof fromParams === 'number' && Number.isInteger(fromParams) && fromParams >= 0) return fromParams;
  return plugin.timerIntervalMs ?? 0;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

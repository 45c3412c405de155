/**
 * The sweep worker's code, built once into plain ES modules so a piscina worker thread loads
 * JavaScript and never loads tsx. Measured on this 2-core machine (Node 20, RSS added per worker
 * thread once loaded, before any run): the task through tsx's loader ~74 MB; pre-built ~40 MB;
 * pre-built and started without the parent's tsx preloads ~28 MB. Node 20 runs a worker's inherited
 * execArgv preloads (`--import tsx`, tsx's `--require` preflight): an empty piscina worker costs
 * ~24 MB with them and ~8 MB without. So the workers get `workerExecArgv`: the flags that change
 * worker code (source maps, conditions, warnings), nothing else. bench/sweep's memory rows put the
 * pre-built task beside the tsx loader in the same run.
 *
 * One esbuild build (tsx's own esbuild: not a direct dependency of ours) with code splitting:
 * the task (workers/sweep/sweep-task.ts) and every strategy plugin the sweep can load are entry
 * points, so a plugin's `../src/strategy/index.ts` is the very module instance the task uses, as
 * under tsx. Output, content-addressed, under <repo>/node_modules/.cache/sweep-worker/<hash>/:
 *
 *   src/workers/sweep/sweep-task.mjs   the piscina task
 *   strategies/<name>.mjs              each plugin, at its configured path with .mjs
 *   chunks/*.mjs                       shared code
 *
 * Packages stay external: the cache sits inside the repository, so `ajv`, `piscina`... resolve
 * to the same files (piscina's `workerData` must be the worker's own piscina). Each module keeps
 * its source `import.meta.url` (config/schema.json is found relative to it). A worker loads a
 * plugin by `rootDir` + the config's path, so the pool gets the cache directory as `rootDir` and
 * `strategies/<name>.mjs` as each plugin path (a replay reads `rootDir` for plugins only); a
 * combination that sets a plugin path is mapped the same way (`combinationFor`).
 * When anything here fails (no esbuild, a read-only tree, a build error), or SWEEP_WORKER_BUNDLE=0,
 * the pool falls back to the tsx loader (workers/sweep/sweep-task-loader.mjs), with the reason kept. Owns the build and
 * the cache; never runs a replay.
 */

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Combination } from './grid.ts';
import type { SweepShared } from '../../workers/sweep/sweep-task.ts';

/** The tsx-registering task module: the fallback, and what tests of the loader use. */
export const TSX_TASK = new URL('../../workers/sweep/sweep-task-loader.mjs', import.meta.url).href;

const CODE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const TASK_SOURCE = path.join(CODE_ROOT, 'src', 'workers', 'sweep', 'sweep-task.ts');
const TASK_OUT = 'src/workers/sweep/sweep-task';
const CACHE_DIR = path.join(CODE_ROOT, 'node_modules', '.cache', 'sweep-worker');
/** Cache entries not used for this long are removed when a new one is written. */
const CACHE_KEEP_MS = 7 * 24 * 3_600_000;
const PLUGIN_PARAM = /^strategies\.\d+\.plugin$/;

export interface WorkerTask {
  /** The module piscina loads (a file URL). */
  filename: string;
  /** workerData: the caller's, with rootDir and plugin paths pointing into the build when bundled. */
  shared: SweepShared;
  /** The workers' execArgv when bundled (workerExecArgv: no tsx preloads); undefined (inherit) otherwise. */
  execArgv: string[] | undefined;
  /** A combination as the workers must see it (plugin paths mapped when bundled). */
  combinationFor(combination: Combination): Combination;
  bundled: boolean;
  /** Why the tsx loader is used; '' when bundled. */
  reason: string;
}

/** The subset of esbuild's API used here (typed locally: esbuild is tsx's dependency, not ours). */
interface Esbuild {
  build(options: Record<string, unknown>): Promise<{ outputFiles: Array<{ path: string; contents: Uint8Array }> }>;
}

interface Built {
  dir: string;
  /** Configured plugin path -> path of its build, relative to `dir`. */
  plugins: Map<string, string>;
}

/** One build per process and set of plugins: the sources do not change under a running sweep. */
const builds = new Map<string, Promise<Built>>();

/** The worker task for a sweep whose runs may load the plugins of `shared`'s config and `combinations`. */
export async function prepareWorkerTask(shared: SweepShared, combinations: readonly Combination[], rebuilt = false): Promise<WorkerTask> {
  const plugins = pluginPaths(shared.configValue, combinations);
  const fallback = (reason: string): WorkerTask => ({ filename: TSX_TASK, shared, execArgv: undefined, combinationFor: (combination) => combination, bundled: false, reason });
  if (process.env.SWEEP_WORKER_BUNDLE === '0') return fallback('SWEEP_WORKER_BUNDLE=0');
  if (path.resolve(shared.rootDir) !== CODE_ROOT) return fallback(`plugins are under ${shared.rootDir}, not this code's root`);
  const key = plugins.join('\n');
  let building = builds.get(key);
  if (building === undefined) {
    building = buildWorker(plugins);
    builds.set(key, building);
    building.catch(() => builds.delete(key));
  }
  let built: Built;
  try {
    built = await building;
  } catch (error) {
    return fallback(`worker build failed: ${(error as Error).message}`);
  }
  if (!existsSync(built.dir)) {
    // Pruned by another process since this one built it: build again, once.
    builds.delete(key);
    if (rebuilt) return fallback(`worker build ${built.dir} disappeared`);
    return prepareWorkerTask(shared, combinations, true);
  }
  const map = (value: unknown): unknown => (typeof value === 'string' ? (built.plugins.get(value) ?? value) : value);
  return {
    filename: pathToFileURL(path.join(built.dir, `${TASK_OUT}.mjs`)).href,
    shared: { ...shared, rootDir: built.dir, configValue: withPlugins(shared.configValue, map) },
    execArgv: workerExecArgv(process.execArgv),
    combinationFor: (combination) => {
      if (!Object.keys(combination).some((name) => PLUGIN_PARAM.test(name))) return combination;
      return Object.fromEntries(Object.entries(combination).map(([name, value]) => [name, PLUGIN_PARAM.test(name) ? (map(value) as typeof value) : value]));
    },
    bundled: true,
    reason: '',
  };
}

/**
 * The flags of `args` a bundled worker keeps: source maps, package conditions and warning switches,
 * the ones that change what worker code does. Everything else is dropped: tsx's preloads (the point),
 * and flags a Worker refuses when execArgv is given explicitly (per-process and V8 flags such as
 * --expose-gc or --max-old-space-size, which inherited execArgv silently ignores).
 */
export function workerExecArgv(args: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (/^--(enable-source-maps|no-warnings|no-deprecation|trace-warnings|conditions=.+)$/.test(arg)) kept.push(arg);
    else if ((arg === '--conditions' || arg === '-C') && i + 1 < args.length) kept.push(arg, args[++i]);
  }
  return kept;
}

/** Every plugin path the config names or a combination sets, sorted, each once. */
function pluginPaths(configValue: unknown, combinations: readonly Combination[]): string[] {
  const found = new Set<string>();
  const strategies = (configValue as { strategies?: unknown } | null)?.strategies;
  if (Array.isArray(strategies)) {
    for (const entry of strategies) {
      const plugin = (entry as { plugin?: unknown } | null)?.plugin;
      if (typeof plugin === 'string') found.add(plugin);
    }
  }
  for (const combination of combinations) {
    for (const [name, value] of Object.entries(combination)) if (PLUGIN_PARAM.test(name) && typeof value === 'string') found.add(value);
  }
  return [...found].sort();
}

/** A copy of the config with each strategy's plugin path mapped. */
function withPlugins(configValue: unknown, map: (value: unknown) => unknown): unknown {
  const copy = structuredClone(configValue) as { strategies?: unknown };
  if (copy !== null && typeof copy === 'object' && Array.isArray(copy.strategies)) {
    for (const entry of copy.strategies as Array<Record<string, unknown> | null>) {
      if (entry !== null && typeof entry === 'object' && 'plugin' in entry) entry.plugin = map(entry.plugin);
    }
  }
  return copy;
}

/** esbuild as tsx resolves it, so the copy is the one tsx was installed with. */
async function loadEsbuild(): Promise<Esbuild> {
  const fromHere = createRequire(import.meta.url);
  const fromTsx = createRequire(fromHere.resolve('tsx/package.json'));
  return (await import(pathToFileURL(fromTsx.resolve('esbuild')).href)) as Esbuild;
}

/** The plugin's build path: its configured path with .mjs; null when it is not a module under strategies/. */
function pluginOut(plugin: string): string | null {
  const normal = path.posix.normalize(plugin);
  if (path.isAbsolute(plugin) || !normal.startsWith('strategies/') || !/\.(ts|js|mjs)$/.test(normal)) return null;
  return normal.replace(/\.(ts|js|mjs)$/, '');
}

async function buildWorker(plugins: readonly string[]): Promise<Built> {
  const esbuild = await loadEsbuild();
  const entryPoints: Record<string, string> = { [TASK_OUT]: TASK_SOURCE };
  const outs = new Map<string, string>();
  for (const plugin of plugins) {
    const out = pluginOut(plugin);
    // Left to the schema's own error in the run (a path the config cannot have): not bundled.
    if (out === null || !existsSync(path.join(CODE_ROOT, plugin))) continue;
    if (entryPoints[out] !== undefined) throw new Error(`plugins ${plugin} and another build to the same ${out}.mjs`);
    entryPoints[out] = path.join(CODE_ROOT, plugin);
    outs.set(plugin, `${out}.mjs`);
  }
  const staging = path.join(CACHE_DIR, 'staging');
  const result = await esbuild.build({
    entryPoints, outdir: staging, bundle: true, splitting: true, format: 'esm', platform: 'node', target: `node${process.versions.node}`,
    packages: 'external', outExtension: { '.js': '.mjs' }, chunkNames: 'chunks/[name]-[hash]', keepNames: true, sourcemap: 'linked',
    write: false, logLevel: 'silent', plugins: [keepImportMetaUrl],
  });
  const hash = createHash('sha256');
  for (const file of [...result.outputFiles].sort((a, b) => a.path.localeCompare(b.path))) hash.update(path.relative(staging, file.path)).update(file.contents);
  const dir = path.join(CACHE_DIR, hash.digest('hex').slice(0, 16));
  if (existsSync(dir)) {
    const now = new Date();
    utimesSync(dir, now, now); // in use: kept by the pruning below
  } else {
    writeAtomically(dir, staging, result.outputFiles);
    pruneCache(dir);
  }
  return { dir, plugins: outs };
}

/** Writes the build beside `dir` and renames it into place, so a reader never sees half a build. */
function writeAtomically(dir: string, staging: string, files: ReadonlyArray<{ path: string; contents: Uint8Array }>): void {
  const temporary = `${dir}.tmp-${process.pid}-${Date.now()}`;
  try {
    for (const file of files) {
      const target = path.join(temporary, path.relative(staging, file.path));
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, file.contents);
    }
    renameSync(temporary, dir);
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true });
    // Another process wrote the same build first: its files are ours, byte for byte.
    if (!existsSync(dir)) throw error;
  }
}

/** Removes builds (and leftover temporaries) not used for CACHE_KEEP_MS; bounded by the folder's size. */
function pruneCache(keep: string): void {
  const now = Date.now();
  for (const name of readdirSync(CACHE_DIR).slice(0, 1_000)) {
    const entry = path.join(CACHE_DIR, name);
    if (entry === keep) continue;
    try {
      if (now - statSync(entry).mtimeMs > CACHE_KEEP_MS) rmSync(entry, { recursive: true, force: true });
    } catch {
      // Removed meanwhile by another process.
    }
  }
}

/** Keeps each source module's own import.meta.url (bundling would make it the chunk's). */
const keepImportMetaUrl = {
  name: 'keep-import-meta-url',
  setup(build: { onLoad(options: { filter: RegExp }, callback: (args: { path: string }) => { contents: string; loader: string } | undefined): void }): void {
    build.onLoad({ filter: /\.(ts|mts|js|mjs)$/ }, (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const url = JSON.stringify(pathToFileURL(args.path).href);
      return { contents: source.replaceAll('import.meta.url', url), loader: /\.m?ts$/.test(args.path) ? 'ts' : 'js' };
    });
  },
};

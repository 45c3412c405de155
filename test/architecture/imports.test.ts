/**
 * Goal: the folders depend on each other only the way the design says data flows (DESIGN.md,
 * issue "one hot path"): the OMS knows neither the gate nor a route (only its own port types),
 * strategies know neither the OMS nor a route, the wire layer (net) and the FIX protocol library
 * know no trading code, and the simulator never imports the runtime's trading code.
 * Method: every import specifier of every TypeScript file under src/, read from the files.
 */

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

function filesOf(folder: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) out.push(full);
    }
  };
  walk(path.join(SRC, folder));
  return out;
}

/** The top-level src folders a folder's files import from (itself excluded). */
function foldersImportedBy(folder: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of filesOf(folder)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\('([^']+)'\)/g)) {
      const specifier = match[1] ?? match[2];
      if (!specifier.startsWith('.')) continue;
      const target = path.relative(SRC, path.resolve(path.dirname(file), specifier));
      const top = target.split(path.sep)[0];
      if (top === folder || top.startsWith('..')) continue;
      const list = found.get(top) ?? [];
      list.push(path.relative(SRC, file));
      found.set(top, list);
    }
  }
  return found;
}

function expectNone(folder: string, forbidden: readonly string[]): void {
  const imported = foldersImportedBy(folder);
  for (const name of forbidden) expect(imported.get(name) ?? [], `${folder} imports ${name}`).toEqual([]);
}

describe('folder dependencies', () => {
  it('the OMS imports neither the risk gate nor a route nor the router', () => {
    expectNone('oms', ['risk', 'exec', 'router', 'strategy', 'feed', 'runtime']);
  });

  it('strategies import neither the OMS nor a route nor the router', () => {
    expectNone('strategy', ['oms', 'exec', 'router', 'runtime', 'net']);
  });

  it('the gate imports no OMS, route or strategy', () => {
    expectNone('risk', ['oms', 'exec', 'router', 'strategy', 'runtime', 'feed']);
  });

  it('the wire layer and the FIX library know no trading code', () => {
    for (const folder of ['net', 'fix', 'market', 'core']) expectNone(folder, ['oms', 'risk', 'exec', 'router', 'strategy', 'runtime', 'feed', 'sim', 'book']);
  });

  it('the clearing-member client is a standalone client: no trading code, no simulator', () => {
    expectNone('clearing', ['oms', 'risk', 'exec', 'router', 'strategy', 'runtime', 'feed', 'book', 'sim', 'record', 'replay']);
    for (const folder of ['sim', 'core', 'net', 'fix', 'market', 'book', 'feed', 'oms', 'risk', 'router', 'strategy', 'exec', 'runtime']) expectNone(folder, ['clearing']);
  });

  it('the simulator never imports the runtime\'s trading code', () => {
    expectNone('sim', ['oms', 'risk', 'router', 'strategy', 'runtime', 'feed', 'book']);
  });

  it('recording knows no trading decisions; nothing below the runtime knows record or replay', () => {
    expectNone('record', ['sim', 'replay', 'runtime', 'router', 'risk', 'strategy', 'exec', 'feed', 'book']);
    for (const folder of ['sim', 'core', 'net', 'fix', 'market', 'book', 'feed', 'oms', 'risk', 'router', 'strategy', 'exec']) expectNone(folder, ['record', 'replay']);
    // The runtime opens the recorder; replay builds on the runtime's graph, never the reverse.
    expectNone('runtime', ['replay']);
  });

  it('capture and the catalog are tools on top of the feed and recordings: nothing below them imports them', () => {
    for (const folder of ['sim', 'core', 'net', 'fix', 'market', 'book', 'feed', 'oms', 'risk', 'router', 'strategy', 'exec', 'record', 'runtime', 'replay']) expectNone(folder, ['capture', 'catalog']);
    expectNone('capture', ['catalog', 'replay', 'router', 'risk', 'strategy']);
    expectNone('catalog', ['replay', 'router', 'risk', 'strategy']);
  });

  it('replay reaches the simulator only through its matching engine\'s index', () => {
    const simFiles = (foldersImportedBy('replay').get('sim') ?? []);
    for (const file of filesOf('replay')) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/from\s+'([^']*\/sim\/[^']*)'/g)) expect(match[1], path.relative(SRC, file)).toMatch(/\/sim\/engine\/index\.ts$/);
    }
    expect(simFiles.length).toBeGreaterThan(0); // the rule is about a real import, not an empty folder
  });
});

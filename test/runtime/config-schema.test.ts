// Goal: config/schema.json keeps the rules of STYLE §8 as others extend it: every object closed
// (additionalProperties false) except plugin params, every key with a default or required, every
// key documented in config/README.md with its default, and the loaded shape matching the schema.
// Method: walk the schema document and the README text; compare with defaultConfig().

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configSchema, defaultConfig } from '../../src/runtime/config.ts';

type Node = Record<string, any>;
const schema = configSchema() as Node;
const readme = readFileSync('config/README.md', 'utf8');

function resolve(node: Node): Node {
  if (typeof node.$ref === 'string') return resolve(schema.$defs[node.$ref.replace('#/$defs/', '')]);
  return node;
}

/** Every schema node reachable from the root, with a readable location. */
function walk(node: Node, where: string, visit: (node: Node, where: string) => void): void {
  visit(node, where);
  for (const [key, child] of Object.entries((node.properties ?? {}) as Record<string, Node>)) walk(child, `${where}.${key}`, visit);
  if (node.items !== undefined) walk(node.items, `${where}[]`, visit);
  for (const branch of (node.oneOf ?? node.anyOf ?? []) as Node[]) walk(branch, `${where}|`, visit);
}
const visitAll = (visit: (node: Node, where: string) => void): void => {
  walk(schema, '(root)', visit);
  for (const [name, def] of Object.entries(schema.$defs as Record<string, Node>)) walk(def, `$defs.${name}`, visit);
};

describe('config/schema.json', () => {
  it('closes every object except strategies[].params', () => {
    const open: string[] = [];
    visitAll((node, where) => {
      const isObject = node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'));
      if (isObject && node.additionalProperties !== false) open.push(where);
    });
    expect(open).toEqual(['$defs.strategy.params']);
  });

  it('gives every key a default or lists it as required, with a description', () => {
    const problems: string[] = [];
    visitAll((node, where) => {
      for (const [key, child] of Object.entries((node.properties ?? {}) as Record<string, Node>)) {
        const required = ((node.required ?? []) as string[]).includes(key);
        if (key !== '$schema' && !('default' in child) && !required) problems.push(`${where}.${key}: no default`);
        if (!('description' in child) && !('description' in resolve(child))) problems.push(`${where}.${key}: no description`);
      }
    });
    expect(problems).toEqual([]);
  });

  it('matches the loaded shape section by section', () => {
    const config = defaultConfig() as unknown as Record<string, Record<string, unknown>>;
    const sections = Object.keys(schema.properties).filter((key) => key !== '$schema');
    expect(Object.keys(config).sort()).toEqual([...sections, 'credentials'].sort());
    for (const section of sections) {
      const node = resolve(schema.properties[section]);
      if (node.type === 'array') continue;
      expect(Object.keys(config[section]!).sort(), section).toEqual(Object.keys(node.properties).sort());
    }
  });

  it('is documented key by key in config/README.md with each default', () => {
    const missing: string[] = [];
    for (const section of Object.keys(schema.properties).filter((key) => key !== '$schema')) {
      const node = resolve(schema.properties[section]);
      const object = node.type === 'array' ? resolve(node.items) : node;
      const prefix = node.type === 'array' ? `${section}[].` : `${section}.`;
      for (const [key, child] of Object.entries(object.properties as Record<string, Node>)) {
        const row = readme.split('\n').find((line) => line.startsWith(`| \`${prefix}${key}\` |`));
        if (row === undefined) missing.push(`${prefix}${key}: no row`);
        else if ('default' in child && !row.includes(`\`${JSON.stringify(child.default)}\``)) missing.push(`${prefix}${key}: default ${JSON.stringify(child.default)} not in its row`);
        else if (!('default' in child) && !row.includes('required')) missing.push(`${prefix}${key}: not marked required`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('is referenced by config/runtime.json for editors', () => {
    const runtime = JSON.parse(readFileSync('config/runtime.json', 'utf8')) as Record<string, unknown>;
    expect(runtime.$schema).toBe('./schema.json');
  });
});

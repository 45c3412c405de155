// Test helper (not a test): compiles the exchange's published schemas (read at test time from
// ../shared/spec/schemas, never copied into the repo) with ajv, translating OpenAPI 3.0 for JSON
// Schema: `nullable: true` becomes a union with null, and `$ref` with sibling keywords becomes
// `allOf: [{$ref}]` plus the siblings. Formats come from ajv-formats; OpenAPI's int32/int64/
// double/float are accepted as annotations.

import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import YAML from 'yaml';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const SCHEMA_DIR = resolve(REPO_ROOT, '../shared/spec/schemas');

export type Node = Record<string, unknown>;

/** Rewrites an OpenAPI 3.0 schema tree into JSON Schema ajv accepts. */
export function translate(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(translate);
  if (typeof value !== 'object' || value === null) return value;
  const node = value as Node;
  const out: Node = {};
  for (const [key, child] of Object.entries(node)) {
    if (key === 'nullable' || key === 'example' || key === 'examples' || key.startsWith('x-')) continue;
    out[key] = key === 'enum' || key === 'const' || key === 'default' ? child : translate(child);
  }
  let schema: Node = out;
  if (typeof schema.$ref === 'string' && Object.keys(schema).length > 1) {
    const { $ref, ...siblings } = schema;
    schema = { ...siblings, allOf: [{ $ref }, ...((siblings.allOf as unknown[]) ?? [])] };
  }
  if (node.nullable === true) {
    if (typeof schema.type === 'string') {
      schema = { ...schema, type: [schema.type, 'null'] };
      if (Array.isArray(schema.enum)) schema.enum = [...(schema.enum as unknown[]), null];
    } else schema = { anyOf: [schema, { type: 'null' }] };
  }
  return schema;
}

function newAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  for (const name of ['int32', 'int64', 'double', 'float']) ajv.addFormat(name, true);
  return ajv;
}

export class OpenApiValidator {
  readonly #ajv = newAjv();
  readonly #doc: Node;
  readonly #cache = new Map<string, ValidateFunction>();

  /** `adjust` edits the parsed document first (documented disagreements where rest.md decides). */
  constructor(adjust: (doc: Node) => void = () => {}, file = 'trade-api.openapi.yaml') {
    this.#doc = YAML.parse(readFileSync(resolve(SCHEMA_DIR, file), 'utf8')) as Node;
    adjust(this.#doc);
    this.#ajv.addSchema({ $id: 'openapi', components: translate((this.#doc as { components: unknown }).components) } as Node);
  }

  /** The response schema's validator for an operation and status; throws if the spec has none. */
  response(method: string, path: string, status: number): ValidateFunction {
    const key = `${method} ${path} ${status}`;
    let validate = this.#cache.get(key);
    if (validate !== undefined) return validate;
    const paths = this.#doc.paths as Record<string, Record<string, Node>>;
    const operation = paths[path]?.[method.toLowerCase()];
    if (operation === undefined) throw new Error(`no operation ${method} ${path} in the OpenAPI document`);
    const responses = operation.responses as Record<string, Node>;
    let response = responses[String(status)];
    if (response !== undefined && typeof response.$ref === 'string') {
      const name = (response.$ref as string).split('/').pop()!;
      response = ((this.#doc.components as Node).responses as Record<string, Node>)[name];
    }
    const schema = (response?.content as Record<string, { schema: unknown }> | undefined)?.['application/json']?.schema;
    if (schema === undefined) throw new Error(`no JSON schema for ${key}`);
    validate = this.#ajv.compile(rebase(translate(schema)) as Node);
    this.#cache.set(key, validate);
    return validate;
  }

  /** The request body schema's validator of an operation; throws if the spec has none. */
  request(method: string, path: string): ValidateFunction {
    const key = `${method} ${path} request`;
    let validate = this.#cache.get(key);
    if (validate !== undefined) return validate;
    const paths = this.#doc.paths as Record<string, Record<string, Node>>;
    const operation = paths[path]?.[method.toLowerCase()];
    if (operation === undefined) throw new Error(`no operation ${method} ${path} in the OpenAPI document`);
    const schema = ((operation.requestBody as Node | undefined)?.content as Record<string, { schema: unknown }> | undefined)?.['application/json']?.schema;
    if (schema === undefined) throw new Error(`no request body schema for ${method} ${path}`);
    validate = this.#ajv.compile(rebase(translate(schema)) as Node);
    this.#cache.set(key, validate);
    return validate;
  }

  /** A named component schema. */
  component(name: string): ValidateFunction {
    let validate = this.#cache.get(name);
    if (validate === undefined) {
      validate = this.#ajv.getSchema(`openapi#/components/schemas/${name}`)!;
      this.#cache.set(name, validate);
    }
    return validate;
  }
}

/** Points local refs at the registered document. */
function rebase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rebase);
  if (typeof value !== 'object' || value === null) return value;
  const out: Node = {};
  for (const [key, child] of Object.entries(value as Node)) {
    out[key] = key === '$ref' && typeof child === 'string' && child.startsWith('#/') ? `openapi${child}` : rebase(child);
  }
  return out;
}

export class AsyncApiValidator {
  readonly #ajv = newAjv();

  constructor(adjust: (doc: Node) => void = () => {}, file = 'trade-ws.asyncapi.yaml') {
    const doc = YAML.parse(readFileSync(resolve(SCHEMA_DIR, file), 'utf8')) as { components: Node };
    adjust(doc);
    this.#ajv.addSchema({ $id: 'asyncapi', components: { schemas: translate(doc.components.schemas) } } as Node);
  }

  payload(name: string): ValidateFunction {
    const validate = this.#ajv.getSchema(`asyncapi#/components/schemas/${name}`);
    if (validate === undefined) throw new Error(`no AsyncAPI schema ${name}`);
    return validate;
  }
}

/** Readable ajv errors. */
export function errorsOf(validate: ValidateFunction): string {
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`).join('; ');
}

/** Removes `field` from the `required` list of a component schema (a documented removal). */
export function unrequire(doc: Node, schema: string, field: string): void {
  const target = ((doc.components as Node).schemas as Record<string, Node>)[schema];
  if (target === undefined || !Array.isArray(target.required)) throw new Error(`schema ${schema} has no required list`);
  const required = target.required as string[];
  if (!required.includes(field)) throw new Error(`${schema}.${field} is not required: drop this adjustment`);
  target.required = required.filter((name) => name !== field);
}

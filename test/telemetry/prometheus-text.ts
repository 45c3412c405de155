/**
 * Test support (not a test): a small parser of the Prometheus text exposition format 0.0.4, strict
 * enough to catch what a scraper would refuse: every sample belongs to a family declared by
 * `# TYPE` before it (histograms through their _bucket/_sum/_count series), names and label names
 * are valid, label values are quoted with the format's escapes, values are floats (+Inf, -Inf, NaN
 * included), and no family or series appears twice. Throws naming the line on any violation.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function parseValue(text: string, where: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`${where}: bad value ${JSON.stringify(text)}`);
  return Number(text);
}

/** Labels from the text between `{` and `}`; returns them and the index after `}`. */
function parseLabels(line: string, start: number, where: string): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = start;
  // Each round consumes at least one character, so the loop ends within line.length rounds.
  while (i < line.length) {
    if (line[i] === '}') return { labels, end: i + 1 };
    const eq = line.indexOf('=', i);
    if (eq < 0) throw new Error(`${where}: label without =`);
    const name = line.slice(i, eq);
    if (!LABEL_NAME.test(name)) throw new Error(`${where}: bad label name ${JSON.stringify(name)}`);
    if (name in labels) throw new Error(`${where}: label ${name} twice`);
    if (line[eq + 1] !== '"') throw new Error(`${where}: label value not quoted`);
    let value = '';
    let j = eq + 2;
    for (; j < line.length && line[j] !== '"'; j++) {
      if (line[j] !== '\\') {
        value += line[j];
        continue;
      }
      const next = line[++j];
      if (next === 'n') value += '\n';
      else if (next === '\\' || next === '"') value += next;
      else throw new Error(`${where}: bad escape \\${next}`);
    }
    if (j >= line.length) throw new Error(`${where}: unterminated label value`);
    labels[name] = value;
    i = j + 1;
    if (line[i] === ',') i++;
    else if (line[i] !== '}') throw new Error(`${where}: expected , or } after a label`);
  }
  throw new Error(`${where}: unterminated labels`);
}

/** The family a sample name belongs to: itself, or a histogram/summary base without its suffix. */
function familyOf(name: string, families: Map<string, Family>): Family | undefined {
  const direct = families.get(name);
  if (direct !== undefined) return direct;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!name.endsWith(suffix)) continue;
    const base = families.get(name.slice(0, -suffix.length));
    if (base !== undefined && (base.type === 'histogram' || (base.type === 'summary' && suffix !== '_bucket'))) return base;
  }
  return undefined;
}

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const series = new Set<string>();
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n];
    const where = `line ${n + 1}`;
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const match = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (match === null) continue; // a plain comment
      const [, keyword, name, rest] = match;
      if (!NAME.test(name)) throw new Error(`${where}: bad metric name ${JSON.stringify(name)}`);
      const family = families.get(name) ?? { name, type: 'untyped' as const, help: '', samples: [] };
      if (keyword === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`${where}: bad type ${JSON.stringify(rest)}`);
        if (family.samples.length > 0) throw new Error(`${where}: TYPE after samples of ${name}`);
        family.type = rest as Family['type'];
      } else {
        family.help = rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      }
      families.set(name, family);
      continue;
    }
    const nameEnd = line.search(/[{ ]/);
    if (nameEnd <= 0) throw new Error(`${where}: no sample name`);
    const name = line.slice(0, nameEnd);
    if (!NAME.test(name)) throw new Error(`${where}: bad sample name ${JSON.stringify(name)}`);
    let labels: Record<string, string> = {};
    let rest = nameEnd;
    if (line[nameEnd] === '{') ({ labels, end: rest } = parseLabels(line, nameEnd + 1, where));
    const fields = line.slice(rest).trim().split(/ +/);
    if (fields.length < 1 || fields.length > 2 || fields[0] === '') throw new Error(`${where}: expected a value and an optional timestamp`);
    const value = parseValue(fields[0], where);
    const family = familyOf(name, families);
    if (family === undefined) throw new Error(`${where}: sample ${name} before its # TYPE`);
    const key = `${name}{${Object.entries(labels).sort().map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}`;
    if (series.has(key)) throw new Error(`${where}: series ${key} twice`);
    series.add(key);
    family.samples.push({ name, labels, value });
  }
  return families;
}

/** The one sample of `family` whose labels include `labels`; throws if none or several. */
export function sampleOf(families: Map<string, Family>, family: string, labels: Record<string, string> = {}, name = family): Sample {
  const found = families.get(family)?.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) ?? [];
  if (found.length !== 1) throw new Error(`${name}${JSON.stringify(labels)}: ${found.length} samples`);
  return found[0];
}

// A strict reader of Prometheus text exposition (format 0.0.4), so tests can check what /metrics
// serves is valid and read its values; an invalid line throws, naming the line.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** Metric family -> counter, gauge, histogram, summary or untyped. */
  types: Map<string, string>;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(?:,|$)/;
const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];

/** As Prometheus reads it (Go's ParseFloat): Inf and NaN in any case; prom-client writes NaN as "Nan". */
function number(text: string): number {
  if (/^\+?inf$/i.test(text)) return Infinity;
  if (/^-inf$/i.test(text)) return -Infinity;
  if (/^nan$/i.test(text)) return NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new Error(`not a number: ${text}`);
  return Number(text);
}

function labels(text: string | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (let rest = text ?? ''; rest !== '';) {
    const match = LABEL.exec(rest);
    if (match === null) throw new Error(`bad labels: {${text}}`);
    const [all, name, value] = match as unknown as [string, string, string];
    if (name in result) throw new Error(`label ${name} twice`);
    result[name] = value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(all.length);
  }
  return result;
}

/** The family a sample belongs to: a histogram's _bucket, _sum and _count are its own. */
function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return ['histogram', 'summary'].includes(types.get(base) ?? '') ? base : undefined;
}

export function parsePrometheusText(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  const seen = new Set<string>();
  for (const [index, line] of text.split('\n').entries()) {
    try {
      if (line.trim() === '') continue;
      const type = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (type) {
        const [, name, kind] = type as unknown as [string, string, string];
        if (!new RegExp(`^${NAME}$`).test(name) || !TYPES.includes(kind)) throw new Error('bad TYPE');
        if (types.has(name)) throw new Error(`TYPE of ${name} twice`);
        types.set(name, kind);
        continue;
      }
      if (line.startsWith('#')) continue; // HELP and comments
      const match = SAMPLE.exec(line);
      if (match === null) throw new Error('not a sample');
      const [, name, labelText, valueText] = match as unknown as [string, string, string | undefined, string];
      const family = familyOf(name, types);
      if (family === undefined) throw new Error(`${name} has no TYPE before it`);
      const sample = { name, labels: labels(labelText), value: number(valueText) };
      if (name.endsWith('_bucket') && types.get(family) === 'histogram' && !('le' in sample.labels)) throw new Error('a bucket without le');
      const key = `${name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
      if (seen.has(key)) throw new Error('the same series twice');
      seen.add(key);
      samples.push(sample);
    } catch (error) {
      throw new Error(`line ${index + 1} is not valid Prometheus text (${(error as Error).message}): ${line}`, { cause: error });
    }
  }
  return { samples, types };
}

/** Samples named `name` whose labels include `labels`. */
export function samplesOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  return exposition.samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}

/** The one sample's value; undefined when there is none, an error when several match. */
export function valueOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samplesOf(exposition, name, labels);
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

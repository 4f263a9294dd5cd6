// What docs/operations.md says the metrics are: its tables, its alert rules; the metrics tests
// hold the service and the Grafana dashboard to it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { projectRoot } from './paths.js';

export interface DocumentedMetric {
  type: string;
  labels: string[];
}

export const operationsDoc = () => readFileSync(join(projectRoot, 'docs', 'operations.md'), 'utf8');

/** Rows of the metric tables: | `name` | type | `label`, `label` or (none) | meaning |. */
export function documentedMetrics(text = operationsDoc()): Map<string, DocumentedMetric> {
  const metrics = new Map<string, DocumentedMetric>();
  for (const match of text.matchAll(/^\| `([a-z_:][a-z0-9_:]*)` \| (\w+) \| ([^|]+) \|/gm)) {
    const [, name, type, labels] = match as unknown as [string, string, string, string];
    if (metrics.has(name)) throw new Error(`${name} is documented twice`);
    metrics.set(name, { type, labels: labels.trim() === '(none)' ? [] : [...labels.matchAll(/`(\w+)`/g)].map((label) => label[1]!) });
  }
  return metrics;
}

/** Whether a documented metric exists on this store (the sqlite_ and postgres_ ones on theirs only). */
export const onStore = (name: string, store: 'sqlite' | 'postgres') =>
  !name.startsWith(`plant_store_${store === 'sqlite' ? 'postgres' : 'sqlite'}_`);

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: { severity?: string };
  annotations?: { summary?: string };
}

/** The rules of the rule file in the "What to alert on" section. */
export function alertRules(text = operationsDoc()): AlertRule[] {
  const block = /```yaml\n(groups:[\s\S]*?)```/.exec(text)?.[1];
  if (block === undefined) throw new Error('docs/operations.md has no rule file (a yaml block starting with groups:)');
  const file = parse(block) as { groups: Array<{ name: string; rules: AlertRule[] }> };
  return file.groups.flatMap((group) => group.rules);
}

/**
 * The metric families a PromQL expression names: its identifiers that are metric names, a
 * histogram's _bucket, _sum and _count read as the histogram (`histograms`: the names that are).
 */
export function metricsIn(expr: string, histograms: Set<string>): string[] {
  const names = [...expr.matchAll(/\b(?:plant_store|nodejs|process)_[a-z0-9_]+\b|\bup\b(?=\{)/g)].map((match) => {
    const base = match[0].replace(/_(bucket|sum|count)$/, '');
    return base !== match[0] && histograms.has(base) ? base : match[0];
  });
  return [...new Set(names)];
}

// docs/operations.md and docs/grafana/plant-store.json against the metrics the service exports:
// every exported metric is documented with its type and labels, and every alert rule and panel
// queries only metrics that exist (a renamed metric fails here, not in someone's Grafana).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { bearer, buildTestApp, tokenFor } from '../helpers/app.js';
import { alertRules, documentedMetrics, metricsIn, onStore } from '../helpers/operations-doc.js';
import { projectRoot } from '../helpers/paths.js';
import { parsePrometheusText } from '../helpers/prometheus-text.js';

const documented = documentedMetrics();
const histograms = new Set([...documented].filter(([, metric]) => metric.type === 'histogram').map(([name]) => name));
/** Prometheus's own series, which alert rules may use too. */
const PROMETHEUS_OWN = new Set(['up']);

t.test('every metric the service exports is documented, with its type and labels', async (t) => {
  const app = await buildTestApp(t, { metricsPort: 0 });
  const token = await tokenFor(app, 'alice');
  // Something in every histogram, so each has samples whose labels can be compared.
  await app.inject({ method: 'POST', url: '/plants', headers: bearer(token), payload: { id: 1, name: 'Fern' } });
  await app.inject({ url: '/plants', headers: bearer('pst_nope') });
  if (app.metrics === undefined) throw new Error('no metrics');
  const exported = parsePrometheusText(await app.metrics.registry.metrics());
  for (const [name, type] of exported.types) {
    const doc = documented.get(name);
    t.ok(doc, `${name} is in docs/operations.md`);
    t.equal(doc?.type, type, `${name}: documented as a ${type}`);
    const labels = new Set(
      exported.samples
        .filter((sample) => sample.name === name || sample.name.startsWith(`${name}_`))
        .flatMap((sample) => Object.keys(sample.labels)),
    );
    labels.delete('le');
    if (labels.size > 0 || exported.samples.some((sample) => sample.name === name))
      t.same([...labels].sort(), [...(doc?.labels ?? [])].sort(), `${name}: its labels`);
  }
  const missing = [...documented.keys()].filter((name) => onStore(name, app.store.kind) && !exported.types.has(name));
  t.same(missing, [], `every documented metric of the ${app.store.kind} store is exported`);
});

t.test('the alert rules: complete, and on metrics that exist', async (t) => {
  const rules = alertRules();
  t.ok(rules.length >= 8, `${rules.length} rules`);
  for (const rule of rules) {
    t.match(rule.alert, /^PlantStore[A-Za-z]+$/, `${rule.alert}: a name`);
    t.ok(['page', 'warn'].includes(rule.labels?.severity ?? ''), `${rule.alert}: a severity`);
    t.ok((rule.annotations?.summary ?? '').length > 10, `${rule.alert}: a summary`);
    const names = metricsIn(rule.expr, histograms);
    t.ok(names.length > 0, `${rule.alert}: queries a metric`);
    for (const name of names) t.ok(documented.has(name) || PROMETHEUS_OWN.has(name), `${rule.alert}: ${name} exists`);
  }
  const covered = rules.map((rule) => rule.expr).join('\n');
  for (const needed of [
    'status=~"5..",status!="503"',
    'plant_store_http_request_duration_seconds_bucket',
    'status="503"',
    'plant_store_auth_failures_total',
    'nodejs_eventloop_lag_p99_seconds',
    'plant_store_postgres_pool_waiting',
  ]) {
    t.ok(covered.includes(needed), `a rule on ${needed}`);
  }
});

t.test('the Grafana dashboard: valid JSON whose every query names exported metrics, all of ours used', async (t) => {
  const dashboard = JSON.parse(readFileSync(join(projectRoot, 'docs', 'grafana', 'plant-store.json'), 'utf8')) as {
    title: string;
    uid: string;
    panels: Array<{ type: string; title: string; datasource?: unknown; targets?: Array<{ expr: string }> }>;
    templating: { list: Array<{ name: string; definition?: string }> };
  };
  t.equal(dashboard.title, 'Plant Store');
  const panels = dashboard.panels.filter((panel) => panel.type !== 'row');
  t.ok(panels.length >= 10, `${panels.length} panels`);
  const used = new Set<string>();
  const queries = [
    ...panels.flatMap((panel) => {
      t.ok(panel.datasource, `${panel.title}: a data source`);
      t.ok((panel.targets ?? []).length > 0, `${panel.title}: queries`);
      return (panel.targets ?? []).map((target) => [panel.title, target.expr] as const);
    }),
    ...dashboard.templating.list
      .filter((variable) => variable.definition)
      .map((variable) => [`$${variable.name}`, variable.definition!] as const),
  ];
  for (const [where, expr] of queries) {
    const names = metricsIn(expr, histograms);
    t.ok(names.length > 0, `${where}: names a metric`);
    for (const name of names) {
      t.ok(documented.has(name), `${where}: ${name} is exported and documented`);
      used.add(name);
    }
  }
  t.same(
    [...documented.keys()].filter((name) => name.startsWith('plant_store_') && !used.has(name)),
    [],
    'every Plant Store metric is on the dashboard',
  );
});

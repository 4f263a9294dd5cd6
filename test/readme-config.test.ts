// README.md's configuration table and the configuration schema list the same variables with the same defaults.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { configSchema } from '../src/config.js';

/** Rows of the markdown table headed `Variable | Default | Meaning`: name and default, backticks removed, (none) as undefined. */
function readmeTable(markdown: string): Map<string, string | undefined> {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^\|\s*Variable\s*\|\s*Default\s*\|\s*Meaning\s*\|\s*$/.test(line));
  const rows = new Map<string, string | undefined>();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const [name = '', fallback = ''] = line
      .split('|')
      .slice(1, 3)
      .map((cell) => cell.trim().replace(/^`(.*)`$/, '$1'));
    rows.set(name, fallback === '(none)' ? undefined : fallback);
  }
  return rows;
}

t.test("README's configuration table says what the schema says", async (t) => {
  const table = readmeTable(readFileSync(new URL('../README.md', import.meta.url), 'utf8'));
  t.ok(table.size > 0, 'README.md has a `Variable | Default | Meaning` table');
  const schema = new Map(
    Object.entries(configSchema.properties).map(([name, property]) => {
      const fallback = (property as { default?: string | number }).default;
      return [name, fallback === undefined || fallback === '' ? undefined : String(fallback)];
    }),
  );
  t.same([...table.keys()].sort(), [...schema.keys()].sort(), 'the same variables');
  for (const [name, fallback] of schema) t.equal(table.get(name), fallback, `${name}: the same default`);
});

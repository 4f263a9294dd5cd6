// The Node.js flags `npm start` runs Plant Store with (package.json), so the benchmark runs it the same way.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const START = /^node((?:\s+--[\w-]+(?:=\S+)?)*)\s+dist\/src\/server\.js$/;

/** package.json's start script, as `npm start` runs it. */
export function startScript(root: string): string {
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
}

export function startFlags(root: string): string[] {
  const script = startScript(root);
  const match = START.exec(script);
  if (match === null) throw new Error(`package.json's start script is not "node [--flag ...] dist/src/server.js": ${script}`);
  return match[1]!.split(/\s+/).filter((flag) => flag !== '');
}

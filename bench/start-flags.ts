// The Node.js flags `npm start` runs Plant Store with (package.json), so the benchmark runs it the same way.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const START = /^node((?:\s+--[\w-]+(?:=\S+)?)*)\s+dist\/src\/server\.js$/;

export function startFlags(root: string): string[] {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const match = START.exec(scripts.start);
  if (match === null) throw new Error(`package.json's start script is not "node [--flag ...] dist/src/server.js": ${scripts.start}`);
  return match[1]!.split(/\s+/).filter((flag) => flag !== '');
}

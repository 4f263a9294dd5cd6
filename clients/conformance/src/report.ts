// How results are shown: one line per check on stdout, and a JUnit XML report (one testcase per check).
import { writeFileSync } from 'node:fs';

export interface Result {
  status: 'pass' | 'fail' | 'skip';
  /** `POST /plants`, as openapi.yaml writes it. */
  operation: string;
  title: string;
  expected: string;
  actual: string;
  seconds: number;
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

export function line(result: Result): string {
  return `${result.status.toUpperCase().padEnd(4)}  ${result.operation}  ${result.title}: expected ${oneLine(result.expected)}; got ${oneLine(result.actual)}`;
}

const xml = (text: string) =>
  text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD]/gu, '?') // characters XML 1.0 cannot carry
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

export function junit(results: Result[], suite: string): string {
  const count = (status: Result['status']) => results.filter((result) => result.status === status).length;
  const time = results.reduce((sum, result) => sum + result.seconds, 0).toFixed(3);
  const cases = results.map((result) => {
    const open = `    <testcase classname="${xml(result.operation)}" name="${xml(result.title)}" time="${result.seconds.toFixed(3)}"`;
    const detail = `expected ${result.expected}; got ${result.actual}`;
    if (result.status === 'pass') return `${open}/>`;
    if (result.status === 'skip') return `${open}>\n      <skipped message="${xml(oneLine(result.actual))}"/>\n    </testcase>`;
    return `${open}>\n      <failure message="${xml(oneLine(detail))}">${xml(detail)}</failure>\n    </testcase>`;
  });
  const totals = `tests="${results.length}" failures="${count('fail')}" errors="0" skipped="${count('skip')}" time="${time}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="plant-store conformance" ${totals}>`,
    `  <testsuite name="${xml(suite)}" ${totals} timestamp="${new Date().toISOString().slice(0, 19)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

export function writeJunit(file: string, results: Result[], suite: string): void {
  writeFileSync(file, junit(results, suite));
}

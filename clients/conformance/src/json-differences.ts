// Where two JSON values differ, as JSON pointers: what the deployment serves against what the package ships.

export function jsonDifferences(shipped: unknown, served: unknown, pointer = ''): string[] {
  if (
    typeof shipped !== 'object' ||
    shipped === null ||
    typeof served !== 'object' ||
    served === null ||
    Array.isArray(shipped) !== Array.isArray(served)
  ) {
    return JSON.stringify(shipped) === JSON.stringify(served) ? [] : [pointer || '/'];
  }
  const a = shipped as Record<string, unknown>;
  const b = served as Record<string, unknown>;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].flatMap((key) => {
    const at = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (!(key in b)) return [`${at} (missing)`];
    if (!(key in a)) return [`${at} (not in the shipped contract)`];
    return jsonDifferences(a[key], b[key], at);
  });
}

/** Whether `text` is JSON equal to `expected`, whatever its key order and whitespace: JSON fixes neither. */
export function isJson(text: string, expected: unknown): boolean {
  try {
    return jsonDifferences(expected, JSON.parse(text)).length === 0;
  } catch {
    return false;
  }
}

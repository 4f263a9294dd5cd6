// Patterns the gate knows to accept exactly the same strings though written differently, so rewriting one
// into the other is neither narrower nor wider. Whether two regular expressions match the same strings is
// beyond a keyword diff in general; each pair here is checked code point by code point by
// test/scripts/contract-diff/equivalent-patterns.test.ts.

/**
 * JSON Schema evaluates `pattern` as ECMA-262 with the `u` flag (Ajv does). Names and tags: no control
 * character (C0, DEL, C1: Unicode's Cc) and no lone surrogate (Cs). The `\p{...}` form needs the `u`
 * flag; the explicit form reads the same in every engine, with or without it, and in Python's `re`.
 */
const PAIRS: ReadonlyArray<readonly [string, string]> = [
  ['^[^\\p{Cc}\\p{Cs}]*$', '^(?:[^\\u0000-\\u001F\\u007F-\\u009F\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$'],
];

/** Whether `before` and `after` are a pair known to accept the same strings. */
export const equivalentPatterns = (before: string, after: string): boolean =>
  PAIRS.some(([one, other]) => (before === one && after === other) || (before === other && after === one));

export const EQUIVALENT_PATTERNS = PAIRS;

// JSON read with its integers exact: every integer literal becomes a bigint from its own digits (the
// reviver's source text, ES2025 JSON.parse source access, in Node since 21), so 2^53 + 1 stays itself.

interface ReviverContext {
  source?: string;
}

export function parseExactJson(text: string): unknown {
  // TypeScript's lib does not know the reviver's third argument yet; Node passes it.
  const reviver = (_key: string, value: unknown, context?: ReviverContext) =>
    typeof value === 'number' && context?.source !== undefined && /^-?\d+$/.test(context.source) ? BigInt(context.source) : value;
  return JSON.parse(text, reviver);
}

// JSON read with its integers exact: every integer literal becomes a bigint from its own digits (the
// reviver's source text, ES2025 JSON.parse source access, in Node since 21), so 2^53 + 1 stays itself.

interface ReviverContext {
  source?: string;
}

type ExactReviver = (this: unknown, key: string, value: unknown, context?: ReviverContext) => unknown;

export function parseExactJson(text: string): unknown {
  const reviver: ExactReviver = (_key, value, context) =>
    typeof value === 'number' && context?.source !== undefined && /^-?\d+$/.test(context.source) ? BigInt(context.source) : value;
  return JSON.parse(text, reviver as (this: unknown, key: string, value: unknown) => unknown);
}

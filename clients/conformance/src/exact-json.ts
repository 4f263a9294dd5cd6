// JSON read with its integers exact: every integer literal becomes a bigint from its own digits (the
// reviver's source text, ES2025 JSON.parse source access, in Node since 21), so 2^53 + 1 stays itself.

interface ReviverContext {
  source?: string;
}

// Without source access every id beyond 2^53 would be read rounded, and the run would blame the deployment.
const hasSource = JSON.parse('1', (_key: string, value: unknown, context?: ReviverContext) => context?.source ?? value) === '1';

export function parseExactJson(text: string): unknown {
  if (!hasSource)
    throw new Error(`this Node (${process.version}) cannot read JSON integers exactly (JSON.parse source access); use Node 22.14 or newer`);
  // TypeScript's lib does not know the reviver's third argument yet; Node passes it.
  const reviver = (_key: string, value: unknown, context?: ReviverContext) =>
    typeof value === 'number' && context?.source !== undefined && /^-?\d+$/.test(context.source) ? BigInt(context.source) : value;
  return JSON.parse(text, reviver);
}

// Local `$ref`s of openapi.yaml followed to what they name, for the generator and the contract tests alike.

type Json = unknown;

const isObject = (value: Json): value is Record<string, Json> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON Pointer segment (RFC 6901): `~1` is '/', `~0` is '~'. */
const unescape = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');

/** What `node` names when it is a `{ $ref: '#/...' }` (through references to references), else `node` itself. */
export function resolveRef(document: Json, node: Json): Json {
  let value = node;
  const seen = new Set<string>();
  while (isObject(value) && typeof value.$ref === 'string') {
    const ref = value.$ref;
    if (!ref.startsWith('#/')) throw new Error(`openapi.yaml: ${ref} is not a local reference (#/...)`);
    if (seen.has(ref)) throw new Error(`openapi.yaml: ${ref} refers to itself`);
    seen.add(ref);
    value = ref
      .slice(2)
      .split('/')
      .reduce<Json>((at, segment) => (isObject(at) ? at[unescape(segment)] : undefined), document);
    if (value === undefined) throw new Error(`openapi.yaml: ${ref} names nothing`);
  }
  return value;
}

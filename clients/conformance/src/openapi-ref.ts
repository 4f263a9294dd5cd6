// Local `$ref`s of an OpenAPI document followed to what they name: one resolver for the generator,
// the breaking-change gate, the conformance run and the contract tests.

type Json = unknown;

const isObject = (value: Json): value is Record<string, Json> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON Pointer segment (RFC 6901) as written in a URI fragment: percent-decoded, then `~1` is '/', `~0` is '~'. */
const unescape = (segment: string) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~');

export interface Followed {
  node: Json;
  /** The JSON Pointer of `node` in the document, after every `$ref` was followed. */
  pointer: string;
}

/**
 * Follows `node` (found at `pointer`) through references to references to what it names. In
 * OpenAPI 3.1 a `$ref` may have siblings (a description that overrides the target's, schema
 * keywords that apply with it): they are laid over the target, the nearest last.
 */
export function followRef(document: Json, node: Json, pointer = ''): Followed {
  let value = node;
  let at = pointer;
  const seen = new Set<string>();
  const layers: Record<string, Json>[] = [];
  while (isObject(value) && typeof value.$ref === 'string') {
    const { $ref: ref, ...siblings } = value;
    if (!ref.startsWith('#/')) throw new Error(`openapi.yaml: ${ref} is not a local reference (#/...)`);
    if (seen.has(ref)) throw new Error(`openapi.yaml: ${ref} refers to itself`);
    seen.add(ref);
    if (Object.keys(siblings).length > 0) layers.unshift(siblings);
    at = ref.slice(1);
    value = ref
      .slice(2)
      .split('/')
      .reduce<Json>(
        (parent, segment) => (isObject(parent) ? parent[unescape(segment)] : Array.isArray(parent) ? parent[Number(segment)] : undefined),
        document,
      );
    if (value === undefined) throw new Error(`openapi.yaml: ${ref} names nothing`);
  }
  if (layers.length > 0 && isObject(value)) value = Object.assign({}, value, ...layers);
  return { node: value, pointer: at };
}

/** What `node` names when it is a `{ $ref: '#/...' }`, else `node` itself. */
export const resolveRef = (document: Json, node: Json): Json => followRef(document, node).node;

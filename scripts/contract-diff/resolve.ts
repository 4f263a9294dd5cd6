// Local `$ref`s of an OpenAPI document, followed to what they name, keeping the pointer of where that is.
// (Its own small copy: scripts/openapi-ref.ts, from the refactor branch, may replace it once merged.)
import { isObject, type Json, type JsonObject } from './changes.js';

export interface Located {
  node: Json | undefined;
  /** Pointer of the node after following every $ref. */
  pointer: string;
}

/**
 * In OpenAPI 3.1 a `$ref` may have siblings (a schema's keywords apply together with the target's, a
 * reference's description overrides the target's): they are laid over the target, nearest last.
 */
export function follow(document: JsonObject, node: Json | undefined, pointer: string): Located {
  const seen = new Set<string>();
  const layers: JsonObject[] = [];
  while (isObject(node) && typeof node.$ref === 'string') {
    const { $ref: ref, ...siblings } = node;
    if (Object.keys(siblings).length > 0) layers.unshift(siblings);
    if (!ref.startsWith('#/')) throw new Error(`${pointer}: only local $refs are supported, not ${ref}`);
    if (seen.has(ref)) throw new Error(`${pointer}: $ref cycle through ${ref}`);
    seen.add(ref);
    pointer = ref.slice(1);
    node = ref
      .slice(2)
      .split('/')
      .map((segment) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<Json | undefined>((at, key) => (isObject(at) ? at[key] : Array.isArray(at) ? at[Number(key)] : undefined), document);
    if (node === undefined) throw new Error(`${pointer}: $ref ${ref} names nothing`);
  }
  if (layers.length > 0 && isObject(node)) node = Object.assign({}, node, ...layers) as JsonObject;
  return { node, pointer };
}

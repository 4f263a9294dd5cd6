// Local `$ref`s of an OpenAPI document, followed to what they name, keeping the pointer of where that is.
// (Its own small copy: scripts/openapi-ref.ts, from the refactor branch, may replace it once merged.)
import { isObject, type Json, type JsonObject } from './changes.js';

export interface Located {
  node: Json | undefined;
  /** Pointer of the node after following every $ref. */
  pointer: string;
}

export function follow(document: JsonObject, node: Json | undefined, pointer: string): Located {
  const seen = new Set<string>();
  while (isObject(node) && typeof node.$ref === 'string') {
    const ref = node.$ref;
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
  return { node, pointer };
}

// The sunset rule: an operation or parameter may be removed without a new major version only when the
// base contract deprecated it (deprecated: true, x-deprecated-at) with an x-sunset day that has come.
import { deprecationOf, DeprecationError, sunsetPassed } from '../../clients/conformance/src/deprecation.js';
import type { JsonObject } from './changes.js';

/** Why removing `node` (an operation or parameter of the base contract) is allowed on `now`; undefined when it is not. */
export function retiredBy(node: JsonObject, where: string, now: Date): string | undefined {
  let deprecation;
  try {
    deprecation = deprecationOf(node, where);
  } catch (error) {
    // A deprecation written without its dates announced no sunset: the removal stays breaking.
    if (error instanceof DeprecationError) return undefined;
    throw error;
  }
  if (deprecation === undefined || !sunsetPassed(deprecation, now)) return undefined;
  return `sunset rule: deprecated since ${deprecation.deprecatedAt}, sunset ${deprecation.sunset} has passed`;
}

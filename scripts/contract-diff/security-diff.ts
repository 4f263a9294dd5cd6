// Security in two contracts: which callers each operation lets in (requirement alternatives), and the schemes.
import { list, object, pointerTo, text, type Changes, type Json, type JsonObject, type Sides } from './changes.js';

/** A set of alternatives, each a set of schemes that must all be satisfied; `[]` means no token is needed. */
function alternatives(security: Json | undefined): string[][] {
  const requirements = list(security);
  if (requirements.length === 0) return [[]];
  return requirements.map((requirement) =>
    Object.entries(object(requirement)).flatMap(([scheme, scopes]) => [scheme, ...list(scopes).map((scope) => `${scheme}:${text(scope)}`)]),
  );
}

export function diffSecurity(sides: Sides, before: Json | undefined, after: Json | undefined, pointer: string): void {
  const was = alternatives(before);
  const is = alternatives(after);
  // A client that satisfied an old alternative must still satisfy some new one.
  const stillMet = (old: string[]) => is.some((alternative) => alternative.every((need) => old.includes(need)));
  const lost = was.filter((old) => !stillMet(old));
  const describe = (alternative: string[]) => (alternative.length === 0 ? 'no token' : alternative.join(' + '));
  if (lost.length > 0) {
    sides.changes.add(
      'breaking',
      sides.operation,
      pointer + '/security',
      `security requirement added: callers with ${lost.map(describe).join(' or ')} are refused now (needs ${is.map(describe).join(' or ')})`,
    );
  } else if (JSON.stringify(was) !== JSON.stringify(is)) {
    sides.changes.add('non-breaking', sides.operation, pointer + '/security', `security relaxed: ${is.map(describe).join(' or ')}`);
  }
}

export function diffSecuritySchemes(before: JsonObject, after: JsonObject, changes: Changes): void {
  const schemesBefore = object(object(before.components).securitySchemes);
  const schemesAfter = object(object(after.components).securitySchemes);
  for (const name of new Set([...Object.keys(schemesBefore), ...Object.keys(schemesAfter)])) {
    const pointer = pointerTo('components', 'securitySchemes', name);
    // A description tells people things; any other field of a scheme changes what clients send.
    const was = { ...object(schemesBefore[name]), description: null };
    const is = { ...object(schemesAfter[name]), description: null };
    if (schemesAfter[name] === undefined) changes.add('breaking', '(document)', pointer, `security scheme ${name} removed`);
    else if (schemesBefore[name] === undefined) changes.add('non-breaking', '(document)', pointer, `new security scheme ${name}`);
    else if (JSON.stringify(was) !== JSON.stringify(is)) changes.add('breaking', '(document)', pointer, `security scheme ${name} changed`);
    else if (JSON.stringify(schemesBefore[name]) !== JSON.stringify(schemesAfter[name]))
      changes.add('non-breaking', '(document)', pointer + '/description', `security scheme ${name}: description changed`);
  }
}

// Compares two JSON Schemas (OpenAPI 3.1 dialect) in the direction data flows: a request schema may
// only widen (clients' data must stay valid), a response schema may only narrow (clients' expectations must hold).
import { follow, isObject, pointerTo, text as show, type Changes, type Json, type JsonObject, type Severity } from './changes.js';
import { equivalentPatterns } from './equivalent-patterns.js';

export type Direction = 'request' | 'response';

export interface SchemaContext {
  before: JsonObject;
  after: JsonObject;
  direction: Direction;
  operation: string;
  /** Where the schema is used, for messages: `request body`, `query parameter limit`, `response 200 header Link`. */
  where: string;
  changes: Changes;
}

const UPPER = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties', 'maxContains']);
const LOWER = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties', 'minContains']);
const ANNOTATIONS = new Set(['description', 'title', 'example', 'examples', '$comment', 'externalDocs', 'xml', 'deprecated', 'default']);
const COMPOSITIONS = new Set([
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'patternProperties',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
]);
const HANDLED = new Set([
  ...UPPER,
  ...LOWER,
  'type',
  'enum',
  'const',
  'pattern',
  'format',
  'multipleOf',
  'uniqueItems',
  'required',
  'properties',
  'additionalProperties',
  'items',
  'prefixItems',
  '$ref',
]);

const text = (value: Json | undefined) => JSON.stringify(value);

/** integer is part of number: ['number'] accepts everything ['integer'] does. */
function types(schema: JsonObject): Set<string> | undefined {
  if (schema.type === undefined) return undefined;
  return new Set(Array.isArray(schema.type) ? schema.type.map(show) : [show(schema.type)]);
}
const covers = (set: Set<string>, type: string) => set.has(type) || (type === 'integer' && set.has('number'));

function values(schema: JsonObject): Json[] | undefined {
  if (schema.const !== undefined) return [schema.const];
  return Array.isArray(schema.enum) ? schema.enum : undefined;
}

export function diffSchema(
  context: SchemaContext,
  before: Json | undefined,
  after: Json | undefined,
  beforePointer: string,
  afterPointer: string,
  at = '',
  visited = new Set<string>(),
): void {
  const from = follow(context.before, before, beforePointer);
  const to = follow(context.after, after, afterPointer);
  const key = `${from.pointer} ${to.pointer}`;
  if (visited.has(key)) return; // a recursive schema: this pair is being compared further up
  visited.add(key);
  const { direction, operation, changes } = context;
  const a = isObject(from.node) ? from.node : {};
  const b = isObject(to.node) ? to.node : {};
  const label = `${context.where}${at === '' ? '' : ` \`${at}\``}`;
  const report = (severity: Severity, keyword: string | undefined, message: string) => {
    // A removed keyword exists only in the old document: point there.
    const gone = keyword !== undefined && keyword !== '' && b[keyword] === undefined;
    const base = gone ? from.pointer : to.pointer;
    changes.add(severity, operation, keyword === undefined ? base : base + pointerTo(keyword), `${label}: ${message}`);
  };
  // A narrower schema accepts less: that breaks requests; a wider one breaks responses.
  const narrowed = (keyword: string, message: string) => {
    report(direction === 'request' ? 'breaking' : 'non-breaking', keyword, `${message} (narrower)`);
  };
  const widened = (keyword: string, message: string) => {
    report(direction === 'response' ? 'breaking' : 'non-breaking', keyword, `${message} (wider)`);
  };
  const changed = (keyword: string, message: string) => {
    report('breaking', keyword, message);
  };

  if (from.node === true || from.node === false || to.node === true || to.node === false) {
    if (text(from.node) !== text(to.node)) changed('', `schema changed from ${text(from.node)} to ${text(to.node)}`);
    return;
  }

  const typesBefore = types(a);
  const typesAfter = types(b);
  if (typesBefore === undefined && typesAfter !== undefined) narrowed('type', `type ${text(b.type)} set where any type was allowed`);
  else if (typesBefore !== undefined && typesAfter === undefined) widened('type', `type ${text(a.type)} dropped, any type allowed`);
  else if (typesBefore !== undefined && typesAfter !== undefined) {
    const removed = [...typesBefore].filter((type) => !covers(typesAfter, type));
    const added = [...typesAfter].filter((type) => !covers(typesBefore, type));
    if (removed.length > 0 && added.length > 0) changed('type', `type changed from ${text(a.type)} to ${text(b.type)}`);
    else if (removed.length > 0) narrowed('type', `type ${removed.join(', ')} no longer allowed`);
    else if (added.length > 0) widened('type', `type ${added.join(', ')} now allowed`);
  }

  for (const keyword of [...UPPER, ...LOWER]) {
    const was = a[keyword];
    const is = b[keyword];
    if (text(was) === text(is)) continue;
    const upper = UPPER.has(keyword);
    if (was === undefined) narrowed(keyword, `${keyword} ${text(is)} added`);
    else if (is === undefined) widened(keyword, `${keyword} ${text(was)} removed`);
    else if (typeof was === 'number' && typeof is === 'number') {
      const verb = is < was ? 'lowered' : 'raised';
      if (is < was === upper) narrowed(keyword, `${keyword} ${verb} from ${was} to ${is}`);
      else widened(keyword, `${keyword} ${verb} from ${was} to ${is}`);
    } else changed(keyword, `${keyword} changed from ${text(was)} to ${text(is)}`);
  }

  const valuesBefore = values(a);
  const valuesAfter = values(b);
  const enumKeyword = b.const !== undefined || a.const !== undefined ? 'const' : 'enum';
  if (valuesBefore === undefined && valuesAfter !== undefined) narrowed(enumKeyword, `only ${text(valuesAfter)} allowed now`);
  else if (valuesBefore !== undefined && valuesAfter === undefined)
    widened(enumKeyword, `the list of allowed values ${text(valuesBefore)} is gone`);
  else if (valuesBefore !== undefined && valuesAfter !== undefined) {
    const removed = valuesBefore.filter((value) => !valuesAfter.some((other) => text(other) === text(value)));
    const added = valuesAfter.filter((value) => !valuesBefore.some((other) => text(other) === text(value)));
    if (removed.length > 0 && added.length > 0)
      changed(enumKeyword, `allowed values changed: ${text(removed)} removed, ${text(added)} added`);
    else if (removed.length > 0) narrowed(enumKeyword, `allowed values ${text(removed)} removed`);
    else if (added.length > 0) widened(enumKeyword, `allowed values ${text(added)} added`);
  }

  if (typeof a.pattern === 'string' && typeof b.pattern === 'string' && equivalentPatterns(a.pattern, b.pattern))
    report('non-breaking', 'pattern', 'pattern rewritten in an equivalent form');
  else compareRestriction('pattern', a, b, narrowed, widened, changed);
  compareRestriction('multipleOf', a, b, narrowed, widened, changed);
  if (text(a.format) !== text(b.format)) {
    if (a.format === 'int64' && b.format === 'int32') narrowed('format', 'format int64 became int32');
    else if (a.format === 'int32' && b.format === 'int64') widened('format', 'format int32 became int64');
    else compareRestriction('format', a, b, narrowed, widened, changed);
  }
  if (a.uniqueItems !== true && b.uniqueItems === true) narrowed('uniqueItems', 'items must now be unique');
  if (a.uniqueItems === true && b.uniqueItems !== true) widened('uniqueItems', 'items need no longer be unique');

  const requiredBefore = new Set(Array.isArray(a.required) ? a.required.map(String) : []);
  const requiredAfter = new Set(Array.isArray(b.required) ? b.required.map(String) : []);
  for (const name of requiredAfter) {
    if (!requiredBefore.has(name))
      report(direction === 'request' ? 'breaking' : 'non-breaking', 'required', `property \`${name}\` is now required`);
  }
  for (const name of requiredBefore) {
    if (!requiredAfter.has(name))
      report(direction === 'response' ? 'breaking' : 'non-breaking', 'required', `property \`${name}\` is no longer required`);
  }

  const propertiesBefore = isObject(a.properties) ? a.properties : {};
  const propertiesAfter = isObject(b.properties) ? b.properties : {};
  const child = (name: string) => (at === '' ? name : `${at}.${name}`);
  for (const name of Object.keys(propertiesBefore)) {
    if (name in propertiesAfter) {
      diffSchema(
        context,
        propertiesBefore[name],
        propertiesAfter[name],
        from.pointer + pointerTo('properties', name),
        to.pointer + pointerTo('properties', name),
        child(name),
        visited,
      );
    } else {
      // A request property that is no longer declared: a strict body refuses clients that still send it.
      const severity = direction === 'response' || b.additionalProperties === false ? 'breaking' : 'non-breaking';
      changes.add(severity, operation, from.pointer + pointerTo('properties', name), `${label}: property \`${child(name)}\` removed`);
    }
  }
  for (const name of Object.keys(propertiesAfter)) {
    if (name in propertiesBefore) continue;
    const optional = requiredAfter.has(name) ? 'required' : 'optional';
    changes.add(
      'non-breaking',
      operation,
      to.pointer + pointerTo('properties', name),
      `${label}: new ${optional} property \`${child(name)}\``,
    );
  }

  const extraBefore = a.additionalProperties;
  const extraAfter = b.additionalProperties;
  if (isObject(extraBefore) && isObject(extraAfter)) {
    diffSchema(
      context,
      extraBefore,
      extraAfter,
      from.pointer + '/additionalProperties',
      to.pointer + '/additionalProperties',
      child('*'),
      visited,
    );
  } else if (text(extraBefore) !== text(extraAfter)) {
    if (extraAfter === false) narrowed('additionalProperties', 'undeclared properties are no longer allowed');
    else if (extraBefore === false && (extraAfter === undefined || extraAfter === true))
      widened('additionalProperties', 'undeclared properties are allowed now');
    else changed('additionalProperties', `additionalProperties changed from ${text(extraBefore)} to ${text(extraAfter)}`);
  }

  if (a.items !== undefined || b.items !== undefined) {
    if (a.items === undefined) narrowed('items', 'items are constrained now');
    else if (b.items === undefined) widened('items', 'items are no longer constrained');
    else diffSchema(context, a.items, b.items, from.pointer + '/items', to.pointer + '/items', at === '' ? '[]' : `${at}[]`, visited);
  }
  const tupleBefore = Array.isArray(a.prefixItems) ? a.prefixItems : [];
  const tupleAfter = Array.isArray(b.prefixItems) ? b.prefixItems : [];
  if (tupleBefore.length !== tupleAfter.length)
    changed('prefixItems', `prefixItems changed from ${tupleBefore.length} to ${tupleAfter.length} entries`);
  else {
    tupleBefore.forEach((item, index) => {
      diffSchema(
        context,
        item,
        tupleAfter[index],
        `${from.pointer}/prefixItems/${index}`,
        `${to.pointer}/prefixItems/${index}`,
        `${at}[${index}]`,
        visited,
      );
    });
  }

  for (const keyword of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (HANDLED.has(keyword) || text(a[keyword]) === text(b[keyword])) continue;
    if (ANNOTATIONS.has(keyword) || keyword.startsWith('x-')) {
      report('non-breaking', keyword, `${keyword} changed`);
    } else if (COMPOSITIONS.has(keyword)) {
      // Deciding whether one composition accepts what another did is beyond a keyword-by-keyword diff.
      changed(keyword, `${keyword} changed; the gate cannot tell that this is compatible`);
    } else {
      changed(keyword, `${keyword} changed from ${text(a[keyword])} to ${text(b[keyword])}; the gate does not know this keyword`);
    }
  }
}

type Report = (keyword: string, message: string) => void;

/** A keyword whose presence restricts values: added narrows, removed widens, any other change may do both. */
function compareRestriction(keyword: string, a: JsonObject, b: JsonObject, narrowed: Report, widened: Report, changed: Report): void {
  if (text(a[keyword]) === text(b[keyword])) return;
  if (a[keyword] === undefined) narrowed(keyword, `${keyword} ${text(b[keyword])} added`);
  else if (b[keyword] === undefined) widened(keyword, `${keyword} ${text(a[keyword])} removed`);
  else changed(keyword, `${keyword} changed from ${text(a[keyword])} to ${text(b[keyword])}`);
}

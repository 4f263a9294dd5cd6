// Compares two OpenAPI 3.1 documents operation by operation: paths, operations, parameters, request
// bodies, responses (status, headers, bodies) and the security each operation needs.
import {
  Changes,
  follow,
  isObject,
  list,
  object,
  pointerTo,
  text,
  type Change,
  type Json,
  type JsonObject,
  type Sides,
} from './changes.js';
import { retiredBy } from './retirement.js';
import { diffSchema, type Direction } from './schema-diff.js';
import { diffSecurity, diffSecuritySchemes } from './security-diff.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Every change between two contracts, breaking ones first; `now` decides which deprecations' sunsets have passed. */
export function diffContracts(before: JsonObject, after: JsonObject, now = new Date()): Change[] {
  const changes = new Changes();
  const pathsBefore = object(before.paths);
  const pathsAfter = object(after.paths);
  for (const path of new Set([...Object.keys(pathsBefore), ...Object.keys(pathsAfter)])) {
    const itemPointer = pointerTo('paths', path);
    const itemBefore = object(follow(before, pathsBefore[path], itemPointer).node);
    const itemAfter = object(follow(after, pathsAfter[path], itemPointer).node);
    for (const method of METHODS) {
      const operation = `${method.toUpperCase()} ${path}`;
      const pointer = itemPointer + pointerTo(method);
      const sides = { before, after, operation, changes, now };
      if (itemBefore[method] === undefined && itemAfter[method] === undefined) continue;
      if (itemAfter[method] === undefined)
        changes.add(
          'breaking',
          operation,
          pointer,
          path in pathsAfter ? 'operation removed' : 'path removed',
          retiredBy(object(itemBefore[method]), operation, now),
        );
      else if (itemBefore[method] === undefined)
        changes.add('non-breaking', operation, pointer, path in pathsBefore ? 'new operation' : 'new path');
      else diffOperation(sides, itemBefore, itemAfter, method, pointer);
    }
  }
  diffSecuritySchemes(before, after, changes);
  // Document-level text (info, tags, servers) tells people things; no client depends on it. info.version has its own rule.
  for (const key of ['info', 'tags', 'servers', 'externalDocs']) {
    const was = before[key];
    const is = after[key];
    const strip = (value: Json | undefined) => (key === 'info' && isObject(value) ? { ...value, version: null } : value);
    if (JSON.stringify(strip(was)) !== JSON.stringify(strip(is)))
      changes.add('non-breaking', '(document)', pointerTo(key), `${key} changed`);
  }
  // Breaking first, then breaking removals the sunset rule allows, then the rest.
  const rank = (change: Change) => (change.severity === 'non-breaking' ? 2 : change.allowedBy === undefined ? 0 : 1);
  return changes.list.sort((x, y) => rank(x) - rank(y));
}

function diffOperation(sides: Sides, itemBefore: JsonObject, itemAfter: JsonObject, method: string, pointer: string): void {
  const { before, after, operation, changes } = sides;
  const a = object(itemBefore[method]);
  const b = object(itemAfter[method]);
  for (const keyword of ['summary', 'description', 'operationId', 'tags', 'externalDocs', 'deprecated']) {
    if (JSON.stringify(a[keyword]) !== JSON.stringify(b[keyword]))
      changes.add('non-breaking', operation, pointer + pointerTo(keyword), `${keyword} changed`);
  }
  diffParameters(sides, parameters(before, itemBefore, a, pointer), parameters(after, itemAfter, b, pointer));
  diffRequestBody(sides, a.requestBody, b.requestBody, pointer + '/requestBody');
  diffSecurity(sides, a.security ?? before.security, b.security ?? after.security, pointer);
  const responsesBefore = object(a.responses);
  const responsesAfter = object(b.responses);
  for (const status of new Set([...Object.keys(responsesBefore), ...Object.keys(responsesAfter)])) {
    const at = pointer + pointerTo('responses', status);
    if (responsesAfter[status] === undefined) changes.add('breaking', operation, at, `response ${status} removed`);
    else if (responsesBefore[status] === undefined) changes.add('non-breaking', operation, at, `new response ${status}`);
    else diffResponse(sides, follow(before, responsesBefore[status], at), follow(after, responsesAfter[status], at), status);
  }
}

interface Parameter {
  node: JsonObject;
  pointer: string;
}

/** Path-level and operation-level parameters by `in` and name; the operation's own win. */
function parameters(document: JsonObject, item: JsonObject, operation: JsonObject, pointer: string): Map<string, Parameter> {
  const found = new Map<string, Parameter>();
  const itemPointer = pointer.slice(0, pointer.lastIndexOf('/'));
  for (const [owner, at] of [
    [item, itemPointer],
    [operation, pointer],
  ] as const) {
    list(owner.parameters).forEach((entry, index) => {
      const { node, pointer: where } = follow(document, entry, `${at}/parameters/${index}`);
      const parameter = object(node);
      found.set(`${text(parameter.in)} parameter ${text(parameter.name)}`, { node: parameter, pointer: where });
    });
  }
  return found;
}

function diffParameters(sides: Sides, before: Map<string, Parameter>, after: Map<string, Parameter>): void {
  const { operation, changes } = sides;
  for (const [name, was] of before) {
    const is = after.get(name);
    if (is === undefined) {
      changes.add('breaking', operation, was.pointer, `${name} removed`, retiredBy(was.node, `${operation} ${name}`, sides.now));
      continue;
    }
    if (was.node.required !== true && is.node.required === true)
      changes.add('breaking', operation, is.pointer + '/required', `${name} is now required`);
    if (was.node.required === true && is.node.required !== true)
      changes.add('non-breaking', operation, is.pointer + '/required', `${name} is no longer required`);
    for (const keyword of new Set([...Object.keys(was.node), ...Object.keys(is.node)])) {
      if (['name', 'in', 'required', 'schema'].includes(keyword) || JSON.stringify(was.node[keyword]) === JSON.stringify(is.node[keyword]))
        continue;
      // How a value is written (style, explode, content...) matters to clients; text and examples do not.
      const severity =
        ['description', 'example', 'examples', 'deprecated'].includes(keyword) || keyword.startsWith('x-') ? 'non-breaking' : 'breaking';
      changes.add(
        severity,
        operation,
        (is.node[keyword] === undefined ? was.pointer : is.pointer) + pointerTo(keyword),
        `${name}: ${keyword} changed`,
      );
    }
    diffSchema(
      { ...sides, direction: 'request', where: name },
      was.node.schema,
      is.node.schema,
      was.pointer + '/schema',
      is.pointer + '/schema',
    );
  }
  for (const [name, is] of after) {
    if (before.has(name)) continue;
    if (is.node.required === true) changes.add('breaking', operation, is.pointer, `new required ${name}`);
    else changes.add('non-breaking', operation, is.pointer, `new optional ${name}`);
  }
}

function diffRequestBody(sides: Sides, before: Json | undefined, after: Json | undefined, pointer: string): void {
  const { operation, changes } = sides;
  if (before === undefined && after === undefined) return;
  const was = follow(sides.before, before, pointer);
  const is = follow(sides.after, after, pointer);
  const a = object(was.node);
  const b = object(is.node);
  if (after === undefined) {
    changes.add('breaking', operation, was.pointer, 'request body removed');
    return;
  }
  if (before === undefined) {
    changes.add(
      b.required === true ? 'breaking' : 'non-breaking',
      operation,
      is.pointer,
      `new ${b.required === true ? 'required' : 'optional'} request body`,
    );
    return;
  }
  if (a.required !== true && b.required === true)
    changes.add('breaking', operation, is.pointer + '/required', 'request body is now required');
  if (a.required === true && b.required !== true)
    changes.add('non-breaking', operation, is.pointer + '/required', 'request body is no longer required');
  if (a.description !== b.description)
    changes.add('non-breaking', operation, is.pointer + '/description', 'request body description changed');
  diffContent(sides, a, b, was.pointer, is.pointer, 'request', 'request body');
}

function diffContent(
  sides: Sides,
  a: JsonObject,
  b: JsonObject,
  beforePointer: string,
  afterPointer: string,
  direction: Direction,
  where: string,
): void {
  const { operation, changes } = sides;
  const contentBefore = object(a.content);
  const contentAfter = object(b.content);
  const types = new Set([...Object.keys(contentBefore), ...Object.keys(contentAfter)]);
  for (const type of types) {
    const was = beforePointer + pointerTo('content', type);
    const is = afterPointer + pointerTo('content', type);
    if (contentAfter[type] === undefined) changes.add('breaking', operation, was, `${where}: media type ${type} removed`);
    else if (contentBefore[type] === undefined) changes.add('non-breaking', operation, is, `${where}: new media type ${type}`);
    else {
      const mediaBefore = object(contentBefore[type]);
      const mediaAfter = object(contentAfter[type]);
      // Where a body has several media types, a change names the one it is in (a listing change is not a JSON array change).
      const named = types.size > 1 ? `${where} (${type})` : where;
      for (const keyword of ['example', 'examples']) {
        if (JSON.stringify(mediaBefore[keyword]) !== JSON.stringify(mediaAfter[keyword]))
          changes.add('non-breaking', operation, is + pointerTo(keyword), `${named}: ${keyword} changed`);
      }
      diffSchema({ ...sides, direction, where: named }, mediaBefore.schema, mediaAfter.schema, was + '/schema', is + '/schema');
    }
  }
}

function diffResponse(
  sides: Sides,
  before: { node: Json | undefined; pointer: string },
  after: { node: Json | undefined; pointer: string },
  status: string,
): void {
  const { operation, changes } = sides;
  const a = object(before.node);
  const b = object(after.node);
  if (a.description !== b.description)
    changes.add('non-breaking', operation, after.pointer + '/description', `response ${status}: description changed`);
  const headersBefore = object(a.headers);
  const headersAfter = object(b.headers);
  // Header names are case-insensitive.
  const named = (headers: JsonObject) => new Map(Object.keys(headers).map((name) => [name.toLowerCase(), name]));
  const namesBefore = named(headersBefore);
  const namesAfter = named(headersAfter);
  for (const [lower, name] of namesBefore) {
    const was = follow(sides.before, headersBefore[name], before.pointer + pointerTo('headers', name));
    const afterName = namesAfter.get(lower);
    if (afterName === undefined) {
      changes.add('breaking', operation, was.pointer, `response ${status}: header ${name} removed`);
      continue;
    }
    const is = follow(sides.after, headersAfter[afterName], after.pointer + pointerTo('headers', afterName));
    const headerBefore = object(was.node);
    const headerAfter = object(is.node);
    if (headerBefore.required === true && headerAfter.required !== true)
      changes.add('breaking', operation, is.pointer, `response ${status}: header ${name} is no longer always sent`);
    if (headerBefore.required !== true && headerAfter.required === true)
      changes.add('non-breaking', operation, is.pointer, `response ${status}: header ${name} is now always sent`);
    if (headerBefore.description !== headerAfter.description)
      changes.add('non-breaking', operation, is.pointer + '/description', `response ${status}: header ${name} description changed`);
    diffSchema(
      { ...sides, direction: 'response', where: `response ${status} header ${name}` },
      headerBefore.schema,
      headerAfter.schema,
      was.pointer + '/schema',
      is.pointer + '/schema',
    );
  }
  for (const [lower, name] of namesAfter) {
    if (!namesBefore.has(lower))
      changes.add('non-breaking', operation, after.pointer + pointerTo('headers', name), `response ${status}: new header ${name}`);
  }
  diffContent(sides, a, b, before.pointer, after.pointer, 'response', `response ${status} body`);
}

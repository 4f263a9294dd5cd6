// A strict JSON parser that reads every integer as a bigint, so int64 ids come out exact (JSON.parse rounds them past 2^53).

/**
 * One token at a time, from a position: whitespace, then a string, a number, a literal or a
 * punctuation mark. JSON strings may not hold raw control characters, hence the range below.
 */
const TOKEN =
  // eslint-disable-next-line no-control-regex
  /[ \t\n\r]*(?:("(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*")|(-?(?:0|[1-9][0-9]*))((?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)|(true|false|null)|([[\]{}:,]))/y;

export type ExactJson = null | boolean | bigint | number | string | ExactJson[] | { [key: string]: ExactJson };

/** How request bodies are read by the service (and so by the mock): stricter than JSON.parse in two places. */
export interface ExactJsonOptions {
  /** A key that appears twice in an object with different values is a SyntaxError (the same value twice is allowed). */
  refuseDifferentDuplicateKeys?: boolean;
  /** -0 is the number -0, not the integer 0: an id is a plain integer, and -0 is not one. */
  negativeZeroIsNumber?: boolean;
}

/** Whether two parsed values are the same JSON value (members in any order). */
function same(a: ExactJson, b: ExactJson): boolean {
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return Object.is(a, b);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => same(item, b[index]!));
  }
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && same(a[key]!, b[key]!));
}

/**
 * Parses JSON text as JSON.parse does, except that an integer (no fraction, no exponent) is a
 * bigint, digit for digit. Throws a SyntaxError on anything that is not one whole JSON value.
 * Strings are read by JSON.parse itself, so their escapes mean exactly what they always do.
 */
export function parseExactJson(text: string, options: ExactJsonOptions = {}): ExactJson {
  let position = 0;

  const fail = (): never => {
    throw new SyntaxError(`Not JSON at position ${position}: ${JSON.stringify(text.slice(position, position + 20))}`);
  };
  const next = (): RegExpExecArray => {
    TOKEN.lastIndex = position;
    const token = TOKEN.exec(text);
    if (token === null) return fail();
    position = TOKEN.lastIndex;
    return token;
  };
  const punctuation = (mark: string) => {
    if (next()[5] !== mark) fail();
  };

  const value = (current: RegExpExecArray): ExactJson => {
    const [, string, integer, fraction, literal, mark] = current;
    if (string !== undefined) return JSON.parse(string) as string;
    if (integer !== undefined) {
      return fraction || (integer === '-0' && options.negativeZeroIsNumber) ? Number(integer + (fraction ?? '')) : BigInt(integer);
    }
    if (literal !== undefined) return literal === 'null' ? null : literal === 'true';
    if (mark === '[') {
      const items: ExactJson[] = [];
      let item = next();
      if (item[5] === ']') return items;
      for (;;) {
        items.push(value(item));
        const after = next()[5];
        if (after === ']') return items;
        if (after !== ',') fail();
        item = next();
      }
    }
    if (mark === '{') {
      // No prototype: a member named __proto__ is data, not a way to change the object's prototype.
      const members: { [key: string]: ExactJson } = Object.create(null) as { [key: string]: ExactJson };
      let key = next();
      if (key[5] === '}') return members;
      for (;;) {
        if (key[1] === undefined) fail();
        const name = JSON.parse(key[1]!) as string;
        punctuation(':');
        const member = value(next());
        if (options.refuseDifferentDuplicateKeys && Object.hasOwn(members, name) && !same(members[name]!, member)) {
          throw new SyntaxError(`the key ${JSON.stringify(name)} appears twice with different values`);
        }
        members[name] = member;
        const after = next()[5];
        if (after === '}') return members;
        if (after !== ',') fail();
        key = next();
      }
    }
    return fail();
  };

  const result = value(next());
  if (!/^[ \t\n\r]*$/.test(text.slice(position))) fail();
  return result;
}

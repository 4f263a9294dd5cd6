// The strict JSON parser of request bodies (the service's and its mock's) and of the client's listings: integers exact, as bigint.
// No imports: clients/typescript's build copies it, so the mock refuses a body with the service's very words.

/**
 * One token at a time, from a position: whitespace, then a string, a number, a literal or a punctuation
 * mark. JSON strings may not hold raw control characters, hence the range below. The string pattern is an
 * unrolled loop (runs of plain characters between escapes), for speed.
 */
const TOKEN =
  // eslint-disable-next-line no-control-regex
  /[ \t\n\r]*(?:("[^"\\\u0000-\u001f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\u0000-\u001f]*)*")|(-?(?:0|[1-9][0-9]*))((?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)|(true|false|null)|([[\]{}:,]))/y;

export type ExactJson = null | boolean | bigint | number | string | ExactJson[] | { [key: string]: ExactJson };

/** How request bodies are read by the service and its mock: stricter than JSON.parse in two places. */
interface ExactJsonOptions {
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

/** A string token's value: JSON.parse reads escapes; without one (the usual case) the text between the quotes is the value. */
const unquote = (token: string): string => (token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1));

/** What stops the parse at `position`, after any whitespace: the end of the text, or a character (named by its code when not printable). */
function unexpected(text: string, position: number): string {
  const at = position + /^[ \t\n\r]*/.exec(text.slice(position))![0].length;
  const code = text.codePointAt(at);
  if (code === undefined) return `the text ends early, at position ${at}`;
  const shown =
    code >= 0x21 && code <= 0x7e ? JSON.stringify(String.fromCodePoint(code)) : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return `unexpected character ${shown} at position ${at}`;
}

/**
 * Parses JSON text as JSON.parse does, except that an integer (no fraction, no exponent) is a
 * bigint, digit for digit. Throws a SyntaxError on anything that is not one whole JSON value,
 * its message saying where (the service puts it in its 400).
 * Strings are read by JSON.parse itself, so their escapes mean exactly what they always do.
 */
export function parseExactJson(text: string, options: ExactJsonOptions = {}): ExactJson {
  try {
    return parse(text, options);
  } catch (error) {
    // Deep nesting overflows the stack: bad input too, said as such rather than as the engine's words.
    if (error instanceof RangeError) throw new SyntaxError('it is nested too deeply', { cause: error });
    throw error;
  }
}

function parse(text: string, options: ExactJsonOptions): ExactJson {
  let position = 0;

  const fail = (): never => {
    throw new SyntaxError(unexpected(text, position));
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
    // Indexed, not destructured: destructuring goes through the array iterator, on every token.
    const string = current[1],
      integer = current[2],
      fraction = current[3],
      literal = current[4],
      mark = current[5];
    if (string !== undefined) return unquote(string);
    if (integer !== undefined)
      return fraction || (integer === '-0' && options.negativeZeroIsNumber) ? Number(integer + (fraction ?? '')) : BigInt(integer);
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
      // A plain object (V8 keeps it fast, unlike one made without a prototype); a member named __proto__ is
      // defined as data below, never assigned, so it cannot change the object's prototype.
      const members: { [key: string]: ExactJson } = {};
      let key = next();
      if (key[5] === '}') return members;
      for (;;) {
        if (key[1] === undefined) fail();
        const name = unquote(key[1]!);
        punctuation(':');
        const member = value(next());
        if (options.refuseDifferentDuplicateKeys && Object.hasOwn(members, name) && !same(members[name]!, member)) {
          throw new SyntaxError(`the key ${JSON.stringify(name)} appears twice with different values`);
        }
        if (name === '__proto__')
          Object.defineProperty(members, name, { value: member, writable: true, enumerable: true, configurable: true });
        else members[name] = member;
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

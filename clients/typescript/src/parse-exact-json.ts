// A strict JSON parser that reads every integer as a bigint, so int64 ids come out exact (JSON.parse rounds them past 2^53).

/**
 * One token at a time, from a position: whitespace, then a string, a number, a literal or a
 * punctuation mark. JSON strings may not hold raw control characters, hence the range below.
 */
const TOKEN =
  // eslint-disable-next-line no-control-regex
  /[ \t\n\r]*(?:("(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*")|(-?(?:0|[1-9][0-9]*))((?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)|(true|false|null)|([[\]{}:,]))/y;

export type ExactJson = null | boolean | bigint | number | string | ExactJson[] | { [key: string]: ExactJson };

/**
 * Parses JSON text as JSON.parse does, except that an integer (no fraction, no exponent) is a
 * bigint, digit for digit. Throws a SyntaxError on anything that is not one whole JSON value.
 * Strings are read by JSON.parse itself, so their escapes mean exactly what they always do.
 */
export function parseExactJson(text: string): ExactJson {
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
    if (integer !== undefined) return fraction ? Number(integer + fraction) : BigInt(integer);
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
        members[name] = value(next());
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

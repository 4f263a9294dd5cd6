// Parses JSON bodies exactly: integers beyond 2^53 become bigint instead of being rounded,
// and a number written as 1.0, 1e3 or -0 stays distinguishable from an integer.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { parse } from 'lossless-json';
import { InvalidJson } from '../errors.js';

export const BODY_LIMIT = 16 * 1024;
const INTEGER = /^-?(?:0|[1-9]\d*)$/;

/** A JSON number that is not written as an integer; no schema accepts it as one. */
export class JsonDecimal {
  constructor(readonly text: string) {}
  toJSON() {
    return this.text;
  }
}

function parseNumber(text: string): number | bigint | JsonDecimal {
  if (!INTEGER.test(text) || text === '-0') return new JsonDecimal(text);
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : BigInt(text);
}

function onDuplicateKey({ key }: { key: string }): never {
  throw new SyntaxError(`the key "${key}" appears twice with different values`);
}

export function parseExactJson(text: string): unknown {
  try {
    return parse(text, null, { parseNumber, onDuplicateKey });
  } catch (error) {
    // Deep nesting overflows the parser's stack: that is bad input too, not a server fault.
    const reason = error instanceof RangeError ? 'it is nested too deeply' : (error as Error).message;
    throw new InvalidJson(reason);
  }
}

export default fp(async function jsonBody(app: FastifyInstance) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
    try {
      done(null, parseExactJson(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
});

// Parses JSON bodies exactly: integers beyond 2^53 become bigint instead of being rounded,
// and a number written as 1.0, 1e3 or -0 stays distinguishable from an integer.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { parse } from 'lossless-json';
import { InvalidJson } from '../errors.js';
import { isDecimalInteger } from '../validation/integers.js';

export const BODY_LIMIT = 16 * 1024;

/** A JSON number that is not written as an integer; no schema accepts it as one. */
export class JsonDecimal {
  constructor(readonly text: string) {}
  toJSON() {
    return this.text;
  }
}

function parseNumber(text: string): number | bigint | JsonDecimal {
  if (!isDecimalInteger(text)) return new JsonDecimal(text);
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : BigInt(text);
}

function onDuplicateKey({ key }: { key: string }): never {
  throw new SyntaxError(`the key "${key}" appears twice with different values`);
}

export function parseExactJson(text: string): unknown {
  if (text.trim() === '') throw new InvalidJson('it is empty; send a JSON object');
  try {
    return parse(text, null, { parseNumber, onDuplicateKey });
  } catch (error) {
    // Deep nesting overflows the parser's stack: that is bad input too, not a server fault.
    const reason = error instanceof RangeError ? 'it is nested too deeply' : (error as Error).message;
    throw new InvalidJson(reason);
  }
}

export default fp(async function jsonBody(app: FastifyInstance) {
  // JSON only: Fastify's text/plain parser would let other content types reach validation.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (request, body, done) => {
    // Some clients label a bodiless DELETE as JSON; only operations that take a body need one.
    if (body === '' && request.routeOptions.schema?.body === undefined) return done(null, undefined);
    try {
      done(null, parseExactJson(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
});

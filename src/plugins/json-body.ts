// Parses JSON bodies exactly: integers become bigint instead of being rounded beyond 2^53, and a
// number written as 1.0, 1e3 or -0 stays a number, which no integer of a request accepts.
import { isUtf8 } from 'node:buffer';
import { errorCodes, type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { clip, MESSAGES } from '../error-messages.js';
import { InvalidJson, InvalidUtf8, UnsupportedCharset, UnsupportedContentEncoding, UnsupportedTransferCoding } from '../errors.js';
import { parseExactJson } from '../validation/parse-exact-json.js';

export const BODY_LIMIT = 16 * 1024;

/** The charset parameter of a Content-Type, lower-cased (quotes removed), or undefined when there is none. */
function charsetOf(contentType: string): string | undefined {
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
  return match === null ? undefined : (match[1] ?? match[2] ?? '').toLowerCase();
}

/** RFC 8259 allows only UTF-8; "utf8" is not a registered name but clients send it, meaning the same. */
const UTF8 = new Set(['utf-8', 'utf8']);

export default fp(async function jsonBody(app: FastifyInstance) {
  // JSON only: Fastify's text/plain parser would let other content types reach validation.
  app.removeAllContentTypeParsers();
  // Bytes, not a string: decoding to a string would replace bytes that are not UTF-8 with U+FFFD,
  // silently storing something the client never sent.
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (request, body, done) => {
    const bytes = body as Buffer;
    // Some clients label a bodiless DELETE as JSON; only operations that take a body need one.
    if (bytes.length === 0 && request.routeOptions.schema?.body === undefined) return done(null, undefined);
    // Compressed bytes read as JSON would be refused as bad UTF-8 or JSON, or worse, taken as sent. Node undoes
    // chunked framing only: another transfer coding (gzip, chunked) is left on the bytes.
    const transfer = request.headers['transfer-encoding']?.toLowerCase();
    if (transfer !== undefined && transfer.split(',').some((coding) => coding.trim() !== 'chunked'))
      return done(new UnsupportedTransferCoding(clip(transfer, 40)), undefined);
    const encoding = request.headers['content-encoding']?.trim().toLowerCase();
    if (encoding !== undefined && encoding !== '' && encoding !== 'identity')
      return done(new UnsupportedContentEncoding(clip(encoding, 40)), undefined);
    const charset = charsetOf(request.headers['content-type'] ?? '');
    if (charset !== undefined && !UTF8.has(charset)) return done(new UnsupportedCharset(clip(charset, 40)), undefined);
    if (!isUtf8(bytes)) return done(new InvalidUtf8(), undefined);
    const text = bytes.toString('utf8');
    if (text.trim() === '') return done(new InvalidJson(MESSAGES.emptyJsonReason), undefined);
    try {
      // The parser the client's mock reads bodies with too: the same text is refused with the same reason.
      done(null, parseExactJson(text, { refuseDifferentDuplicateKeys: true, negativeZeroIsNumber: true }));
    } catch (error) {
      done(new InvalidJson((error as Error).message), undefined);
    }
  });
  // Any other type is refused (415) unread, as Fastify would, except on a message with no content: there the label
  // describes nothing (fetch sends DELETE with body '' as text/plain), and a path no route serves is answered 404/405.
  app.addContentTypeParser('*', (request, _payload, done) => {
    // A request with neither Content-Length nor Transfer-Encoding has no body (RFC 9112, 6.3): fetch frames it so.
    const length = request.headers['content-length'];
    const empty = (length === undefined || length === '0') && request.headers['transfer-encoding'] === undefined;
    if (request.is404 || (empty && request.routeOptions.schema?.body === undefined)) return done(null, undefined);
    done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(), undefined);
  });
});

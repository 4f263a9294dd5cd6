// The opaque `cursor` of a next-page link: the last id of the previous page, versioned and base64url-encoded.
import { InvalidCursor } from '../errors.js';
import { parseDecimalInteger } from '../validation/exact-integer.js';

const VERSION = 'v1:';

export function encodeCursor(lastId: bigint): string {
  return Buffer.from(`${VERSION}${lastId}`).toString('base64url');
}

export function decodeCursor(cursor: string): bigint {
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  const id = text.startsWith(VERSION) ? parseDecimalInteger(text.slice(VERSION.length)) : undefined;
  // Re-encoding catches texts that decode to the same bytes but were not issued by us.
  if (id === undefined || encodeCursor(id) !== cursor) throw new InvalidCursor();
  return id;
}

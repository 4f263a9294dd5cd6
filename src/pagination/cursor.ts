// The opaque `cursor` of a Link: the last id of the previous page, versioned and base64url-encoded.
import { InvalidCursor } from '../errors.js';

const FORMAT = /^v1:(-?(?:0|[1-9]\d{0,18}))$/;
const MIN = -(2n ** 63n);
const MAX = 2n ** 63n - 1n;

export function encodeCursor(lastId: bigint): string {
  return Buffer.from(`v1:${lastId}`).toString('base64url');
}

export function decodeCursor(cursor: string): bigint {
  const match = FORMAT.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  const id = match ? BigInt(match[1]!) : undefined;
  // Re-encoding catches texts that decode to the same bytes but were not issued by us.
  if (id === undefined || id < MIN || id > MAX || encodeCursor(id) !== cursor) throw new InvalidCursor();
  return id;
}

// Which representation of GET /plants a request asks for: the Plant array by default, the listing (with ids) when Accept names it.
import type { operations } from '../../generated/types.js';
import { acceptQuality } from './accept-quality.js';

type ListMediaType = keyof operations['listPlants']['responses'][200]['content'];

/** The listing's media type, checked against openapi.yaml's by the compiler. */
export const LISTING_MEDIA_TYPE = 'application/vnd.plant-store.listing+json' satisfies ListMediaType;
const DEFAULT_MEDIA_TYPE = 'application/json' satisfies ListMediaType;

/** The Content-Type of each answer, constant so the reply adds nothing (Fastify appends a charset to a JSON type without one). */
export const LISTING_CONTENT_TYPE = `${LISTING_MEDIA_TYPE}; charset=utf-8`;
export const DEFAULT_CONTENT_TYPE = `${DEFAULT_MEDIA_TYPE}; charset=utf-8`;

/** Media types are case-insensitive; a header that does not name the listing cannot ask for it. */
const NAMES_LISTING = /application\/vnd\.plant-store\.listing\+json/i;

/**
 * True when the request asks for the listing: Accept names it, with a weight above 0 and at least
 * that of application/json (naming the vendor type is the client's deliberate choice, so a tie
 * goes to it). Wildcards never select the listing: `*\/*`, a browser's or curl's Accept, keeps the
 * spec's Plant array. An Accept that allows neither gets application/json as well (RFC 9110 lets
 * a server disregard Accept rather than answer 406); docs/listing.md says why.
 *
 * The default answer costs one regular-expression test of the header, or none without one.
 */
export function wantsListing(accept: string | undefined): boolean {
  if (accept === undefined || !NAMES_LISTING.test(accept)) return false;
  const listing = acceptQuality(accept, LISTING_MEDIA_TYPE);
  return listing > 0 && listing >= acceptQuality(accept, DEFAULT_MEDIA_TYPE);
}

// Which representation of GET /plants a request asks for: the Plant array by default, the listing (with ids) when Accept
// names it, weighed as RFC 9110 section 12.5.1 says: the q of the most specific range that matches.
import type { operations } from '../../generated/types.js';

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
 * True when Accept names the listing with a weight above 0 and at least that of application/json (a tie goes to the
 * deliberate choice). Wildcards never select it, and an Accept that allows neither gets application/json too (RFC 9110
 * lets a server disregard Accept rather than answer 406): docs/listing.md says why.
 */
export function wantsListing(accept: string | undefined): boolean {
  if (accept === undefined || !NAMES_LISTING.test(accept)) return false;
  const listing = acceptQuality(accept, LISTING_MEDIA_TYPE);
  return listing > 0 && listing >= acceptQuality(accept, DEFAULT_MEDIA_TYPE);
}

/** How specific a matching range is: `*\/*`, `type/*`, then `type/subtype`; a more specific one's q wins. */
const ANY = 1;
const TYPE = 2;
const EXACT = 3;

/**
 * The weight (q, 0 to 1) that `accept` gives `mediaType` (lower case, no parameters): the q of the most specific range
 * naming it (`application/json;q=0, *\/*` refuses JSON only), else 0. Other parameters are not compared; an element
 * whose q is not a number from 0 to 1 is left out, as if it was not sent.
 */
export function acceptQuality(accept: string, mediaType: string): number {
  const type = mediaType.slice(0, mediaType.indexOf('/'));
  let best = 0;
  let quality = 0;
  for (const element of accept.split(',')) {
    const [range = '', ...parameters] = element.split(';');
    const name = range.trim().toLowerCase();
    const precision = name === mediaType ? EXACT : name === `${type}/*` ? TYPE : name === '*/*' ? ANY : 0;
    if (precision <= best) continue;
    const q = weight(parameters);
    if (q === undefined) continue;
    best = precision;
    quality = q;
  }
  return quality;
}

/** The q parameter of a media range: 1 when absent, undefined when malformed. */
function weight(parameters: string[]): number | undefined {
  for (const parameter of parameters) {
    const [key = '', value = ''] = parameter.split('=');
    if (key.trim().toLowerCase() !== 'q') continue;
    return /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(value.trim()) ? Number(value) : undefined;
  }
  return 1;
}

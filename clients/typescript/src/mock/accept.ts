// Which representation of GET /plants a request's Accept asks for: the listing only when named with a weight at least JSON's (RFC 9110 12.5.1).
import { LISTING_MEDIA_TYPE } from '../plant-listings.js';

/** The q of the most specific range in `accept` that matches `mediaType`; 0 when none does. */
function quality(accept: string, mediaType: string): number {
  const type = mediaType.slice(0, mediaType.indexOf('/'));
  let best = 0;
  let q = 0;
  for (const element of accept.split(',')) {
    const [range = '', ...parameters] = element.split(';');
    const name = range.trim().toLowerCase();
    const precision = name === mediaType ? 3 : name === `${type}/*` ? 2 : name === '*/*' ? 1 : 0;
    if (precision <= best) continue;
    const weight = parameters.map((parameter) => parameter.split('=')).find(([key = '']) => key.trim().toLowerCase() === 'q')?.[1];
    if (weight !== undefined && !/^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(weight.trim())) continue;
    best = precision;
    q = weight === undefined ? 1 : Number(weight);
  }
  return q;
}

/** Wildcards never select the listing: a browser's or curl's Accept keeps the spec's Plant array. */
export function wantsListing(accept: string | null): boolean {
  if (accept === null || !accept.toLowerCase().includes(LISTING_MEDIA_TYPE)) return false;
  const listing = quality(accept, LISTING_MEDIA_TYPE);
  return listing > 0 && listing >= quality(accept, 'application/json');
}

// How much a request's Accept header wants a media type (RFC 9110 section 12.5.1): the weight of the most specific range that matches it.

/** How specific a matching range is: `*\/*`, `type/*`, then `type/subtype`; a more specific one's q wins. */
const ANY = 1;
const TYPE = 2;
const EXACT = 3;

/**
 * The weight (q, 0 to 1) that `accept` gives `mediaType` (lower case, no parameters): the q of
 * the most specific range naming it, so `application/json;q=0, *\/*` refuses JSON and takes all
 * else. 0 when no range matches. Parameters other than q are not compared; an element whose q is
 * not a number from 0 to 1 is left out, as if it was not sent.
 */
export function acceptQuality(accept: string, mediaType: string): number {
  const slash = mediaType.indexOf('/');
  const type = mediaType.slice(0, slash);
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

// The CORS policy for the origins of CORS_ORIGINS, written once: the service's cors plugin and the client's stand-alone mock (a copy made at its build) apply it.
// No imports: clients/typescript's build copies this file as it is.

export const CORS_POLICY = {
  methods: ['GET', 'POST', 'DELETE'],
  // Bearer tokens travel in Authorization, never in cookies: no credentials mode needed.
  allowedHeaders: ['Authorization', 'Content-Type'],
  // The next page, a created plant's id, when to retry, how much of the rate limit is left, why a token
  // failed, and what is deprecated (docs/api.md): a browser shows none of them to scripts unless exposed.
  exposedHeaders: [
    'Deprecation',
    'Link',
    'Location',
    'RateLimit',
    'RateLimit-Policy',
    'Retry-After',
    'Sunset',
    'WWW-Authenticate',
    'X-Request-Id',
  ],
  maxAge: 600,
};

/**
 * Whether a request gets CORS headers: only from an allowed origin, and never an OPTIONS that is not a
 * preflight (it falls through to the ordinary answers, 405 or 404, as any other method would).
 */
export function isCorsRequest(
  allowed: ReadonlySet<string>,
  origin: string | undefined,
  method: string,
  preflightMethod: string | undefined,
): boolean {
  const notPreflight = method === 'OPTIONS' && preflightMethod === undefined;
  return origin !== undefined && allowed.has(origin) && !notPreflight;
}

/** Whether `entry` is an origin as CORS compares them: http(s), host and port only, written as the URL standard writes it. */
export const isOrigin = (entry: string): boolean => /^https?:/.test(entry) && URL.canParse(entry) && new URL(entry).origin === entry;

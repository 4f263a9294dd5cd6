// Access tokens issued by the configured OpenID provider: JWTs verified with jose against the keys the
// provider publishes (found through its discovery document), never merely decoded.
import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { FastifyBaseLogger } from 'fastify';
import { inSeconds, ProviderUnavailable, retryLater } from '../../errors.js';
import { discoveryUrl, type OidcConfig } from '../../config.js';

/** Asymmetric signatures only: `none` and HMAC (HS*) are refused before any key is looked up. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** The compact JWS form: three base64url parts (the third is empty for `alg: none`, which jose then refuses). */
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** OpenID Connect Core 1.0, 2: a `sub` is at most 255 ASCII characters; other claims are held to the same. */
const MAX_USER_LENGTH = 255;
const FETCH_TIMEOUT_MS = 5000;
/** The same words for every failed check, so a caller learns nothing about which one failed. */
const INVALID_TOKEN = 'The access token is invalid or expired';
/** Provider users never share a name with CLI users, whose names cannot contain ':' (auth/tokens.ts). */
const OWNER_PREFIX = 'oidc:';

type Verdict = { owner: string } | { problem: string };

/**
 * The provider's discovery document, checked (OpenID Connect Discovery 1.0): an error says the real cause,
 * unreachable, not 200, not JSON, another issuer or no key set. src/server.ts also calls it once at start.
 */
export async function discover(
  issuer: string,
  fetcher: (url: string, init: RequestInit) => Promise<Response> = fetch,
): Promise<{ issuer: string; jwks_uri: string }> {
  const url = discoveryUrl(issuer);
  const response = await fetcher(url, {
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    redirect: 'manual',
    headers: { accept: 'application/json' },
  }).catch((error: unknown) => {
    if (error instanceof ProviderUnavailable) throw error;
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : (error as Error).message;
    throw new Error(`${url} cannot be reached: ${cause}`, { cause: error });
  });
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}, not 200`);
  const text = await response.text();
  let metadata: { issuer?: unknown; jwks_uri?: unknown };
  try {
    metadata = JSON.parse(text) as typeof metadata;
  } catch {
    const type = response.headers.get('content-type') ?? 'no content type';
    throw new Error(
      `${url} is not JSON (${type}, starting ${JSON.stringify(text.slice(0, 40))}); is OIDC_ISSUER the provider's issuer URL?`,
    );
  }
  // OpenID Connect Discovery 1.0, 4.3: the document must name the issuer it was fetched for.
  if (metadata.issuer !== issuer) {
    throw new Error(`${url} names the issuer ${JSON.stringify(metadata.issuer)}, not OIDC_ISSUER ${JSON.stringify(issuer)}`);
  }
  if (typeof metadata.jwks_uri !== 'string' || !URL.canParse(metadata.jwks_uri)) throw new Error(`${url} has no jwks_uri URL`);
  return { issuer, jwks_uri: metadata.jwks_uri };
}

export class ProviderTokens {
  #keys: JWTVerifyGetKey | undefined;
  #discovering: Promise<JWTVerifyGetKey> | undefined;
  /** Until when the provider is not asked again after it could not be reached. */
  #unreachableUntil = 0;

  constructor(
    private readonly config: OidcConfig,
    private readonly log: FastifyBaseLogger,
  ) {}

  looksLikeJwt(text: string): boolean {
    return JWT.test(text);
  }

  /**
   * The owner a valid access token names, or the RFC 6750 error_description when it is not valid.
   * Throws ProviderUnavailable (503) when the provider's keys are needed but cannot be had.
   */
  async verify(token: string): Promise<Verdict> {
    const { issuer, audience, clockToleranceSeconds, userClaim } = this.config;
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jwtVerify(token, this.#key, {
        issuer,
        audience,
        algorithms: ALGORITHMS,
        clockTolerance: clockToleranceSeconds,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      // Key lookup faults were turned into ProviderUnavailable by #key; any other jose error is the token's.
      if (error instanceof errors.JOSEError) return { problem: INVALID_TOKEN };
      throw error;
    }
    const user = claims[userClaim];
    if (typeof user !== 'string' || user === '' || user.length > MAX_USER_LENGTH) {
      return { problem: `The access token has no ${userClaim} claim of 1 to ${MAX_USER_LENGTH} characters to name the user` };
    }
    return { owner: OWNER_PREFIX + user };
  }

  /** jose's key lookup, told apart: a key the set lacks is the token's fault; not getting the set is the provider's. */
  readonly #key: JWTVerifyGetKey = async (header, token) => {
    const keys = this.#keys ?? (await this.#discovered());
    try {
      return await keys(header, token);
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) throw error;
      throw this.#unreachable(error);
    }
  };

  /** The remote key set named by the discovery document, fetched once; concurrent first requests share the fetch. */
  #discovered(): Promise<JWTVerifyGetKey> {
    this.#discovering ??= this.#discover().finally(() => {
      this.#discovering = undefined;
    });
    return this.#discovering;
  }

  async #discover(): Promise<JWTVerifyGetKey> {
    const metadata = await discover(this.config.issuer, this.#fetch).catch((error: unknown) => {
      throw this.#unreachable(error);
    });
    // jose caches the keys, fetches them again when a token names an unknown key (at most once a cooldown:
    // key rotation) and when the cache is older than its max age.
    this.#keys = createRemoteJWKSet(new URL(metadata.jwks_uri), {
      cooldownDuration: this.config.jwksCooldownMs,
      cacheMaxAge: this.config.jwksMaxAgeMs,
      timeoutDuration: FETCH_TIMEOUT_MS,
      [customFetch]: this.#fetch,
    });
    return this.#keys;
  }

  /** Every request to the provider goes through here: none while it is known to be unreachable. */
  readonly #fetch = (url: string, init: RequestInit): Promise<Response> => {
    const wait = Math.ceil((this.#unreachableUntil - Date.now()) / 1000);
    if (wait > 0) return Promise.reject(retryLater(new ProviderUnavailable(inSeconds(wait)), wait));
    return fetch(url, init);
  };

  /** The 503 to answer; the first failure after a success is logged with its reason, which the caller is not told. */
  #unreachable(error: unknown): Error {
    if (error instanceof ProviderUnavailable) return error;
    const seconds = this.config.unreachableRetrySeconds;
    this.#unreachableUntil = Date.now() + seconds * 1000;
    const reason =
      error instanceof Error
        ? error.cause instanceof Error && !error.message.includes(error.cause.message)
          ? `${error.message}: ${error.cause.message}`
          : error.message
        : String(error);
    this.log.warn(
      { issuer: this.config.issuer, reason },
      'the OpenID provider cannot be used, for the reason logged; provider access tokens answer 503 until it can',
    );
    return retryLater(new ProviderUnavailable(inSeconds(seconds)), seconds);
  }
}

// The OpenID Connect settings: which provider's access tokens are accepted, for which audience, and whose they are.
import { ConfigError } from '../../config-error.js';

type Env = Record<string, string | undefined>;

export interface OidcConfig {
  /** The provider's issuer, exactly as its tokens' `iss` says (a trailing slash matters). */
  issuer: string;
  /** The `aud` a token must carry: this API's identifier at the provider. */
  audience: string;
  /** The claim that names the user; the plant owner is `oidc:` followed by its value. */
  userClaim: string;
  /** The public client Swagger UI signs in with (authorization code + PKCE); none: the docs offer no sign-in. */
  docsClientId: string | undefined;
  // Tuning, not read from the environment (tests shorten them):
  /** Leeway for `exp` and `nbf` against clock skew between the provider and this server. */
  clockToleranceSeconds: number;
  /** Keys are fetched again at most this often when a token names a key the cached set lacks. */
  jwksCooldownMs: number;
  /** Cached keys are fetched again after this long, so a removed key stops being trusted. */
  jwksMaxAgeMs: number;
  /** After the provider could not be reached, requests answer 503 for this long before it is tried again. */
  unreachableRetrySeconds: number;
}

export const OIDC_DEFAULTS = { clockToleranceSeconds: 30, jwksCooldownMs: 30_000, jwksMaxAgeMs: 600_000, unreachableRetrySeconds: 5 };

/** A claim name such as `sub`, `email` or `https://example.com/user`; no quote or backslash, as it is quoted in challenges. */
const CLAIM = /^[\x21\x23-\x5b\x5d-\x7e]{1,200}$/;

export function oidcConfig(env: Env): OidcConfig | undefined {
  const issuer = env.OIDC_ISSUER || undefined;
  const audience = env.OIDC_AUDIENCE || undefined;
  const userClaim = env.OIDC_USER_CLAIM || 'sub';
  const docsClientId = env.OIDC_DOCS_CLIENT_ID || undefined;
  if (issuer === undefined) {
    const stray = ['OIDC_AUDIENCE', 'OIDC_USER_CLAIM', 'OIDC_DOCS_CLIENT_ID'].filter((name) => env[name]);
    if (stray.length > 0)
      throw new ConfigError(
        `${stray.join(', ')} ${stray.length > 1 ? 'are' : 'is'} set but OIDC_ISSUER is not: set the provider's issuer URL too, or unset them`,
      );
    return undefined;
  }
  if (!isIssuerUrl(issuer)) {
    throw new ConfigError(
      `OIDC_ISSUER must be the provider's issuer URL, https:// (http:// only for localhost or 127.0.0.1), without query or fragment, such as https://example.eu.auth0.com/, not "${issuer}"`,
    );
  }
  if (audience === undefined) {
    throw new ConfigError(
      'OIDC_AUDIENCE must be set when OIDC_ISSUER is: the identifier of this API at the provider, which its access tokens carry in `aud` (e.g. https://plants.example.com)',
    );
  }
  if (!CLAIM.test(userClaim)) throw new ConfigError(`OIDC_USER_CLAIM must be a claim name such as sub or email, not "${userClaim}"`);
  return { issuer, audience, userClaim, docsClientId, ...OIDC_DEFAULTS };
}

function isIssuerUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  // No query, fragment, credentials or white space: the URL is also written into the served openapi.yaml as is.
  if (/[\s?#"'\\]/.test(text) || url.username !== '' || url.password !== '') return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}

/** Where the provider publishes its metadata (OpenID Connect Discovery 1.0, section 4). */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
}

// What Plant Store assumes of every OpenID provider, which no variable sets: where its metadata is, and how it is polled.

/** OIDC tuning (tests shorten it): clock skew leeway, key refetch cooldown, key age, 503 period after the provider was unreachable. */
export const OIDC_DEFAULTS = { clockToleranceSeconds: 30, jwksCooldownMs: 30_000, jwksMaxAgeMs: 600_000, unreachableRetrySeconds: 5 };

/** Where the provider publishes its metadata (OpenID Connect Discovery 1.0, section 4). */
export const discoveryUrl = (issuer: string) => `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;

// The OpenID Connect settings (read and checked in config.ts), the tuning no variable sets, and where the provider's metadata is.
import type { Config } from '../../config.js';

export type OidcConfig = NonNullable<Config['oidc']>;

/** Tuning (tests shorten it): clock skew leeway, key refetch cooldown, key age, and the 503 period after the provider was unreachable. */
export const OIDC_DEFAULTS = { clockToleranceSeconds: 30, jwksCooldownMs: 30_000, jwksMaxAgeMs: 600_000, unreachableRetrySeconds: 5 };

/** Where the provider publishes its metadata (OpenID Connect Discovery 1.0, section 4). */
export const discoveryUrl = (issuer: string) => `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;

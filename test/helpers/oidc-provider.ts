// A real OpenID provider in the test process: panva's oidc-provider (certified) on 127.0.0.1, issuing
// JWT access tokens for Plant Store's audience through its real token endpoint. It can be stopped and
// started again on the same address, with the same or rotated signing keys.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider, { type ClientMetadata, type Configuration } from 'oidc-provider';
import type { Test } from 'tap';
import { OIDC_DEFAULTS, type OidcConfig } from '../../src/config.js';

export const AUDIENCE = 'https://plants.test';
/** Another API at the same provider: its tokens are not for Plant Store. */
export const OTHER_AUDIENCE = 'https://other-api.test';
/** Machine clients (client_credentials): a token's `sub` is the client id; the last two are the longest sub allowed and one more. */
export const CLIENTS = ['plant-app', 'other-app', 'short-lived-app', 'c'.repeat(255), 'c'.repeat(256)];
const SECRET = 'a client secret of the tests';
/** Tokens of this client expire a second after they are issued. */
const SHORT_LIVED = 'short-lived-app';
export const DOCS_CLIENT = 'plant-store-docs';
const SCOPE = 'plants';

export interface ProviderOptions {
  /** The issuer the provider names; by default its own URL (a second provider can claim another's). */
  issuer?: string;
  /** Where the docs client may be sent back to (Swagger UI's redirect page); none: no docs client. */
  docsRedirectUri?: string;
}

export interface TestProvider {
  issuer: string;
  url: string;
  /** Requests the provider got for its key set and its discovery document. */
  requests: { jwks: number; discovery: number };
  /** The signing keys published, the first one signs. */
  keys: JWK[];
  /** A JWT access token from the real token endpoint (client_credentials with a resource indicator). */
  token(client?: string, resource?: string): Promise<string>;
  stop(): Promise<void>;
  /** Serves again on the same address, publishing `keys` (rotation: a new key first, the old one still listed). */
  start(keys?: JWK[]): Promise<void>;
  /** Registers the docs client, which may send the browser back to `uri` (known once Plant Store listens). */
  allowDocsClient(uri: string): Promise<void>;
}

export async function signingKey(kid: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
}

/** Starts a provider for the test and stops it at its end. */
export async function startProvider(t: Test, given: ProviderOptions = {}): Promise<TestProvider> {
  const options = { ...given };
  const requests = { jwks: 0, discovery: 0 };
  let handle: (request: IncomingMessage, response: ServerResponse) => void = () => undefined;
  let server: Server | undefined;
  const listen = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const next = createServer((request, response) => {
        if (request.url === '/jwks') requests.jwks++;
        if (request.url === '/.well-known/openid-configuration') requests.discovery++;
        handle(request, response);
      });
      next.once('error', reject).listen(port, '127.0.0.1', () => resolve(next));
    });

  server = await listen(0);
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const issuer = options.issuer ?? url;
  const provider: TestProvider = {
    issuer,
    url,
    requests,
    keys: [await signingKey(`key-${port}-1`)],
    async token(client = 'plant-app', resource = AUDIENCE) {
      const response = await fetch(`${url}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${client}:${SECRET}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope: SCOPE }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (response.status !== 200 || body.access_token === undefined)
        throw new Error(`token endpoint answered ${response.status}: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async stop() {
      if (server === undefined) return;
      const closing = server;
      server = undefined;
      closing.closeAllConnections();
      await new Promise((resolve) => closing.close(resolve));
    },
    async start(keys = provider.keys) {
      provider.keys = keys;
      const callback = new Provider(issuer, configuration(keys, options)).callback();
      handle = (request, response) => void callback(request, response);
      server ??= await listen(port);
    },
    async allowDocsClient(uri) {
      options.docsRedirectUri = uri;
      await provider.start();
    },
  };
  await provider.start();
  t.teardown(() => provider.stop());
  return provider;
}

function configuration(keys: JWK[], options: ProviderOptions): Configuration {
  const machineClients: ClientMetadata[] = CLIENTS.map((client_id) => ({
    client_id,
    client_secret: SECRET,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    scope: SCOPE,
  }));
  const docsClient: ClientMetadata[] =
    options.docsRedirectUri === undefined
      ? []
      : [
          {
            client_id: DOCS_CLIENT,
            token_endpoint_auth_method: 'none',
            grant_types: ['authorization_code'],
            response_types: ['code'],
            redirect_uris: [options.docsRedirectUri],
          },
        ];
  return {
    clients: [...machineClients, ...docsClient],
    jwks: { keys },
    scopes: ['openid', SCOPE],
    cookies: { keys: ['cookie key of the test provider'] },
    // What the resource server below says, as oidc-provider's default does (without its notice).
    ttl: { ClientCredentials: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? 300 },
    findAccount: (_ctx, accountId) => Promise.resolve({ accountId, claims: () => ({ sub: accountId }) }),
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, resource) => {
          if (resource !== AUDIENCE && resource !== OTHER_AUDIENCE) throw new Error(`unknown resource ${resource}`);
          const ttl = ctx.oidc.client?.clientId === SHORT_LIVED ? 1 : 300;
          return { scope: SCOPE, audience: resource, accessTokenFormat: 'jwt', accessTokenTTL: ttl, jwt: { sign: { alg: 'RS256' } } };
        },
      },
    },
    pkce: { required: () => true },
    clientBasedCORS: () => true,
  };
}

/** Plant Store's settings for `provider`, with the waits shortened so that tests need not sit out the defaults. */
export function oidcSettings(provider: { issuer: string }, overrides: Partial<OidcConfig> = {}): OidcConfig {
  return {
    ...OIDC_DEFAULTS,
    issuer: provider.issuer,
    audience: AUDIENCE,
    userClaim: 'sub',
    docsClientId: DOCS_CLIENT,
    jwksCooldownMs: 0,
    unreachableRetrySeconds: 1,
    ...overrides,
  };
}

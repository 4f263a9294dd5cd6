// The contract as served: openapi.yaml without the oidc scheme when no provider is configured, the
// provider's discovery URL in place of the placeholder with one, and the docs pages' headers for the sign-in popup.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { buildTestApp, inject } from '../helpers/app.js';
import { projectRoot } from '../helpers/paths.js';
import { PLACEHOLDER_URL } from '../../src/contract/served-contract.js';
import { DOCS_REDIRECT_PATH, DOCUMENT_SECURITY_HEADERS } from '../../src/plugins/docs.js';
import { OIDC_DEFAULTS } from '../../src/config.js';

const yamlText = readFileSync(join(projectRoot, 'openapi.yaml'), 'utf8');
const oidc = {
  ...OIDC_DEFAULTS,
  issuer: 'https://example.eu.auth0.com/',
  audience: 'https://plants.example.com',
  userClaim: 'sub',
  docsClientId: 'docs-client',
};
const discovery = 'https://example.eu.auth0.com/.well-known/openid-configuration';

t.test('openapi.yaml writes the placeholder once, and every plant operation takes either scheme', async (t) => {
  t.equal(yamlText.split(PLACEHOLDER_URL).length, 2, 'the placeholder appears exactly once');
  const document = parse(yamlText) as { security: unknown; components: { securitySchemes: Record<string, unknown> } };
  t.same(document.security, [{ bearerAuth: [] }, { oidc: [] }]);
  t.match(document.components.securitySchemes.oidc, { type: 'openIdConnect', openIdConnectUrl: PLACEHOLDER_URL });
});

t.test(
  'without a provider: the contract served is the file without the oidc scheme; Swagger UI loads it and offers no sign-in',
  async (t) => {
    const app = await buildTestApp(t);
    const json = (await inject(t, app, { url: '/openapi.json' })).json();
    t.same(Object.keys(json.components.securitySchemes), ['bearerAuth'], 'no oidc scheme, whose placeholder leads nowhere');
    t.same(json.security, [{ bearerAuth: [] }]);
    t.notMatch(JSON.stringify(json), /"oidc"|issuer\.example/, 'in no security list either');
    const expected = parse(yamlText);
    delete expected.components.securitySchemes.oidc;
    expected.security = [{ bearerAuth: [] }];
    t.same(json, expected, 'the rest is the file');
    const yaml = (await inject(t, app, { url: '/openapi.yaml' })).body;
    t.same(parse(yaml), json, '/openapi.yaml says the same');
    t.equal(
      yaml,
      yamlText.replace('  - oidc: []\n', '').replace(/\n {4}oidc:\n(?: {6}.*\n)+/, '\n'),
      "and keeps the file's text apart from those lines",
    );
    t.same((await inject(t, app, { url: '/docs/json' })).json(), json, "swagger-ui's own route serves the same document");
    const page = await inject(t, app, { url: '/docs/' });
    t.equal(page.headers['content-security-policy'], DOCUMENT_SECURITY_HEADERS['content-security-policy']);
    t.equal(page.headers['cross-origin-opener-policy'], 'same-origin');
    const initializer = (await inject(t, app, { url: '/docs/static/swagger-initializer.js' })).body;
    t.notMatch(initializer, /usePkceWithAuthorizationCodeGrant/);
    t.match(initializer, /"urls":\[\{"url":"\/openapi.json"/, 'Swagger UI loads /openapi.json itself');
  },
);

t.test("with a provider: its discovery URL is served in the placeholder's place, the rest unchanged", async (t) => {
  const app = await buildTestApp(t, { oidc });
  const json = (await inject(t, app, { url: '/openapi.json' })).json();
  t.equal(json.components.securitySchemes.oidc.openIdConnectUrl, discovery);
  const expected = parse(yamlText);
  expected.components.securitySchemes.oidc.openIdConnectUrl = discovery;
  t.same(json, expected, 'only that URL differs');
  t.equal((await inject(t, app, { url: '/openapi.yaml' })).body, yamlText.replace(PLACEHOLDER_URL, discovery));
  t.same((await inject(t, app, { url: '/docs/json' })).json(), json, 'Swagger UI reads the same document');
});

t.test(
  'with a provider: Swagger UI signs in with PKCE and the client id; its pages may reach the provider and keep the popup',
  async (t) => {
    const app = await buildTestApp(t, { oidc });
    const initializer = (await inject(t, app, { url: '/docs/static/swagger-initializer.js' })).body;
    t.match(initializer, /"clientId":"docs-client"/);
    t.match(initializer, /"usePkceWithAuthorizationCodeGrant":true/);
    t.match(initializer, /"audience":"https:\/\/plants.example.com"/);
    const page = await inject(t, app, { url: '/docs/' });
    t.match(
      page.headers['content-security-policy'],
      /connect-src 'self' https:\/\/example\.eu\.auth0\.com;/,
      'the provider origin only, beside this one',
    );
    t.equal(page.headers['cross-origin-opener-policy'], 'same-origin-allow-popups', 'the page keeps a handle on its sign-in popup');
    const redirect = await inject(t, app, { url: DOCS_REDIRECT_PATH });
    t.equal(redirect.status, 200);
    t.match(redirect.body, /<script src="oauth2-redirect\.js"><\/script>/);
    t.notOk('cross-origin-opener-policy' in redirect.headers, 'the landing page, arriving from the provider, has no opener policy');
    t.equal(redirect.headers['content-security-policy'], page.headers['content-security-policy'], 'and the rest of the document headers');
  },
);

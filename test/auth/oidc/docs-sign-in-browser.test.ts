// Swagger UI signs in at a real OpenID provider in headless Chromium: Authorize -> the provider's login page in a
// popup (authorization code + PKCE) -> back with a JWT access token -> "Try it out" creates a plant for oidc:<user>.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { listen } from '../../helpers/checked-fetch.js';
import { liveStatus, offsite, openPage, skipReason, WAIT, watch } from '../../helpers/chromium.js';
import { DOCS_CLIENT, oidcSettings, startProvider } from '../../helpers/oidc-provider.js';
import { projectRoot } from '../../helpers/paths.js';
import { DOCS_REDIRECT_PATH } from '../../../src/plugins/docs.js';

const skip = skipReason();
if (skip !== undefined) {
  t.plan(0, skip);
} else {
  t.test('Swagger UI: sign in at the provider, then create a plant with Try it out', async (t) => {
    const provider = await startProvider(t);
    const app = await buildTestApp(t, { oidc: oidcSettings(provider) });
    const base = await listen(app);
    await provider.allowDocsClient(`${base}${DOCS_REDIRECT_PATH}`);
    const page = await openPage(t);
    const seen = await watch(page, base);

    await page.goto(`${base}/docs`, WAIT);
    await page.locator('button.authorize').first().click(WAIT);
    // The dialog offers the provider's authorization code flow with PKCE, its client id filled in.
    const signIn = page.locator('.auth-container').filter({ hasText: /authorization_code with PKCE/ });
    await signIn.waitFor(WAIT);
    t.equal(await signIn.locator('input#client_id_authorization_code').inputValue(), DOCS_CLIENT, 'client id from OIDC_DOCS_CLIENT_ID');
    t.ok(await signIn.locator('#openid-authorization_code-checkbox-oidc').isChecked(), 'openid is asked for by default');
    // The provider's scope for Plant Store's audience: asked for, it gets an access token for that audience.
    await signIn.locator('label[for="plants-authorization_code-checkbox-oidc"]').click();

    const popupOpened = page.waitForEvent('popup', WAIT);
    await signIn.locator('button.authorize').click();
    const popup = await popupOpened;
    await popup.waitForLoadState('domcontentloaded', WAIT);
    t.match(popup.url(), new RegExp(`^${provider.url}/`), 'the popup shows the provider');
    await popup.locator('input[name="login"]').fill('browser-user', WAIT);
    await popup.locator('input[name="password"]').fill('any password');
    const closed = popup.waitForEvent('close', WAIT);
    await popup.locator('button[type="submit"]').click();
    // devInteractions' consent page: grant what Swagger UI asked for.
    await popup.locator('input[name="prompt"][value="consent"]').waitFor({ ...WAIT, state: 'attached' });
    await popup.locator('button[type="submit"]').click();
    await closed;

    await signIn.locator('button', { hasText: 'Logout' }).waitFor(WAIT);
    t.match(await signIn.innerText(), /Authorized/, 'Swagger UI holds a token from the provider');
    await signIn.locator('button.btn-done').click();
    t.equal(await page.locator('.scheme-container button.authorize.locked').count(), 1, 'the Authorize button shows a closed lock');

    const create = page.locator('#operations-plants-addPlant');
    await create.locator('.opblock-summary').click();
    await create.locator('textarea.body-param__text').fill('{\n  "id": 42,\n  "name": "Signed-in fern"\n}');
    await create.locator('button.execute').click();
    t.equal(await liveStatus(create), '200', 'POST /plants answered 200 in the response panel');
    t.equal(
      (await app.store.forRequest().listPlants('oidc:browser-user', undefined, 10)).json,
      '[{"name":"Signed-in fern"}]',
      'stored for the provider user',
    );

    const post = seen.requests.find((request) => request.method === 'POST' && request.url === `${base}/plants`);
    t.match(post?.authorization, /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/, 'sent with the JWT access token');

    const artifacts = join(projectRoot, 'test-artifacts');
    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: join(artifacts, 'swagger-ui-oidc.png'), fullPage: true });
    await seen.settled();
    t.same(offsite(seen, [base, provider.url]), [], 'requests went only to Plant Store and the provider');
    t.same(seen.problems, [], 'no CSP violation, console error, page error or failed request');
    t.same(seen.contract, [], 'every API answer the browser got follows openapi.yaml');
  });
}

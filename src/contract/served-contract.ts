// The contract as this deployment serves it: openapi.yaml itself, with the `oidc` scheme's placeholder
// replaced by the configured provider's discovery URL, and a view for Swagger UI.
import { openApiDocument, openApiYaml } from '../../generated/openapi.js';
import { discoveryUrl, type OidcConfig } from '../auth/oidc/oidc-config.js';

const SCHEME = 'oidc';

type Json = Record<string, unknown>;
const schemes = (document: Json) =>
  (document.components as { securitySchemes: Record<string, { openIdConnectUrl?: string }> }).securitySchemes;

/** The openIdConnectUrl written in openapi.yaml, which only a deployment with a provider can fill in. */
export const PLACEHOLDER_URL = schemes(openApiDocument)[SCHEME]?.openIdConnectUrl ?? '';

export interface ServedContract {
  /** /openapi.json and /openapi.yaml: the file, apart from the provider's URL. */
  json: string;
  yaml: string;
  /** What Swagger UI shows: without a provider, no sign-in it could not complete (it would fetch the placeholder). */
  docs: Json;
}

export function servedContract(oidc: OidcConfig | undefined): ServedContract {
  if (oidc === undefined) {
    const docs = structuredClone(openApiDocument);
    const { [SCHEME]: _omitted, ...others } = schemes(docs);
    (docs.components as Json).securitySchemes = others;
    docs.security = (docs.security as Json[]).filter((requirement) => !(SCHEME in requirement));
    return { json: JSON.stringify(openApiDocument), yaml: openApiYaml, docs };
  }
  const url = discoveryUrl(oidc.issuer);
  const document = structuredClone(openApiDocument);
  schemes(document)[SCHEME]!.openIdConnectUrl = url;
  // The placeholder is written once in openapi.yaml (test/contract/served-contract.test.ts): replacing its text keeps the file's layout.
  return { json: JSON.stringify(document), yaml: openApiYaml.replace(PLACEHOLDER_URL, url), docs: document };
}

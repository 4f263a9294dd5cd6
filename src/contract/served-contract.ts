// The contract as this deployment serves it (/openapi.json, /openapi.yaml, the docs page): openapi.yaml itself, with the
// `oidc` scheme's placeholder replaced by the provider's discovery URL, or without that scheme when no provider is configured.
import { parse, parseDocument } from 'yaml';
import { openApiDocument as projectDocument, openApiYaml as projectYaml } from '../../generated/openapi.js';
import type { operations } from '../../generated/types.js';
import { discoveryUrl, type OidcConfig } from '../config.js';
import { jsonText, type JsonText } from './json-text.js';
import type { Handlers } from './operation-routes.js';

const SCHEME = 'oidc';

type Json = Record<string, unknown>;
/** What /openapi.json answers, as openapi.yaml declares it. */
type OpenApiJson = operations['getOpenApiJson']['responses'][200]['content']['application/json'];
const schemes = (document: Json) =>
  (document.components as { securitySchemes: Record<string, { openIdConnectUrl?: string }> }).securitySchemes;

/** The openIdConnectUrl written in openapi.yaml, which only a deployment with a provider can fill in. */
export const PLACEHOLDER_URL = schemes(projectDocument)[SCHEME]?.openIdConnectUrl ?? '';

export interface ServedContract {
  /** /openapi.json and /openapi.yaml, and what Swagger UI shows: one document. */
  json: JsonText<OpenApiJson>;
  yaml: string;
  docs: Json;
}

/** The document without the `oidc` scheme: from `components` and from every security list (top level and each operation's). */
function withoutProvider(openApiYaml: string, openApiDocument: Json): ServedContract {
  const docs = structuredClone(openApiDocument);
  const { [SCHEME]: _omitted, ...others } = schemes(docs);
  (docs.components as Json).securitySchemes = others;
  // The YAML is edited in place beside the JSON, so its comments and layout stay the file's.
  const yaml = parseDocument(openApiYaml);
  yaml.deleteIn(['components', 'securitySchemes', SCHEME]);
  const lists: Array<[Json, string[]]> = [[docs, ['security']]];
  for (const [path, item] of Object.entries((docs.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(item)) lists.push([operation, ['paths', path, method, 'security']]);
  }
  for (const [owner, at] of lists) {
    const requirements = owner.security as Json[] | undefined;
    if (!Array.isArray(requirements) || !requirements.some((requirement) => SCHEME in requirement)) continue;
    owner.security = requirements.filter((requirement) => !(SCHEME in requirement));
    yaml.setIn(at, owner.security);
  }
  return { json: jsonText(docs), yaml: yaml.toString({ lineWidth: 0, flowCollectionPadding: false }), docs };
}

let unconfigured: ServedContract | undefined;

/** `contract`: another openapi.yaml text to serve than the project's (app.ts's BuildOptions, for tests). */
export function servedContract(oidc: OidcConfig | undefined, contract?: string): ServedContract {
  const openApiYaml = contract ?? projectYaml;
  const openApiDocument = contract === undefined ? projectDocument : (parse(contract) as Json);
  // Without a provider a client could not complete that sign-in (the placeholder's URL leads nowhere): not offered.
  if (oidc === undefined)
    return contract === undefined
      ? (unconfigured ??= withoutProvider(openApiYaml, openApiDocument))
      : withoutProvider(openApiYaml, openApiDocument);
  const url = discoveryUrl(oidc.issuer);
  const document = structuredClone(openApiDocument);
  schemes(document)[SCHEME]!.openIdConnectUrl = url;
  // The placeholder is written once in openapi.yaml (test/contract/served-contract.test.ts): replacing its text keeps the file's layout.
  return { json: jsonText(document), yaml: openApiYaml.replace(PLACEHOLDER_URL, url), docs: document };
}

export function contractDocumentHandlers(served: ServedContract) {
  return {
    getOpenApiJson: async (_request, reply) => reply.type('application/json; charset=utf-8').code(200).send(served.json),
    getOpenApiYaml: async (_request, reply) => reply.type('application/yaml; charset=utf-8').code(200).send(served.yaml),
  } satisfies Partial<Handlers>;
}

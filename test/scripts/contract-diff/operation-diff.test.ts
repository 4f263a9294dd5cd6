// Fixture tests of the breaking-change gate's rules: each edit of the real openapi.yaml is classified
// as the issue says, at the operation and JSON pointer where it is written.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import type { Change, JsonObject } from '../../../scripts/contract-diff/changes.js';
import { EQUIVALENT_PATTERNS } from '../../../scripts/contract-diff/equivalent-patterns.js';
import { diffContracts } from '../../../scripts/contract-diff/operation-diff.js';
import { projectRoot } from '../../helpers/paths.js';

const contract = parse(readFileSync(join(projectRoot, 'openapi.yaml'), 'utf8')) as JsonObject;

// The fixtures edit the document as any; the shapes are openapi.yaml's own.
type Edit = (document: any) => void;

function diff(edit: Edit, base: Edit = () => undefined): Change[] {
  const before = structuredClone(contract);
  base(before);
  const after = structuredClone(before);
  edit(after);
  return diffContracts(before, after);
}

const lines = (changes: Change[]) => changes.map((change) => `${change.severity} ${change.operation} ${change.pointer}`);
const newPlant = (document: any) => document.components.schemas.NewPlant;
const limit = (document: any) => document.paths['/plants'].get.parameters[0];

const breaking: Record<string, { edit: Edit; base?: Edit; expect: string[] }> = {
  'a removed path': { edit: (d) => delete d.paths['/readyz'], expect: ['breaking GET /readyz /paths/~1readyz/get'] },
  'a removed operation': { edit: (d) => delete d.paths['/plants'].post, expect: ['breaking POST /plants /paths/~1plants/post'] },
  'a removed parameter': {
    edit: (d) => d.paths['/plants'].get.parameters.pop(),
    expect: ['breaking GET /plants /paths/~1plants/get/parameters/1'],
  },
  'a removed response status': {
    edit: (d) => delete d.paths['/plants'].post.responses['409'],
    expect: ['breaking POST /plants /paths/~1plants/post/responses/409'],
  },
  'a removed response property': {
    edit: (d) => delete d.components.schemas.Plant.properties.tag,
    expect: [
      'breaking GET /plants /components/schemas/Plant/properties/tag',
      'breaking POST /plants /components/schemas/Plant/properties/tag',
    ],
  },
  'a removed response header': {
    edit: (d) => delete d.paths['/plants'].get.responses['200'].headers.Link,
    expect: ['breaking GET /plants /components/headers/Link'],
  },
  'a response header no longer always sent': {
    edit: (d) => delete d.components.headers['WWW-Authenticate'].required,
    expect: [
      'breaking GET /plants /components/headers/WWW-Authenticate',
      'breaking POST /plants /components/headers/WWW-Authenticate',
      'breaking DELETE /plants/{id} /components/headers/WWW-Authenticate',
    ],
  },
  'a request property made required': {
    edit: (d) => newPlant(d).required.push('tag'),
    expect: ['breaking POST /plants /components/schemas/NewPlant/required'],
  },
  'a new required request property': {
    edit: (d) => {
      newPlant(d).properties.color = { type: 'string' };
      newPlant(d).required.push('color');
    },
    expect: [
      'breaking POST /plants /components/schemas/NewPlant/required',
      'non-breaking POST /plants /components/schemas/NewPlant/properties/color',
    ],
  },
  'a new required parameter': {
    edit: (d) => d.paths['/plants'].get.parameters.push({ name: 'room', in: 'query', required: true, schema: { type: 'string' } }),
    expect: ['breaking GET /plants /paths/~1plants/get/parameters/2'],
  },
  'a parameter made required': {
    edit: (d) => (limit(d).required = true),
    expect: ['breaking GET /plants /paths/~1plants/get/parameters/0/required'],
  },
  'a lower request maximum': {
    edit: (d) => (limit(d).schema.maximum = 500),
    expect: ['breaking GET /plants /paths/~1plants/get/parameters/0/schema/maximum'],
  },
  'a request maximum where there was none': {
    edit: (d) => (newPlant(d).properties.id.maximum = 10),
    expect: ['breaking POST /plants /components/schemas/NewPlant/properties/id/maximum'],
  },
  'a lower request maxLength': {
    edit: (d) => (newPlant(d).properties.name.maxLength = 100),
    expect: ['breaking POST /plants /components/schemas/NewPlant/properties/name/maxLength'],
  },
  'a higher request minLength': {
    edit: (d) => (newPlant(d).properties.tag.minLength = 1),
    expect: ['breaking POST /plants /components/schemas/NewPlant/properties/tag/minLength'],
  },
  'a changed request pattern': {
    edit: (d) => (newPlant(d).properties.name.pattern = '^[a-z]+$'),
    expect: ['breaking POST /plants /components/schemas/NewPlant/properties/name/pattern'],
  },
  'a request enum where there was none': {
    edit: (d) => (newPlant(d).properties.tag.enum = ['a', 'b']),
    expect: ['breaking POST /plants /components/schemas/NewPlant/properties/tag/enum'],
  },
  'a request enum value removed': {
    base: (d) => (newPlant(d).properties.tag.enum = ['a', 'b', 'c']),
    edit: (d) => (newPlant(d).properties.tag.enum = ['a', 'b']),
    expect: ['breaking POST /plants /components/schemas/NewPlant/properties/tag/enum'],
  },
  'a narrowed request type (3.1 type list)': {
    base: (d) => (newPlant(d).properties.tag.type = ['string', 'null']),
    edit: (d) => (newPlant(d).properties.tag.type = 'string'),
    expect: ['breaking POST /plants /components/schemas/NewPlant/properties/tag/type'],
  },
  'a changed request type': {
    edit: (d) => (newPlant(d).properties.name.type = 'integer'),
    expect: ['breaking POST /plants /components/schemas/NewPlant/properties/name/type'],
  },
  'a changed response type': {
    edit: (d) => (d.components.schemas.Plant.properties.name.type = 'integer'),
    expect: [
      'breaking GET /plants /components/schemas/Plant/properties/name/type',
      'breaking POST /plants /components/schemas/Plant/properties/name/type',
    ],
  },
  'a changed response type, written inline': {
    edit: (d) => (d.paths['/plants'].get.responses['200'].content['application/json'].schema.type = 'object'),
    expect: ['breaking GET /plants /paths/~1plants/get/responses/200/content/application~1json/schema/type'],
  },
  'a new response enum value': {
    edit: (d) => d.components.schemas.Health.properties.status.enum.push('degraded'),
    expect: [
      'breaking GET /healthz /components/schemas/Health/properties/status/enum',
      'breaking GET /readyz /components/schemas/Health/properties/status/enum',
    ],
  },
  'a security requirement on an open operation': {
    edit: (d) => (d.paths['/healthz'].get.security = [{ bearerAuth: [] }]),
    expect: ['breaking GET /healthz /paths/~1healthz/get/security'],
  },
  'an open operation that inherits the document security now': {
    edit: (d) => delete d.paths['/healthz'].get.security,
    expect: ['breaking GET /healthz /paths/~1healthz/get/security'],
  },
  'a second scheme required together with the first': {
    edit: (d) => {
      d.components.securitySchemes.apiKey = { type: 'apiKey', in: 'header', name: 'X-Key' };
      d.security = [{ bearerAuth: [], apiKey: [] }];
    },
    expect: [
      'breaking GET /plants /paths/~1plants/get/security',
      'breaking POST /plants /paths/~1plants/post/security',
      'breaking DELETE /plants/{id} /paths/~1plants~1{id}/delete/security',
      'non-breaking (document) /components/securitySchemes/apiKey',
    ],
  },
  'an alternative scheme removed (its callers are refused now)': {
    edit: (d) => (d.security = [{ bearerAuth: [] }]),
    expect: [
      'breaking GET /plants /paths/~1plants/get/security',
      'breaking POST /plants /paths/~1plants/post/security',
      'breaking DELETE /plants/{id} /paths/~1plants~1{id}/delete/security',
    ],
  },
};

for (const [name, { edit, base, expect }] of Object.entries(breaking)) {
  t.test(`breaking: ${name}`, async (t) => {
    t.same(lines(diff(edit, base)), expect);
  });
}

const nonBreaking: Record<string, { edit: Edit; base?: Edit; expect: string[] }> = {
  'a description': {
    edit: (d) => (d.paths['/plants'].get.description = 'Lists.'),
    expect: ['non-breaking GET /plants /paths/~1plants/get/description'],
  },
  'a schema description and example': {
    edit: (d) => {
      newPlant(d).properties.name.description = 'The name.';
      newPlant(d).properties.name.example = 'Fern';
    },
    expect: [
      'non-breaking POST /plants /components/schemas/NewPlant/properties/name/description',
      'non-breaking POST /plants /components/schemas/NewPlant/properties/name/example',
    ],
  },
  'a media type example': {
    edit: (d) => (d.paths['/plants'].post.requestBody.content['application/json'].example.name = 'Fern'),
    expect: ['non-breaking POST /plants /paths/~1plants/post/requestBody/content/application~1json/example'],
  },
  'the info description': { edit: (d) => (d.info.description = 'Plants.'), expect: ['non-breaking (document) /info'] },
  'a new optional request property': {
    edit: (d) => (newPlant(d).properties.color = { type: 'string' }),
    expect: ['non-breaking POST /plants /components/schemas/NewPlant/properties/color'],
  },
  'a new optional parameter': {
    edit: (d) => d.paths['/plants'].get.parameters.push({ name: 'room', in: 'query', schema: { type: 'string' } }),
    expect: ['non-breaking GET /plants /paths/~1plants/get/parameters/2'],
  },
  'a higher request maximum': {
    edit: (d) => (limit(d).schema.maximum = 5000),
    expect: ['non-breaking GET /plants /paths/~1plants/get/parameters/0/schema/maximum'],
  },
  'a higher request maxLength': {
    edit: (d) => (newPlant(d).properties.name.maxLength = 300),
    expect: ['non-breaking POST /plants /components/schemas/NewPlant/properties/name/maxLength'],
  },
  'a request pattern rewritten in a form known to accept the same strings (the `u`-flag name pattern, and back)': {
    base: (d) => (newPlant(d).properties.name.pattern = EQUIVALENT_PATTERNS[0]![0]),
    edit: (d) => (newPlant(d).properties.name.pattern = EQUIVALENT_PATTERNS[0]![1]),
    expect: ['non-breaking POST /plants /components/schemas/NewPlant/properties/name/pattern'],
  },
  'a request pattern removed': {
    edit: (d) => delete newPlant(d).properties.name.pattern,
    expect: ['non-breaking POST /plants /components/schemas/NewPlant/properties/name/pattern'],
  },
  'a widened request type (3.1 type list)': {
    edit: (d) => (newPlant(d).properties.tag.type = ['string', 'null']),
    expect: ['non-breaking POST /plants /components/schemas/NewPlant/properties/tag/type'],
  },
  'a request enum value added': {
    base: (d) => (newPlant(d).properties.tag.enum = ['a', 'b']),
    edit: (d) => newPlant(d).properties.tag.enum.push('c'),
    expect: ['non-breaking POST /plants /components/schemas/NewPlant/properties/tag/enum'],
  },
  'a new response header': {
    edit: (d) => ((d.paths['/plants'].post.responses['200'].headers ??= {})['X-Trace'] = { schema: { type: 'string' } }),
    expect: ['non-breaking POST /plants /paths/~1plants/post/responses/200/headers/X-Trace'],
  },
  'a new response status': {
    edit: (d) => (d.paths['/healthz'].get.responses['503'] = { description: 'Down.' }),
    expect: ['non-breaking GET /healthz /paths/~1healthz/get/responses/503'],
  },
  'a new path': {
    edit: (d) => (d.paths['/rooms'] = { get: { responses: { '200': { description: 'Rooms.' } } } }),
    expect: ['non-breaking GET /rooms /paths/~1rooms/get'],
  },
  'a new optional response property': {
    edit: (d) => (d.components.schemas.Plant.properties.color = { type: 'string' }),
    expect: [
      'non-breaking GET /plants /components/schemas/Plant/properties/color',
      'non-breaking POST /plants /components/schemas/Plant/properties/color',
    ],
  },
  'an alternative scheme added (the OpenID Connect sign-in beside the bearer token)': {
    base: (d) => {
      d.security = [{ bearerAuth: [] }];
      delete d.components.securitySchemes.oidc;
    },
    edit: (d) => {
      const current = structuredClone(contract) as any;
      d.security = current.security;
      d.components.securitySchemes.oidc = current.components.securitySchemes.oidc;
    },
    expect: [
      'non-breaking GET /plants /paths/~1plants/get/security',
      'non-breaking POST /plants /paths/~1plants/post/security',
      'non-breaking DELETE /plants/{id} /paths/~1plants~1{id}/delete/security',
      'non-breaking (document) /components/securitySchemes/oidc',
    ],
  },
  'a security requirement dropped': {
    edit: (d) => (d.paths['/plants'].get.security = []),
    expect: ['non-breaking GET /plants /paths/~1plants/get/security'],
  },
};

for (const [name, { edit, base, expect }] of Object.entries(nonBreaking)) {
  t.test(`non-breaking: ${name}`, async (t) => {
    t.same(lines(diff(edit, base)), expect);
  });
}

t.test('the same contract has no changes; every change names what happened', async (t) => {
  t.same(
    diff(() => undefined),
    [],
  );
  const [change] = diff((d) => (newPlant(d).properties.name.maxLength = 100));
  t.equal(change?.message, 'request body `name`: maxLength lowered from 200 to 100 (narrower)');
  const [parameter] = diff((d) => (limit(d).schema.maximum = 5000));
  t.equal(parameter?.message, 'query parameter limit: maximum raised from 1000 to 5000 (wider)');
});

t.test('a keyword the gate does not know is breaking, not silently ignored', async (t) => {
  t.same(lines(diff((d) => (newPlant(d).properties.name.contentEncoding = 'base64'))), [
    'breaking POST /plants /components/schemas/NewPlant/properties/name/contentEncoding',
  ]);
  t.same(lines(diff((d) => (newPlant(d).properties.name.anyOf = [{ maxLength: 5 }]))), [
    'breaking POST /plants /components/schemas/NewPlant/properties/name/anyOf',
  ]);
});

t.test('3.1 keywords beside a $ref count: a sibling maxLength lowered is breaking', async (t) => {
  const sibling = (d: any) => (newPlant(d).properties.name = { $ref: '#/components/schemas/Plant/properties/name', maxLength: 150 });
  t.same(
    diff(() => undefined, sibling),
    [],
  );
  t.same(lines(diff((d) => (newPlant(d).properties.name.maxLength = 100), sibling)), [
    'breaking POST /plants /components/schemas/Plant/properties/name/maxLength',
  ]);
  t.same(lines(diff((d) => (newPlant(d).properties.name.description = 'Its name.'), sibling)), [
    'non-breaking POST /plants /components/schemas/Plant/properties/name/description',
  ]);
});

t.test('recursive schemas terminate', async (t) => {
  const recursive = (d: any) => (d.components.schemas.Plant.properties.child = { $ref: '#/components/schemas/Plant' });
  t.same(
    diff(() => undefined, recursive),
    [],
  );
  t.same(lines(diff((d) => delete d.components.schemas.Plant.properties.tag, recursive)), [
    'breaking GET /plants /components/schemas/Plant/properties/tag',
    'breaking POST /plants /components/schemas/Plant/properties/tag',
  ]);
});

t.test('a change to one of several media types names it: the listing is not the JSON array', async (t) => {
  const [listing] = diff((d) => delete d.components.schemas.PlantListing.properties.tag);
  t.equal(listing?.operation, 'GET /plants');
  t.equal(listing?.message, 'response 200 body (application/vnd.plant-store.listing+json) `[]`: property `[].tag` removed');
  const plain = diff((d) => delete d.components.schemas.Plant.properties.tag).find((change) => change.operation === 'GET /plants');
  t.equal(plain?.message, 'response 200 body (application/json) `[]`: property `[].tag` removed');
  const [single] = diff((d) => (newPlant(d).properties.name.maxLength = 100));
  t.equal(
    single?.message,
    'request body `name`: maxLength lowered from 200 to 100 (narrower)',
    'a body of one media type does not repeat it',
  );
});

t.test('the sunset rule: a removal is allowed only once the base deprecated it and its sunset has passed', async (t) => {
  const now = new Date('2027-07-01T12:00:00Z');
  const deprecate = (node: any, sunset: string) =>
    Object.assign(node, { deprecated: true, 'x-deprecated-at': '2026-11-29', 'x-sunset': sunset });
  const cursor = (d: any) => d.paths['/plants'].get.parameters[1];
  const removeCursor: Edit = (d) => d.paths['/plants'].get.parameters.pop();
  const removeDelete: Edit = (d) => delete d.paths['/plants/{id}'].delete;
  const run = (edit: Edit, base: Edit) => {
    const before = structuredClone(contract);
    base(before);
    const after = structuredClone(before);
    edit(after);
    return diffContracts(before, after, now).map((change) => [change.severity, change.operation, change.message, change.allowedBy]);
  };
  t.same(
    run(removeCursor, (d) => deprecate(cursor(d), '2027-06-30')),
    [
      [
        'breaking',
        'GET /plants',
        'query parameter cursor removed',
        'sunset rule: deprecated since 2026-11-29, sunset 2027-06-30 has passed',
      ],
    ],
  );
  t.same(
    run(removeDelete, (d) => deprecate(d.paths['/plants/{id}'].delete, '2027-07-01')),
    [['breaking', 'DELETE /plants/{id}', 'operation removed', 'sunset rule: deprecated since 2026-11-29, sunset 2027-07-01 has passed']],
  );
  t.same(
    run(removeCursor, (d) => deprecate(cursor(d), '2027-07-02')),
    [['breaking', 'GET /plants', 'query parameter cursor removed', undefined]],
    'before its sunset: breaking',
  );
  t.same(
    run(removeCursor, (d) => (cursor(d).deprecated = true)),
    [['breaking', 'GET /plants', 'query parameter cursor removed', undefined]],
    'deprecated without a sunset: breaking',
  );
  t.same(
    run(removeCursor, () => undefined),
    [['breaking', 'GET /plants', 'query parameter cursor removed', undefined]],
    'never deprecated: breaking',
  );
  t.same(
    run(
      (d) => (cursor(d).deprecated = true),
      () => undefined,
    ),
    [['non-breaking', 'GET /plants', 'query parameter cursor: deprecated changed', undefined]],
    'deprecating is not breaking',
  );
});

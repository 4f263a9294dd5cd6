// The handler map is typed from generated/: scratch copies of src/routes/ with a handler missing, one too
// many, or a reply the contract does not declare are compiled in memory and must fail, naming the operationId.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import ts from 'typescript';
import { lineIndependent } from '../helpers/node-line.js';
import { projectRoot } from '../helpers/paths.js';

const routes = join(projectRoot, 'src', 'routes');
const plantsSource = readFileSync(join(routes, 'plants.ts'), 'utf8');

/** The real handler maps joined as src/app.ts joins them, with `change` applied to the plant handlers. */
const joined = (change: string) =>
  [
    "import type { Handlers } from '../contract/operation-routes.js';",
    "import { contractDocumentHandlers, servedContract } from '../contract/served-contract.js';",
    "import { healthHandlers } from './health.js';",
    "import { plantHandlers } from './plants.js';",
    change,
  ].join('\n');

/**
 * Scratch files, by name in src/routes/ (never written to disk): the error each must give, and the operationId
 * it names (a status the operation does not declare is refused at the `reply.code` call, inside that handler).
 */
const scratch: Record<string, { text: string; operationId?: string; expected: RegExp }> = {
  'scratch-missing.ts': {
    text: joined(
      'const { deletePlant: _gone, ...others } = plantHandlers;\n' +
        'export const handlers: Handlers = { ...healthHandlers, ...contractDocumentHandlers(servedContract(undefined)), ...others };',
    ),
    operationId: 'deletePlant',
    expected: /Property 'deletePlant' is missing in type/,
  },
  'scratch-extra.ts': {
    text: joined(
      'export const handlers: Handlers = {\n' +
        '  ...healthHandlers, ...contractDocumentHandlers(servedContract(undefined)), ...plantHandlers,\n' +
        "  getPlant: async () => ({ name: 'Fern' }),\n};",
    ),
    operationId: 'getPlant',
    expected: /'getPlant' does not exist in type 'Handlers'/,
  },
  // A copy of the real plants.ts whose addPlant answers a body that is not a Plant.
  'scratch-wrong-reply.ts': {
    text: plantsSource.replace('    return plant;\n', '    return { name: id };\n'),
    operationId: 'addPlant',
    expected: /is not assignable to type 'OperationHandler<"addPlant">'/,
  },
  // ...and whose deletePlant answers a status the contract does not declare for it.
  'scratch-wrong-status.ts': {
    text: plantsSource.replace('reply.code(204)', 'reply.code(200)'),
    expected: /Argument of type '200' is not assignable to parameter of type '[^']*\b204\b/,
  },
};

const skip = lineIndependent('the TypeScript compiler gives the same verdict on every Node line');
t.test('a handler missing, one without an operation, or a reply off the contract does not compile', { skip }, async (t) => {
  t.ok(plantsSource.includes('    return plant;\n') && plantsSource.includes('reply.code(204)'), 'the scratch edits apply to plants.ts');
  const { config } = ts.readConfigFile(join(projectRoot, 'tsconfig.build.json'), (file) => ts.sys.readFile(file));
  const { options, fileNames } = ts.parseJsonConfigFileContent(config, ts.sys, projectRoot);
  const compile: ts.CompilerOptions = { ...options, noEmit: true, incremental: false, declaration: false };
  const host = ts.createCompilerHost(compile);
  const virtual = new Map(Object.entries(scratch).map(([name, { text }]) => [join(routes, name), text]));
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (file) => virtual.has(file) || fileExists(file);
  host.getSourceFile = (file, language, ...rest) => {
    const text = virtual.get(file);
    return text === undefined ? getSourceFile(file, language, ...rest) : ts.createSourceFile(file, text, language);
  };
  // All of src/ and generated/ as `npm run build` compiles them (the plugins declare what they add to Fastify's types), plus the scratch files.
  const program = ts.createProgram([...fileNames, ...virtual.keys()], compile, host);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const text = (diagnostic: ts.Diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');

  t.same(
    diagnostics.filter((diagnostic) => !virtual.has(diagnostic.file?.fileName ?? '')).map(text),
    [],
    'the real sources compile: every error is in a scratch file',
  );
  for (const [name, { operationId, expected }] of Object.entries(scratch)) {
    const messages = diagnostics.filter((diagnostic) => diagnostic.file?.fileName === join(routes, name)).map(text);
    t.ok(messages.length > 0, `${name} does not compile`);
    t.ok(
      messages.some((message) => expected.test(message) && message.includes(operationId ?? '')),
      `${name}: ${expected.source}${operationId === undefined ? '' : `, naming ${operationId}`}`,
      { messages },
    );
  }
});

// @plant-store/conformance: the run (as a command or a function), and the pieces other tools reuse: the
// response validator that reads openapi.yaml itself, the $ref resolver and the declared answers.
export { conformanceCommand, CONFORMANCE_USAGE, type CommandOptions } from './command.js';
export { loadContract, shippedContractPath, type JsonObject } from './contract-file.js';
export {
  deprecations,
  deprecationHeaders,
  sunsetPassed,
  type Deprecation,
  type DeprecationHeaders,
  type OperationDeprecations,
} from './deprecation.js';
export { declaredAnswers, type DeclaredAnswer } from './declared-answers.js';
export { parseExactJson } from './exact-json.js';
export { followRef, resolveRef, type Followed } from './openapi-ref.js';
export { junit, line, type Result } from './report.js';
export { ResponseValidator, type OperationMatch, type SeenResponse } from './response-validator.js';

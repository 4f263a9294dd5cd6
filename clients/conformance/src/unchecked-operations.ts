// Every operation the contract declares must have checks in this runner: one that has none is reported by
// name and fails the run, so a contract that grew an operation is never passed as checked (docs/contract-checks.md).
import type { JsonObject } from './contract-file.js';
import { METHODS } from './declared-answers.js';
import type { Result } from './report.js';

const asObject = (value: unknown): JsonObject => (typeof value === 'object' && value !== null ? (value as JsonObject) : {});

/**
 * One result for each operation of `contract` that no result of the run is about (`GET /plants/{id}`, as
 * results name operations): a failure, or a skip when the run was interrupted before all its checks ran.
 */
export function uncheckedOperations(contract: JsonObject, results: readonly Result[], interrupted: boolean): Result[] {
  const checked = new Set(results.map((result) => result.operation));
  return Object.entries(asObject(contract.paths)).flatMap(([path, item]) =>
    METHODS.filter((method) => method in asObject(item) && !checked.has(`${method.toUpperCase()} ${path}`)).map((method): Result => {
      const { operationId } = asObject(asObject(item)[method]);
      const name = typeof operationId === 'string' ? operationId : '(no operationId)';
      return {
        status: interrupted ? 'skip' : 'fail',
        operation: `${method.toUpperCase()} ${path}`,
        title: `has checks in this runner (${name})`,
        expected: `checks of ${name} in @plant-store/conformance (clients/conformance/src/checks/)`,
        actual: interrupted
          ? 'none ran: the run was interrupted'
          : `none: openapi.yaml declares ${name}, and this runner has no check for it`,
        seconds: 0,
      };
    }),
  );
}

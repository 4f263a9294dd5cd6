// The contract's operations the mock does not implement: each answers 501 with the Error shape naming it, placed
// before the mock's 405s, so a request the contract allows is never told that its method is not allowed.
import { http, type HttpHandler } from 'msw';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** An operation as openapi.yaml declares it. */
export interface DeclaredOperation {
  operationId: string;
  /** `GET`, as sent. */
  method: string;
  /** `/plants/{id}`, as openapi.yaml writes it. */
  path: string;
}

const asObject = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

/** Every operation of an OpenAPI document, in its order. */
export function declaredOperations(contract: Record<string, unknown>): DeclaredOperation[] {
  return Object.entries(asObject(contract.paths)).flatMap(([path, item]) =>
    METHODS.filter((method) => method in asObject(item)).map((method) => {
      const { operationId } = asObject(asObject(item)[method]);
      const named = typeof operationId === 'string' ? operationId : `${method.toUpperCase()} ${path}`;
      return { operationId: named, method: method.toUpperCase(), path };
    }),
  );
}

/** The path's URL pathname, exactly (MSW alone matches regardless of case and of a trailing slash). */
const exactPath = (path: string) =>
  new RegExp(
    `${path
      .split(/\{[^}]+\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]+')}$`,
  );

/**
 * A 501 handler for each operation of `contract` whose operationId is not in `implemented`; `refuse` writes the
 * mock's Error answer.
 */
export function unimplementedHandlers(
  base: string,
  contract: Record<string, unknown>,
  implemented: ReadonlySet<string>,
  refuse: (request: Request, status: number, message: string) => Response,
): HttpHandler[] {
  return declaredOperations(contract)
    .filter(({ operationId }) => !implemented.has(operationId))
    .map(({ operationId, method, path }) => {
      const exact = exactPath(path);
      return http.all(`${base}${path.replace(/\{([^}]+)\}/g, ':$1')}`, ({ request }) =>
        request.method === method && exact.test(new URL(request.url).pathname)
          ? refuse(request, 501, `The mock does not implement ${operationId} (${method} ${path}) of openapi.yaml yet.`)
          : undefined,
      );
    });
}

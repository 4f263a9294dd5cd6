// Every (operation, status, media type) openapi.yaml declares, and for those no client can provoke
// without privileges, why: the run reports each as exercised, not exercisable (and why), or missed.
import type { JsonObject } from './contract-file.js';
import { followRef } from './openapi-ref.js';

export interface DeclaredAnswer {
  /** `GET /plants 200 application/json`, or `DELETE /plants/{id} 204` for an answer without a body. */
  key: string;
  /** `GET /plants`, as openapi.yaml writes it. */
  operation: string;
  status: string;
  mediaType?: string;
}

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const asObject = (value: unknown): JsonObject => (typeof value === 'object' && value !== null ? (value as JsonObject) : {});

export const answerKey = (operation: string, status: string, mediaType?: string): string =>
  mediaType === undefined ? `${operation} ${status}` : `${operation} ${status} ${mediaType}`;

export function declaredAnswers(document: JsonObject): DeclaredAnswer[] {
  const answers: DeclaredAnswer[] = [];
  for (const [path, item] of Object.entries(asObject(document.paths))) {
    for (const method of METHODS) {
      const operation = asObject(asObject(item)[method]);
      if (Object.keys(operation).length === 0) continue;
      const name = `${method.toUpperCase()} ${path}`;
      for (const [status, response] of Object.entries(asObject(operation.responses))) {
        const content = asObject(followRef(document, response).node).content;
        const types = Object.keys(asObject(content));
        if (content === undefined || types.length === 0) answers.push({ key: answerKey(name, status), operation: name, status });
        for (const mediaType of types) answers.push({ key: answerKey(name, status, mediaType), operation: name, status, mediaType });
      }
    }
  }
  return answers;
}

/**
 * Why a declared answer cannot be asked for by a client without privileges on the deployment; undefined
 * when the run must get it. Anything declared that is neither got nor excused here fails the run, so a
 * status added to openapi.yaml is never passed over in silence.
 */
export function whyNotExercisable(answer: DeclaredAnswer, options: { rateLimit: boolean }): string | undefined {
  if (answer.status === '500') return 'a failure inside the service: no request of a client may cause one';
  if (answer.status === '503' && answer.operation === 'GET /readyz') return 'needs the database to be unreachable';
  if (answer.status === '503')
    return "needs another process holding the database's write lock, an identity provider that cannot be reached, or the service shedding load";
  if (answer.status === '429' && !options.rateLimit)
    return "needs --rate-limit (it spends the token's budget for up to a minute, so it is not done by default)";
  return undefined;
}

// The contract's paths with every error answer's body typed as the client's error: what the client and the hooks hand back.
import type { paths } from '@plant-store/client/types';

/** 4xx, 5xx and default, as openapi-fetch counts errors (written here: openapi-typescript-helpers is not our dependency). */
type IsError<Status> = Status extends 'default' | '4XX' | '5XX'
  ? true
  : `${Status & (string | number)}` extends `4${string}` | `5${string}`
    ? true
    : false;

/** A response object whose content, in every media type, is `E`. */
type WithContent<Response, E> = Response extends { content: infer Content }
  ? Omit<Response, 'content'> & { content: { [Media in keyof Content]: E } }
  : Response;

/** An operation whose error responses (4xx, 5xx, default) carry `E`. */
type WithErrors<Operation, E> = Operation extends { responses: infer Responses }
  ? Omit<Operation, 'responses'> & {
      responses: { [Status in keyof Responses]: IsError<Status> extends true ? WithContent<Responses[Status], E> : Responses[Status] };
    }
  : Operation;

/** `paths` from openapi.yaml, with `E` as the body of every error answer. */
export type PathsWithError<E> = {
  [Path in keyof paths]: { [Method in keyof paths[Path]]: WithErrors<paths[Path][Method], E> };
};

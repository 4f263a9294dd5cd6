// The error the client throws where it cannot hand back `{ error, response }` (the page iterator).
import type { components } from '@plant-store/client/types';

type ApiError = components['schemas']['Error'];

export class PlantStoreError extends Error {
  override readonly name = 'PlantStoreError';

  constructor(
    /** The HTTP status of the failed response. */
    readonly status: number,
    /**
     * The Error body: the service's, or one made from the status when the answer was not the service's (a proxy's
     * HTML page: its message says so); undefined only when there was no answer to read.
     */
    readonly body: ApiError | undefined,
  ) {
    super(body?.message ?? `The service answered ${status}.`);
  }
}

// The error the client throws where it cannot hand back `{ error, response }` (the page iterator).
import type { components } from '@plant-store/client/types';

type ApiError = components['schemas']['Error'];

export class PlantStoreError extends Error {
  override readonly name = 'PlantStoreError';

  constructor(
    /** The HTTP status of the failed response. */
    readonly status: number,
    /** The service's Error body; undefined only when the answer did not come from the service. */
    readonly body: ApiError | undefined,
  ) {
    super(body?.message ?? `The service answered ${status}.`);
  }
}

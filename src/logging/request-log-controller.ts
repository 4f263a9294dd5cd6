// Fastify's per-request log lines ("incoming request", "request completed") are info lines:
// below info they are never written, yet each request paid for building them. This controller
// skips them then; errors are logged as before.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

const INFO_OR_BELOW = new Set(['info', 'debug', 'trace']);

export class RequestLogController extends LogController {
  readonly #infoWritten: boolean;

  constructor(level: string) {
    super();
    this.#infoWritten = INFO_OR_BELOW.has(level);
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (this.#infoWritten) super.incomingRequest(request, reply);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error || this.#infoWritten) super.requestCompleted(error, request, reply);
  }
}

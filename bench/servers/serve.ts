// Runs a reference Fastify app as a process: listens on PORT (or the given port), closes on SIGTERM or SIGINT.
import type { FastifyInstance } from 'fastify';

export async function serve(app: FastifyInstance, port = Number(process.env.PORT), host = '127.0.0.1'): Promise<void> {
  await app.listen({ port, host });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void app.close().then(() => process.exit(0)));
}

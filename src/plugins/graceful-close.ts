// While the app closes, every response says `Connection: close`, so clients do not send another
// request on a connection the server is about to close (which would lose that request or its answer).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export default fp(
  async function gracefulClose(app: FastifyInstance) {
    let closing = false;
    app.addHook('preClose', async () => {
      closing = true;
    });
    // A callback hook, not an async one: it runs on every response, and a promise each time costs more than the check.
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (closing) reply.header('connection', 'close');
      done(null, payload);
    });
  },
  { name: 'graceful-close' },
);

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
    app.addHook('onSend', async (_request, reply, payload) => {
      if (closing) reply.header('connection', 'close');
      return payload;
    });
  },
  { name: 'graceful-close' },
);

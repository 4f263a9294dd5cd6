// Reference (a), the ceiling: bare Fastify answering a fixed, pre-built page of 20 plants through
// the same response schema as Plant Store, with no auth, no database and no logger.
import Fastify from 'fastify';
import { componentSchemas } from '../../generated/schemas.js';
import { firstPage } from './fixed-page.js';

const app = Fastify();
for (const schema of componentSchemas) app.addSchema(schema);
const plants = firstPage(20);

app.get('/plants', { schema: { response: { 200: { type: 'array', items: { $ref: 'Plant#' } } } } }, async () => plants);

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void app.close().then(() => process.exit(0)));

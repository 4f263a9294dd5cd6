// An OTLP/HTTP trace receiver on 127.0.0.1, in the test's process: what a collector would get from the
// real exporter over real HTTP. JSON exports are decoded into spans; protobuf ones are kept as bytes.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
type Attributes = Array<{ key: string; value: AnyValue }>;

/** One span as OTLP/JSON carries it (ids in hex), with its attributes flattened. */
export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  kind: number;
  status: { code?: number; message?: string };
  attributes: Record<string, string | number | boolean | undefined>;
  links: Array<{ traceId: string; spanId: string }>;
  resource: Record<string, string | number | boolean | undefined>;
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Bodies of protobuf exports. */
  protobufBodies: Buffer[];
  /** Paths and content types of every export received. */
  requests: Array<{ path: string; contentType: string }>;
}

const flatten = (attributes: Attributes = []) =>
  Object.fromEntries(
    attributes.map(({ key, value }) => [
      key,
      value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue)) ?? value.boolValue ?? value.doubleValue,
    ]),
  );

interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: Attributes };
    scopeSpans?: Array<{
      spans?: Array<
        Omit<ReceivedSpan, 'attributes' | 'resource' | 'parentSpanId' | 'links'> & {
          parentSpanId?: string;
          attributes?: Attributes;
          links?: ReceivedSpan['links'];
        }
      >;
    }>;
  }>;
}

function spansOf(request: ExportRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap(({ resource, scopeSpans }) =>
    (scopeSpans ?? []).flatMap(({ spans }) =>
      (spans ?? []).map((span) => ({
        ...span,
        parentSpanId: span.parentSpanId ?? '',
        attributes: flatten(span.attributes),
        links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
        resource: flatten(resource?.attributes),
      })),
    ),
  );
}

export async function otlpReceiver(t: Test): Promise<OtlpReceiver> {
  const received: OtlpReceiver = { endpoint: '', spans: [], protobufBodies: [], requests: [] };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const contentType = request.headers['content-type'] ?? '';
      received.requests.push({ path: request.url ?? '', contentType });
      const body = Buffer.concat(chunks);
      if (contentType.startsWith('application/json')) {
        received.spans.push(...spansOf(JSON.parse(body.toString('utf8')) as ExportRequest));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else {
        received.protobufBodies.push(body);
        // An empty ExportTraceServiceResponse: every span accepted.
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections(); // the exporter keeps its connection alive
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  received.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return received;
}

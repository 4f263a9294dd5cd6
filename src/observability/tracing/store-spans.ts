// Spans of the store, built from the diagnostics channels the store code publishes on (the store
// knows nothing of OpenTelemetry): one per call of a request's store handle, one per SQLite commit.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { TracingChannelSubscribers } from 'node:diagnostics_channel';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { commits, storeCalls, type CommitContext, type StoreCallContext } from '../../channels.js';

/** OpenTelemetry's `db.system.name` values. */
const DB_SYSTEM = { sqlite: 'sqlite', postgres: 'postgresql' } as const;

/** What tracePromise and traceSync add to the context they publish. */
type Settled<T> = T & { error?: unknown };

const nothing = () => undefined;

function describeError(span: Span | undefined, error: unknown): void {
  if (span === undefined) return;
  const { code, name, message } = (error ?? {}) as { code?: unknown; name?: unknown; message?: unknown };
  // The driver's code or the error's class, and its message: database errors name constraints and
  // states, not the values written (no plant names, no token hashes).
  span.setAttribute('error.type', typeof code === 'string' ? code : typeof name === 'string' ? name : 'Error');
  span.setStatus({ code: SpanStatusCode.ERROR, message: typeof message === 'string' ? message : String(error) });
}

/** Subscribes; the function returned unsubscribes everything, and the store handles go back to plain. */
export function traceStore(tracer: Tracer): () => void {
  const spans = new WeakMap<object, Span>();
  /** The span of the store call running now, and of everything it starts (the write it queues). */
  const currentCall = new AsyncLocalStorage<Span>();

  // The span starts in the transform of the bound store: that runs in the caller's context (the request
  // span, or the route handler's) before the call, and the span is the current call while it runs.
  const startCall = (call: StoreCallContext): Span => {
    const span = tracer.startSpan(`plant-store.store ${call.operation}`, {
      kind: SpanKind.CLIENT,
      attributes: { 'db.system.name': DB_SYSTEM[call.store], 'db.operation.name': call.operation },
    });
    spans.set(call, span);
    return span;
  };
  const endSpan = (context: object) => {
    spans.get(context)?.end();
    spans.delete(context);
  };
  /** A store call's or a commit's events, its span started by `start`. */
  const settling = <C extends object>(start: (context: C) => void): TracingChannelSubscribers<C> => ({
    start,
    // `end` comes before the promise settles (a commit's: when COMMIT has returned, before its sync), unless the
    // call threw at once: then it is the last event, with `error` set.
    end: (context: Settled<C>) => {
      if ('error' in context) endSpan(context);
    },
    asyncStart: nothing,
    asyncEnd: endSpan,
    error: (context: Settled<C>) => describeError(spans.get(context), context.error),
  });

  // A commit serves several requests: it is a child of the first waiting write's store call, and links
  // to the others' (each trace then shows the commit its write waited for, with its batch).
  const commitHandlers = settling((commit: CommitContext) => {
    const waiting = commit.queuedIn
      .map((queued) => queued?.runInAsyncScope(() => currentCall.getStore()))
      .filter((span) => span !== undefined);
    const [first, ...others] = waiting;
    if (first === undefined) return; // no traced write waits for it: nothing to attach it to
    const span = tracer.startSpan(
      'plant-store.commit',
      {
        kind: SpanKind.INTERNAL,
        attributes: { 'db.system.name': 'sqlite', 'db.operation.name': 'COMMIT', 'plant_store.commit.batch_size': commit.batchSize },
        links: others.map((other) => ({ context: other.spanContext() })),
      },
      trace.setSpan(ROOT_CONTEXT, first),
    );
    spans.set(commit, span);
  });
  const callHandlers = settling<StoreCallContext>(nothing);

  storeCalls.start.bindStore(currentCall, startCall);
  storeCalls.subscribe(callHandlers);
  commits.subscribe(commitHandlers);
  return () => {
    storeCalls.start.unbindStore(currentCall);
    storeCalls.unsubscribe(callHandlers);
    commits.unsubscribe(commitHandlers);
  };
}

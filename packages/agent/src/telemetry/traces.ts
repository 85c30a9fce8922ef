import { AsyncLocalStorage } from 'node:async_hooks';
import type { Attributes, Span, Tracer, TracerProvider } from '@opentelemetry/api';

/**
 * OpenTelemetry traces: a span per request, run, step, model call and tool call. Off, they cost a
 * check of one variable: nothing of OpenTelemetry is loaded, no span object is made. On when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set (the SDK and the OTLP/HTTP exporter load with the first
 * request), or when a tracer provider is given (`useTracerProvider`, as tests do).
 *
 * The current span rides an AsyncLocalStorage of our own rather than OpenTelemetry's context
 * manager, so that no global registration is needed and a run carried on after its request's
 * response (or a delegate's run inside a tool call) still finds its parent.
 */
type Api = typeof import('@opentelemetry/api');

let active: { api: Api; tracer: Tracer; flush?: () => Promise<void> } | undefined;
let starting: Promise<void> | undefined;
const current = new AsyncLocalStorage<Span>();

/** A started span, or nothing when tracing is off. */
export interface TraceSpan {
  set(attributes: Attributes): void;
  rename(name: string): void;
  /** Ends the span; with an error, marked as failed with its message. */
  end(error?: unknown): void;
  /** Runs `work` with this span as the parent of the spans it starts. */
  within<T>(work: () => T): T;
}

const NO_SPAN: TraceSpan = { set() {}, rename() {}, end() {}, within: (work) => work() };

/** Tests (and embedders) give their own provider; `undefined` turns tracing off again. */
export async function useTracerProvider(provider: TracerProvider | undefined): Promise<void> {
  starting = undefined;
  active = provider ? { api: await import('@opentelemetry/api'), tracer: provider.getTracer('zero') } : undefined;
}

/** Whether spans are being made, starting OpenTelemetry first when the endpoint is set and it has not started yet. */
export async function tracingOn(): Promise<boolean> {
  if (active) return true;
  if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT) return false;
  await (starting ??= startOtlp());
  return active !== undefined;
}

/** Sends what spans have ended; a Lambda invocation calls this before it may be frozen. */
export async function flushTraces(): Promise<void> {
  await active?.flush?.();
}

async function startOtlp(): Promise<void> {
  const [api, { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  // The exporter reads OTEL_EXPORTER_OTLP_ENDPOINT (and _HEADERS) itself and posts to <endpoint>/v1/traces.
  const exporter = new OTLPTraceExporter();
  // A Lambda instance is frozen between invocations, and a batch's timer with it: there each span is sent as it ends.
  const processor = process.env.AWS_LAMBDA_FUNCTION_NAME ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? 'zero' }),
    spanProcessors: [processor],
  });
  active = { api, tracer: provider.getTracer('zero'), flush: () => provider.forceFlush() };
}

/** Starts a span under `parent` (by default the current one). Nothing when tracing is off. */
export function startSpan(name: string, attributes: Attributes = {}, options: { parent?: TraceSpan; kind?: 'server' | 'client' | 'internal' } = {}): TraceSpan {
  if (!active) return NO_SPAN;
  const { api, tracer } = active;
  const parentSpan = options.parent instanceof Handle ? options.parent.span : current.getStore();
  const context = parentSpan ? api.trace.setSpan(api.ROOT_CONTEXT, parentSpan) : api.ROOT_CONTEXT;
  const kind = options.kind === 'server' ? api.SpanKind.SERVER : options.kind === 'client' ? api.SpanKind.CLIENT : api.SpanKind.INTERNAL;
  return new Handle(api, tracer.startSpan(name, { kind, attributes }, context));
}

/** Runs `work` in a span of its own (a child of the current one), ended when it settles. */
export async function inSpan<T>(name: string, attributes: Attributes, work: (span: TraceSpan) => Promise<T>, options: { parent?: TraceSpan; kind?: 'server' | 'client' | 'internal' } = {}): Promise<T> {
  if (!active) return work(NO_SPAN);
  const span = startSpan(name, attributes, options);
  try {
    const result = await span.within(() => work(span));
    span.end();
    return result;
  } catch (error) {
    span.end(error);
    throw error;
  }
}

class Handle implements TraceSpan {
  constructor(
    private readonly api: Api,
    readonly span: Span,
  ) {}
  set(attributes: Attributes): void {
    this.span.setAttributes(attributes);
  }
  rename(name: string): void {
    this.span.updateName(name);
  }
  end(error?: unknown): void {
    if (error !== undefined) {
      // The error's kind only: a message may quote what a tool or model was given.
      this.span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: (error as Error)?.name ?? 'Error' });
      this.span.setAttribute('error.type', (error as Error)?.name ?? 'Error');
    }
    this.span.end();
  }
  within<T>(work: () => T): T {
    return current.run(this.span, work);
  }
}

import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { inSpan, startSpan, tracingOn, useTracerProvider } from './traces';

afterEach(() => useTracerProvider(undefined));

describe('traces', () => {
  it('off (no endpoint, no provider): work runs and no span exists', async () => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    expect(await tracingOn()).toBe(false);
    expect(await inSpan('run', {}, async () => 42)).toBe(42);
    const span = startSpan('step');
    expect(() => {
      span.set({ a: 1 });
      span.end(new Error('x'));
    }).not.toThrow();
  });

  it('nests spans across awaits and marks a failure by its kind only, never its message', async () => {
    const exporter = new InMemorySpanExporter();
    await useTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    expect(await tracingOn()).toBe(true);
    await inSpan('run', { 'zero.run_id': 'r1' }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      await inSpan('tool', {}, async () => undefined);
      await inSpan('model', {}, async () => {
        throw new TypeError('secret sk-ant-123 in a message');
      }).catch(() => undefined);
    });
    const spans = exporter.getFinishedSpans();
    const byName = Object.fromEntries(spans.map((s) => [s.name, s]));
    expect(Object.keys(byName).sort()).toEqual(['model', 'run', 'tool']);
    expect(byName.tool!.parentSpanContext?.spanId).toBe(byName.run!.spanContext().spanId);
    expect(byName.model!.parentSpanContext?.spanId).toBe(byName.run!.spanContext().spanId);
    expect(byName.model!.status).toMatchObject({ code: 2, message: 'TypeError' });
    expect(JSON.stringify(byName.model!.attributes)).not.toContain('sk-ant');
    expect(byName.run!.attributes['zero.run_id']).toBe('r1');
  });

  it('a span started with an explicit parent hangs under it even outside its work', async () => {
    const exporter = new InMemorySpanExporter();
    await useTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    const request = startSpan('request', {}, { kind: 'server' });
    const carriedOn = startSpan('run', {}, { parent: request });
    carriedOn.end();
    request.end();
    const [run, req] = exporter.getFinishedSpans();
    expect(run!.parentSpanContext?.spanId).toBe(req!.spanContext().spanId);
  });
});

import { streamHandle } from 'hono/aws-lambda';
import { createRuntime, runtimeConfigFromEnv } from '@zero/core';
import { createApp } from './http/app';

// Built once per cold start and reused by warm invocations (the agent catalog caches by ETag).
const runtime = createRuntime(
  runtimeConfigFromEnv(process.env, { table: process.env.ZERO_TABLE ?? 'zero', bucket: process.env.ZERO_BUCKET ?? 'zero' }),
);

/** The API function behind the Lambda function URL, streaming responses. */
export const handler = streamHandle(createApp(runtime));

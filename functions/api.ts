import { streamHandle } from 'hono/aws-lambda';
import { createApp } from './http/app';
import { lambdaRuntime } from './runtime';

// Built once per cold start and reused by warm invocations (the agent catalog caches by ETag).
const runtime = lambdaRuntime();

/** The API function behind the Lambda function URL, streaming responses. */
export const handler = streamHandle(createApp(runtime));

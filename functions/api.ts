import { streamHandle } from 'hono/aws-lambda';
import { createRuntime, runtimeConfigFromEnv } from '@zero/core';
import { deploymentFromEnv } from './deployment';
import { createApp } from './http/app';

// Built once per cold start and reused by warm invocations (the agent catalog caches by ETag).
const deployment = deploymentFromEnv(process.env);
const runtime = createRuntime(runtimeConfigFromEnv({ ...process.env, ANTHROPIC_API_KEY: deployment.anthropicApiKey }, deployment.store));

/** The API function behind the Lambda function URL, streaming responses. */
export const handler = streamHandle(createApp(runtime));

import { SqsRunQueue } from '@zero/runtime/sessions/sqs-queue';
import { createRuntime, runtimeConfigFromEnv, type Runtime } from './create-runtime';
import { deploymentFromEnv } from './deployment';

/**
 * The runtime of a Lambda function, built once per cold start and reused by
 * warm invocations: stores and names from SST's links, background runs on
 * the linked SQS queue (in-process when none is linked).
 */
export function lambdaRuntime(env: Record<string, string | undefined> = process.env): Runtime {
  const deployment = deploymentFromEnv(env);
  const config = runtimeConfigFromEnv({ ...env, ...deployment.schedulerEnv, ...deployment.sandboxEnv, ...deployment.vaultEnv, ANTHROPIC_API_KEY: deployment.anthropicApiKey }, deployment.store);
  return createRuntime({
    ...config,
    ...(deployment.queueUrl ? { queue: new SqsRunQueue(deployment.queueUrl, { endpoint: env.ZERO_SQS_ENDPOINT || undefined }) } : {}),
  });
}

import { Resource } from 'sst/resource';
import type { StoreConfig } from '@zero/runtime/store/clients';

/** What a Lambda entry needs from its deployment: where the stores are and the model key. */
export interface Deployment {
  store: StoreConfig;
  anthropicApiKey?: string;
  /** The SQS queue of background runs; without one, runs stay in-process (the local stack). */
  queueUrl?: string;
  /** EventBridge Scheduler's group and role for schedules, and the queue they fire into, as the environment names them. */
  schedulerEnv: Record<string, string>;
  /** The sandbox function commands run in (`ZERO_SANDBOX_FUNCTION`), linked as `ZeroSandbox`. */
  sandboxEnv: Record<string, string>;
  /** The KMS key vault credentials are sealed with (`ZERO_VAULT_KMS_KEY`), linked as `ZeroVaultKey`. */
  vaultEnv: Record<string, string>;
}

/**
 * Reads the deployment from SST's links (`Resource`, set up by `sst deploy`)
 * and falls back to the environment where nothing is linked: the local stack,
 * the tests, or a deployment made without SST. `ZERO_DYNAMODB_ENDPOINT` and
 * `ZERO_S3_ENDPOINT` point the real clients at DynamoDB- and S3-compatible
 * servers; in AWS they are unset.
 */
export function deploymentFromEnv(env: Record<string, string | undefined>): Deployment {
  // `in` asks the links without throwing when SST has not linked anything.
  const linked = 'ZeroTable' in Resource;
  return {
    store: {
      table: linked ? Resource.ZeroTable.name : env.ZERO_TABLE || 'zero',
      bucket: linked ? Resource.ZeroBucket.name : env.ZERO_BUCKET || 'zero',
      dynamoEndpoint: env.ZERO_DYNAMODB_ENDPOINT || undefined,
      s3Endpoint: env.ZERO_S3_ENDPOINT || undefined,
    },
    queueUrl: ('ZeroRunQueue' in Resource ? Resource.ZeroRunQueue.url : undefined) || env.ZERO_QUEUE_URL || undefined,
    // Linked as `ZeroSchedules` (sst.config.ts); elsewhere the ZERO_SCHEDULE_GROUP, ZERO_SCHEDULER_ROLE_ARN and ZERO_RUN_QUEUE_ARN variables, read by the runtime.
    schedulerEnv:
      'ZeroSchedules' in Resource
        ? { ZERO_SCHEDULE_GROUP: Resource.ZeroSchedules.group, ZERO_SCHEDULER_ROLE_ARN: Resource.ZeroSchedules.roleArn, ZERO_RUN_QUEUE_ARN: Resource.ZeroSchedules.queueArn }
        : {},
    sandboxEnv: 'ZeroSandbox' in Resource ? { ZERO_SANDBOX_FUNCTION: Resource.ZeroSandbox.name } : {},
    vaultEnv: 'ZeroVaultKey' in Resource ? { ZERO_VAULT_KMS_KEY: Resource.ZeroVaultKey.arn } : {},
    anthropicApiKey: ('AnthropicApiKey' in Resource ? Resource.AnthropicApiKey.value : undefined) || env.ANTHROPIC_API_KEY || undefined,
  };
}

/// <reference path="./.sst/platform/config.d.ts" />

/**
 * Zero on AWS: one DynamoDB table, one S3 bucket, the Anthropic key as a
 * secret, and the API function streaming through a Lambda function URL.
 *
 * The worker and its queue (durable runs) are declared here when that code
 * exists; nothing is deployed for code that has not been written.
 */
const LAMBDA_ASSUME_ROLE_POLICY = {
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'lambda.amazonaws.com' } }],
};

/** What Lambda needs of a VPC function's role to manage its network interfaces; nothing else. */
const SANDBOX_NETWORK_POLICY = {
  Version: '2012-10-17',
  Statement: [
    {
      Effect: 'Allow',
      Action: ['ec2:CreateNetworkInterface', 'ec2:DescribeNetworkInterfaces', 'ec2:DescribeSubnets', 'ec2:DeleteNetworkInterface', 'ec2:AssignPrivateIpAddresses', 'ec2:UnassignPrivateIpAddresses'],
      Resource: '*',
    },
  ],
};

export default $config({
  app(input) {
    return {
      name: 'zero',
      home: 'aws',
      // Sessions and files outlive a production stage that is torn down by mistake.
      removal: input?.stage === 'production' ? 'retain' : 'remove',
      protect: input?.stage === 'production',
    };
  },
  async run() {
    // The single table of SessionStore: `pk`/`sk` strings. `gsi1` (a user's
    // sessions) and the `expires_at` TTL (idempotency keys) are for
    // sessions-and-leases work; declared now so that lands without a table
    // replacement. On demand: nothing is billed at rest but storage.
    const table = new sst.aws.Dynamo('Table', {
      fields: { pk: 'string', sk: 'string', gsi1pk: 'string', gsi1sk: 'string' },
      primaryIndex: { hashKey: 'pk', rangeKey: 'sk' },
      globalIndexes: { gsi1: { hashKey: 'gsi1pk', rangeKey: 'gsi1sk' } },
      ttl: 'expires_at',
    });

    // agents/ and projects/<id>/…: private (SST blocks all public access unless
    // `access` is set) and encrypted at rest with S3-managed keys, stated
    // explicitly rather than left to the account default.
    // SST's own CORS rules (any origin, every method) are off: the one rule the
    // console needs is declared below, once the API's URL is known.
    const bucket = new sst.aws.Bucket('Storage', { cors: false });
    new aws.s3.BucketServerSideEncryptionConfiguration('StorageEncryption', {
      bucket: bucket.name,
      rules: [{ applyServerSideEncryptionByDefault: { sseAlgorithm: 'AES256' }, bucketKeyEnabled: true }],
    });
    // Archives sent straight to S3 wait under uploads/ until completed (then deleted); one never completed
    // is expired a day later (a completion is taken for an hour only).
    new aws.s3.BucketLifecycleConfiguration('StorageStagedUploads', {
      bucket: bucket.name,
      rules: [{ id: 'expire-staged-uploads', status: 'Enabled', filter: { prefix: 'uploads/' }, expiration: { days: 1 }, abortIncompleteMultipartUpload: { daysAfterInitiation: 1 } }],
    });

    // Claude on Bedrock (see docs/providers.md, Bedrock): the functions may invoke, streaming, the
    // models and inference profiles named at deploy time in ZERO_BEDROCK_MODEL_IDS, and nothing else.
    // An inference profile (`us.anthropic.…`, `global.anthropic.…`) routes to its foundation model
    // in the regions it spans: that model is granted in any region, through the profile only.
    const bedrockModelIds = (process.env.ZERO_BEDROCK_MODEL_IDS ?? '').split(',').map((id) => id.trim()).filter(Boolean);
    const region = aws.getRegionOutput().region;
    const account = aws.getCallerIdentityOutput().accountId;
    const bedrockResources = bedrockModelIds.flatMap((id) => {
      const profile = /^(us|eu|apac|jp|au|ca|us-gov|global)\./.exec(id);
      if (!profile) return [$interpolate`arn:aws:bedrock:${region}::foundation-model/${id}`];
      return [$interpolate`arn:aws:bedrock:${region}:${account}:inference-profile/${id}`, `arn:aws:bedrock:*::foundation-model/${id.slice(profile[0].length)}`];
    });
    const bedrock = bedrockResources.length ? { permissions: [{ actions: ['bedrock:InvokeModelWithResponseStream'], resources: bedrockResources }] } : {};

    // No Anthropic key is needed when every agent runs on Bedrock: it may then be left unset.
    const anthropicApiKey = new sst.Secret('AnthropicApiKey', bedrockModelIds.length ? '' : undefined);

    // What the handlers see as `Resource.ZeroTable` / `Resource.ZeroBucket`,
    // with exactly the actions the stores send. Linking the components
    // themselves would grant `dynamodb:*` and `s3:*`.
    const zeroTable = new sst.Linkable('ZeroTable', {
      properties: { name: table.name },
      include: [
        sst.aws.permission({
          // DeleteItem and BatchWriteItem: inbox entries, memberships, API keys and session deletion.
          actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:Query'],
          resources: [table.arn],
        }),
        // A user's sessions are listed through the `gsi1` index.
        sst.aws.permission({ actions: ['dynamodb:Query'], resources: [$interpolate`${table.arn}/index/gsi1`] }),
      ],
    });
    const zeroBucket = new sst.Linkable('ZeroBucket', {
      properties: { name: bucket.name },
      include: [
        sst.aws.permission({ actions: ['s3:ListBucket'], resources: [bucket.arn] }),
        sst.aws.permission({
          actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
          resources: [$interpolate`${bucket.arn}/*`],
        }),
      ],
    });

    // Vault credentials (docs/api/vaults.md): each secret is sealed with a data key of its own, and
    // the data key is wrapped by this key (envelope encryption) under the credential's ids as the
    // encryption context. The functions may encrypt and decrypt with it and do nothing else; yearly
    // rotation keeps every earlier wrapping opening.
    const vaultKey = new aws.kms.Key('VaultKey', { description: 'Zero: wraps the data keys of vault credentials', enableKeyRotation: true, deletionWindowInDays: 30 });
    const zeroVaultKey = new sst.Linkable('ZeroVaultKey', {
      properties: { arn: vaultKey.arn },
      include: [sst.aws.permission({ actions: ['kms:Encrypt', 'kms:Decrypt'], resources: [vaultKey.arn] })],
    });

    // Background runs: a webhook's investigation, a run handed over near the
    // API function's time limit. At-least-once delivery; a job is idempotent
    // (driving a finished session does nothing). The visibility timeout covers
    // the worker's 15 minutes so a job is not delivered twice while it runs;
    // a job that fails five times goes to the dead-letter queue for a look.
    const deadLetters = new sst.aws.Queue('RunJobsDeadLetters');
    const runJobs = new sst.aws.Queue('RunJobs', { visibilityTimeout: '15 minutes', dlq: { queue: deadLetters.arn, retry: 5 } });
    const zeroQueue = new sst.Linkable('ZeroRunQueue', {
      properties: { url: runJobs.url },
      include: [sst.aws.permission({ actions: ['sqs:SendMessage'], resources: [runJobs.arn] })],
    });

    // Schedules: each is an EventBridge Scheduler schedule in Zero's own group,
    // created, changed and deleted by the functions as administrators manage
    // schedules (the cron and time zone live in the bucket, so a new schedule
    // needs no deployment). It fires by putting a `schedule_fire` job on the
    // run queue, sent with a role that may do that and nothing else; a firing
    // sent twice starts nothing twice (each (schedule, time) is claimed with a
    // conditional put). The functions may manage the group's schedules only,
    // and hand over that role to EventBridge Scheduler only.
    const scheduleGroup = new aws.scheduler.ScheduleGroup('Schedules');
    const schedulerRole = new aws.iam.Role('SchedulerRole', {
      assumeRolePolicy: $jsonStringify({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'scheduler.amazonaws.com' }, Condition: { StringEquals: { 'aws:SourceAccount': account } } }],
      }),
      inlinePolicies: [
        { name: 'send-schedule-fires', policy: $jsonStringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: runJobs.arn }] }) },
      ],
    });
    const zeroSchedules = new sst.Linkable('ZeroSchedules', {
      properties: { group: scheduleGroup.name, roleArn: schedulerRole.arn, queueArn: runJobs.arn },
      include: [
        sst.aws.permission({
          actions: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
          resources: [$interpolate`arn:aws:scheduler:${region}:${account}:schedule/${scheduleGroup.name}/*`],
        }),
        sst.aws.permission({
          actions: ['iam:PassRole'],
          resources: [schedulerRole.arn],
          conditions: [{ test: 'StringEquals', variable: 'iam:PassedToService', values: ['scheduler.amazonaws.com'] }],
        }),
      ],
    });


    // The sandbox function (the `lambda` kind of environment, see docs/environments.md): every
    // run_command and bash command runs here, never in the API or the worker. Its role may only attach
    // it to its network, it has no link and no secret, so a command that breaks its limits finds
    // nothing to use; Firecracker is the boundary.
    //
    // Its network leads nowhere: a VPC of its own with no internet gateway, no NAT, no endpoint (so
    // no path to the table, the bucket or any AWS API), the VPC's DNS resolver off (security groups
    // do not filter DNS, a channel out), and a security group with no rule at all. Inside it, every
    // command runs under sandbox-exec (no socket but AF_UNIX: not even the Lambda Runtime API on
    // loopback, which would hand it the next invocation, another session's) and the runtime is
    // non-dumpable (nodump.so), so no command reaches into it. Both are built for arm64 into the
    // bundle by scripts/build-sandbox-exec.sh (it needs gcc-aarch64-linux-gnu on an x86_64 machine).
    const sandboxVpc = new aws.ec2.Vpc('SandboxVpc', { cidrBlock: '10.200.0.0/24', enableDnsSupport: false, enableDnsHostnames: false, tags: { Name: `${$app.name}-${$app.stage}-sandbox` } });
    const zones = aws.getAvailabilityZonesOutput({ state: 'available' }).names;
    const sandboxSubnets = [0, 1].map(
      (i) => new aws.ec2.Subnet(`SandboxSubnet${i}`, { vpcId: sandboxVpc.id, cidrBlock: `10.200.0.${i * 128}/25`, availabilityZone: zones.apply((names) => names[i]!), mapPublicIpOnLaunch: false }),
    );
    const sandboxSecurityGroup = new aws.ec2.SecurityGroup('SandboxSecurityGroup', {
      vpcId: sandboxVpc.id,
      description: 'The sandbox function: nothing in, nothing out',
      // Empty lists, not absent ones: AWS gives a new group an allow-all egress rule, which these remove.
      ingress: [],
      egress: [],
    });
    const sandboxFunction = new sst.aws.Function('Sandbox', {
      handler: 'functions/sandbox.handler',
      environment: {
        // An execution environment's processes are this function's alone: after each command, kill
        // every process the runtime did not start with, so none runs on into the next invocation.
        // Every command starts under sandbox-exec, and the runtime is non-dumpable (the handler refuses
        // commands where it cannot run the one or the other is missing). The reaper and the preload
        // are left out under `sst dev`, where the function runs on the developer's machine among
        // their own processes: there, with no /var/task/sandbox-exec, it refuses every command.
        ...($dev ? {} : { ZERO_SANDBOX_REAP: '1', LD_PRELOAD: '/var/task/nodump.so' }),
        ZERO_SANDBOX_EXEC: '/var/task/sandbox-exec',
      },
      runtime: 'nodejs22.x',
      architecture: 'arm64',
      // 2048 MB (~1.2 vCPU): test suites and builds are CPU-bound; docs/environments.md prices a command at this size.
      memory: '2048 MB',
      timeout: '5 minutes',
      logging: false,
      vpc: { privateSubnets: sandboxSubnets.map((subnet) => subnet.id), securityGroups: [sandboxSecurityGroup.id] },
      hook: {
        async postbuild(dir: string) {
          const { execFileSync } = await import('node:child_process');
          const { copyFileSync } = await import('node:fs');
          const built = execFileSync('scripts/build-sandbox-exec.sh', ['arm64'], { encoding: 'utf8' }).trim();
          for (const file of ['sandbox-exec', 'nodump.so']) copyFileSync(`${built}/${file}`, `${dir}/${file}`);
        },
      },
      transform: {
        role: (role: aws.iam.RoleArgs) => {
          if (!$dev) role.assumeRolePolicy = JSON.stringify(LAMBDA_ASSUME_ROLE_POLICY);
          // Not AWSLambdaVPCAccessExecutionRole (it adds logs): only what Lambda needs to place the
          // function's network interfaces in the subnets. No command can use these credentials:
          // the runtime holding them is non-dumpable, and nothing in the VPC reaches the EC2 API.
          role.managedPolicyArns = [];
          role.inlinePolicies = [{ name: 'network-interfaces', policy: JSON.stringify(SANDBOX_NETWORK_POLICY) }];
        },
      },
    });
    const zeroSandbox = new sst.Linkable('ZeroSandbox', {
      properties: { name: sandboxFunction.name },
      include: [sst.aws.permission({ actions: ['lambda:InvokeFunction'], resources: [sandboxFunction.arn] })],
    });

    // What both functions share: runtime, size, links and logs.
    const shared = {
      runtime: 'nodejs22.x',
      // Pure JavaScript: Graviton is ~20% cheaper per GB-second at equal speed.
      architecture: 'arm64',
      // A run may take ZERO_RUN_TIMEOUT_MS (14 min by default) and must then
      // still persist its last records and close the stream: 15 minutes is
      // both Lambda's and a streamed function URL's ceiling.
      timeout: '15 minutes',
      // Billed for the whole stream, mostly spent waiting on the model, so
      // memory multiplies cost; but CPU scales with memory, and at 1024 MB
      // (~0.6 vCPU) module init and SSE encoding stay quick. 512 MB would
      // nearly double the cold start for a small saving.
      memory: '1024 MB',
      link: [zeroTable, zeroBucket, anthropicApiKey, zeroQueue, zeroSchedules, zeroSandbox, zeroVaultKey],
      // Code behind import() (the agent parser's YAML library, tools' heavy
      // dependencies) goes into chunks loaded on first use, not at cold start;
      // the AWS SDK is bundled (SST's default): see bench/bundle-function.ts.
      // render_report's fonts are read from their package at run time: installed beside the bundle, not bundled.
      nodejs: { splitting: true, install: ['dejavu-fonts-ttf'] },
      logging: { retention: '1 month', format: 'json' },
      ...bedrock,
      transform: {
        role: (role: aws.iam.RoleArgs) => {
          // SST lets the account's root assume every function role (the bridge
          // of `sst dev` needs it); a deployed function needs only Lambda.
          if (!$dev) role.assumeRolePolicy = JSON.stringify(LAMBDA_ASSUME_ROLE_POLICY);
        },
      },
    } satisfies Partial<sst.aws.FunctionArgs>;

    // esbuild writes a chunk per set of modules its entry points share: the API's cold start read
    // about a hundred files. Once SST has built a function, the ones loaded at init become one file.
    const mergedAtInit = (file: string) => ({
      postbuild: async (dir: string) => {
        const { mergeInitChunks } = await import('./scripts/merge-init-chunks.mjs');
        await mergeInitChunks(`${dir}/${file}`);
      },
    });

    const api = new sst.aws.Function('Api', { ...shared, handler: 'functions/api.handler', hook: mergedAtInit('functions/api.mjs'), url: true, streaming: true });

    // The console, served by the API function at its URL, sends an archive too large for a request
    // body straight to the bucket (a presigned form POST). A browser does that only if the bucket
    // allows it: POST, from the console's origin, and nothing else. The form's signed policy still
    // decides what may be written; this rule only lets the browser send it and read S3's answer.
    new aws.s3.BucketCorsConfiguration('StorageConsoleUploads', {
      bucket: bucket.name,
      corsRules: [{ allowedMethods: ['POST'], allowedOrigins: [api.url.apply((url) => new URL(url).origin)] }],
    });

    // The worker: one job per invocation (a job may run for minutes), failures
    // reported per message so a poison job does not redeliver the others.
    runJobs.subscribe({ ...shared, handler: 'functions/worker.handler', hook: mergedAtInit('functions/worker.mjs') }, { batch: { size: 1, partialResponses: true } });

    // `bucket`: where to upload agents/ (see docs/deploy-aws.md).
    return { api: api.url, bucket: bucket.name };
  },
});

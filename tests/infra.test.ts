import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateSstProgram, type EvaluatedProgram, type RegisteredResource } from './support/sst-program';

/** sst.config.ts evaluated by SST's own components under Pulumi's unit-test mocks. */
describe('the SST program', () => {
  let program: EvaluatedProgram;
  beforeAll(async () => {
    program = await evaluateSstProgram('test');
  }, 180_000);

  const one = (type: string) => {
    const found = program.resources.filter((r) => r.type === type);
    expect(found, `exactly one ${type}`).toHaveLength(1);
    return found[0]!;
  };
  const named = (type: string, name: string) => {
    const found = program.resources.filter((r) => r.type === type && r.name === name);
    expect(found, `exactly one ${type} named ${name}`).toHaveLength(1);
    return found[0]!;
  };
  const sandboxFunction = () => program.resources.find((r) => r.type === 'aws:lambda/function:Function' && r.inputs.handler === 'functions/sandbox.handler')!;
  const worker = () => program.resources.find((r) => r.type === 'aws:lambda/function:Function' && r.inputs.handler === 'functions/worker.handler')!;
  const policy = (json: string) => JSON.parse(json) as { Statement: { Effect: string; Action: string | string[]; Resource?: string | string[]; Principal?: unknown; Condition?: unknown }[] };
  const list = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

  it('outputs the function URL of the API and the bucket to upload agents to', () => {
    const url = one('aws:lambda/functionUrl:FunctionUrl');
    expect(program.outputs.api).toBe('https://mockurlid.lambda-url.us-east-1.on.aws/');
    expect(program.outputs.bucket).toBe(one('aws:s3/bucket:Bucket').inputs.bucket);
    expect(url.inputs.invokeMode).toBe('RESPONSE_STREAM');
    // Public, as the API is; who may do what is decided inside the app.
    expect(url.inputs.authorizationType).toBe('NONE');
  });

  it('declares the API function: Node 22 on arm64, 15 minutes, 1 GB, and no secret in its environment', () => {
    const fn = named('aws:lambda/function:Function', 'ApiFunction');
    expect(fn.inputs).toMatchObject({ runtime: 'nodejs22.x', architectures: ['arm64'], timeout: 900, memorySize: 1024, handler: 'functions/api.handler' });
    const env = fn.inputs.environment.variables as Record<string, string>;
    // Links travel encrypted in resource.enc; the environment holds only the key to it.
    expect(Object.keys(env).sort()).toEqual(['SST_KEY', 'SST_KEY_FILE', 'SST_RESOURCE_App']);
    expect(JSON.stringify(fn.inputs)).not.toContain('sk-ant-mock');
    expect(fn.inputs.loggingConfig).toMatchObject({ logFormat: 'JSON' });
    const logGroups = program.resources.filter((r) => r.type === 'aws:cloudwatch/logGroup:LogGroup');
    expect(logGroups.map((g) => g.inputs.retentionInDays)).toEqual([30, 30]); // the sandbox function keeps no logs
  });

  it('builds functions/api.ts with the table, the bucket and the key linked under the names the handler reads', () => {
    expect(program.builds.map((b) => b.functionID).sort()).toEqual(['Api', expect.stringMatching(/^RunJobsSubscriber/), 'Sandbox']);
    const build = program.builds.find((b) => b.functionID === 'Api')!;
    // Split at import(), so what a request may not need loads on first use.
    expect(build.properties).toMatchObject({ splitting: true, architecture: 'arm64' });
    expect(build.files).toContain('functions/api.mjs');
    expect(build.files.some((file) => file.startsWith('functions/chunks/'))).toBe(true);
    const table = one('aws:dynamodb/table:Table');
    const bucket = one('aws:s3/bucket:Bucket');
    expect(build.links).toMatchObject({
      ZeroTable: { name: table.inputs.name },
      ZeroBucket: { name: bucket.inputs.bucket },
      AnthropicApiKey: { value: 'sk-ant-mock' },
      // The handler reads it as ZERO_VAULT_KMS_KEY (functions/deployment.ts).
      ZeroVaultKey: { arn: 'arn:aws:kms:us-east-1:123456789012:vaultkey-mock' },
    });
    expect(Object.keys(build.links).sort()).toEqual(['AnthropicApiKey', 'ZeroBucket', 'ZeroRunQueue', 'ZeroSandbox', 'ZeroSchedules', 'ZeroTable', 'ZeroVaultKey']);
    expect(program.builds.find((b) => b.functionID.startsWith('RunJobsSubscriber'))!.files).toContain('functions/worker.mjs');
  });

  it('declares the run queue with a dead-letter queue, and the worker reading it one job at a time with partial failures', () => {
    const queue = named('aws:sqs/queue:Queue', 'RunJobsQueue').inputs;
    const dead = named('aws:sqs/queue:Queue', 'RunJobsDeadLettersQueue').inputs;
    expect(queue.visibilityTimeoutSeconds).toBe(900);
    expect(JSON.parse(queue.redrivePolicy)).toEqual({ deadLetterTargetArn: `arn:aws:sqs:us-east-1:123456789012:${dead.name}`, maxReceiveCount: 5 });
    const mapping = one('aws:lambda/eventSourceMapping:EventSourceMapping').inputs;
    expect(mapping).toMatchObject({ batchSize: 1, functionResponseTypes: ['ReportBatchItemFailures'], eventSourceArn: `arn:aws:sqs:us-east-1:123456789012:${queue.name}` });
    expect(worker().inputs).toMatchObject({ runtime: 'nodejs22.x', architectures: ['arm64'], timeout: 900, memorySize: 1024 });
    expect(JSON.stringify(worker().inputs)).not.toContain('sk-ant-mock');
  });

  it('declares the table with the store keys, gsi1 and the expires_at TTL, billed on demand', () => {
    const table = one('aws:dynamodb/table:Table').inputs;
    expect(table).toMatchObject({ hashKey: 'pk', rangeKey: 'sk', billingMode: 'PAY_PER_REQUEST', ttl: { attributeName: 'expires_at', enabled: true } });
    expect(table.attributes).toEqual(
      expect.arrayContaining(['pk', 'sk', 'gsi1pk', 'gsi1sk'].map((name) => ({ name, type: 'S' }))),
    );
    expect(table.attributes).toHaveLength(4);
    expect(table.globalSecondaryIndexes).toEqual([{ name: 'gsi1', hashKey: 'gsi1pk', rangeKey: 'gsi1sk', projectionType: 'ALL' }]);
  });

  it("keeps the bucket private, encrypted and TLS-only, its one CORS rule letting only the console's origin POST", () => {
    const bucket = one('aws:s3/bucket:Bucket').inputs.bucket;
    expect(one('aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock').inputs).toEqual({
      bucket,
      blockPublicAcls: true,
      blockPublicPolicy: true,
      ignorePublicAcls: true,
      restrictPublicBuckets: true,
    });
    expect(one('aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration').inputs).toMatchObject({
      bucket,
      rules: [{ applyServerSideEncryptionByDefault: { sseAlgorithm: 'AES256' } }],
    });
    const statements = policy(one('aws:s3/bucketPolicy:BucketPolicy').inputs.policy).Statement;
    expect(statements.every((s) => s.Effect === 'Deny')).toBe(true);
    expect(statements).toContainEqual(expect.objectContaining({ Condition: { Bool: { 'aws:SecureTransport': ['false'] } } }));
    // The console (served at the API's function URL) posts large archives straight to the bucket: exactly POST, from exactly that origin.
    const cors = program.resources.filter((r) => /bucketCorsConfiguration/i.test(r.type));
    expect(cors.map((r) => r.type)).toEqual(['aws:s3/bucketCorsConfiguration:BucketCorsConfiguration']);
    expect(cors[0]!.inputs).toEqual({ bucket, corsRules: [{ allowedMethods: ['POST'], allowedOrigins: ['https://mockurlid.lambda-url.us-east-1.on.aws'] }] });
  });

  it('gives each function role exactly the actions it sends, on the table, the bucket, the queue, the schedules and the sandbox function only', () => {
    const table = one('aws:dynamodb/table:Table').inputs.name as string;
    const bucket = one('aws:s3/bucket:Bucket').inputs.bucket as string;
    const queue = named('aws:sqs/queue:Queue', 'RunJobsQueue').inputs.name as string;
    const grantsOf = (role: RegisteredResource) => {
      expect(policy(role.inputs.assumeRolePolicy).Statement).toEqual([
        { Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'lambda.amazonaws.com' } },
      ]);
      expect(role.inputs.managedPolicyArns).toEqual(['arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole']);
      const grants = role.inputs.inlinePolicies.flatMap((p: { policy: string }) => policy(p.policy).Statement);
      expect(grants.every((s: { Effect: string }) => s.Effect === 'Allow')).toBe(true);
      expect(grants.flatMap((s: { Action: string | string[] }) => list(s.Action)).some((a: string) => a.includes('*'))).toBe(false);
      const byResource: Record<string, string[]> = {};
      for (const s of grants as ReturnType<typeof policy>['Statement']) {
        const key = list(s.Resource).join(',');
        byResource[key] = [...(byResource[key] ?? []), ...list(s.Action)].sort();
      }
      return byResource;
    };
    const stores = {
      [`arn:aws:dynamodb:us-east-1:123456789012:table/${table}`]: [
        'dynamodb:BatchWriteItem',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ],
      [`arn:aws:dynamodb:us-east-1:123456789012:table/${table}/index/gsi1`]: ['dynamodb:Query'],
      [`arn:aws:s3:::${bucket}`]: ['s3:ListBucket'],
      [`arn:aws:s3:::${bucket}/*`]: ['s3:DeleteObject', 's3:GetObject', 's3:PutObject'],
    };
    const queueArn = `arn:aws:sqs:us-east-1:123456789012:${queue}`;
    // Both run commands in the sandbox function, and may invoke that function only.
    const sandbox = { [`arn:aws:lambda:us-east-1:123456789012:function:${sandboxFunction().inputs.name}`]: ['lambda:InvokeFunction'] };
    // Both seal and open vault credentials' data keys with Zero's own KMS key, and do nothing else with it.
    const vaultKey = named('aws:kms/key:Key', 'VaultKey');
    expect(vaultKey.inputs).toMatchObject({ enableKeyRotation: true });
    const vault = { 'arn:aws:kms:us-east-1:123456789012:vaultkey-mock': ['kms:Decrypt', 'kms:Encrypt'] };
    // Both manage the schedules of Zero's own group (the API as administrators change them, the worker
    // when one pauses itself), and may hand EventBridge Scheduler its role, to no other service.
    const schedules = {
      'arn:aws:scheduler:us-east-1:123456789012:schedule/schedules-mock/*': ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule', 'scheduler:UpdateSchedule'],
      'arn:aws:iam::123456789012:role/schedulerrole-mock': ['iam:PassRole'],
    };
    // The API only sends jobs (a handover, a webhook).
    const apiRole = named('aws:iam/role:Role', 'ApiRole');
    expect(grantsOf(apiRole)).toEqual({ ...stores, ...schedules, ...sandbox, ...vault, [queueArn]: ['sqs:SendMessage'] });
    // The worker consumes them, and sends one when its own run hands over.
    const workerRole = program.resources.find((r) => r.type === 'aws:iam/role:Role' && r.name.startsWith('RunJobsSubscriber'))!;
    expect(grantsOf(workerRole)).toEqual({
      ...stores,
      ...schedules,
      ...sandbox,
      ...vault,
      [queueArn]: ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage', 'sqs:SendMessage'],
    });
    for (const role of [apiRole, workerRole]) {
      const passRole = role.inputs.inlinePolicies.flatMap((p: { policy: string }) => policy(p.policy).Statement).find((s: { Action: string | string[] }) => list(s.Action).includes('iam:PassRole'));
      expect(passRole.Condition).toEqual({ StringEquals: { 'iam:PassedToService': ['scheduler.amazonaws.com'] } });
    }
  });

  it('declares the sandbox function with a role that may only place its network interfaces, no link, no secret in its environment, stray processes reaped, commands confined', () => {
    const fn = sandboxFunction();
    expect(fn.inputs).toMatchObject({ runtime: 'nodejs22.x', architectures: ['arm64'], timeout: 300, memorySize: 2048 });
    const env = (fn.inputs.environment?.variables ?? {}) as Record<string, string>;
    // The switch that lets it kill what a command left running (its process table is its own), the
    // seccomp wrapper every command starts under, and the preload that makes the runtime non-dumpable.
    expect(Object.fromEntries(Object.entries(env).filter(([name]) => !['SST_KEY', 'SST_KEY_FILE', 'SST_RESOURCE_App'].includes(name)))).toEqual({
      ZERO_SANDBOX_REAP: '1',
      ZERO_SANDBOX_EXEC: '/var/task/sandbox-exec',
      LD_PRELOAD: '/var/task/nodump.so',
    });
    expect(JSON.stringify(fn.inputs)).not.toContain('sk-ant-mock');
    const build = program.builds.find((b) => b.functionID === 'Sandbox')!;
    expect(build.files).toContain('functions/sandbox.mjs');
    expect(Object.keys(build.links ?? {})).toEqual([]);
    const role = program.resources.find((r) => r.type === 'aws:iam/role:Role' && r.name.startsWith('Sandbox'))!;
    expect(policy(role.inputs.assumeRolePolicy).Statement).toEqual([{ Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'lambda.amazonaws.com' } }]);
    expect(role.inputs.managedPolicyArns ?? []).toEqual([]);
    // Only what Lambda needs to put the function's network interfaces in its subnets: no logs, no data.
    const statements = (role.inputs.inlinePolicies as { policy: string }[]).flatMap((p) => policy(p.policy).Statement);
    expect(statements.flatMap((s) => list(s.Action)).sort()).toEqual([
      'ec2:AssignPrivateIpAddresses',
      'ec2:CreateNetworkInterface',
      'ec2:DeleteNetworkInterface',
      'ec2:DescribeNetworkInterfaces',
      'ec2:DescribeSubnets',
      'ec2:UnassignPrivateIpAddresses',
    ]);
    // No policy is attached to it by any other resource either.
    const attached = program.resources.filter((r) => /rolePolicy|policyAttachment/i.test(r.type) && JSON.stringify(r.inputs).includes(String(role.inputs.name ?? role.name)));
    expect(attached).toEqual([]);
  });

  it('puts the sandbox function in a network with no way out: its own VPC, no gateway, no NAT, no endpoint, no DNS, a security group with no rule', () => {
    const fn = sandboxFunction();
    const vpc = named('aws:ec2/vpc:Vpc', 'SandboxVpc');
    expect(vpc.inputs).toMatchObject({ enableDnsSupport: false, enableDnsHostnames: false });
    const subnets = program.resources.filter((r) => r.type === 'aws:ec2/subnet:Subnet');
    expect(subnets.map((s) => s.name).sort()).toEqual(['SandboxSubnet0', 'SandboxSubnet1']);
    for (const subnet of subnets) expect(subnet.inputs).toMatchObject({ vpcId: 'SandboxVpc-id', mapPublicIpOnLaunch: false });
    expect(new Set(subnets.map((s) => s.inputs.availabilityZone)).size).toBe(2);
    const group = named('aws:ec2/securityGroup:SecurityGroup', 'SandboxSecurityGroup');
    expect(group.inputs).toMatchObject({ vpcId: 'SandboxVpc-id', ingress: [], egress: [] });
    expect(fn.inputs.vpcConfig).toMatchObject({ subnetIds: ['SandboxSubnet0-id', 'SandboxSubnet1-id'], securityGroupIds: ['SandboxSecurityGroup-id'] });
    // Nothing that would give the subnets a route anywhere: no gateway of any kind, no route or
    // route table, no endpoint (DynamoDB, S3 or any other), no peering, no extra rule on the group.
    const routing = program.resources.filter((r) => /^aws:ec2\/(internetGateway|egressOnlyInternetGateway|natGateway|eip|route|routeTable|routeTableAssociation|mainRouteTableAssociation|vpcEndpoint|vpcPeeringConnection|transitGatewayVpcAttachment|securityGroupRule)|^aws:vpc\/securityGroup(Egress|Ingress)Rule/.test(r.type));
    expect(routing).toEqual([]);
    // The API and the worker stay outside it: they reach the table, the bucket and Anthropic.
    for (const handler of ['functions/api.handler', 'functions/worker.handler']) {
      const other = program.resources.find((r) => r.type === 'aws:lambda/function:Function' && r.inputs.handler === handler)!;
      expect(other.inputs.vpcConfig).toBeUndefined();
    }
  });

  it('lets anyone call the URL and nothing else invoke the function', () => {
    const permissions = program.resources.filter((r): r is RegisteredResource => r.type === 'aws:lambda/permission:Permission').map((r) => r.inputs);
    expect(permissions).toHaveLength(2);
    expect(permissions).toContainEqual(expect.objectContaining({ action: 'lambda:InvokeFunctionUrl', principal: '*', functionUrlAuthType: 'NONE' }));
    // Function URLs now also require InvokeFunction; SST limits it to calls through the URL.
    expect(permissions).toContainEqual(expect.objectContaining({ action: 'lambda:InvokeFunction', principal: '*', invokedViaFunctionUrl: true }));
  });
  it("registers schedules with EventBridge Scheduler in Zero's own group, firing through a role that may only send to the run queue", () => {
    const queue = named('aws:sqs/queue:Queue', 'RunJobsQueue').inputs.name as string;
    expect(one('aws:scheduler/scheduleGroup:ScheduleGroup').name).toBe('Schedules');
    const role = named('aws:iam/role:Role', 'SchedulerRole').inputs;
    // Assumed by EventBridge Scheduler on this account's behalf only (the confused-deputy guard).
    expect(policy(role.assumeRolePolicy).Statement).toEqual([
      { Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'scheduler.amazonaws.com' }, Condition: { StringEquals: { 'aws:SourceAccount': '123456789012' } } },
    ]);
    expect(role.inlinePolicies.flatMap((p: { policy: string }) => policy(p.policy).Statement)).toEqual([
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: `arn:aws:sqs:us-east-1:123456789012:${queue}` },
    ]);
    expect(role.managedPolicyArns ?? []).toEqual([]);
    // The functions find the group, the role and the queue through a link, not the environment.
    const build = program.builds.find((b) => b.functionID === 'Api')!;
    expect(build.links.ZeroSchedules).toMatchObject({
      group: 'schedules-mock',
      roleArn: 'arn:aws:iam::123456789012:role/schedulerrole-mock',
      queueArn: `arn:aws:sqs:us-east-1:123456789012:${queue}`,
    });
    // No minute tick any more: nothing else sends to the queue on EventBridge's behalf.
    expect(program.resources.filter((r) => /cloudwatch\/event|sqs\/queuePolicy/.test(r.type))).toEqual([]);
  });
});

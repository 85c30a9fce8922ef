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
    const fn = one('aws:lambda/function:Function');
    expect(fn.inputs).toMatchObject({ runtime: 'nodejs22.x', architectures: ['arm64'], timeout: 900, memorySize: 1024, handler: 'functions/api.handler' });
    const env = fn.inputs.environment.variables as Record<string, string>;
    // Links travel encrypted in resource.enc; the environment holds only the key to it.
    expect(Object.keys(env).sort()).toEqual(['SST_KEY', 'SST_KEY_FILE', 'SST_RESOURCE_App']);
    expect(JSON.stringify(fn.inputs)).not.toContain('sk-ant-mock');
    expect(fn.inputs.loggingConfig).toMatchObject({ logFormat: 'JSON' });
    expect(one('aws:cloudwatch/logGroup:LogGroup').inputs.retentionInDays).toBe(30);
  });

  it('builds functions/api.ts with the table, the bucket and the key linked under the names the handler reads', () => {
    expect(program.builds.map((b) => b.functionID)).toEqual(['Api']);
    const build = program.builds[0]!;
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
    });
    expect(Object.keys(build.links).sort()).toEqual(['AnthropicApiKey', 'ZeroBucket', 'ZeroTable']);
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

  it('keeps the bucket private, encrypted and TLS-only, with no CORS', () => {
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
    expect(program.resources.filter((r) => r.type === 'aws:s3/bucketCorsConfiguration:BucketCorsConfiguration')).toEqual([]);
  });

  it('gives the API role exactly the actions the stores send, on the table and the bucket only', () => {
    const role = one('aws:iam/role:Role').inputs;
    const table = one('aws:dynamodb/table:Table').inputs.name as string;
    const bucket = one('aws:s3/bucket:Bucket').inputs.bucket as string;

    expect(policy(role.assumeRolePolicy).Statement).toEqual([
      { Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'lambda.amazonaws.com' } },
    ]);
    expect(role.managedPolicyArns).toEqual(['arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole']);

    const grants = role.inlinePolicies.flatMap((p: { policy: string }) => policy(p.policy).Statement);
    const byResource = Object.fromEntries(grants.map((s: ReturnType<typeof policy>['Statement'][0]) => [list(s.Resource).join(','), list(s.Action).sort()]));
    expect(byResource).toEqual({
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
    });
    expect(grants.every((s: { Effect: string }) => s.Effect === 'Allow')).toBe(true);
    expect(grants.flatMap((s: { Action: string | string[] }) => list(s.Action)).some((a: string) => a.includes('*'))).toBe(false);
  });

  it('lets anyone call the URL and nothing else invoke the function', () => {
    const permissions = program.resources.filter((r): r is RegisteredResource => r.type === 'aws:lambda/permission:Permission').map((r) => r.inputs);
    expect(permissions).toHaveLength(2);
    expect(permissions).toContainEqual(expect.objectContaining({ action: 'lambda:InvokeFunctionUrl', principal: '*', functionUrlAuthType: 'NONE' }));
    // Function URLs now also require InvokeFunction; SST limits it to calls through the URL.
    expect(permissions).toContainEqual(expect.objectContaining({ action: 'lambda:InvokeFunction', principal: '*', invokedViaFunctionUrl: true }));
  });
});

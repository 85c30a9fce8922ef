import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import { bundleFunction } from '../../bench/bundle-function';

const root = join(import.meta.dirname, '..', '..');
const platform = join(root, '.sst', 'platform');

/** A resource the program registered, with the inputs it was given. */
export interface RegisteredResource {
  type: string;
  name: string;
  custom: boolean;
  inputs: Record<string, any>;
}

export interface EvaluatedProgram {
  resources: RegisteredResource[];
  outputs: Record<string, unknown>;
  /** The RPC methods the components asked SST's CLI for. */
  rpc: string[];
  /** Handlers SST would have bundled, as `Runtime.Build` saw them. */
  builds: { functionID: string; handler: string; links: Record<string, unknown>; properties: Record<string, unknown>; files: string[] }[];
}

/**
 * Runs sst.config.ts's `run()` the way `sst deploy` does, but against
 * Pulumi's unit-test mocks instead of an engine: the program is bundled with
 * SST's own defines (`$app`, `$cli`, `$dev`), its injected globals
 * (`shim/run.js`) and `auto/run.ts`, then evaluated in a fresh Node process
 * whose Pulumi runtime is mocked (`runtime.setMocks`). SST's components call
 * back into the CLI over HTTP for a few things (building a handler, the
 * bootstrap bucket); a loopback server here answers for it, and builds the
 * handler with the same esbuild settings SST uses (the merge of its init chunks
 * is sst.config.ts's postbuild hook, which SST's component runs after the build).
 *
 * Needs `.sst/platform` (`npm test` runs scripts/sst-platform.mjs first).
 */
export async function evaluateSstProgram(stage = 'test', env: Record<string, string | undefined> = {}): Promise<EvaluatedProgram> {
  if (!existsSync(join(platform, 'src', 'auto', 'run.ts'))) throw new Error('.sst/platform is missing: run `node scripts/sst-platform.mjs`');
  const work = join(platform, `.zero-mocks-${randomBytes(4).toString('hex')}`);
  await mkdir(work, { recursive: true });
  const rpc: string[] = [];
  const builds: EvaluatedProgram['builds'] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const { method, params } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { method: string; params: [any] };
    rpc.push(method);
    const answer = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    try {
      answer({ result: await cli(method, params[0]) });
    } catch (error) {
      answer({ error: error instanceof MethodNotFound ? `rpc: can't find method ${method}` : String(error) });
    }
  });

  async function cli(method: string, args: any) {
    if (method === 'Provider.Aws.Bootstrap') {
      return { asset: 'sst-asset-test', assetEcrRegistryId: '123456789012', assetEcrUrl: '', state: 'sst-state-test', appsyncHttp: '', appsyncRealtime: '' };
    }
    if (method === 'Runtime.Build') {
      // `handler` is `<path of the file without extension>.<export>`, relative to the app's root.
      const handler = args.handler as string;
      const file = handler.slice(0, handler.lastIndexOf('.'));
      const out = join(work, 'artifacts', `${args.functionID}-src`);
      const entry = ['.ts', '.mts', '.js', '.mjs'].map((ext) => join(root, file + ext)).find((path) => existsSync(path));
      if (!entry) return { handler, out, errors: [`could not find a file for handler "${handler}"`], sourcemaps: [] };
      const bundle = await bundleFunction(entry, join(out, dirname(file)), file.split('/').at(-1)!, { splitting: args.properties?.splitting === true, mergeInit: false });
      const files = Object.keys(bundle.metafile.outputs).map((path) => relative(out, resolve(root, path)));
      builds.push({ functionID: args.functionID, handler, links: args.links, properties: args.properties, files });
      return { handler, out, errors: [], sourcemaps: [] };
    }
    throw new MethodNotFound();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const program = join(work, 'program.mjs');
    await build({
      stdin: { contents: RUNNER(join(platform, 'src'), join(root, 'sst.config.ts')), resolveDir: platform, loader: 'ts', sourcefile: 'evaluate.ts' },
      outfile: program,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      // As SST runs it: components from source, their dependencies from .sst/platform/node_modules.
      packages: 'external',
      define: {
        $app: JSON.stringify({ name: 'zero', stage, removal: 'remove', protect: false, providers: { aws: {} }, home: 'aws' }),
        $cli: JSON.stringify({
          command: 'deploy',
          dev: false,
          paths: { home: join(work, 'home'), root, work, platform },
          env: {},
          state: { version: {} },
        }),
        $dev: 'false',
      },
      inject: [join(platform, 'src', 'shim', 'run.js')],
      banner: { js: "import { createRequire as topLevelCreateRequire } from 'module';const require = topLevelCreateRequire(import.meta.url);" },
      logLevel: 'silent',
    });
    const port = (server.address() as AddressInfo).port;
    const stdout = await runNode(program, { SST_SERVER: `http://127.0.0.1:${port}`, SST_SECRET_AnthropicApiKey: 'sk-ant-mock', ...env });
    const marker = stdout.lastIndexOf('\n~zero-result ');
    if (marker === -1) throw new Error(`the program printed no result:\n${stdout}`);
    const { resources, outputs } = JSON.parse(stdout.slice(marker + '\n~zero-result '.length));
    return { resources, outputs, rpc, builds };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(work, { recursive: true, force: true });
  }
}

class MethodNotFound extends Error {}

function runNode(file: string, env: Record<string, string | undefined>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { cwd: root, env: { ...process.env, ...env, PULUMI_NODEJS_STACK: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`the SST program exited ${code}:\n${stderr}\n${stdout}`))));
  });
}

/**
 * The evaluated program: SST's globals, Pulumi mocks that record every
 * registration and answer the AWS provider's data-source calls, then
 * `auto/run.ts` around sst.config.ts's `run()`, as `sst deploy` composes it.
 */
const RUNNER = (src: string, config: string) => `
import * as pulumi from "@pulumi/pulumi";
import * as aws from "@pulumi/aws";
import * as sst from ${JSON.stringify(join(src, 'components', 'index.ts'))};
import { run } from ${JSON.stringify(join(src, 'auto', 'run.ts'))};
import mod from ${JSON.stringify(config)};

globalThis.aws = aws;
globalThis.sst = sst;

const ACCOUNT = "123456789012";
const REGION = "us-east-1";
const resources = [];

function state(type, name, inputs) {
  const [, module] = type.split(":");
  const service = module.split("/")[0];
  const physical = inputs.name ?? inputs.bucket ?? name.toLowerCase() + "-mock";
  const extra = { arn: "arn:aws:" + service + ":" + REGION + ":" + ACCOUNT + ":" + physical };
  if (type === "aws:s3/bucket:Bucket" || type === "aws:s3/bucketV2:BucketV2") {
    Object.assign(extra, { bucket: physical, arn: "arn:aws:s3:::" + physical, bucketDomainName: physical + ".s3.amazonaws.com", bucketRegionalDomainName: physical + ".s3." + REGION + ".amazonaws.com" });
  }
  if (type === "aws:dynamodb/table:Table") extra.arn = "arn:aws:dynamodb:" + REGION + ":" + ACCOUNT + ":table/" + physical;
  if (type === "aws:iam/role:Role") extra.arn = "arn:aws:iam::" + ACCOUNT + ":role/" + physical;
  if (type === "aws:lambda/function:Function") Object.assign(extra, { arn: "arn:aws:lambda:" + REGION + ":" + ACCOUNT + ":function:" + physical, invokeArn: "arn:aws:apigateway:" + REGION + ":lambda:path/functions/" + physical + "/invocations", qualifiedArn: "arn:aws:lambda:" + REGION + ":" + ACCOUNT + ":function:" + physical + ":$LATEST" });
  if (type === "aws:lambda/functionUrl:FunctionUrl") extra.functionUrl = "https://mockurlid.lambda-url." + REGION + ".on.aws/";
  if (type === "aws:cloudwatch/logGroup:LogGroup") extra.arn = "arn:aws:logs:" + REGION + ":" + ACCOUNT + ":log-group:" + physical;
  if (type === "random:index/randomBytes:RandomBytes") Object.assign(extra, { base64: Buffer.alloc(inputs.length ?? 32, 7).toString("base64"), hex: Buffer.alloc(inputs.length ?? 32, 7).toString("hex") });
  if (type === "aws:kms/key:Key") extra.keyId = "mock-key-id";
  return { ...extra, ...inputs, name: inputs.name ?? physical };
}

/** The JSON the provider renders from a policy document's statements. */
function policyJson(statements) {
  const principals = (list) => list && Object.fromEntries(list.map((p) => [p.type, p.identifiers]));
  const conditions = (list) =>
    list && list.reduce((all, c) => ({ ...all, [c.test]: { ...all[c.test], [c.variable]: c.values } }), {});
  return JSON.stringify({
    Version: "2012-10-17",
    Statement: statements.map((s) => ({
      Effect: s.effect ?? "Allow",
      Action: s.actions,
      Resource: s.resources,
      ...(s.principals ? { Principal: principals(s.principals) } : {}),
      ...(s.conditions ? { Condition: conditions(s.conditions) } : {}),
    })),
  });
}

await pulumi.runtime.setMocks(
  {
    newResource(args) {
      resources.push({ type: args.type, name: args.name, custom: args.custom !== false, inputs: args.inputs });
      return { id: args.name + "-id", state: state(args.type, args.name, args.inputs) };
    },
    call(args) {
      switch (args.token) {
        case "aws:index/getRegion:getRegion":
          return { name: REGION, region: REGION, id: REGION, description: "US East (N. Virginia)" };
        case "aws:index/getCallerIdentity:getCallerIdentity":
          return { accountId: ACCOUNT, arn: "arn:aws:iam::" + ACCOUNT + ":user/ci", userId: "AIDAMOCK", id: ACCOUNT };
        case "aws:index/getAvailabilityZones:getAvailabilityZones":
          return { names: [REGION + "a", REGION + "b", REGION + "c"], zoneIds: ["use1-az1", "use1-az2", "use1-az4"], id: REGION };
        case "aws:index/getPartition:getPartition":
          return { partition: "aws", dnsSuffix: "amazonaws.com", id: "aws" };
        case "aws:iam/getPolicyDocument:getPolicyDocument":
          return { statements: args.inputs.statements, json: policyJson(args.inputs.statements ?? []) };
        default:
          return args.inputs;
      }
    },
  },
  $app.name,
  $app.stage,
  false,
);

// As the automation API runs a program: inside the root stack resource.
const outputs = await pulumi.runtime.runInPulumiStack(() => run(mod.run));
const resolved = await new Promise((resolve) => pulumi.output(outputs).apply(resolve));
await pulumi.runtime.disconnect();
process.stdout.write("\\n~zero-result " + JSON.stringify({ resources, outputs: resolved }) + "\\n");
process.exit(0);
`;

import { beforeAll, describe, expect, it } from 'vitest';
import { evaluateSstProgram, type EvaluatedProgram, type RegisteredResource } from './support/sst-program';

/** sst.config.ts deployed with ZERO_BEDROCK_MODEL_IDS: the functions may invoke those models, and no others. */
describe('the SST program of a deployment on Bedrock', () => {
  let program: EvaluatedProgram;
  beforeAll(async () => {
    // Deployed without the Anthropic key: every agent runs on Bedrock.
    program = await evaluateSstProgram('test', {
      ZERO_BEDROCK_MODEL_IDS: 'anthropic.claude-haiku-4-5-20251001-v1:0, us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      SST_SECRET_AnthropicApiKey: undefined,
    });
  }, 180_000);

  const bedrockGrants = (role: RegisteredResource) =>
    role.inputs.inlinePolicies
      .flatMap((p: { policy: string }) => JSON.parse(p.policy).Statement as { Effect: string; Action: string | string[]; Resource: string | string[] }[])
      .filter((s: { Action: string | string[] }) => [s.Action].flat().some((a) => a.startsWith('bedrock:')));

  it('deploys without the Anthropic key set', () => {
    const build = program.builds.find((b) => b.functionID === 'Api')!;
    expect(build.links).toMatchObject({ AnthropicApiKey: { value: '' } });
  });

  it('grants both functions InvokeModelWithResponseStream on the configured model and inference profile only', () => {
    // The two functions' roles; EventBridge Scheduler's own role may only send to the run queue.
    const all = program.resources.filter((r) => r.type === 'aws:iam/role:Role');
    const lambdaRoles = all.filter((r) => String(r.inputs.assumeRolePolicy).includes('lambda.amazonaws.com'));
    // The sandbox function's role may only place its network interfaces (tests/infra.test.ts): no Bedrock.
    const sandbox = lambdaRoles.filter((r) => r.name.startsWith('Sandbox'));
    expect(sandbox.map((r) => bedrockGrants(r))).toEqual([[]]);
    const roles = lambdaRoles.filter((r) => !sandbox.includes(r));
    expect(roles).toHaveLength(2);
    expect(all.filter((r) => !lambdaRoles.includes(r)).map((r) => [r.name, bedrockGrants(r)])).toEqual([['SchedulerRole', []]]);
    for (const role of roles) {
      expect(bedrockGrants(role)).toEqual([
        {
          Effect: 'Allow',
          Action: ['bedrock:InvokeModelWithResponseStream'],
          Resource: [
            'arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-haiku-4-5-20251001-v1:0',
            'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0',
            'arn:aws:bedrock:*::foundation-model/anthropic.claude-sonnet-4-5-20250929-v1:0',
          ],
        },
      ]);
    }
  });
});

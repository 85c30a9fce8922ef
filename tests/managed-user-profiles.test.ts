import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { DEV, getJson, startHarness, type Harness } from './support/harness';
import { sdkClient, sdkClientAs } from './support/sdk';
import { apiErrorSchema, valid } from './support/managed-agents-schemas';

/** `BetaUserProfileExternalUserDetails`. */
const externalUserDetailsSchema = z.strictObject({
  account_status: z.enum(['active', 'suspended', 'blocked']).nullable(),
  country: z.string().nullable(),
  email_hash: z.string().nullable(),
  entity_type: z.enum(['individual', 'business', 'non_profit', 'government']).nullable(),
  name_hash: z.string().nullable(),
  onboarded_at: z.string().nullable(),
  reference_id: z.string().nullable(),
});

/** `BetaUserProfile`: the required fields, and the optional ones the beta header in use decides. */
const userProfileSchema = z.strictObject({
  id: z.string(),
  type: z.literal('user_profile'),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  metadata: z.record(z.string(), z.string()),
  name: z.string().nullable(),
  trust_grants: z.record(z.string(), z.object({ status: z.enum(['active', 'pending', 'rejected']) })),
  access_type: z.enum(['application', 'passthrough']).optional(),
  external_id: z.string().nullable().optional(),
  external_user_details: externalUserDetailsSchema.optional(),
  external_user_onboarded_at: z.string().nullable().optional(),
});
/** Under the SDK's own beta header (`user-profiles-2026-08-18`): the legacy top-level fields, no `external_user_details`. */
const legacyProfileSchema = userProfileSchema.extend({ access_type: z.enum(['application', 'passthrough']), external_id: z.string().nullable(), external_user_onboarded_at: z.string().nullable(), external_user_details: z.never().optional() });
/** Without a legacy header: `external_user_details`, no legacy fields. */
const currentProfileSchema = userProfileSchema.extend({ access_type: z.enum(['application', 'passthrough']), external_user_details: externalUserDetailsSchema, external_id: z.never().optional(), external_user_onboarded_at: z.never().optional() });
const profilePageSchema = z.object({ data: z.array(legacyProfileSchema), next_page: z.string().nullable().optional() });
/** `BetaDeletedUserProfile`. */
const deletedProfileSchema = z.strictObject({ id: z.string(), type: z.literal('user_profile_deleted') });

/** The beta that selects the current shape, beside the SDK's own legacy one. */
const CURRENT = ['user-profiles-2026-09-04'] as const;

const refusal = async (promise: Promise<unknown>, kind: abstract new (...args: never[]) => InstanceType<typeof Anthropic.APIError>) => {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(kind);
  return valid(apiErrorSchema, (error as InstanceType<typeof Anthropic.APIError>).error).error;
};

describe("user profiles (client.beta.userProfiles) are Zero's users", () => {
  let h: Harness;
  let admin: Anthropic;
  let adminId: string;

  beforeAll(async () => {
    h = await startHarness();
    admin = sdkClient(h);
    adminId = (await getJson(`${h.url}/api/v2/me`, DEV)).json.user.id;
  });
  afterAll(() => h.close());

  it('an administrator creates, retrieves, updates, lists and deletes profiles; deleting one revokes that user\'s keys', async () => {
    const created = valid(
      legacyProfileSchema,
      await admin.beta.userProfiles.create({ name: 'Acme Corp', metadata: { plan: 'pro', region: 'eu' }, external_id: 'acct-17', external_user_onboarded_at: '2026-01-02T03:04:05Z', access_type: 'passthrough' }),
    );
    expect(created).toMatchObject({ name: 'Acme Corp', metadata: { plan: 'pro', region: 'eu' }, external_id: 'acct-17', external_user_onboarded_at: '2026-01-02T03:04:05Z', access_type: 'passthrough', trust_grants: {} });
    expect(created.id).toMatch(/^uprof_[0-9a-f]{24}$/);
    expect(valid(legacyProfileSchema, await admin.beta.userProfiles.retrieve(created.id))).toEqual(created);
    // The same profile without a legacy header: the details in one object.
    expect(valid(currentProfileSchema, await admin.beta.userProfiles.retrieve(created.id, { betas: [...CURRENT] })).external_user_details).toEqual({
      account_status: null, country: null, email_hash: null, entity_type: null, name_hash: null, onboarded_at: '2026-01-02T03:04:05Z', reference_id: 'acct-17',
    });

    const updated = valid(legacyProfileSchema, await admin.beta.userProfiles.update(created.id, { name: 'Acme Inc', metadata: { plan: 'team', region: '' } }));
    expect(updated).toMatchObject({ id: created.id, name: 'Acme Inc', metadata: { plan: 'team' }, external_id: 'acct-17', created_at: created.created_at });
    const details = valid(currentProfileSchema, await admin.beta.userProfiles.update(created.id, { external_user_details: { country: 'FR', account_status: 'active' }, betas: [...CURRENT] }));
    expect(details.external_user_details).toMatchObject({ country: 'FR', account_status: 'active', reference_id: 'acct-17' });

    const other = valid(legacyProfileSchema, await admin.beta.userProfiles.create({ name: 'beta labs' }));
    const nameless = valid(legacyProfileSchema, await admin.beta.userProfiles.create({}));
    const byName: string[] = [];
    for await (const p of admin.beta.userProfiles.list({ order_by: 'name', order: 'asc', limit: 1 })) byName.push(valid(legacyProfileSchema, p).id);
    expect(byName).toEqual([created.id, other.id, nameless.id]);
    const newest = valid(profilePageSchema, await admin.beta.userProfiles.list({ limit: 2 }));
    expect(newest.data.map((p) => p.id)).toEqual([nameless.id, other.id]);
    expect(newest.next_page).toEqual(expect.any(String));

    // The profile is a user: a key minted for it acts as that user, until the profile is deleted.
    const asProfile = await sdkClientAs(h, created.id);
    expect(valid(legacyProfileSchema, await asProfile.beta.userProfiles.retrieve(created.id)).name).toBe('Acme Inc');
    expect(valid(deletedProfileSchema, await admin.beta.userProfiles.delete(created.id))).toEqual({ id: created.id, type: 'user_profile_deleted' });
    await refusal(asProfile.beta.userProfiles.retrieve(created.id), Anthropic.AuthenticationError);
    expect((await refusal(admin.beta.userProfiles.retrieve(created.id), Anthropic.NotFoundError)).message).toContain(created.id);
    await refusal(admin.beta.userProfiles.delete(created.id), Anthropic.NotFoundError);
    expect((await refusal(admin.beta.userProfiles.delete(adminId), Anthropic.BadRequestError)).message).toMatch(/user_profile_id.*own profile/);
  });

  it('a user who is not an administrator reads their own profile only; the rest is refused', async () => {
    const bob = await sdkClientAs(h, 'bob', 'Bob');
    const own = valid(legacyProfileSchema, await bob.beta.userProfiles.retrieve('bob'));
    expect(own).toMatchObject({ id: 'bob', name: 'Bob', metadata: {}, access_type: 'application', external_id: null, trust_grants: {} });
    expect(valid(legacyProfileSchema, await bob.beta.userProfiles.retrieve('bob'))).toEqual(own);
    // The administrator sees it too, now that it is stored; bob sees nobody else's.
    expect(valid(legacyProfileSchema, await admin.beta.userProfiles.retrieve('bob'))).toEqual(own);
    await refusal(bob.beta.userProfiles.retrieve(adminId), Anthropic.NotFoundError);
    const calls = [() => bob.beta.userProfiles.create({ name: 'x' }), () => bob.beta.userProfiles.list(), () => bob.beta.userProfiles.update('bob', { name: 'Robert' }), () => bob.beta.userProfiles.delete('bob')];
    for (const call of calls) {
      expect((await refusal(call(), Anthropic.PermissionDeniedError)).message).toMatch(/only an administrator/);
    }
    expect(valid(legacyProfileSchema, await bob.beta.userProfiles.retrieve('bob')).name).toBe('Bob');
  });

  it('refuses bad fields by name, and the Anthropic-hosted enrollment and action URLs with the reason', async () => {
    const tooMany = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
    expect((await refusal(admin.beta.userProfiles.create({ metadata: tooMany }), Anthropic.BadRequestError)).message).toMatch(/metadata/);
    expect((await refusal(admin.beta.userProfiles.create({ name: 'n'.repeat(256) }), Anthropic.BadRequestError)).message).toMatch(/name/);
    expect((await refusal(admin.beta.userProfiles.create({ external_user_onboarded_at: '2999-01-01T00:00:00Z' }), Anthropic.BadRequestError)).message).toMatch(/external_user_onboarded_at.*future/);
    // Each header's own fields: details under the SDK's legacy header, legacy fields without it.
    expect((await refusal(admin.beta.userProfiles.create({ external_user_details: { country: 'FR' } }), Anthropic.BadRequestError)).message).toMatch(/external_user_details.*user-profiles-2026-08-18/);
    expect((await refusal(admin.beta.userProfiles.create({ external_id: 'x', betas: [...CURRENT] }), Anthropic.BadRequestError)).message).toMatch(/external_id.*legacy/);
    expect((await refusal(admin.beta.userProfiles.create({ external_user_details: { country: 'fr' }, betas: [...CURRENT] }), Anthropic.BadRequestError)).message).toMatch(/external_user_details\.country/);
    const profile = valid(legacyProfileSchema, await admin.beta.userProfiles.create({ name: 'Enrollee' }));
    const reasons = [
      await refusal(admin.beta.userProfiles.createEnrollmentURL(profile.id), Anthropic.NotFoundError),
      await refusal(admin.beta.userProfiles.actionURLs.create(profile.id, { action: { type: 'enroll_end_user' } }), Anthropic.NotFoundError),
    ];
    for (const reason of reasons) expect(reason.message).toMatch(/do not apply to Zero.*Anthropic's programs/);
  });
});

import * as z from 'zod';
import { invalidField, invalidRequest } from '@zero/agent/errors';
import type { UserDetails, UserProfileRecord } from '@zero/runtime/auth/user-profile-store';

/**
 * Which shape of a user profile the caller speaks, from its `anthropic-beta` header: the SDK sends
 * `user-profiles-2026-08-18` (top-level `external_id` and `external_user_onboarded_at`); the older
 * `user-profiles-2026-03-24` has `external_id` only; `user-profiles-2026-09-04` (which a caller adds
 * to the SDK's own), or no `user-profiles-*` beta at all, `external_user_details`.
 */
export type UserProfileDialect = 'current' | '2026-08-18' | '2026-03-24';

export function userProfileDialect(betaHeader: string | undefined): UserProfileDialect {
  const betas = (betaHeader ?? '').split(',').map((b) => b.trim());
  if (betas.includes('user-profiles-2026-09-04')) return 'current';
  if (betas.includes('user-profiles-2026-03-24')) return '2026-03-24';
  if (betas.includes('user-profiles-2026-08-18')) return '2026-08-18';
  return 'current';
}

const MINUTE_MS = 60_000;
const text255 = z.string().min(1).max(255);
/** A complete RFC 3339 timestamp no more than a minute ahead. */
const pastTimestamp = z.iso
  .datetime({ offset: true, error: 'must be a complete RFC 3339 timestamp' })
  .refine((t) => Date.parse(t) <= Date.now() + MINUTE_MS, 'must be no more than 1 minute in the future');
const accessType = z.enum(['application', 'passthrough']);
const metadataKey = z.string().min(1).max(64);
const sixteen = (m: Record<string, string>) => Object.keys(m).length <= 16;
const metadataCreate = z.record(metadataKey, z.string().min(1, 'values must be non-empty').max(512)).refine(sixteen, 'at most 16 keys');
/** An update's metadata: merged; an empty value removes its key. */
const metadataPatch = z.record(metadataKey, z.string().max(512)).refine(sixteen, 'at most 16 keys');

const detailFields = {
  account_status: z.enum(['active', 'suspended', 'blocked']),
  country: z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code in upper case, e.g. US'),
  email_hash: text255,
  entity_type: z.enum(['individual', 'business', 'non_profit', 'government']),
  name_hash: text255,
  onboarded_at: pastTimestamp,
  reference_id: text255,
};
/** On create a null states nothing; on update a value once stated cannot be cleared, so null is refused. */
const detailsCreate = z.strictObject({
  account_status: detailFields.account_status.nullish(),
  country: detailFields.country.nullish(),
  email_hash: detailFields.email_hash.nullish(),
  entity_type: detailFields.entity_type.nullish(),
  name_hash: detailFields.name_hash.nullish(),
  onboarded_at: detailFields.onboarded_at.optional(),
  reference_id: detailFields.reference_id.nullish(),
});
const detailsUpdate = z.strictObject({
  account_status: detailFields.account_status.optional(),
  country: detailFields.country.optional(),
  email_hash: detailFields.email_hash.optional(),
  entity_type: detailFields.entity_type.optional(),
  name_hash: detailFields.name_hash.optional(),
  onboarded_at: detailFields.onboarded_at.optional(),
  reference_id: detailFields.reference_id.optional(),
});

const name = z.string().max(255).nullish();
const externalId = z.string().max(255).nullish();

/** `UserProfileCreateParams` in each dialect (a field of another dialect is refused by name). */
const createParams = {
  current: z.strictObject({ name, metadata: metadataCreate.optional(), access_type: accessType.optional(), external_user_details: detailsCreate.optional() }),
  '2026-08-18': z.strictObject({ name, metadata: metadataCreate.optional(), access_type: accessType.optional(), external_id: externalId, external_user_onboarded_at: pastTimestamp.optional() }),
  '2026-03-24': z.strictObject({ name, metadata: metadataCreate.optional(), access_type: accessType.optional(), external_id: externalId }),
};

/** `UserProfileUpdateParams` in each dialect. */
const updateParams = {
  current: z.strictObject({ name, metadata: metadataPatch.optional(), access_type: accessType.nullish(), external_user_details: detailsUpdate.optional() }),
  '2026-08-18': z.strictObject({ name, metadata: metadataPatch.optional(), access_type: accessType.nullish(), external_id: externalId, external_user_onboarded_at: pastTimestamp.optional() }),
  '2026-03-24': z.strictObject({ name, metadata: metadataPatch.optional(), access_type: accessType.nullish(), external_id: externalId }),
};

/** What a create or update changes, whatever the dialect. */
export interface UserProfileChange {
  name?: string | null;
  metadata?: Record<string, string>;
  access_type?: 'application' | 'passthrough';
  details: Partial<UserDetails>;
}

const LEGACY_FIELDS = ['external_id', 'external_user_onboarded_at'];

/** Parses a create (`update: false`) or update body in the caller's dialect; 400 naming the field. */
export function parseUserProfileChange(body: unknown, dialect: UserProfileDialect, update: boolean): UserProfileChange {
  if (body && typeof body === 'object') {
    const fields = Object.keys(body);
    if (dialect !== 'current' && fields.includes('external_user_details')) {
      throw invalidField('external_user_details', `is not accepted under the user-profiles-${dialect} beta header (the SDK sends user-profiles-2026-08-18); send external_id${dialect === '2026-08-18' ? ' and external_user_onboarded_at' : ''}`);
    }
    const legacy = dialect === 'current' ? LEGACY_FIELDS : dialect === '2026-03-24' ? ['external_user_onboarded_at'] : [];
    const stray = fields.find((f) => legacy.includes(f));
    if (stray) throw invalidField(stray, `is a legacy field, not accepted ${dialect === 'current' ? 'without a legacy user-profiles beta header' : `under user-profiles-${dialect}`}; send external_user_details`);
  }
  const parsed = (update ? updateParams : createParams)[dialect].safeParse(body);
  if (!parsed.success) throw invalidRequest(parsed.error);
  const p = parsed.data as z.infer<(typeof updateParams)['2026-08-18']> & { external_user_details?: Partial<Record<keyof UserDetails, string | null>> };
  const details: Partial<UserDetails> = {};
  for (const [key, value] of Object.entries(p.external_user_details ?? {})) if (value !== undefined) Object.assign(details, { [key]: value });
  if (p.external_id !== undefined) details.reference_id = p.external_id || null;
  if (p.external_user_onboarded_at !== undefined) details.onboarded_at = p.external_user_onboarded_at;
  return {
    ...(p.name !== undefined ? { name: p.name } : {}),
    ...(p.metadata ? { metadata: p.metadata } : {}),
    ...(p.access_type ? { access_type: p.access_type } : {}),
    details,
  };
}

/** Merges an update's metadata: keys sent overwrite, an empty value removes its key; at most 16 keys after. */
export function mergeProfileMetadata(current: Record<string, string>, patch: Record<string, string> | undefined): Record<string, string> {
  const next = { ...current };
  for (const [key, value] of Object.entries(patch ?? {})) {
    if (value === '') delete next[key];
    else next[key] = value;
  }
  if (Object.keys(next).length > 16) throw invalidField('metadata', 'at most 16 keys');
  return next;
}

/**
 * A profile in the SDK's shape (`BetaUserProfile`) for the caller's dialect. `trust_grants` is always
 * empty: grants are Anthropic's programs, which a self-hosted deployment has none of.
 */
export function userProfileResource(profile: UserProfileRecord, dialect: UserProfileDialect) {
  const base = { type: 'user_profile' as const, id: profile.id, name: profile.name, metadata: profile.metadata, trust_grants: {}, created_at: profile.created_at, updated_at: profile.updated_at };
  if (dialect === '2026-03-24') return { ...base, external_id: profile.details.reference_id };
  if (dialect === '2026-08-18') return { ...base, access_type: profile.access_type, external_id: profile.details.reference_id, external_user_onboarded_at: profile.details.onboarded_at };
  return { ...base, access_type: profile.access_type, external_user_details: profile.details };
}

/** The query of `GET /v1/user_profiles`: sort field and direction (newest first by default). */
export const userProfileListQuery = {
  order: z.enum(['asc', 'desc']).default('desc'),
  order_by: z.enum(['created_at', 'name']).default('created_at'),
};

/** Sorts profiles as the list asks: by creation or by name (ASCII case ignored; profiles without a name last either way). */
export function sortUserProfiles(profiles: UserProfileRecord[], order: 'asc' | 'desc', by: 'created_at' | 'name'): UserProfileRecord[] {
  const sign = order === 'asc' ? 1 : -1;
  const byCreation = (a: UserProfileRecord, b: UserProfileRecord) => sign * (a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  if (by === 'created_at') return [...profiles].sort(byCreation);
  const lower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  return [...profiles].sort((a, b) => {
    if (a.name === null || b.name === null) return a.name === b.name ? byCreation(a, b) : a.name === null ? 1 : -1;
    const x = lower(a.name);
    const y = lower(b.name);
    return x === y ? byCreation(a, b) : sign * (x < y ? -1 : 1);
  });
}

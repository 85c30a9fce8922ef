import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { userIdSchema } from '@zero/agent/wire';
import type { ArtifactStore } from '../store/artifact-store';
import { JsonCollection } from '../store/json-collection';

/** What the deployment states about the person or company a user is (the Managed Agents API's `external_user_details`); every field null until stated. */
export const userDetailsSchema = z.object({
  account_status: z.enum(['active', 'suspended', 'blocked']).nullable(),
  country: z.string().nullable(),
  email_hash: z.string().nullable(),
  entity_type: z.enum(['individual', 'business', 'non_profit', 'government']).nullable(),
  name_hash: z.string().nullable(),
  onboarded_at: z.string().nullable(),
  reference_id: z.string().nullable(),
});
export type UserDetails = z.infer<typeof userDetailsSchema>;

/** Details with nothing stated yet. */
export const NO_DETAILS: UserDetails = { account_status: null, country: null, email_hash: null, entity_type: null, name_hash: null, onboarded_at: null, reference_id: null };

/** A user's profile as stored, `user-profiles/<base64url of the user id>.json`; `id` is the user's id in Zero. */
export const userProfileRecordSchema = z.object({
  v: z.literal(1),
  id: userIdSchema,
  name: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  access_type: z.enum(['application', 'passthrough']),
  details: userDetailsSchema,
  created_at: z.string(),
  updated_at: z.string(),
});
export type UserProfileRecord = z.infer<typeof userProfileRecordSchema>;

/** A new user's id, as `POST /v1/user_profiles` mints it: `uprof_` and 24 hex digits. */
export const newUserProfileId = () => `uprof_${randomBytes(12).toString('hex')}`;

const keyOf = (userId: string) => Buffer.from(userId).toString('base64url');

/**
 * Users' profiles in the bucket, one object per user, keyed by the user's id (base64url, since a
 * JWT user's id holds a colon). Last writer wins, as for every store administrators edit.
 */
export class UserProfileStore {
  private readonly profiles: JsonCollection<UserProfileRecord>;

  constructor(artifacts: ArtifactStore) {
    this.profiles = new JsonCollection(artifacts, {
      prefix: 'user-profiles/',
      id: z.string().regex(/^[A-Za-z0-9_-]{1,300}$/),
      item: userProfileRecordSchema,
      noun: 'user profile',
      field: 'user_profile_id',
    });
  }

  /** The user's profile; undefined when none is stored (or the id could not be a user's). */
  get(userId: string): Promise<UserProfileRecord | undefined> {
    return userIdSchema.safeParse(userId).success ? this.profiles.get(keyOf(userId)) : Promise.resolve(undefined);
  }

  /** Stores the profile `build` makes from its timestamps (`created_at` kept from the one it replaces). */
  async put(userId: string, build: (stamps: { created_at: string; updated_at: string }) => UserProfileRecord): Promise<UserProfileRecord> {
    return (await this.profiles.put(keyOf(userId), build)).item;
  }

  /** Every stored profile: one LIST and a GET each. */
  list(): Promise<UserProfileRecord[]> {
    return this.profiles.list();
  }

  /** Deletes the profile; false when there was none. */
  delete(userId: string): Promise<boolean> {
    return userIdSchema.safeParse(userId).success ? this.profiles.delete(keyOf(userId)) : Promise.resolve(false);
  }
}

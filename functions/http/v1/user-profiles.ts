import { Hono, type Context } from 'hono';
import * as z from 'zod';
import { forbidden, invalidField, notFound } from '@zero/agent/errors';
import type { AuthUser } from '@zero/runtime/auth/authenticator';
import { NO_DETAILS, UserProfileStore, newUserProfileId, type UserProfileRecord } from '@zero/runtime/auth/user-profile-store';
import {
  mergeProfileMetadata,
  parseUserProfileChange,
  sortUserProfiles,
  userProfileDialect,
  userProfileListQuery,
  userProfileResource,
} from '@zero/integrations/managed/user-profile-params';
import { json, query } from './validate';
import type { Env } from '../env';
import type { V1Deps } from './deps';
import { pageOf, pageQuery } from './pages';

/** Why enrollment and action URLs (`createEnrollmentURL`, `actionURLs.create`) have no place in Zero. */
const ANTHROPIC_PROGRAMS =
  "enrollment and action URLs do not apply to Zero: they send a platform's end user to Anthropic's own pages to enroll in Anthropic's programs (trust grants), which a self-hosted deployment has none of; a Zero user needs only an API key (POST /api/v2/keys with their user_id) or a JWT from your identity provider";

const noProfile = (id: string) => notFound(`no user profile "${id}"`, 'user_profile_id');

/**
 * `/v1/user_profiles` (`client.beta.userProfiles`): a profile is a Zero user, its id the user's id.
 * Administrators create profiles (each a new user, `uprof_…`, who then gets an API key from
 * `POST /api/v2/keys`), list, update and delete them; every user reads their own (stored on its first
 * read). Another user's profile reads as one that does not exist (404). Enrollment and action URLs
 * are Anthropic-hosted flows: refused with a 404 that says why.
 */
export function userProfileRoutes(deps: V1Deps) {
  const app = new Hono<Env>();
  const profiles = new UserProfileStore(deps.artifacts);
  const dialectOf = (c: Context<Env>) => userProfileDialect(c.req.header('anthropic-beta'));
  const adminOnly = (me: AuthUser, action: string) => {
    if (!me.admin) throw forbidden(`only an administrator ${action} user profiles; read your own with GET /v1/user_profiles/${me.id}`);
  };

  /** The profile `id` as `me` may see it: an administrator any stored one, anyone else their own (stored on its first read). */
  const reach = async (me: AuthUser, id: string): Promise<UserProfileRecord> => {
    if (id !== me.id && !me.admin) throw noProfile(id);
    const stored = await profiles.get(id);
    if (stored) return stored;
    if (id !== me.id) throw noProfile(id);
    return profiles.put(me.id, (stamps) => ({ v: 1, id: me.id, name: me.name ?? null, metadata: {}, access_type: 'application', details: NO_DETAILS, ...stamps }));
  };

  app.post('/user_profiles', json(z.unknown()), async (c) => {
    const me = c.get('user');
    adminOnly(me, 'creates');
    const dialect = dialectOf(c);
    const change = parseUserProfileChange(c.req.valid('json'), dialect, false);
    const id = newUserProfileId();
    const created = await profiles.put(id, (stamps) => ({
      v: 1,
      id,
      name: change.name ?? null,
      metadata: change.metadata ?? {},
      access_type: change.access_type ?? 'application',
      details: { ...NO_DETAILS, ...change.details },
      ...stamps,
    }));
    return c.json(userProfileResource(created, dialect));
  });

  app.get('/user_profiles', query(z.object({ ...pageQuery, ...userProfileListQuery })), async (c) => {
    adminOnly(c.get('user'), 'lists');
    const q = c.req.valid('query');
    const page = pageOf(sortUserProfiles(await profiles.list(), q.order, q.order_by), q);
    return c.json({ data: page.data.map((p) => userProfileResource(p, dialectOf(c))), next_page: page.next_page });
  });

  app.get('/user_profiles/:id', async (c) => c.json(userProfileResource(await reach(c.get('user'), c.req.param('id')), dialectOf(c))));

  app.post('/user_profiles/:id', json(z.unknown()), async (c) => {
    const me = c.get('user');
    adminOnly(me, 'updates');
    const dialect = dialectOf(c);
    const change = parseUserProfileChange(c.req.valid('json'), dialect, true);
    const current = await reach(me, c.req.param('id'));
    const next: UserProfileRecord = {
      ...current,
      ...(change.name !== undefined ? { name: change.name } : {}),
      metadata: mergeProfileMetadata(current.metadata, change.metadata),
      access_type: change.access_type ?? current.access_type,
      details: { ...current.details, ...change.details },
    };
    if (JSON.stringify(next) === JSON.stringify(current)) return c.json(userProfileResource(current, dialect));
    return c.json(userProfileResource(await profiles.put(current.id, (stamps) => ({ ...next, ...stamps })), dialect));
  });

  /** Deleting a profile deletes the user's door: their API keys are revoked (their sessions stay, for administrators). */
  app.delete('/user_profiles/:id', async (c) => {
    const me = c.get('user');
    adminOnly(me, 'deletes');
    const id = c.req.param('id');
    if (id === me.id) throw invalidField('user_profile_id', 'an administrator cannot delete their own profile: it would revoke the keys they act with');
    if (!(await profiles.delete(id))) throw noProfile(id);
    const keys = await deps.auth.keys.list(id);
    await Promise.all(keys.map((key) => deps.auth.keys.revoke(id, key.key_id)));
    return c.json({ id, type: 'user_profile_deleted' as const });
  });

  for (const path of ['/user_profiles/:id/enrollment_url', '/user_profiles/:id/action_urls']) {
    app.all(path, () => {
      throw notFound(ANTHROPIC_PROGRAMS);
    });
  }
  return app;
}

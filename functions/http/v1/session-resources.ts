import { Hono } from 'hono';
import * as z from 'zod';
import { ZeroError, invalidField, notFound } from '@zero/agent/errors';
import type { AuthUser } from '@zero/runtime/auth/authenticator';
import { BlobStore } from '@zero/runtime/files/blob-store';
import { FileStore } from '@zero/runtime/files/file-store';
import { ApiMemoryStores } from '@zero/runtime/memory/api-stores';
import type { SessionResource } from '@zero/runtime/store/session-record';
import { writeSessionRecord, type ManagedSessionRecord } from '@zero/runtime/store/session-record';
import { checkMountPaths, fileResource, githubRepositoryResource, memoryStoreResource, sessionResourceParams, sessionResourceView, type SessionResourceParams } from '@zero/integrations/environment-store';
import { json, query } from './validate';
import type { Env } from '../env';
import type { V1Deps } from './deps';
import { pageOf, pageQuery } from './pages';
import { defaultRecord, managedSession } from './session-resource';

/** Resources a session may have (repositories and files together). */
export const MAX_SESSION_RESOURCES = 20;

/**
 * A resource from its params, checked and nothing written: a repository (see githubRepositoryResource),
 * a file the caller may reach (their own; an administrator any), a memory store of the caller's
 * (another user's is a 404 naming `memory_store_id`).
 */
export async function resourceOf(deps: V1Deps, user: AuthUser, params: SessionResourceParams, field: string): Promise<SessionResource> {
  if (params.type === 'file') return fileResource(params, await new FileStore(deps.artifacts).get(params.file_id, user, `${field}.file_id`), field);
  if (params.type === 'memory_store') {
    const store = await new ApiMemoryStores(deps.artifacts).reachStore(user.id, params.memory_store_id).catch((error: unknown) => {
      throw ZeroError.isInstance(error) && error.status === 404 ? notFound(`${field}.memory_store_id: no memory store "${params.memory_store_id}"`, `${field}.memory_store_id`) : error;
    });
    return memoryStoreResource(params, store, field);
  }
  return githubRepositoryResource(params, user.admin, field);
}

/** The session holds its file resources' bytes: a later delete of the file leaves what the session mounts. */
export async function holdResources(deps: V1Deps, sessionId: string, resources: readonly SessionResource[]): Promise<void> {
  const blobs = new BlobStore(deps.artifacts);
  await Promise.all(resources.flatMap((r) => (r.type === 'file' ? [blobs.hold(r.sha256, `session:${sessionId}`)] : [])));
}

/** The session's record for a change of its resources: a self-hosted environment's worker has its own files. */
async function changeable(deps: V1Deps, id: string, user: AuthUser) {
  const { session, record } = await managedSession(deps, id, user, 'editor');
  const current = record ?? defaultRecord(session);
  const environment = await deps.environments.get(current.environment_id);
  if (environment?.kind === 'self_hosted') throw invalidField('session_id', "a self-hosted environment's worker has its own files: resources are mounted only in the sandboxes Zero runs");
  return current;
}

const find = (record: ManagedSessionRecord | undefined, sessionId: string, resourceId: string) => {
  const resource = record?.resources?.find((r) => r.id === resourceId);
  if (!resource) throw notFound(`no resource "${resourceId}" in session "${sessionId}"`, 'resource_id');
  return resource;
};

/**
 * `/v1/sessions/:id/resources` (`client.beta.sessions.resources`): what the session's commands see in
 * their working copy (`/workspace`): Files API files and GitHub repositories. A change applies from
 * the session's next run. Editors change them, viewers read them.
 */
export function sessionResourceRoutes(deps: V1Deps) {
  const app = new Hono<Env>();

  app.post('/sessions/:id/resources', json(sessionResourceParams), async (c) => {
    const id = c.req.param('id');
    const user = c.get('user');
    const current = await changeable(deps, id, user);
    const resource = await resourceOf(deps, user, c.req.valid('json'), 'body');
    const resources = [...(current.resources ?? []), resource];
    if (resources.length > MAX_SESSION_RESOURCES) throw invalidField('body', `the session has ${MAX_SESSION_RESOURCES} resources, the most it may have; delete one first`);
    checkMountPaths(resources, 'mount_path');
    await holdResources(deps, id, [resource]);
    await writeSessionRecord(deps.artifacts, id, { ...current, resources });
    return c.json(sessionResourceView(resource));
  });

  app.get('/sessions/:id/resources', query(z.object(pageQuery)), async (c) => {
    const id = c.req.param('id');
    const { record } = await managedSession(deps, id, c.get('user'), 'viewer');
    const page = pageOf(record?.resources ?? [], c.req.valid('query'));
    return c.json({ data: page.data.map(sessionResourceView), next_page: page.next_page });
  });

  app.get('/sessions/:id/resources/:resource_id', async (c) => {
    const id = c.req.param('id');
    const { record } = await managedSession(deps, id, c.get('user'), 'viewer');
    return c.json(sessionResourceView(find(record, id, c.req.param('resource_id'))));
  });

  // The API's update sets a repository's token; Zero keeps no secret in a session.
  app.post('/sessions/:id/resources/:resource_id', json(z.object({ authorization_token: z.string().max(500).optional() })), async (c) => {
    const id = c.req.param('id');
    const current = await changeable(deps, id, c.get('user'));
    const resource = find(current, id, c.req.param('resource_id'));
    throw invalidField(
      'authorization_token',
      resource.type !== 'github_repository'
        ? `a ${resource.type} resource has no token to update; delete it and attach it again to change it`
        : "Zero keeps no token in a session: public repositories are read anonymously, and an administrator's resources with the deployment's GitHub credentials",
    );
  });

  app.delete('/sessions/:id/resources/:resource_id', async (c) => {
    const id = c.req.param('id');
    const current = await changeable(deps, id, c.get('user'));
    const resource = find(current, id, c.req.param('resource_id'));
    await writeSessionRecord(deps.artifacts, id, { ...current, resources: (current.resources ?? []).filter((r) => r.id !== resource.id) });
    return c.json({ id: resource.id, type: 'session_resource_deleted' as const });
  });

  return app;
}

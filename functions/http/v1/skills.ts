import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import * as z from 'zod';
import { ZeroError, invalidField, tooLarge } from '@zero/agent/errors';
import { MAX_SKILL_BYTES, readSkillUpload, type SkillUpload, type UploadedFile } from '@zero/runtime/skills/skill-upload';
import { skillStore, type Skill, type SkillVersion } from '@zero/runtime/skills/skill-store';
import { zipFiles } from '@zero/runtime/skills/zip';
import type { Env } from '../env';
import type { V1Deps } from './deps';
import { pageOf, pageQuery } from './pages';
import { query } from './validate';

/** What a multipart upload may carry beyond its files' bytes (the form's boundaries and headers). */
const FORM_OVERHEAD_BYTES = 1024 * 1024;

const uploadLimit = bodyLimit({
  maxSize: MAX_SKILL_BYTES + FORM_OVERHEAD_BYTES,
  onError: () => {
    throw tooLarge(`files: a skill's upload may hold at most ${MAX_SKILL_BYTES} bytes`, 'files');
  },
});

const displayNameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(255, 'must be at most 255 characters')
  .refine((s) => !/[\r\n]/.test(s), 'must be a single line');

/**
 * The skill's upload from a multipart form, as the SDK sends it: each file as `files[]` (or
 * `files`), named `<skill folder>/<path>`, and an optional `display_name`. Another field is
 * refused by name.
 */
async function readForm(c: Context<Env>, withDisplayName: boolean): Promise<{ upload: SkillUpload; displayName?: string }> {
  if (!/^multipart\/form-data\b/i.test(c.req.header('content-type') ?? '')) throw invalidField('files', 'send the skill\'s files as multipart/form-data, each as a "files[]" part named <skill folder>/<path>');
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch (error) {
    if (ZeroError.isInstance(error)) throw error;
    throw invalidField('body', 'is not a readable multipart/form-data body');
  }
  const uploaded: UploadedFile[] = [];
  let displayName: string | undefined;
  for (const [key, value] of form.entries()) {
    if (key === 'files[]' || key === 'files') {
      if (typeof value === 'string') throw invalidField('files', 'each part must be a file, with its path as the file name');
      uploaded.push({ name: value.name, bytes: new Uint8Array(await value.arrayBuffer()) });
    } else if (key === 'display_name' && withDisplayName) {
      const parsed = displayNameSchema.safeParse(typeof value === 'string' ? value : await value.text());
      if (!parsed.success) throw invalidField('display_name', parsed.error.issues[0]!.message);
      displayName = parsed.data;
    } else {
      throw invalidField(key, 'is not a field this request takes');
    }
  }
  return { upload: readSkillUpload(uploaded), ...(displayName !== undefined ? { displayName } : {}) };
}

/** `BetaSkill`. */
function skillResource(skill: Skill) {
  const latest = skill.versions.at(-1)!;
  return {
    type: 'skill' as const,
    id: skill.record.id,
    display_name: skill.record.display_name,
    latest_version_id: latest.id,
    source: { type: 'custom' as const },
    created_at: skill.record.created_at,
    updated_at: latest.created_at,
  };
}

/** `BetaSkillVersion`. */
function versionResource(version: SkillVersion) {
  return { type: 'skill_version' as const, id: version.id, skill_id: version.skill_id, name: version.name, description: version.description, created_at: version.created_at };
}

/**
 * `/v1/skills`: Agent Skills (`client.beta.skills` and `.versions`) in the bucket, each its
 * creator's alone: another user's skill answers the same 404 as none.
 */
export function skillRoutes(deps: V1Deps) {
  const app = new Hono<Env>();
  const skills = skillStore(deps.artifacts);
  const owner = (c: Context<Env>) => c.get('user').id;

  app.post('/skills', uploadLimit, async (c) => {
    const { upload, displayName } = await readForm(c, true);
    return c.json(skillResource(await skills.create(owner(c), displayName, upload)));
  });

  app.get('/skills', query(z.object({ ...pageQuery, source: z.enum(['custom', 'anthropic'], { error: 'must be "custom" or "anthropic"' }).optional() })), async (c) => {
    const q = c.req.valid('query');
    // Zero publishes no skills of its own: every skill here is a user's (`custom`).
    const all = q.source === 'anthropic' ? [] : await skills.listFor(owner(c));
    const page = pageOf(all, q);
    return c.json({ data: page.data.map(skillResource), next_page: page.next_page });
  });

  app.get('/skills/:id', async (c) => c.json(skillResource(await skills.reach(c.req.param('id'), owner(c)))));

  app.delete('/skills/:id', async (c) => {
    const skill = await skills.reach(c.req.param('id'), owner(c));
    await skills.delete(skill);
    return c.json({ type: 'skill_deleted' as const, id: skill.record.id });
  });

  app.post('/skills/:id/versions', uploadLimit, async (c) => {
    const skill = await skills.reach(c.req.param('id'), owner(c));
    const { upload } = await readForm(c, false);
    return c.json(versionResource(await skills.addVersion(skill, upload)));
  });

  app.get('/skills/:id/versions', query(z.object(pageQuery)), async (c) => {
    const skill = await skills.reach(c.req.param('id'), owner(c));
    // Newest first, as the API lists.
    const page = pageOf([...skill.versions].reverse(), c.req.valid('query'));
    return c.json({ data: page.data.map(versionResource), next_page: page.next_page });
  });

  app.get('/skills/:id/versions/:version', async (c) => {
    const skill = await skills.reach(c.req.param('id'), owner(c));
    return c.json(versionResource(skills.versionOf(skill, c.req.param('version'))));
  });

  app.delete('/skills/:id/versions/:version', async (c) => {
    const skill = await skills.reach(c.req.param('id'), owner(c));
    const version = skills.versionOf(skill, c.req.param('version'));
    await skills.deleteVersion(skill, version);
    return c.json({ type: 'skill_version_deleted' as const, id: version.id });
  });

  // The version's files as a zip, under the skill's name as its one top-level folder.
  app.get('/skills/:id/versions/:version/content', async (c) => {
    const skill = await skills.reach(c.req.param('id'), owner(c));
    const version = skills.versionOf(skill, c.req.param('version'));
    const files = await skills.readFiles(version);
    const zip = zipFiles(files.map((f) => ({ path: `${version.name}/${f.path}`, bytes: f.bytes })));
    return c.body(new Uint8Array(zip), 200, { 'content-type': 'application/zip', 'content-disposition': `attachment; filename="${version.name}.zip"` });
  });

  return app;
}

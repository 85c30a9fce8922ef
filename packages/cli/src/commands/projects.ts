import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { projectIdSchema } from '@zero/agent/wire';
import { connect } from '../connect';
import { CliError, EXIT } from '../exit';
import { table } from '../table';
import { listProjectFiles, packTarGz } from './pack';

/** `zero projects`: the projects you can see, with your role. */
export async function listProjects(profile: string | undefined): Promise<number> {
  const { client } = await connect(profile);
  const { projects } = await client.listProjects();
  if (projects.length === 0) process.stderr.write('no projects yet; upload one with "zero projects push <dir> owner/repo"\n');
  else process.stdout.write(`${table([['PROJECT', 'ROLE', 'FILES', 'UPDATED'], ...projects.map((p) => [p.id, p.role ?? '-', String(p.last_upload?.files ?? '-'), p.updated_at.slice(0, 16).replace('T', ' ')])])}\n`);
  return 0;
}

/** `zero projects push <dir> [owner/repo]`: packs the folder (respecting .gitignore) and replaces the project's files. */
export async function pushProject(profile: string | undefined, dir: string, project: string | undefined): Promise<number> {
  const root = resolve(dir);
  if (!(await stat(root).catch(() => undefined))?.isDirectory()) throw new CliError(`${dir} is not a folder`, EXIT.usage);
  const id = project ?? `${basename(dirname(root))}/${basename(root)}`;
  const parsed = projectIdSchema.safeParse(id);
  if (!parsed.success) throw new CliError(`project "${id}" ${parsed.error.issues[0]!.message}; name it: zero projects push ${dir} owner/repo`, EXIT.usage);
  const bodyMax = bodyMaxBytes();
  const { client } = await connect(profile);
  const files = await listProjectFiles(root);
  if (files.length === 0) throw new CliError(`${dir} has no files to upload (after .gitignore)`, EXIT.usage);
  const tty = process.stderr.isTTY;
  const archive = await packTarGz(root, files, (done, bytes) => {
    if (tty) process.stderr.write(`\r\x1b[2Kpacking ${done}/${files.length} files, ${kib(bytes)}`);
  });
  // A request body is capped (6 MB behind a Lambda function URL): a larger archive goes straight to S3.
  const direct = archive.length > bodyMax;
  process.stderr.write(`${tty ? '\r\x1b[2K' : ''}packed ${files.length} files into ${kib(archive.length)}; uploading to ${id}${direct ? ' through S3' : ''}…\n`);
  const result = direct ? await client.uploadArchiveDirect(id, new Uint8Array(archive)) : await client.uploadArchive(id, new Uint8Array(archive));
  process.stderr.write(`${id}: ${result.files} files, ${kib(result.bytes)} (rev ${result.project.rev})${result.unchanged ? `; ${result.unchanged} unchanged` : ''}${result.skipped_count ? `; ${result.skipped_count} skipped` : ''}\n`);
  for (const skipped of result.skipped) process.stderr.write(`  skipped ${skipped.path}: ${skipped.reason}\n`);
  return 0;
}

/** The largest archive sent as a request body (`ZERO_PUSH_BODY_MAX_BYTES`, 5 MB by default); a larger one is uploaded through S3. */
function bodyMaxBytes(): number {
  const raw = process.env.ZERO_PUSH_BODY_MAX_BYTES;
  if (raw === undefined || raw === '') return 5 * 1024 * 1024;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new CliError(`ZERO_PUSH_BODY_MAX_BYTES must be a whole number of bytes, not "${raw}"`, EXIT.usage);
  return value;
}

const kib = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`);

import * as z from 'zod';
import { normalizeProjectFolder } from '../projects/paths';
import { inFolder } from './glob';
import { inProject, projectIdInput, toolError } from './project-scope';
import { defineTool, type ToolContext } from './tool';

const MAX_ENTRIES = 1000;

/** Lists one folder of a project (files with sizes, sub-folders with totals), or the files this conversation wrote. */
export const listFilesTool = defineTool({
  name: 'list_files',
  readOnly: true,
  description:
    'List a folder of the project: its files with their sizes, and its sub-folders with how many files and bytes they hold. ' +
    'With area "written", list the files this conversation saved (reports/ and artifacts/) instead.',
  input: () => z.object({
    path: z.string().max(1024).optional().describe('Folder relative to the project root (or to the written files), e.g. "src". Default: the root.'),
    area: z.enum(['project', 'written']).optional().describe('"project" (default): the project\'s files; "written": the files this conversation saved.'),
    project_id: projectIdInput,
  }),
  async execute({ path, area = 'project', project_id }, context) {
    if (area === 'written') return listWritten(context, path);
    return inProject(project_id, context, async (projectId) => {
      const folder = normalizeProjectFolder(path);
      const snapshot = await context.projectFiles.manifest(projectId);
      const files = snapshot.files.filter((f) => inFolder(f.path, folder));
      if (files.length === 0) return { content: `No folder "${folder}" in project ${projectId}. list_files without a path shows the root.`, is_error: !!folder };
      const rest = (p: string) => (folder ? p.slice(folder.length + 1) : p);
      const here: { name: string; size: number }[] = [];
      const below = new Map<string, { files: number; bytes: number }>();
      for (const file of files) {
        const [first, ...deeper] = rest(file.path).split('/');
        if (deeper.length === 0) here.push({ name: first!, size: file.size });
        else {
          const sub = below.get(first!) ?? { files: 0, bytes: 0 };
          below.set(first!, { files: sub.files + 1, bytes: sub.bytes + file.size });
        }
      }
      const lines = [
        ...[...below].sort(([a], [b]) => a.localeCompare(b)).map(([name, s]) => `${name}/\t${s.files} file${s.files === 1 ? '' : 's'}, ${s.bytes} bytes`),
        ...here.sort((a, b) => a.name.localeCompare(b.name)).map((f) => `${f.name}\t${f.size} bytes`),
      ];
      const shown = lines.slice(0, MAX_ENTRIES);
      const total = files.reduce((n, f) => n + f.size, 0);
      const header = `${folder || '(project root)'} in ${projectId}: ${below.size} folder${below.size === 1 ? '' : 's'}, ${here.length} file${here.length === 1 ? '' : 's'}; ${files.length} files and ${total} bytes in all`;
      const notes = lines.length > shown.length ? [`[showing ${shown.length} of ${lines.length} entries; list a sub-folder]`] : [];
      return [header, ...shown, ...notes].join('\n');
    });
  },
});

async function listWritten(context: ToolContext, path: string | undefined) {
  try {
    const folder = normalizeProjectFolder(path);
    const written = (await context.sessions.listArtifacts(context.sessionId)).filter((a) => inFolder(a.path, folder));
    if (written.length === 0) return folder ? `No file this conversation saved is under "${folder}".` : 'This conversation has saved no files yet.';
    return written.map((a) => `${a.path}\t${a.bytes} bytes${a.project_id ? `\t(project ${a.project_id})` : ''}`).join('\n');
  } catch (error) {
    return toolError(error);
  }
}

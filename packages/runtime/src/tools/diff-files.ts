import * as z from 'zod';
import { normalizeProjectPath } from '../projects/paths';
import { ZeroError } from '@zero/agent/errors';
import { inProject, looksBinary, projectIdInput, toolError } from './project-scope';
import { defineTool, type ToolContext } from './tool';

const MAX_BYTES = 1024 * 1024;
const MAX_CHARS = 1_000_000;

const areaInput = z
  .enum(['project', 'written'])
  .optional()
  .describe('"project" (default): a project file, as read_file reads it; "written": a file this conversation saved, e.g. "reports/audit.md".');

/** A unified diff of two files, or of a file and proposed content. */
export const diffFilesTool = defineTool({
  name: 'diff_files',
  readOnly: true,
  description:
    'Show a unified diff: of the file at path against the file at other_path, or against content (e.g. a change you propose). ' +
    'Files are project files unless their area is "written" (files this conversation saved). Give exactly one of other_path and content.',
  input: () => z
    .object({
      path: z.string().min(1).max(1024).describe('The old side: a file path, e.g. "src/index.ts".'),
      area: areaInput,
      other_path: z.string().min(1).max(1024).optional().describe('The new side, as a file path.'),
      other_area: areaInput,
      content: z.string().max(MAX_CHARS).optional().describe('The new side, as text (instead of other_path).'),
      context_lines: z.number().int().min(0).max(100).optional().describe('Unchanged lines around each change. Default 3.'),
      project_id: projectIdInput,
    })
    .refine((input) => (input.other_path === undefined) !== (input.content === undefined), {
      message: 'give exactly one of other_path and content',
      path: ['other_path'],
    }),
  async execute(input, context) {
    const areas = [input.area ?? 'project', ...(input.other_path === undefined ? [] : [input.other_area ?? 'project'])];
    const diff = async (projectId: string | undefined) => {
      const old = await readSide(context, projectId, input.path, input.area ?? 'project');
      const newName = input.other_path ?? `${input.path} (proposed)`;
      const next = input.other_path === undefined ? input.content! : await readSide(context, projectId, input.other_path, input.other_area ?? 'project');
      if (old === next) return `No differences: ${input.path} and ${newName} are identical.`;
      // The diff library loads with the first diff, not at cold start.
      const { createTwoFilesPatch } = await import('diff');
      return createTwoFilesPatch(input.path, newName, old, next, undefined, undefined, { context: input.context_lines ?? 3 });
    };
    if (areas.includes('project')) return inProject(input.project_id, context, diff);
    // Only files this conversation saved: they are its own, and need no project.
    try {
      return await diff(input.project_id ?? context.projectId);
    } catch (error) {
      return toolError(error);
    }
  },
});

/**
 * The text of one side: a project file, or a file the session wrote (found by the path it was written at;
 * with a project, a report of that project or an artifact, without one any file it wrote).
 */
async function readSide(context: ToolContext, projectId: string | undefined, path: string, area: 'project' | 'written'): Promise<string> {
  const checked = normalizeProjectPath(path);
  if (area === 'written') {
    const written = (await context.sessions.listArtifacts(context.sessionId)).findLast(
      (a) => a.path === checked && (!a.project_id || !projectId || a.project_id === projectId),
    );
    const text = written && (await context.artifacts.getText(written.key));
    if (text === undefined) throw new ZeroError('not_found', `No file "${checked}" was saved by this conversation (list_files with area "written" shows them).`);
    return text;
  }
  if (!projectId) throw new ZeroError('invalid_request', 'No project is selected: pass project_id ("owner/repo").');
  const file = await context.projects.read(projectId, 'files', checked, MAX_BYTES, context.signal);
  if (!file) throw new ZeroError('not_found', `No file "${checked}" in project ${projectId}.`);
  if (looksBinary(file.body)) throw new ZeroError('invalid_request', `"${checked}" is a binary file; diff_files compares text only.`);
  if (file.truncated) throw new ZeroError('limit_reached', `"${checked}" is ${file.size} bytes, over the ${MAX_BYTES}-byte limit for diff_files.`);
  return new TextDecoder('utf-8').decode(file.body);
}

import * as z from 'zod';
import { projectIdInput } from './project-scope';
import { defineTool } from './tool';
import { deleteWritable, inWritableArea } from './writable-area';

/** Deletes one file of the writable area; asks a person first unless a rule says otherwise. */
export const deletePathTool = defineTool({
  name: 'delete_path',
  readOnly: false,
  policySubject: (input) => input.path,
  // Nothing brings a deleted report back: a person decides unless a rule (e.g. `delete_path(artifacts/**)`) does.
  callPolicy: () => ({ ask: 'delete_path asks a person before it deletes a file' }),
  description:
    'Delete one file you saved under "reports/" or "artifacts/". Project source files cannot be deleted. ' +
    'A person is usually asked to approve the deletion first.',
  input: () => z.object({
    path: z.string().min(1).max(1024).describe('"reports/<name>" or "artifacts/<name>".'),
    project_id: projectIdInput,
  }),
  async execute({ path, project_id }, context) {
    return inWritableArea('delete_path', path, project_id, context, async (file) => {
      const listed = await context.artifacts.list(file.key);
      if (!listed.some((o) => o.key === file.key)) {
        const folder = listed.some((o) => o.key.startsWith(`${file.key}/`));
        return { content: folder ? `"${file.path}" is a folder; delete_path deletes one file at a time.` : `No file "${file.path}" to delete.`, is_error: true };
      }
      await deleteWritable(context, file);
      return `Deleted ${file.path}${file.projectId ? ` in project ${file.projectId}` : ''}.`;
    });
  },
});

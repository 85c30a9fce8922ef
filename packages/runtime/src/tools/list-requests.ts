import * as z from 'zod';
import { inProject, projectIdInput } from './project-scope';
import { defineTool } from './tool';

/** Lists the project's saved requests (`requests/*.yaml`), naming each file that cannot be read and the field at fault. */
export const listRequestsTool = defineTool({
  name: 'list_requests',
  readOnly: true,
  description:
    'List the saved API requests of the project (its requests/*.yaml files): name, method, URL, expected status and description. ' +
    'A file that is not a valid saved request is listed with its file name and the field at fault. Run one with run_request.',
  input: () => z.object({ project_id: projectIdInput }),
  async execute({ project_id }, context) {
    // The library's code loads with the first call, not at cold start.
    const { describeRequestError, listLibrary } = await import('./api-testing/request-library');
    return inProject(project_id, context, async (projectId) => {
      const { entries, more } = await listLibrary(context, projectId);
      if (entries.length === 0) return `Project ${projectId} has no saved requests (requests/*.yaml). save_request adds one.`;
      const lines = entries.map((entry) => {
        if ('error' in entry) return `${entry.name}\tINVALID: ${describeRequestError(entry.error)}`;
        const { method, url, expected_status, description } = entry.request;
        const expects = expected_status === undefined ? '' : `\texpects ${[expected_status].flat().join(' or ')}`;
        return `${entry.name}\t${method} ${url}${expects}${description ? `\t${description}` : ''}`;
      });
      if (more) lines.push(`[${more} more saved requests not listed]`);
      return [`Saved requests of ${projectId} (${entries.length}):`, ...lines].join('\n');
    });
  },
});

import * as z from 'zod';
import { defineTool } from './tool';

/** Lists the projects this session may use, with a one-line summary each. */
export const listProjectsTool = defineTool({
  name: 'list_projects',
  readOnly: true,
  description:
    'List the projects you can investigate, with when each was last updated, how many files its last upload had and which scanner analyses exist for it. ' +
    'Use the project id ("owner/repo") with the file and analysis tools.',
  input: () => z.object({
    filter: z.string().max(200).optional().describe('Only projects whose id contains this text (case-insensitive).'),
  }),
  async execute({ filter }, { projects, projectAccess, sessionId, projectId }) {
    // Only the projects every member of this conversation may see: the model's answer reaches them all.
    const visible = await projectAccess.visibleToSession(sessionId);
    const all = await projects.listProjects(visible === 'all' ? undefined : [...visible.keys()]);
    const shown = filter ? all.filter((p) => p.id.toLowerCase().includes(filter.toLowerCase())) : all;
    if (shown.length === 0) {
      if (filter) return `No project id contains "${filter}" (${all.length} projects in all).`;
      return visible === 'all' ? 'There are no projects yet.' : 'No project is shared with everyone in this conversation yet (a project\'s owner adds members).';
    }
    const lines = shown.map((p) => {
      const parts = [`updated ${p.updated_at}`];
      if (p.last_upload) parts.push(`${p.last_upload.files} files in last upload`);
      parts.push(p.analyses.length ? `analyses: ${p.analyses.join(', ')}` : 'no analyses');
      return `- ${p.id}${p.id === projectId ? ' (this conversation\'s project)' : ''}: ${parts.join('; ')}${p.description ? ` — ${p.description}` : ''}`;
    });
    return `${shown.length} project${shown.length === 1 ? '' : 's'}:\n${lines.join('\n')}`;
  },
});

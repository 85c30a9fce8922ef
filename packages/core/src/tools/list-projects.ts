import * as z from 'zod';
import { defineTool } from './tool';

/** Lists the projects in the bucket with a one-line summary each. */
export const listProjectsTool = defineTool({
  name: 'list_projects',
  description:
    'List the projects you can investigate, with when each was last updated, how many files its last upload had and which scanner analyses exist for it. ' +
    'Use the project id ("owner/repo") with the file and analysis tools.',
  input: z.object({
    filter: z.string().max(200).optional().describe('Only projects whose id contains this text (case-insensitive).'),
  }),
  async execute({ filter }, { projects, projectId }) {
    const all = await projects.listProjects();
    const shown = filter ? all.filter((p) => p.id.toLowerCase().includes(filter.toLowerCase())) : all;
    if (shown.length === 0) return filter ? `No project id contains "${filter}" (${all.length} projects in all).` : 'There are no projects yet.';
    const lines = shown.map((p) => {
      const parts = [`updated ${p.updated_at}`];
      if (p.last_upload) parts.push(`${p.last_upload.files} files in last upload`);
      parts.push(p.analyses.length ? `analyses: ${p.analyses.join(', ')}` : 'no analyses');
      return `- ${p.id}${p.id === projectId ? ' (this conversation\'s project)' : ''}: ${parts.join('; ')}${p.description ? ` — ${p.description}` : ''}`;
    });
    return `${shown.length} project${shown.length === 1 ? '' : 's'}:\n${lines.join('\n')}`;
  },
});

import * as z from 'zod';
import { normalizeProjectFolder } from '../projects/paths';
import { inProject, projectIdInput } from './project-scope';
import { defineTool } from './tool';

const DEFAULT_MAX = 500;

/** Finds files of a project by glob pattern. */
export const globTool = defineTool({
  name: 'glob',
  readOnly: true,
  description:
    'Find files of the project whose paths match a glob pattern, e.g. "**/*.ts", "src/**/package.json" or "*.md" (a pattern without "/" matches file names in any folder). ' +
    'Returns matching paths sorted, up to max_results. Optionally restrict to a folder with path.',
  input: () => z.object({
    pattern: z.string().min(1).max(500).describe('Glob pattern, e.g. "**/*.go" or "package.json".'),
    path: z.string().max(1024).optional().describe('Folder to search in, relative to the project root. Default: the whole project.'),
    max_results: z.number().int().min(1).max(5000).optional().describe(`Most paths to return. Default ${DEFAULT_MAX}.`),
    project_id: projectIdInput,
  }),
  async execute({ pattern, path, max_results = DEFAULT_MAX, project_id }, context) {
    return inProject(project_id, context, async (projectId) => {
      const folder = normalizeProjectFolder(path);
      const matches = await matcherFor(pattern);
      const snapshot = await context.projectFiles.manifest(projectId);
      const found = snapshot.files.map((f) => f.path).filter((p) => inFolder(p, folder) && matches(folder ? p.slice(folder.length + 1) : p));
      if (found.length === 0) return `No files match "${pattern}"${folder ? ` under ${folder}/` : ''} in ${projectId} (${snapshot.files.length} files in the project).`;
      const shown = found.slice(0, max_results);
      const more = found.length > shown.length ? `\n[${found.length - shown.length} more matches not shown; narrow the pattern or raise max_results]` : '';
      return `${found.length} file${found.length === 1 ? '' : 's'} match "${pattern}":\n${shown.join('\n')}${more}`;
    });
  },
});

/** A path matcher: picomatch with dotfiles included; a pattern without "/" matches the base name anywhere. */
export async function matcherFor(pattern: string): Promise<(path: string) => boolean> {
  // Loaded on first use: most requests never glob, and the API's cold start pays for every import.
  const { default: picomatch } = await import('picomatch');
  return picomatch(pattern, { dot: true, basename: !pattern.includes('/') });
}

export function inFolder(path: string, folder: string): boolean {
  return folder === '' || path === folder || path.startsWith(`${folder}/`);
}

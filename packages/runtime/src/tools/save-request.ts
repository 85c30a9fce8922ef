import * as z from 'zod';
import { requestNameSchema, requestPath, savedRequestSchema } from './api-testing/saved-request';
import { inProject, projectIdInput } from './project-scope';
import { defineTool } from './tool';

/** Adds a request to the project's library (`requests/<name>.yaml`), checked as run_request will read it. */
export const saveRequestTool = defineTool({
  name: 'save_request',
  readOnly: false,
  policySubject: (input) => requestPath(input.name),
  description:
    'Save an API request in the project\'s library as requests/<name>.yaml, so it can be run again (run_request), baselined (save_baseline) and checked for regressions (check_regression). ' +
    'Give method, url, headers (secrets only as {{secret:ZERO_HTTP_SECRET_<NAME>}}), body (an object is sent as JSON), expected_status and ignore_fields (volatile fields such as "body.updated_at"). ' +
    'An existing request of that name is kept unless replace is true.',
  input: () => savedRequestSchema().extend({
    name: requestNameSchema().describe('File name without ".yaml", e.g. "get-user".'),
    replace: z.boolean().optional().describe('Replace an existing request of that name. Default false.'),
    project_id: projectIdInput,
  }),
  async execute({ name, replace = false, project_id, ...request }, context) {
    // The library's code loads with the first call, not at cold start.
    const { writeProjectText } = await import('./api-testing/request-library');
    const { formatSavedRequest, parseSavedRequest } = await import('./api-testing/saved-request-file');
    return inProject(
      project_id,
      context,
      async (projectId) => {
        const path = requestPath(name);
        const text = formatSavedRequest(request);
        // Read back as run_request will read it: the same checks as http_request's input.
        const check = parseSavedRequest(path, text);
        if (!check.ok) return { content: `${check.error.field}: ${check.error.message}. Nothing was saved.`, is_error: true };
        if (!replace && (await context.projects.read(projectId, 'files', path, 1, context.signal))) {
          return { content: `${path} already exists in ${projectId}; pass replace: true to overwrite it, or choose another name.`, is_error: true };
        }
        await writeProjectText(context, projectId, path, text);
        return `Saved ${path} in ${projectId}:\n${text}`;
      },
      'editor',
    );
  },
});

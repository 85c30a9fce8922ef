import * as z from 'zod';
import { BASELINES_FOLDER, requestNameSchema, statusExpected } from './api-testing/saved-request';
import type { OutboundOptions } from '@zero/agent/net/outbound';
import { inProject, projectIdInput } from './project-scope';
import { subjectOf, savedFor } from './run-request';
import { defineTool, type ToolSpec } from './tool';

/** Runs a saved request and keeps its response as the baseline (`baselines/<name>.json`) regression checks compare with. */
export function createSaveBaselineTool(outbound: OutboundOptions = {}): ToolSpec<any> {
  return defineTool({
    name: 'save_baseline',
    readOnly: false,
    policySubject: async (input, context) => subjectOf(await savedFor(input, context)),
    description:
      'Run a saved request (requests/<name>.yaml) and store its response (status, the headers of interest, the body) as the baseline, baselines/<name>.json: ' +
      'the "definition of normal" check_regression compares later responses with. Replaces an earlier baseline of that request. Fields the request lists in ignore_fields are left out.',
    input: () => z.object({
      name: requestNameSchema().describe('The saved request, e.g. "get-user".'),
      project_id: projectIdInput,
    }),
    timeoutMs: 35_000,
    async execute({ name, project_id }, context) {
      // The library's code loads with the first call, not at cold start.
      const { loadRequest, sendSavedRequest, writeProjectText } = await import('./api-testing/request-library');
      const { snapshotOf } = await import('./api-testing/response-snapshot');
      return inProject(
        project_id,
        context,
        async (projectId) => {
          const loaded = await loadRequest(context, projectId, name);
          if (!loaded.ok) return { content: loaded.message, is_error: true };
          const sent = await sendSavedRequest(loaded.request, outbound, context);
          if (!sent.ok) return { content: `${loaded.path}: ${sent.error}. No baseline was saved.`, is_error: true };
          const snapshot = snapshotOf(name, sent.exchange, loaded.request.ignore_fields);
          const path = `${BASELINES_FOLDER}/${name}.json`;
          await writeProjectText(context, projectId, path, `${JSON.stringify(snapshot, null, 2)}\n`);
          const warning = statusExpected(loaded.request, snapshot.status) ? '' : ` Note: the request expects status ${[loaded.request.expected_status].flat().join(' or ')}, so this baseline records a failure as normal.`;
          return `Saved ${path} in ${projectId}: status ${snapshot.status}, headers ${Object.keys(snapshot.headers).join(', ') || 'none of interest'}, a ${snapshot.body_kind} body.${warning}`;
        },
        'editor',
      );
    },
  });
}

import type { WebhookDeps } from './webhooks';

/** Where an investigation's report went, as its summary and callback give it. */
export interface ReportFile {
  key: string;
  path: string;
  project_id?: string;
  bytes: number;
}

/**
 * Writes one format of an investigation's report: `projects/<id>/reports/<session>.<ext>`,
 * or the session's `artifacts/report.<ext>` without a project, listed among the session's
 * artifacts. Rewritten whole, so writing it twice is harmless.
 */
export async function writeReportFile(
  deps: WebhookDeps,
  report: { sessionId: string; runId: string; projectId?: string; at: string },
  ext: 'md' | 'pdf',
  body: string | Uint8Array,
  contentType: string,
): Promise<ReportFile> {
  const { sessionId, projectId } = report;
  const name = `${sessionId}.${ext}`;
  // The report is the session's, as private as the session: whatever another session put at its path is replaced.
  if (projectId) await deps.projectAccess.claimReport(sessionId, projectId, name, { takeOver: true });
  const key = projectId ? await deps.projects.putReport(projectId, name, body, contentType) : `sessions/${sessionId}/artifacts/report.${ext}`;
  if (!projectId) await deps.artifacts.put(key, body, contentType);
  const path = projectId ? `reports/${name}` : `artifacts/report.${ext}`;
  const bytes = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  await deps.sessions.recordArtifact(sessionId, {
    key,
    path,
    ...(projectId ? { project_id: projectId } : {}),
    bytes,
    run_id: report.runId,
    tool_call_id: ext === 'md' ? 'webhook-report' : `webhook-report-${ext}`,
    at: report.at,
  });
  return { key, path, ...(projectId ? { project_id: projectId } : {}), bytes };
}

/**
 * The Markdown report rendered as a PDF beside it (a hook's `report_formats: ["md", "pdf"]`).
 * A report the renderer refuses (over 50 pages) is a warning on the summary, not a failure.
 */
export async function writePdfReport(
  deps: WebhookDeps,
  report: { sessionId: string; runId: string; projectId?: string; at: string; title: string },
  markdown: string,
): Promise<{ file: ReportFile & { pages: number } } | { warning: string }> {
  // Loaded on first use, as render_report loads it.
  const { renderReport, ReportContentError } = await import('@zero/runtime/reports/render');
  try {
    const pdf = await renderReport(markdown, { format: 'markdown', title: report.title });
    const file = await writeReportFile(deps, report, 'pdf', pdf.bytes, 'application/pdf');
    return { file: { ...file, pages: pdf.pages } };
  } catch (error) {
    if (ReportContentError.isInstance(error)) return { warning: `the PDF report was not written: ${error.message}` };
    throw error;
  }
}

import type { AttachmentRef } from '@zero/agent/wire';

/**
 * A user message's content as the Managed Agents API shows it (`user.message`'s blocks): its text,
 * then the attachments that came from Files API files as image and document blocks with their `file`
 * source. Bytes sent inline are not sent back (a client that sent them has them; members read them
 * from `/api/v2/sessions/:id/attachments/:sha256`).
 */
export function userMessageContent(text: string, attachments: readonly AttachmentRef[] = []) {
  return [
    { type: 'text' as const, text },
    ...attachments.flatMap((a) => {
      if (!a.file_id) return [];
      const source = { type: 'file' as const, file_id: a.file_id };
      return [a.media_type === 'application/pdf' ? { type: 'document' as const, source, ...(a.filename ? { title: a.filename } : {}) } : { type: 'image' as const, source }];
    }),
  ];
}

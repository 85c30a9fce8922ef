import { isImageType, type AttachmentRef } from '../wire';
import type { ContentBlockParam } from '../model/provider';

/** The bytes of a conversation's attachments for one model call, base64 by sha256 (those left out are absent). */
export type AttachmentData = ReadonlyMap<string, string>;

/** A message's attachments as the model is sent them: image and document blocks, or a note for one left out. */
export function attachmentBlocks(refs: readonly AttachmentRef[], data: AttachmentData | undefined): ContentBlockParam[] {
  return refs.map((ref): ContentBlockParam => {
    const base64 = data?.get(ref.sha256);
    const name = ref.filename ?? ref.media_type;
    if (base64 === undefined) return { type: 'text', text: `[attachment ${name} (${ref.size} bytes) is left out of this call: the conversation's attachments are over the request's limit, or it was deleted]` };
    if (isImageType(ref.media_type)) return { type: 'image', source: { type: 'base64', media_type: ref.media_type, data: base64 } };
    return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: base64 }, ...(ref.filename ? { title: ref.filename } : {}) };
  });
}

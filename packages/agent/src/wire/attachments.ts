import * as z from 'zod';

const MiB = 1024 * 1024;

/** Image types the Messages API takes as image blocks. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
/** Document types the Messages API takes as document blocks. */
export const DOCUMENT_MEDIA_TYPES = ['application/pdf'] as const;
export const ATTACHMENT_MEDIA_TYPES = [...IMAGE_MEDIA_TYPES, ...DOCUMENT_MEDIA_TYPES] as const;
export type AttachmentMediaType = (typeof ATTACHMENT_MEDIA_TYPES)[number];

/** An image's limit: the Messages API refuses an image over 5 MB. */
export const MAX_IMAGE_BYTES = 5 * MiB;
/** A PDF's limit: its base64 (4/3 of it) leaves room in the Messages API's 32 MB request. */
export const MAX_PDF_BYTES = 20 * MiB;
/** Attachments of one message. */
export const MAX_ATTACHMENTS_PER_MESSAGE = 20;
/** All attachments of one message together. */
export const MAX_MESSAGE_ATTACHMENT_BYTES = 20 * MiB;
/**
 * The attachments of a whole conversation sent in one model call: past this the oldest are left out
 * of the call (the model is told which), so the request stays under the Messages API's 32 MB.
 */
export const MAX_CONVERSATION_ATTACHMENT_BYTES = 22 * MiB;

/** A request body that may carry attachments inline (base64 of a message's whole allowance, and the rest of the request). */
export const MAX_BODY_WITH_ATTACHMENTS_BYTES = 28 * MiB;
/** Said in a 413 for a body over that limit. */
export const ATTACHMENTS_BODY_HINT = ` (${28} MiB with attachments: an image is at most 5 MiB, a PDF 20 MiB, a message's attachments 20 MiB together; upload larger files with the Files API, POST /v1/files, and send their file_id)`;

/** An attachment as a message, its log record and its `message` event keep it: a pointer to the blob, never the bytes. */
export const attachmentRefSchema = z.object({
  /** The content's SHA-256 (hex): the blob at `blobs/sha256/<sha256>`. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  media_type: z.enum(ATTACHMENT_MEDIA_TYPES),
  size: z.number().int().nonnegative(),
  filename: z.string().max(255).optional(),
  /** The Files API file it was attached from, if any. */
  file_id: z.string().max(100).optional(),
});
export type AttachmentRef = z.infer<typeof attachmentRefSchema>;

/** An attachment sent inline (`attachments` of `POST /api/v2/chat`): base64 bytes, or a Files API file. */
export const attachmentParamSchema = z.union([
  z.strictObject({
    media_type: z.string().max(100),
    /** The bytes, base64 (a `data:` URL is taken too). */
    data: z.string().min(1),
    filename: z.string().min(1).max(255).optional(),
  }),
  z.strictObject({ file_id: z.string().min(1).max(100) }),
]);
export type AttachmentParam = z.infer<typeof attachmentParamSchema>;

export const isImageType = (mediaType: string): mediaType is (typeof IMAGE_MEDIA_TYPES)[number] => (IMAGE_MEDIA_TYPES as readonly string[]).includes(mediaType);

/** The media type the bytes are, by their first bytes (what a client claims is not trusted), or undefined for none Zero takes. */
export function sniffMediaType(bytes: Uint8Array): AttachmentMediaType | undefined {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (starts(0x52, 0x49, 0x46, 0x46) && bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50) return 'image/webp';
  if (starts(0x25, 0x50, 0x44, 0x46, 0x2d)) return 'application/pdf';
  return undefined;
}

const megabytes = (bytes: number) => `${(bytes / MiB).toFixed(bytes % MiB ? 1 : 0)} MiB`;

/**
 * Why these bytes cannot be an attachment, naming the limit, or undefined when they can: the type
 * (by content) must be one the Messages API takes, and the size within that type's limit.
 */
export function attachmentProblem(bytes: Uint8Array): string | undefined {
  const type = sniffMediaType(bytes);
  if (!type) return `is not a PNG, JPEG, GIF, WebP image or a PDF (by its content); those are the types a model is sent`;
  const limit = isImageType(type) ? MAX_IMAGE_BYTES : MAX_PDF_BYTES;
  if (bytes.byteLength > limit) return `is ${megabytes(bytes.byteLength)}; the limit for ${isImageType(type) ? 'an image' : 'a PDF'} is ${megabytes(limit)} (${limit} bytes)`;
  return undefined;
}

/** The size limit's wording for a message's attachments together. */
export const messageAttachmentsProblem = (total: number) =>
  total > MAX_MESSAGE_ATTACHMENT_BYTES ? `together are ${megabytes(total)}; a message's attachments are at most ${megabytes(MAX_MESSAGE_ATTACHMENT_BYTES)} (${MAX_MESSAGE_ATTACHMENT_BYTES} bytes)` : undefined;

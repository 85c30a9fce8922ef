import type { FileUIPart } from 'ai';
import { createContext, useContext, useEffect, useState } from 'react';
import { ATTACHMENT_MEDIA_TYPES, MAX_IMAGE_BYTES, MAX_PDF_BYTES } from '@zero/agent/wire';

/** What the file picker offers: the types a model is sent as image and document blocks. */
export const ATTACH_ACCEPT = ATTACHMENT_MEDIA_TYPES.join(',');

const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`;

/**
 * A picked, pasted or dropped file as a `useChat` file part (its bytes as a data URL), or why it
 * cannot be sent: the server checks again, by content, but a person learns of a wrong type or a file
 * over its limit at once, with the limit named.
 */
export async function toFilePart(file: File): Promise<FileUIPart | { refused: string }> {
  if (!(ATTACHMENT_MEDIA_TYPES as readonly string[]).includes(file.type)) return { refused: `${file.name}: only PNG, JPEG, GIF and WebP images and PDFs can be attached` };
  const limit = file.type === 'application/pdf' ? MAX_PDF_BYTES : MAX_IMAGE_BYTES;
  if (file.size > limit) return { refused: `${file.name} is ${(file.size / 1024 / 1024).toFixed(1)} MiB; the limit for ${file.type === 'application/pdf' ? 'a PDF' : 'an image'} is ${mib(limit)}` };
  const url = await new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = () => reject(reader.error ?? new Error(`${file.name} could not be read`));
    reader.readAsDataURL(file);
  });
  return { type: 'file', mediaType: file.type, filename: file.name, url };
}

/** Reads an attachment of a stored message by its API path (`/sessions/:id/attachments/:sha256`), with the signed-in key. */
export const AttachmentReader = createContext<((path: string) => Promise<Blob>) | undefined>(undefined);

/** An image part's source: a data URL as it is; a stored attachment read with the key, as an object URL. */
function useImageSource(url: string): string | undefined {
  const read = useContext(AttachmentReader);
  const [source, setSource] = useState(url.startsWith('data:') ? url : undefined);
  useEffect(() => {
    if (url.startsWith('data:') || !read) return;
    let objectUrl: string | undefined;
    let live = true;
    void read(url).then(
      (blob) => {
        objectUrl = URL.createObjectURL(blob);
        if (live) setSource(objectUrl);
      },
      () => undefined,
    );
    return () => {
      live = false;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [url, read]);
  return source;
}

/** A file part as a preview: the image itself, or the PDF's name. */
export function FilePreview({ part }: { part: FileUIPart }) {
  const source = useImageSource(part.url);
  if (part.mediaType.startsWith('image/')) return <img className="attachment-image" data-testid="attachment-image" src={source} alt={part.filename ?? 'attached image'} />;
  return (
    <span className="attachment-doc" data-testid="attachment-doc">
      PDF · {part.filename ?? 'document'}
    </span>
  );
}

/** The files about to be sent, each with its preview and a button that takes it off. */
export function AttachmentTray({ files, onRemove }: { files: readonly FileUIPart[]; onRemove: (index: number) => void }) {
  if (!files.length) return null;
  return (
    <ul className="attachment-tray" data-testid="attachment-tray" aria-label="Attachments">
      {files.map((part, i) => (
        <li key={i} className="attachment">
          <FilePreview part={part} />
          <button type="button" className="secondary" aria-label={`Remove ${part.filename ?? 'attachment'}`} data-testid="attachment-remove" onClick={() => onRemove(i)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

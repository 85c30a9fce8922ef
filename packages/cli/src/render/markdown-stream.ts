/**
 * Streams Markdown to a terminal a block at a time: text is held until the
 * block it belongs to is complete (a blank line outside a code fence, or a
 * closing fence), then rendered and written. What was written is never
 * re-flowed; a block is rendered once, whole, so tables and code are
 * highlighted correctly.
 */
export class MarkdownStream {
  private buffer = '';

  constructor(
    private readonly render: (markdown: string) => string,
    private readonly write: (text: string) => void,
  ) {}

  push(delta: string): void {
    this.buffer += delta;
    const end = completeBlocksEnd(this.buffer);
    if (end > 0) {
      const blocks = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end);
      this.emit(blocks);
    }
  }

  /** Renders whatever is held (the run's text ended, or a tool call interrupts it). */
  flush(): void {
    const rest = this.buffer;
    this.buffer = '';
    if (rest.trim()) this.emit(rest);
  }

  get pending(): boolean {
    return this.buffer.trim().length > 0;
  }

  private emit(markdown: string) {
    if (!markdown.trim()) return;
    const rendered = this.render(markdown).replace(/^\n+/, '').replace(/\s+$/, '');
    if (rendered) this.write(`${rendered}\n\n`);
  }
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The length of the buffer's prefix made of complete blocks (0 when the first block is still open). */
export function completeBlocksEnd(text: string): number {
  let end = 0;
  let fence: string | undefined;
  let offset = 0;
  let sawContent = false;
  // Only whole lines count: the last piece (no newline yet) may still grow.
  while (true) {
    const newline = text.indexOf('\n', offset);
    if (newline < 0) break;
    const line = text.slice(offset, newline);
    offset = newline + 1;
    const marker = FENCE.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && !line.trim().slice(marker.length).trim()) {
        fence = undefined;
        end = offset;
        sawContent = false;
      }
      continue;
    }
    if (marker) {
      fence = marker;
      continue;
    }
    if (!line.trim()) {
      if (sawContent) end = offset;
      sawContent = false;
    } else sawContent = true;
  }
  return end;
}

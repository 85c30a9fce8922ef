import * as fontkit from 'fontkit';
import PDFDocument from 'pdfkit';
import { MAX_TABLE_COLUMNS, ReportContentError, plainText, type Align, type Block, type ListItem, type Run } from './document';
import type { Face } from './fonts';

/** Where rendering stops: pages, wall time, and the call's abort. */
export interface LayoutLimits {
  maxPages: number;
  /** Epoch milliseconds. */
  deadline: number;
  signal?: AbortSignal;
}

export interface LaidOutPdf {
  bytes: Uint8Array;
  pages: number;
  /** Characters the fonts have no glyph for (shown as empty boxes), each once. */
  missing: string[];
}

// A4 with 2 cm margins; sizes in points.
const PAGE = { size: 'A4', margin: 56 } as const;
const SIZE = 10.5;
const CODE_SIZE = 9;
const LINE_GAP = 2.5;
const HEADING_SIZES = [20, 16, 13.5, 12, 11, 10.5];
const COLOR = { text: '#1f2328', muted: '#59636e', link: '#0550ae', code: '#953800', shade: '#f3f4f6', rule: '#d0d7de', header: '#eaeef2' };
const BULLETS = ['•', '◦', '▪'];
/** List levels that indent further; deeper ones keep the last indent so text never runs out of width. */
const MAX_INDENT_LEVELS = 6;
const CELL_PAD = 4;

/** Lays the blocks out on A4 pages and returns the PDF. Throws ReportContentError at a limit. */
export async function layoutPdf(blocks: readonly Block[], fonts: Record<Face, Buffer>, options: { title?: string; limits: LayoutLimits }): Promise<LaidOutPdf> {
  const { limits } = options;
  // No default font: the standard PDF fonts cover WinAnsi only, and the embedded faces are registered below.
  const doc = new PDFDocument({ size: PAGE.size, margin: PAGE.margin, bufferPages: true, autoFirstPage: false, font: '', info: { Title: options.title ?? 'Report', Producer: 'Zero render_report', Creator: 'Zero' } });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  for (const [face, bytes] of Object.entries(fonts)) doc.registerFont(face, bytes);
  let pages = 0;
  doc.on('pageAdded', () => {
    pages += 1;
    if (pages > limits.maxPages) throw new ReportContentError(`the report would be longer than ${limits.maxPages} pages; shorten it or split it into several reports`);
    checkTime(limits);
  });
  doc.addPage();

  const layout = new Layout(doc, fonts, limits);
  let lastYield = Date.now();
  for (const block of blocks) {
    layout.block(block, 0);
    // Rendering is synchronous: between blocks, the call's timeout and abort get their turn.
    if (Date.now() - lastYield > 25) {
      await new Promise((resolve) => setImmediate(resolve));
      lastYield = Date.now();
    }
    checkTime(limits);
  }
  layout.footers();
  doc.end();
  await ended;
  return { bytes: Buffer.concat(chunks), pages, missing: [...layout.missing] };
}

function checkTime(limits: LayoutLimits): void {
  if (limits.signal?.aborted) throw new ReportContentError('rendering was stopped (the call was cancelled or timed out)');
  if (Date.now() > limits.deadline) throw new ReportContentError('rendering took too long; shorten the report');
}

interface TextStyle {
  size: number;
  color: string;
  face?: 'regular' | 'bold';
  align?: Align;
  /** Space below the paragraph. */
  after: number;
}

/** The cursor over the document: the current left edge and width, and the blocks' drawing rules. */
class Layout {
  readonly missing = new Set<string>();
  private left: number;
  private width: number;
  private readonly coverage: { text: fontkit.Font; mono: fontkit.Font };

  constructor(
    private readonly doc: PDFKit.PDFDocument,
    fonts: Record<Face, Buffer>,
    private readonly limits: LayoutLimits,
  ) {
    this.left = doc.page.margins.left;
    this.width = doc.page.width - doc.page.margins.left - doc.page.margins.right;
    this.coverage = { text: fontkit.create(fonts.regular) as fontkit.Font, mono: fontkit.create(fonts.mono) as fontkit.Font };
  }

  private get bottom(): number {
    return this.doc.page.height - this.doc.page.margins.bottom;
  }

  /** Starts a new page unless `height` more points fit on this one. */
  private ensure(height: number): void {
    if (this.doc.y + height > this.bottom && this.doc.y > this.doc.page.margins.top) this.doc.addPage();
  }

  private lineHeight(size: number): number {
    this.doc.font('regular').fontSize(size);
    return this.doc.currentLineHeight(true) + LINE_GAP;
  }

  block(block: Block, depth: number, tight = false): void {
    switch (block.kind) {
      case 'heading':
        return this.heading(block.level, block.runs);
      case 'paragraph':
        return this.paragraph(block.runs, { size: SIZE, color: COLOR.text, after: tight ? 2 : SIZE * 0.7 });
      case 'list':
        return this.list(block.ordered, block.start, block.items, depth);
      case 'table':
        return this.table(block.header, block.rows, block.align);
      case 'code':
        return this.code(block.text);
      case 'quote':
        return this.quote(block.blocks, depth);
      case 'rule':
        return this.rule();
    }
  }

  private heading(level: number, runs: Run[]): void {
    const size = HEADING_SIZES[Math.min(level, 6) - 1]!;
    const atTop = this.doc.y <= this.doc.page.margins.top + 1;
    if (!atTop) this.doc.y += size * 0.6;
    // Kept with the start of what follows it.
    this.ensure(this.lineHeight(size) + 3 * this.lineHeight(SIZE));
    this.paragraph(runs, { size, color: COLOR.text, face: 'bold', after: level <= 2 ? 4 : size * 0.4 });
    if (level <= 2) {
      this.doc.moveTo(this.left, this.doc.y).lineTo(this.left + this.width, this.doc.y).lineWidth(level === 1 ? 1 : 0.6).strokeColor(COLOR.rule).stroke();
      this.doc.y += size * 0.5;
    }
  }

  /** Styled runs as one wrapped paragraph starting at the current left edge; a "\n" in a run is a line break. */
  private paragraph(runs: Run[], style: TextStyle, at: { x: number; width: number } = { x: this.left, width: this.width }): void {
    const lines = splitLines(runs);
    if (lines.every((line) => line.length === 0)) return;
    this.ensure(this.lineHeight(style.size));
    // pdfkit's continued text loses line breaks: each line is a paragraph of its own.
    for (const line of lines) {
      if (line.length === 0) this.doc.y += this.lineHeight(style.size);
      else this.line(line, style, at);
      checkTime(this.limits);
    }
    this.doc.fillColor(COLOR.text);
    this.doc.y += style.after;
    this.doc.x = this.left;
  }

  private line(runs: Run[], style: TextStyle, at: { x: number; width: number }): void {
    const doc = this.doc;
    const parts = runs.flatMap(cutLongWords);
    parts.forEach((run, i) => {
      this.noteMissing(run);
      doc
        .font(this.faceOf(run, style.face))
        .fontSize(run.code ? style.size * 0.9 : style.size)
        .fillColor(run.link ? COLOR.link : run.code ? COLOR.code : style.color);
      const options: PDFKit.Mixins.TextOptions = {
        continued: i < parts.length - 1,
        lineGap: LINE_GAP,
        align: style.align ?? 'left',
        link: run.link ?? null,
        underline: !!run.link,
        strike: !!run.strike,
      };
      if (i === 0) doc.text(run.text, at.x, doc.y, { ...options, width: at.width });
      else doc.text(run.text, options);
    });
  }

  private faceOf(run: Run, base: 'regular' | 'bold' = 'regular'): Face {
    if (run.code) return run.bold || base === 'bold' ? 'monoBold' : 'mono';
    const bold = run.bold || base === 'bold';
    if (bold && run.italic) return 'boldItalic';
    return bold ? 'bold' : run.italic ? 'italic' : 'regular';
  }

  private noteMissing(run: Run): void {
    if (this.missing.size >= 50) return;
    const font = run.code ? this.coverage.mono : this.coverage.text;
    for (const char of run.text) {
      const point = char.codePointAt(0)!;
      if (point >= 0x20 && !font.hasGlyphForCodePoint(point)) this.missing.add(char);
    }
  }

  private list(ordered: boolean, start: number, items: ListItem[], depth: number): void {
    const doc = this.doc;
    const markerWidth = ordered ? Math.max(18, doc.font('regular').fontSize(SIZE).widthOfString(`${start + items.length - 1}.`) + 6) : 14;
    const tight = items.every((item) => item.blocks.length <= 2);
    // Past the deepest indent, a list starts one marker to the left, so its text lines up with its parent's.
    if (depth >= MAX_INDENT_LEVELS) return this.indented(-markerWidth, () => this.items(ordered, start, items, depth, markerWidth, tight));
    this.items(ordered, start, items, depth, markerWidth, tight);
    if (depth === 0) doc.y += SIZE * 0.5;
  }

  private items(ordered: boolean, start: number, items: ListItem[], depth: number, markerWidth: number, tight: boolean): void {
    const doc = this.doc;
    items.forEach((item, i) => {
      this.ensure(this.lineHeight(SIZE));
      const y = doc.y;
      const marker = item.task ? (item.task.checked ? '☑' : '☐') : ordered ? `${start + i}.` : BULLETS[depth % BULLETS.length]!;
      doc.font('regular').fontSize(SIZE).fillColor(ordered ? COLOR.text : COLOR.muted);
      doc.text(marker, this.left, y, { width: markerWidth - 4, align: ordered ? 'right' : 'left', lineBreak: false, lineGap: LINE_GAP });
      doc.fillColor(COLOR.text);
      doc.y = y;
      this.indented(markerWidth, () => {
        for (const block of item.blocks) this.block(block, depth + 1, tight);
      });
      if (!tight) doc.y += 2;
    });
  }

  private indented(by: number, body: () => void): void {
    const [left, width] = [this.left, this.width];
    this.left += by;
    this.width -= by;
    try {
      body();
    } finally {
      [this.left, this.width] = [left, width];
      this.doc.x = left;
    }
  }

  private quote(blocks: Block[], depth: number): void {
    const doc = this.doc;
    const lastPage = () => doc.bufferedPageRange().start + doc.bufferedPageRange().count - 1;
    const [firstPage, top] = [lastPage(), doc.y];
    this.indented(14, () => {
      for (const block of blocks) this.block(block, depth);
    });
    // The bar beside the quote, drawn afterwards on each page it spans.
    const [endPage, y] = [lastPage(), doc.y];
    for (let page = firstPage; page <= endPage; page++) {
      doc.switchToPage(page);
      const from = page === firstPage ? top : doc.page.margins.top;
      const to = page === endPage ? y - SIZE * 0.5 : doc.page.height - doc.page.margins.bottom;
      if (to > from) doc.rect(this.left, from, 3, to - from).fill(COLOR.rule);
    }
    doc.fillColor(COLOR.text);
    doc.y = y;
  }

  private code(text: string): void {
    const doc = this.doc;
    const pad = 6;
    doc.font('mono').fontSize(CODE_SIZE);
    // Monospace: lines are cut at the column that fits, as a terminal wraps them.
    const columns = Math.max(1, Math.floor((this.width - 2 * pad) / doc.widthOfString('M')));
    const height = doc.currentLineHeight(true) + 1;
    const lines = text
      .replace(/\t/g, '    ')
      .split('\n')
      .flatMap((line) => wrapCode(line, columns));
    this.ensure(height + 2 * pad);
    doc.rect(this.left, doc.y, this.width, pad).fill(COLOR.shade);
    doc.y += pad;
    for (const line of lines) {
      this.noteMissing({ text: line, code: true });
      this.ensure(height);
      const y = doc.y;
      doc.rect(this.left, y, this.width, height).fill(COLOR.shade);
      if (line) doc.font('mono').fontSize(CODE_SIZE).fillColor(COLOR.text).text(line, this.left + pad, y, { lineBreak: false });
      doc.y = y + height;
      checkTime(this.limits);
    }
    doc.rect(this.left, doc.y, this.width, pad).fill(COLOR.shade);
    doc.y += pad + SIZE * 0.8;
    doc.x = this.left;
    doc.fillColor(COLOR.text);
  }

  private rule(): void {
    const doc = this.doc;
    this.ensure(SIZE * 2);
    doc.y += SIZE * 0.4;
    doc.moveTo(this.left, doc.y).lineTo(this.left + this.width, doc.y).lineWidth(1).strokeColor(COLOR.rule).stroke();
    doc.y += SIZE * 1.0;
  }

  private table(header: Run[][], rows: Run[][][], align: (Align | undefined)[]): void {
    const columns = Math.max(header.length, ...rows.map((r) => r.length));
    if (columns === 0) return;
    if (columns > MAX_TABLE_COLUMNS) throw new ReportContentError(`a table has ${columns} columns; at most ${MAX_TABLE_COLUMNS} fit on a page`);
    const pad = (row: Run[][]) => Array.from({ length: columns }, (_, i) => row[i] ?? []);
    const head = header.length ? pad(header) : undefined;
    const body = rows.map(pad);
    const widths = this.columnWidths(head, body, columns);
    const doc = this.doc;
    const size = SIZE - 1;

    const drawRow = (cells: Run[][], isHeader: boolean) => {
      // Measured in the bold face, the widest: the row is at least as tall as its text.
      const height = Math.max(...cells.map((cell, i) => doc.font('bold').fontSize(size).heightOfString(measurable(plainText(cell)) || ' ', { width: widths[i]! - 2 * CELL_PAD, lineGap: LINE_GAP }))) + 2 * CELL_PAD;
      const fits = doc.y + height <= this.bottom;
      if (!fits) {
        doc.addPage();
        if (!isHeader && head) drawRow(head, true);
      }
      const top = doc.y;
      if (isHeader) doc.rect(this.left, top, sum(widths), height).fill(COLOR.header);
      let x = this.left;
      let bottom = top + height;
      cells.forEach((cell, i) => {
        doc.y = top + CELL_PAD;
        this.paragraph(cell, { size, color: COLOR.text, face: isHeader ? 'bold' : 'regular', align: align[i], after: 0 }, { x: x + CELL_PAD, width: widths[i]! - 2 * CELL_PAD });
        bottom = Math.max(bottom, doc.y + CELL_PAD);
        x += widths[i]!;
      });
      doc.lineWidth(0.6).strokeColor(COLOR.rule);
      doc.rect(this.left, top, sum(widths), bottom - top).stroke();
      let edge = this.left;
      for (const w of widths.slice(0, -1)) {
        edge += w;
        doc.moveTo(edge, top).lineTo(edge, bottom).stroke();
      }
      doc.y = bottom;
      doc.x = this.left;
    };

    this.ensure(this.lineHeight(size) * 2 + 4 * CELL_PAD);
    if (head) drawRow(head, true);
    for (const row of body) {
      drawRow(row, false);
      checkTime(this.limits);
    }
    doc.y += SIZE * 0.8;
  }

  /** Widths in proportion to each column's text, no column narrower than its longest word allows (within reason), filling the width. */
  private columnWidths(head: Run[][] | undefined, body: Run[][][], columns: number): number[] {
    const doc = this.doc.font('bold').fontSize(SIZE - 1);
    const natural = Array.from({ length: columns }, () => 0);
    const longestWord = Array.from({ length: columns }, () => 0);
    for (const row of head ? [head, ...body] : body) {
      row.forEach((cell, i) => {
        const text = plainText(cell);
        natural[i] = Math.max(natural[i]!, doc.widthOfString(text) + 2 * CELL_PAD);
        for (const word of measurable(text).split(/\s+/)) longestWord[i] = Math.max(longestWord[i]!, doc.widthOfString(word) + 2 * CELL_PAD);
      });
    }
    const floor = Math.min(this.width / columns, 40);
    const minimum = longestWord.map((w) => Math.max(floor, Math.min(w, this.width / columns)));
    if (sum(natural) <= this.width) {
      const extra = (this.width - sum(natural)) / columns;
      return natural.map((w) => w + extra);
    }
    // Too wide: every column gets its minimum, the rest is shared in proportion to what each lacks.
    const spare = Math.max(0, this.width - sum(minimum));
    const lack = natural.map((w, i) => Math.max(0, w - minimum[i]!));
    const total = sum(lack) || 1;
    return minimum.map((m, i) => m + (spare * lack[i]!) / total);
  }

  /** "n / total" at the foot of every page. */
  footers(): void {
    const doc = this.doc;
    const range = doc.bufferedPageRange();
    for (let i = range.start; i < range.start + range.count; i++) {
      doc.switchToPage(i);
      const bottomMargin = doc.page.margins.bottom;
      // Written inside the bottom margin, which pdfkit would otherwise answer with a new page.
      doc.page.margins.bottom = 0;
      doc
        .font('regular')
        .fontSize(8)
        .fillColor(COLOR.muted)
        .text(`${i + 1} / ${range.count}`, doc.page.margins.left, doc.page.height - bottomMargin / 2 - 4, { width: this.width, align: 'center', lineBreak: false });
      doc.page.margins.bottom = bottomMargin;
    }
  }
}

/** The runs cut at each "\n", empty runs dropped. */
function splitLines(runs: readonly Run[]): Run[][] {
  const lines: Run[][] = [[]];
  for (const run of runs) {
    run.text.split('\n').forEach((text, i) => {
      if (i > 0) lines.push([]);
      if (text !== '') lines.at(-1)!.push({ ...run, text });
    });
  }
  return lines;
}

/** Longest run of characters without a space that pdfkit is asked to break: it cuts longer words in time quadratic in their length. */
const LONG_WORD = 60;

/** The run cut into runs with no word longer than LONG_WORD: pdfkit may break a line where one run ends. */
function cutLongWords(run: Run): Run[] {
  if (!new RegExp(`\\S{${LONG_WORD + 1}}`).test(run.text)) return [run];
  const pieces: string[] = [];
  let piece = '';
  let word = 0;
  for (const char of run.text) {
    word = /\s/.test(char) ? 0 : word + 1;
    if (word > LONG_WORD) {
      pieces.push(piece);
      piece = '';
      word = 1;
    }
    piece += char;
  }
  pieces.push(piece);
  return pieces.map((text) => ({ ...run, text }));
}

/** A code line cut to lines of at most `columns` characters, after a space when one is near the end, else at the column. */
function wrapCode(line: string, columns: number): string[] {
  const out: string[] = [];
  let rest = line;
  while (rest.length > columns) {
    const space = rest.lastIndexOf(' ', columns);
    const cut = space > columns * 0.7 ? space + 1 : columns;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  out.push(rest);
  return out;
}

/** Text with its long words cut by spaces: measured as it will be laid out. */
const measurable = (text: string) => cutLongWords({ text }).map((r) => r.text).join(' ');

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

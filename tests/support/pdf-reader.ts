import { getDocument, OPS, type PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';

/*
 * Reads the PDFs the suite's reports produce the way a reader would, with Mozilla's PDF.js (the
 * `pdfjs-dist` devDependency; its legacy build runs on Node 20, and it renders through the
 * `@napi-rs/canvas` it ships): independent of pdfkit, which writes them, and of the system, so the
 * report tests need no poppler-utils. It reads what pdftotext, pdfinfo, pdffonts and pdftoppm did
 * for these tests: the text (through each font's ToUnicode map), the page count and title of the
 * document, the fonts the pages draw with, and a page as an image.
 */

/** A font a page draws text with, as PDF.js loaded it. */
export interface PdfFont {
  /** The font's name, a subset's with its six-letter tag (`BZZZZZ+DejaVuSans`). */
  name: string;
  /** The font program's type: `CIDFontType2` is a CID-keyed TrueType font (pdffonts' "CID TrueType"). */
  type: string | undefined;
  /** A composite (Type0) font: its text is shown through a CMap (pdfkit's is Identity-H). */
  composite: boolean;
  /** Written top to bottom (a -V CMap). */
  vertical: boolean;
  /** The PDF carries the font program (false: a viewer substitutes a font of its own). */
  embedded: boolean;
}

export interface PdfContents {
  pages: number;
  /** The document information's Title. */
  title: string | undefined;
  /** The text in reading order: a line break where a line of text ends, a form feed after each page. */
  text: string;
  /** Each font the pages draw text with, once. */
  fonts: PdfFont[];
}

async function open(pdf: Uint8Array): Promise<PDFDocumentProxy> {
  // A copy: PDF.js takes over (detaches) the buffer it is given. Eval is off, as in a browser that forbids it.
  return getDocument({ data: new Uint8Array(pdf), fontExtraProperties: true, isEvalSupported: false, verbosity: 0 }).promise;
}

/** The text, page count, title and fonts of a PDF. Throws where PDF.js cannot parse it. */
export async function readPdf(pdf: Uint8Array): Promise<PdfContents> {
  const doc = await open(pdf);
  try {
    const info = (await doc.getMetadata()).info as { Title?: string };
    let text = '';
    const fonts = new Map<string, PdfFont>();
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      for (const item of (await page.getTextContent()).items) {
        if ('str' in item) text += item.str + (item.hasEOL ? '\n' : '');
      }
      text += '\f';
      const operators = await page.getOperatorList();
      operators.fnArray.forEach((op, i) => {
        if (op !== OPS.setFont) return;
        const id = operators.argsArray[i][0] as string;
        const font = page.commonObjs.get(id) as { name: string; type?: string; composite?: boolean; vertical?: boolean; missingFile?: boolean };
        fonts.set(id, { name: font.name, type: font.type, composite: font.composite === true, vertical: font.vertical === true, embedded: font.missingFile === false });
      });
    }
    return { pages: doc.numPages, title: info.Title, text, fonts: [...fonts.values()] };
  } finally {
    await doc.destroy();
  }
}

/** Page `n` (from 1) drawn at `dpi` dots per inch, as a PNG. */
export async function renderPdfPage(pdf: Uint8Array, n: number, dpi: number): Promise<Buffer> {
  const doc = await open(pdf);
  try {
    const page = await doc.getPage(n);
    const viewport = page.getViewport({ scale: dpi / 72 });
    // The document's canvas factory: in Node, @napi-rs/canvas's (typed only as Object by PDF.js).
    const factory = doc.canvasFactory as unknown as { create(width: number, height: number): { canvas: HTMLCanvasElement & { toBuffer(mime: 'image/png'): Buffer }; context: CanvasRenderingContext2D } };
    const { canvas, context } = factory.create(Math.round(viewport.width), Math.round(viewport.height));
    await page.render({ canvas, canvasContext: context, viewport }).promise;
    return canvas.toBuffer('image/png');
  } finally {
    await doc.destroy();
  }
}

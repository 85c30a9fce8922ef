import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/** The faces a report uses. */
export type Face = 'regular' | 'bold' | 'italic' | 'boldItalic' | 'mono' | 'monoBold';

// DejaVu: free, hinted TrueType faces covering Latin, Greek, Cyrillic, arrows, dashes, box drawing
// and many symbols (not CJK). Read from the package at run time (on Lambda the function installs
// `dejavu-fonts-ttf` beside its bundle, see sst.config.ts), so the bundle carries no font data.
const FILES: Record<Face, string> = {
  regular: 'DejaVuSans.ttf',
  bold: 'DejaVuSans-Bold.ttf',
  italic: 'DejaVuSans-Oblique.ttf',
  boldItalic: 'DejaVuSans-BoldOblique.ttf',
  mono: 'DejaVuSansMono.ttf',
  monoBold: 'DejaVuSansMono-Bold.ttf',
};

let loaded: Promise<Record<Face, Buffer>> | undefined;

/** The faces' TrueType files, read once per process. */
export function reportFonts(): Promise<Record<Face, Buffer>> {
  loaded ??= (async () => {
    const require = createRequire(import.meta.url);
    const entries = await Promise.all(
      Object.entries(FILES).map(async ([face, file]) => [face, await readFile(require.resolve(`dejavu-fonts-ttf/ttf/${file}`))] as const),
    );
    return Object.fromEntries(entries) as Record<Face, Buffer>;
  })();
  loaded.catch(() => (loaded = undefined));
  return loaded;
}

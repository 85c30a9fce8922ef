import { lazy, Suspense } from 'react';

/**
 * The Markdown renderer (react-markdown, GFM, highlight.js) is a chunk of its
 * own, so the console's first load stays small. It is fetched as soon as the
 * console starts; until it arrives, an answer shows as plain text.
 */
const loadRenderer = () => import('./markdown-render');
const Rendered = lazy(loadRenderer);

/** Starts fetching the renderer before the first answer needs it. */
export function preloadMarkdown(): void {
  void loadRenderer();
}

/** An answer's text as Markdown: no raw HTML from the model, links open safely, code blocks highlighted with a copy button. */
export function Markdown({ text }: { text: string }) {
  return (
    <Suspense fallback={<div className="text">{text}</div>}>
      <Rendered text={text} />
    </Suspense>
  );
}

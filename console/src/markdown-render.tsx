import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { memo, type ComponentProps, type ReactElement } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { CopyButton } from './copy';

// The languages agents write most; the rest show unhighlighted (escaped, like any text).
for (const [name, language] of Object.entries({ bash, css, diff, go, java, javascript, json, markdown, python, rust, sql, typescript, xml, yaml })) {
  hljs.registerLanguage(name, language);
}
hljs.registerAliases(['sh', 'shell', 'zsh', 'console'], { languageName: 'bash' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['js', 'jsx', 'mjs'], { languageName: 'javascript' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['yml'], { languageName: 'yaml' });
hljs.registerAliases(['md'], { languageName: 'markdown' });

/** A fenced code block: its language, a copy button, and the code highlighted (highlight.js escapes the code it marks up). */
function CodeBlock({ code, language }: { code: string; language?: string }) {
  const known = language && hljs.getLanguage(language) ? language : undefined;
  return (
    <div className="code-block" data-testid="code-block">
      <div className="code-bar">
        <span className="code-language">{language ?? 'text'}</span>
        <CopyButton text={() => code} label="Copy code" testId="copy-code" />
      </div>
      <pre>
        {known ? (
          <code className={`hljs language-${known}`} dangerouslySetInnerHTML={{ __html: hljs.highlight(code, { language: known, ignoreIllegals: true }).value }} />
        ) : (
          <code className="hljs">{code}</code>
        )}
      </pre>
    </div>
  );
}

const components: Components = {
  // The model's links open in a new tab, without giving that page a handle on the console.
  a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noopener noreferrer" />,
  pre: ({ children }) => {
    const code = children as ReactElement<ComponentProps<'code'>> | undefined;
    const className = code?.props?.className ?? '';
    const text = String(code?.props?.children ?? '').replace(/\n$/, '');
    return <CodeBlock code={text} language={/language-([\w+-]+)/.exec(className)?.[1]} />;
  },
  table: ({ node: _node, ...props }) => (
    <div className="table-scroll">
      <table {...props} />
    </div>
  ),
};

/**
 * Renders Markdown to React elements (never to an HTML string): raw HTML in the
 * text shows as text, and `javascript:` URLs are dropped. While an answer
 * streams, React keeps the blocks that did not change, so nothing flickers.
 */
function MarkdownRender({ text }: { text: string }) {
  return (
    <div className="markdown" data-testid="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm]} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}

export default memo(MarkdownRender);

import { describe, expect, it } from 'vitest';
import { linkTarget, plainText } from './document';
import { blocksFromMarkdown } from './from-markdown';

describe('report documents', () => {
  it('make only http(s) and mailto links clickable', () => {
    expect(linkTarget('https://example.com/a b')).toBe('https://example.com/a%20b');
    expect(linkTarget('mailto:ann@example.com')).toBe('mailto:ann@example.com');
    for (const href of ['javascript:alert(1)', 'file:///etc/passwd', 'data:text/html,x', '/relative', '', null, undefined]) expect(linkTarget(href)).toBeUndefined();
  });

  it('read Markdown into headings, paragraphs, lists, tables and code', () => {
    const blocks = blocksFromMarkdown('# Title\n\nSome **bold** text.\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\ncode\n```\n');
    expect(blocks.map((b) => b.kind)).toEqual(['heading', 'paragraph', 'list', 'table', 'code']);
    const [heading, paragraph, list, table, code] = blocks;
    expect(heading).toMatchObject({ kind: 'heading', level: 1 });
    if (paragraph?.kind !== 'paragraph' || list?.kind !== 'list' || table?.kind !== 'table' || code?.kind !== 'code') throw new Error('unexpected blocks');
    expect(plainText(paragraph.runs)).toBe('Some bold text.');
    expect(paragraph.runs.some((run) => run.text === 'bold' && run.bold)).toBe(true);
    expect(list.items).toHaveLength(2);
    expect(table.header.map(plainText)).toEqual(['a', 'b']);
    expect(table.rows.map((row) => row.map(plainText))).toEqual([['1', '2']]);
    expect(code.text).toBe('code');
  });
});

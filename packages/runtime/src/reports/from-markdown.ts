import { decodeHTML } from 'entities';
import { Lexer, type Token, type Tokens } from 'marked';
import { blocksFromHtml, runsFromHtml } from './from-html';
import { linkTarget, type Block, type Run } from './document';

type Style = Omit<Run, 'text'>;

/** Reads GitHub-flavoured Markdown (HTML blocks in it through the HTML subset) into blocks. */
export function blocksFromMarkdown(source: string): Block[] {
  return blocks(new Lexer({ gfm: true }).lex(source));
}

function blocks(tokens: readonly Token[]): Block[] {
  return tokens.flatMap((token): Block[] => {
    switch (token.type) {
      case 'heading':
        return [{ kind: 'heading', level: token.depth, runs: runs(token.tokens ?? []) }];
      case 'paragraph':
        return [{ kind: 'paragraph', runs: runs(token.tokens ?? []) }];
      case 'text':
        // A tight list item's text: inline tokens of its own.
        return [{ kind: 'paragraph', runs: token.tokens ? runs(token.tokens) : [{ text: decodeHTML(token.text) }] }];
      case 'code':
        return [{ kind: 'code', text: token.text }];
      case 'hr':
        return [{ kind: 'rule' }];
      case 'blockquote':
        return [{ kind: 'quote', blocks: blocks(token.tokens ?? []) }];
      case 'list': {
        const list = token as Tokens.List;
        return [
          {
            kind: 'list',
            ordered: list.ordered,
            start: typeof list.start === 'number' ? list.start : 1,
            items: list.items.map((item) => ({
              ...(item.task ? { task: { checked: !!item.checked } } : {}),
              // The checkbox is drawn as the item's marker, not as text.
              blocks: blocks(item.tokens.filter((t) => t.type !== 'checkbox')),
            })),
          },
        ];
      }
      case 'table': {
        const table = token as Tokens.Table;
        return [
          {
            kind: 'table',
            header: table.header.map((cell) => runs(cell.tokens)),
            rows: table.rows.map((row) => row.map((cell) => runs(cell.tokens))),
            align: table.align.map((a) => a ?? undefined),
          },
        ];
      }
      case 'html':
        return blocksFromHtml(token.text);
      default:
        // space, def (link definitions, already applied to the links that use them).
        return [];
    }
  });
}

function runs(tokens: readonly Token[], style: Style = {}): Run[] {
  return tokens.flatMap((token): Run[] => {
    switch (token.type) {
      case 'strong':
        return runs(token.tokens ?? [], { ...style, bold: true });
      case 'em':
        return runs(token.tokens ?? [], { ...style, italic: true });
      case 'del':
        return runs(token.tokens ?? [], { ...style, strike: true });
      case 'codespan':
        return [{ ...style, code: true, text: decodeHTML(token.text).replace(/\n/g, ' ') }];
      case 'br':
        return [{ ...style, text: '\n' }];
      case 'link': {
        const link = linkTarget(token.href);
        return runs(token.tokens ?? [], link ? { ...style, link } : style);
      }
      case 'image':
        // Nothing is fetched: an image is its description.
        return [{ ...style, italic: true, text: `[image${token.text ? `: ${decodeHTML(token.text)}` : ''}]` }];
      case 'html':
        return runsFromHtml(token.text, style);
      case 'text':
        // A newline in a paragraph's text is a soft break: a space. Hard breaks are `br` tokens.
        return token.tokens ? runs(token.tokens, style) : [{ ...style, text: decodeHTML(token.text).replace(/\n/g, ' ') }];
      case 'escape':
        return [{ ...style, text: token.text }];
      default:
        return 'text' in token && typeof token.text === 'string' ? [{ ...style, text: decodeHTML(token.text) }] : [];
    }
  });
}

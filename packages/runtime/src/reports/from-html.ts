import { load } from 'cheerio/slim';
import type { AnyNode, Element } from 'domhandler';
import { linkTarget, type Align, type Block, type ListItem, type Run } from './document';

type Style = Omit<Run, 'text'>;

/** Elements whose content is never shown: code, styles, embedded documents, form controls. */
const DROPPED = new Set(['script', 'style', 'head', 'title', 'template', 'noscript', 'iframe', 'object', 'embed', 'svg', 'math', 'canvas', 'video', 'audio', 'select', 'textarea', 'button']);
/** Elements that only group blocks: their children are read as if they stood in their place. */
const CONTAINERS = new Set(['html', 'body', 'div', 'section', 'article', 'main', 'header', 'footer', 'nav', 'aside', 'figure', 'figcaption', 'details', 'summary', 'center', 'form', 'fieldset', 'dl', 'dd', 'dt', 'caption']);
const HEADINGS: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };

/**
 * Reads the HTML subset into blocks: headings, paragraphs, line breaks,
 * emphasis (`strong b em i code kbd del s`), links, lists, tables, `pre`,
 * `blockquote` and `hr`. Scripts, styles and embedded content are dropped;
 * any other element shows its text; images show their alt text (nothing is fetched).
 */
export function blocksFromHtml(html: string): Block[] {
  return blocksOf(parse(html));
}

/** Inline HTML inside Markdown (`<br>`, `<kbd>…</kbd>`): its text in the surrounding style. */
export function runsFromHtml(html: string, style: Style): Run[] {
  return /^<br\s*\/?>$/i.test(html.trim()) ? [{ ...style, text: '\n' }] : inlineRuns(parse(html), style);
}

function parse(html: string): AnyNode[] {
  return load(html, { xml: false }, false).root()[0]!.children;
}

const isElement = (node: AnyNode): node is Element => node.type === 'tag' || node.type === 'script' || node.type === 'style';

function blocksOf(nodes: readonly AnyNode[]): Block[] {
  const out: Block[] = [];
  let pending: Run[] = [];
  const flush = () => {
    const runs = trimRuns(pending);
    if (runs.length) out.push({ kind: 'paragraph', runs });
    pending = [];
  };
  for (const node of nodes) {
    const block = isElement(node) ? blockOf(node) : undefined;
    if (block === undefined) {
      pending.push(...inlineRuns([node], {}));
      continue;
    }
    flush();
    out.push(...block);
  }
  flush();
  return out;
}

/** The blocks of a block-level element, or undefined for an inline one. */
function blockOf(element: Element): Block[] | undefined {
  const name = element.name.toLowerCase();
  if (DROPPED.has(name)) return [];
  if (CONTAINERS.has(name)) return blocksOf(element.children);
  if (name in HEADINGS) return [{ kind: 'heading', level: HEADINGS[name]!, runs: trimRuns(inlineRuns(element.children, {})) }];
  switch (name) {
    case 'p':
      return blocksOf(element.children);
    case 'hr':
      return [{ kind: 'rule' }];
    case 'pre':
      return [{ kind: 'code', text: textOf(element).replace(/^\n/, '').replace(/\n$/, '') }];
    case 'blockquote':
      return [{ kind: 'quote', blocks: blocksOf(element.children) }];
    case 'ul':
    case 'ol': {
      const start = Number.parseInt(element.attribs.start ?? '1', 10);
      const items: ListItem[] = element.children
        .filter((c): c is Element => isElement(c) && c.name.toLowerCase() === 'li')
        .map((li) => ({ blocks: blocksOf(li.children) }));
      return [{ kind: 'list', ordered: name === 'ol', start: Number.isFinite(start) ? start : 1, items }];
    }
    case 'table':
      return [tableOf(element)];
    default:
      return undefined;
  }
}

function tableOf(table: Element): Block {
  const rows: Element[] = [];
  const collect = (parent: Element) => {
    for (const child of parent.children) {
      if (!isElement(child)) continue;
      const name = child.name.toLowerCase();
      if (name === 'tr') rows.push(child);
      else if (name === 'thead' || name === 'tbody' || name === 'tfoot') collect(child);
    }
  };
  collect(table);
  const cellsOf = (row: Element) => row.children.filter((c): c is Element => isElement(c) && (c.name === 'td' || c.name === 'th'));
  const first = rows[0];
  const hasHeader = !!first && (first.parent as Element | null)?.name === 'thead' || (!!first && cellsOf(first).every((c) => c.name === 'th'));
  const headerRow = hasHeader && first ? cellsOf(first) : [];
  const bodyRows = (hasHeader ? rows.slice(1) : rows).map(cellsOf);
  const align = (headerRow.length ? headerRow : bodyRows[0] ?? []).map((cell): Align | undefined => {
    const value = (cell.attribs.align ?? /text-align:\s*(left|center|right)/i.exec(cell.attribs.style ?? '')?.[1])?.toLowerCase();
    return value === 'left' || value === 'center' || value === 'right' ? value : undefined;
  });
  const runsOfCell = (cell: Element) => trimRuns(inlineRuns(cell.children, {}));
  return { kind: 'table', header: headerRow.map(runsOfCell), rows: bodyRows.map((row) => row.map(runsOfCell)), align };
}

function inlineRuns(nodes: readonly AnyNode[], style: Style): Run[] {
  return nodes.flatMap((node): Run[] => {
    if (node.type === 'text') return [{ ...style, text: collapse(node.data) }];
    if (!isElement(node)) return [];
    const name = node.name.toLowerCase();
    if (DROPPED.has(name)) return [];
    const inner = (s: Style) => inlineRuns(node.children, s);
    switch (name) {
      case 'br':
        return [{ ...style, text: '\n' }];
      case 'strong':
      case 'b':
        return inner({ ...style, bold: true });
      case 'em':
      case 'i':
      case 'cite':
        return inner({ ...style, italic: true });
      case 'code':
      case 'kbd':
      case 'samp':
      case 'tt':
        return [{ ...style, code: true, text: collapse(textOf(node)) }];
      case 'del':
      case 's':
      case 'strike':
        return inner({ ...style, strike: true });
      case 'a': {
        const link = linkTarget(node.attribs.href);
        return inner(link ? { ...style, link } : style);
      }
      case 'img':
        return [{ ...style, italic: true, text: `[image${node.attribs.alt ? `: ${node.attribs.alt}` : ''}]` }];
      default:
        // A block element inside inline content (a list in a table cell): its text, set apart by spaces.
        return blockOf(node) === undefined ? inner(style) : [{ ...style, text: ` ${collapse(textOf(node))} ` }];
    }
  });
}

function textOf(node: AnyNode): string {
  if (node.type === 'text') return node.data;
  if (!isElement(node) || DROPPED.has(node.name.toLowerCase())) return '';
  if (node.name.toLowerCase() === 'br') return '\n';
  return node.children.map(textOf).join('');
}

const collapse = (text: string) => text.replace(/[ \t\r\n\f]+/g, ' ');

/** Runs without leading and trailing white space (HTML's rendering of a block's edges), empty runs dropped. */
function trimRuns(runs: Run[]): Run[] {
  const out = runs.filter((r) => r.text !== '');
  while (out.length && !out[0]!.code && out[0]!.text.trim() === '' && out[0]!.text !== '\n') out.shift();
  while (out.length && !out.at(-1)!.code && out.at(-1)!.text.trim() === '') out.pop();
  if (out[0] && !out[0].code) out[0] = { ...out[0], text: out[0].text.trimStart() };
  const last = out.at(-1);
  if (last && !last.code) out[out.length - 1] = { ...last, text: last.text.trimEnd() };
  return out;
}

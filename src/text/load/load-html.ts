import { compile, type DomNode, type FormatCallback, type HtmlToTextOptions, type SelectorDefinition } from 'html-to-text';
import { normalizeText } from '../normalize-text.js';
import { normalizeTitle } from '../normalize-title.js';
import { emptyDocumentWarning } from './empty-document-warning.js';
import { fileTitle } from './file-title.js';
import { findMarkdownSections } from './find-markdown-sections.js';
import type { FileContext, LoadResult } from './load-types.js';

/** Elements that are page chrome or not prose: dropped with their content. */
const droppedElements = [
  'script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'object', 'embed', 'nav', 'footer',
  'aside', 'form', 'button', 'select', 'img', 'picture', 'video', 'audio', 'map', 'dialog',
];

const headingNames = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/** Headings become Markdown `#` lines, so HTML gets the same sections and heading-aware chunking as Markdown. */
function markdownHeading(level: number): FormatCallback {
  return (element, walk, builder) => {
    builder.openBlock({ leadingLineBreaks: 2 });
    builder.addInline(`${'#'.repeat(level)} `);
    walk(element.children, builder);
    builder.closeBlock({ trailingLineBreaks: 2 });
  };
}

/** A page `<header>` is chrome, but an article's `<header>` often holds its title: keep only its headings. */
const headingsOnly: FormatCallback = (element, walk, builder) => {
  const headings: DomNode[] = [];
  const visit = (nodes: DomNode[]): void => {
    for (const node of nodes) {
      if (node.type === 'tag' && node.name !== undefined && headingNames.has(node.name)) headings.push(node);
      else if (node.children !== undefined) visit(node.children);
    }
  };
  visit(element.children);
  walk(headings, builder);
};

function converterFor(baseElement: string): (html: string) => string {
  const selectors: SelectorDefinition[] = [
    ...droppedElements.map((selector) => ({ selector, format: 'skip' })),
    { selector: 'header', format: 'headingsOnly' },
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'ul', options: { itemPrefix: '- ' } },
    { selector: 'table', format: 'block' },
    { selector: 'tr', format: 'block', options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
    { selector: 'th', format: 'inlineSurround', options: { suffix: '\t' } },
    { selector: 'td', format: 'inlineSurround', options: { suffix: '\t' } },
    ...[1, 2, 3, 4, 5, 6].map((level) => ({ selector: `h${level}`, format: `heading${level}` })),
  ];
  const options: HtmlToTextOptions = {
    wordwrap: false,
    limits: { maxInputLength: Number.MAX_SAFE_INTEGER },
    baseElements: { selectors: [baseElement], returnDomByDefault: true },
    formatters: {
      headingsOnly,
      heading1: markdownHeading(1),
      heading2: markdownHeading(2),
      heading3: markdownHeading(3),
      heading4: markdownHeading(4),
      heading5: markdownHeading(5),
      heading6: markdownHeading(6),
    },
    selectors,
  };
  return compile(options);
}

/** Compiled converters by base element (`main`, `article`, `body`): process-wide, immutable, three at most. */
const converters = new Map<string, (html: string) => string>();

function convert(html: string, baseElement: string): string {
  let converter = converters.get(baseElement);
  if (converter === undefined) {
    converter = converterFor(baseElement);
    converters.set(baseElement, converter);
  }
  return converter(html);
}

/**
 * Loads the main content of an HTML page as text: `<main>` when present, else `<article>` elements, else
 * `<body>`; scripts, styles, navigation, headers, footers, asides and forms are dropped, entities decoded,
 * links kept as their text, images dropped, table cells separated by tabs, and headings written as Markdown
 * `#` lines (listed in `metadata.sections`). The title is `<title>`, else the first `<h1>`, else the file name.
 */
export function loadHtml(html: string, file: FileContext): LoadResult {
  let text = '';
  for (const baseElement of ['main', 'article']) {
    if (new RegExp(`<${baseElement}[\\s>]`, 'i').test(html)) {
      text = normalizeText(convert(html, baseElement));
      if (text !== '') break;
    }
  }
  if (text === '') text = normalizeText(convert(html, 'body'));
  if (text === '') return { documents: [], warnings: [emptyDocumentWarning(file.source, 'has no visible text')] };
  const sections = findMarkdownSections(text);
  const title =
    elementText(html, 'title') ||
    elementText(html, 'h1') ||
    normalizeTitle(sections.find((section) => section.level === 1)?.heading ?? '') ||
    fileTitle(file.fileName);
  return { documents: [{ title, source: file.source, text, metadata: { sections } }], warnings: [] };
}

/** Text of the first `<name>` element of the page, entities decoded and markup removed; '' when absent. */
function elementText(html: string, name: string): string {
  const match = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}\\s*>`, 'i').exec(html);
  if (!match?.[1]) return '';
  return normalizeTitle(convert(`<p>${match[1]}</p>`, 'body'));
}

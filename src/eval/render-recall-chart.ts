import { maxOf } from '../core/max-of.js';
import { approximateTextWidth } from './approximate-text-width.js';
import { methodStatus } from './method-status.js';
import type { EvaluationReport } from './run-evaluation.js';

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/** Splits `text` into lines no wider than `width` at `fontSize`, breaking at spaces (and inside over-long words). */
function wrapText(text: string, fontSize: number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((part) => part.length > 0)) {
    const candidate = line.length === 0 ? word : `${line} ${word}`;
    if (approximateTextWidth(candidate, fontSize) <= width) {
      line = candidate;
      continue;
    }
    if (line.length > 0) lines.push(line);
    line = '';
    let rest = word;
    while (approximateTextWidth(rest, fontSize) > width) {
      let cut = 1;
      while (cut < rest.length && approximateTextWidth(rest.slice(0, cut + 1), fontSize) <= width) cut += 1;
      lines.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    line = rest;
  }
  if (line.length > 0) lines.push(line);
  return lines;
}

const series = [
  { key: 'recall@2', label: 'Recall@2', color: '#4e79a7' },
  { key: 'recall@5', label: 'Recall@5', color: '#f28e2b' },
] as const;

/** Sizes in pixels; fonts are pixel sizes. */
const margin = 14;
const titleFont = 14;
const font = 11;
const smallFont = 9;
const lineGap = 6;
const plotWidth = 360;
const barHeight = 10;
const barGap = 2;
const groupPadding = 12;
const labelGap = 8;
const swatch = 10;

/**
 * A horizontal grouped bar chart of Recall@2 and Recall@5 per method, as a standalone SVG. Every size is
 * derived from the measured width of the texts it holds (title, legend, method names, notes), so nothing
 * overlaps or is clipped for any number of methods or length of names. A method whose every question
 * failed gets no bars but "error (n/n)"; errors on some questions, fallback and proxy rankings are marked
 * under the method's name and explained in notes below the axis.
 */
export function renderRecallChart(report: EvaluationReport): string {
  const methods = Object.entries(report.methods).map(([name, method]) => ({ name, method, status: methodStatus(method) }));
  const title = `${report.dataset}: Recall@2 / Recall@5 (${report.n} questions)`;
  const valueWidth = approximateTextWidth('100.0', smallFont) + 4;
  const labelWidth = maxOf([
    approximateTextWidth('method', font),
    ...methods.map(({ name, status }) => Math.max(approximateTextWidth(name, font), approximateTextWidth(status.labels.join(', '), smallFont))),
  ]);
  const plotLeft = margin + labelWidth + labelGap;
  const legendItems = series.map((item) => ({ ...item, width: swatch + 4 + approximateTextWidth(item.label, font) }));
  const legendWidth = legendItems.reduce((sum, item) => sum + item.width, 0) + 16 * (legendItems.length - 1);
  const width = Math.ceil(Math.max(plotLeft + plotWidth + valueWidth + margin, 2 * margin + approximateTextWidth(title, titleFont, true), 2 * margin + legendWidth, 2 * margin + 320));

  const parts: string[] = [];
  const text = (x: number, y: number, content: string, attributes = ''): void => {
    parts.push(`<text x="${x.toFixed(1)}" y="${y.toFixed(1)}"${attributes}>${escapeXml(content)}</text>`);
  };

  let y = margin + titleFont;
  text(margin, y, title, ` font-size="${titleFont}" font-weight="bold"`);
  // The legend has its own line under the title, so the two never meet however long the title is.
  y += lineGap + font + 2;
  let legendX = margin;
  for (const item of legendItems) {
    parts.push(`<rect x="${legendX}" y="${(y - swatch + 1).toFixed(1)}" width="${swatch}" height="${swatch}" fill="${item.color}"/>`);
    text(legendX + swatch + 4, y, item.label);
    legendX += item.width + 16;
  }

  const plotTop = y + lineGap + 8;
  const groupHeight = series.length * barHeight + (series.length - 1) * barGap + groupPadding;
  const plotHeight = Math.max(1, methods.length) * groupHeight;
  const plotBottom = plotTop + plotHeight;
  const x = (value: number): number => plotLeft + (Math.min(100, Math.max(0, value)) / 100) * plotWidth;

  for (let tick = 0; tick <= 100; tick += 20) {
    parts.push(`<line x1="${x(tick).toFixed(1)}" x2="${x(tick).toFixed(1)}" y1="${plotTop}" y2="${plotBottom}" stroke="#ddd"/>`);
    text(x(tick), plotBottom + font + 3, String(tick), ' text-anchor="middle"');
  }
  parts.push(`<line x1="${plotLeft}" x2="${plotLeft}" y1="${plotTop}" y2="${plotBottom}" stroke="#888"/>`);

  methods.forEach(({ name, method, status }, index) => {
    const groupTop = plotTop + index * groupHeight + groupPadding / 2;
    const labelRight = plotLeft - labelGap;
    const marked = status.labels.length > 0;
    // A marked name sits level with the first bar and its marks (error, fallback, proxy) with the second.
    const barsHeight = series.length * barHeight + (series.length - 1) * barGap;
    text(labelRight, marked ? groupTop + barHeight - 1 : groupTop + barsHeight / 2 + font * 0.35, name, ' text-anchor="end"');
    if (marked) text(labelRight, groupTop + 2 * barHeight + barGap - 1, status.labels.join(', '), ` text-anchor="end" font-size="${smallFont}" fill="#b03a2e"`);
    if (status.failed) {
      text(plotLeft + 6, groupTop + barsHeight / 2 + font * 0.35, status.labels[0] ?? 'error', ' fill="#b03a2e"');
      return;
    }
    series.forEach((item, seriesIndex) => {
      const value = method[item.key] ?? null;
      const top = groupTop + seriesIndex * (barHeight + barGap);
      const shown = value === null ? '–' : value.toFixed(1);
      const end = x(value ?? 0);
      parts.push(
        `<rect x="${plotLeft}" y="${top}" width="${(end - plotLeft).toFixed(1)}" height="${barHeight}" fill="${item.color}"${marked ? ' fill-opacity="0.55"' : ''}><title>${escapeXml(`${name} ${item.label}: ${shown}`)}</title></rect>`,
      );
      text(end + 3, top + barHeight - 1.5, shown, ` font-size="${smallFont}"`);
    });
  });

  y = plotBottom + font + 3 + lineGap + font;
  text(plotLeft + plotWidth / 2, y, 'recall (% of gold passages in the top k)', ' text-anchor="middle"');
  const notes = methods.flatMap(({ name, status }) => status.notes.map((note) => `${name}: ${note}`));
  const noteWidth = width - 2 * margin;
  for (const note of notes) {
    for (const [lineIndex, line] of wrapText(note, smallFont, noteWidth).entries()) {
      y += (lineIndex === 0 ? lineGap : 2) + smallFont + 1;
      text(margin, y, line, ` font-size="${smallFont}" fill="#555"`);
    }
  }
  const height = Math.ceil(y + margin);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Arial, Helvetica, sans-serif" font-size="${font}">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { approximateTextWidth } from './approximate-text-width.js';
import { renderRecallChart } from './render-recall-chart.js';
import type { EvaluationReport, MethodReport } from './run-evaluation.js';

interface Box {
  what: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
}

function attribute(attributes: string, name: string): string | undefined {
  return new RegExp(`(?:^|\\s)${name}="([^"]*)"`).exec(attributes)?.[1];
}

function unescapeXml(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&amp;', '&');
}

/** The SVG's viewBox and the boxes of its text elements and of its rectangles (bars and legend swatches). */
function parseChart(svg: string): { width: number; height: number; texts: Box[]; rects: Box[] } {
  const root = /^<svg ([^>]*)>/.exec(svg)?.[1] ?? '';
  const [, , width = 0, height = 0] = (attribute(root, 'viewBox') ?? '').split(' ').map(Number);
  const baseSize = Number(attribute(root, 'font-size') ?? 16);
  assert.equal(attribute(root, 'width'), String(width));
  assert.equal(attribute(root, 'height'), String(height));
  const texts: Box[] = [];
  for (const match of svg.matchAll(/<text ([^>]*)>([^<]*)<\/text>/g)) {
    const attributes = match[1] ?? '';
    const content = unescapeXml(match[2] ?? '');
    assert.doesNotMatch(attributes, /transform/, 'texts are not rotated');
    const size = Number(attribute(attributes, 'font-size') ?? baseSize);
    const x = Number(attribute(attributes, 'x'));
    const y = Number(attribute(attributes, 'y'));
    const textWidth = approximateTextWidth(content, size, attribute(attributes, 'font-weight') === 'bold');
    const anchor = attribute(attributes, 'text-anchor') ?? 'start';
    const left = anchor === 'end' ? x - textWidth : anchor === 'middle' ? x - textWidth / 2 : x;
    // Ascenders reach about 0.9 em above the baseline, descenders 0.25 em below.
    texts.push({ what: `text "${content}"`, left, right: left + textWidth, top: y - 0.9 * size, bottom: y + 0.25 * size });
  }
  const rects: Box[] = [];
  for (const match of svg.matchAll(/<rect ([^>]*?)\/?>/g)) {
    const attributes = match[1] ?? '';
    if (attribute(attributes, 'width') === '100%') continue;
    const left = Number(attribute(attributes, 'x'));
    const top = Number(attribute(attributes, 'y'));
    rects.push({ what: `rect at ${left},${top}`, left, top, right: left + Number(attribute(attributes, 'width')), bottom: top + Number(attribute(attributes, 'height')) });
  }
  return { width, height, texts, rects };
}

const overlaps = (a: Box, b: Box): boolean => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

function method(index: number, overrides: Partial<MethodReport> = {}): MethodReport {
  const recall2 = (index * 37) % 101;
  return {
    'recall@1': recall2 / 2,
    'recall@2': recall2,
    'recall@5': Math.min(100, recall2 + 15),
    'recall@10': 100,
    'ar@2': 0,
    'ar@5': 0,
    em: null,
    f1: null,
    em_in: null,
    extractive_em_in: null,
    answer_sentence_precision: null,
    accuracy: null,
    accuracy_failures: null,
    latency_ms_p50: 1,
    latency_ms_p95: 2,
    llm_calls: 0,
    tokens_in: 0,
    tokens_out: 0,
    questions: 100,
    questions_with_gold: 100,
    errors: 0,
    error_message: null,
    ranking: [{ kind: 'native', note: null, questions: 100 }],
    ...overrides,
  };
}

/** `count` methods with long names; some failed, some with errors on a few questions, fallbacks and proxies. */
function reportOf(count: number): EvaluationReport {
  const methods: Record<string, MethodReport> = {};
  for (let index = 0; index < count; index++) {
    const name = `method-with-a-rather-long-name-${index}:variant-${'x'.repeat(index % 7)}`;
    if (index % 5 === 1) {
      methods[name] = method(index, {
        'recall@2': null,
        'recall@5': null,
        errors: 100,
        error_message: 'the tot method needs an LLM to walk the knowledge graph, and none is configured',
        ranking: [],
      });
    } else if (index % 5 === 2) {
      methods[name] = method(index, { ranking: [{ kind: 'fallback', note: 'no LLM: kg-tfidf instead of the agent', questions: 100 }] });
    } else if (index % 5 === 3) {
      methods[name] = method(index, {
        errors: 3,
        error_message: 'a very long error message '.repeat(8),
        ranking: [{ kind: 'proxy', note: 'passages of the most similar communities; global answers from reports', questions: 97 }],
      });
    } else {
      methods[name] = method(index, index === 0 ? { 'recall@2': 100, 'recall@5': 100 } : {});
    }
  }
  return { dataset: 'a-dataset-with-a-long-name-for-the-title', n: 100, methods };
}

describe('renderRecallChart', () => {
  for (const count of [1, 2, 5, 15]) {
    it(`lays out ${count} method(s) with long names: no text overlaps another text or a bar, and everything lies inside the viewBox`, () => {
      const svg = renderRecallChart(reportOf(count));
      const { width, height, texts, rects } = parseChart(svg);
      assert.ok(texts.length > 0 && rects.length > 0);
      for (const box of [...texts, ...rects]) {
        assert.ok(box.left >= 0 && box.top >= 0 && box.right <= width && box.bottom <= height, `${box.what} [${box.left.toFixed(1)}, ${box.top.toFixed(1)}, ${box.right.toFixed(1)}, ${box.bottom.toFixed(1)}] lies inside 0 0 ${width} ${height}`);
      }
      for (const [index, a] of texts.entries()) {
        for (const b of texts.slice(index + 1)) assert.ok(!overlaps(a, b), `${a.what} overlaps ${b.what}`);
        for (const rect of rects) assert.ok(!overlaps(a, rect), `${a.what} overlaps ${rect.what}`);
      }
    });
  }

  it('marks a failed method with its error instead of bars, and fallbacks and proxies with their notes', () => {
    const svg = renderRecallChart(reportOf(5));
    const name = (index: number): string => Object.keys(reportOf(5).methods)[index] ?? '';
    assert.doesNotMatch(svg, new RegExp(`<title>${name(1)} `), 'no bar for the failed method');
    assert.match(svg, />error \(100\/100\)</);
    assert.match(svg, />fallback \(100\/100\)</);
    assert.match(svg, />errors \(3\/100\), proxy \(97\/100\)</);
    assert.match(svg, /fallback on 100\/100 questions: no LLM: kg-tfidf instead of the agent/);
    assert.match(svg, /error on 100\/100 questions: the tot method needs an LLM/);
  });
});

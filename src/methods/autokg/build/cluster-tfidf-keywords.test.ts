import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clusterTfidfKeywords, clusterTfidfKeywordsByCluster } from './cluster-tfidf-keywords.js';
import type { PhraseOccurrence } from './phrase-table.js';

const mention = (surface: string): PhraseOccurrence => ({ key: surface.toLowerCase(), surface, kind: /^\p{Lu}/u.test(surface) ? 'proper' : 'phrase' });

describe('clusterTfidfKeywords', () => {
  // Chunks 0–2 are about the car wash, 3–5 about the harbour; "Kestermouth" is everywhere.
  const phrases = [
    [mention('car wash'), mention('Kestermouth'), mention('soap bucket')],
    [mention('car wash'), mention('Kestermouth'), mention('soap bucket')],
    [mention('car wash'), mention('Kestermouth')],
    [mention('fishing boat'), mention('Kestermouth'), mention('harbour wall')],
    [mention('fishing boat'), mention('Kestermouth'), mention('harbour wall')],
    [mention('fishing boat'), mention('Kestermouth')],
  ];
  const clustering = { assignments: Int32Array.from([0, 0, 0, 1, 1, 1]), clusters: 2 };

  test('ranks phrases frequent in the cluster and rare in the corpus first', () => {
    // c-TF-IDF: A = 8 mentions per cluster; car wash 3·ln(1 + 8/3) = 3.90, Kestermouth 3·ln(1 + 8/6) = 2.54, soap bucket 2·ln 5 = 3.22.
    assert.deepEqual(clusterTfidfKeywords(phrases, [clustering], { keywordsPerCluster: 2 }), ['car wash', 'soap bucket', 'fishing boat', 'harbour wall']);
  });

  test('a phrase chosen for an earlier cluster is avoided later, and minCount drops single mentions', () => {
    const keywords = clusterTfidfKeywords(phrases, [clustering], { keywordsPerCluster: 3, minCount: 3 });
    assert.deepEqual(keywords, ['car wash', 'Kestermouth', 'fishing boat']);
  });

  test('the union over clusterings is deduplicated and substring-filtered', () => {
    const other = { assignments: Int32Array.from([0, 0, 0, 0, 0, 0]), clusters: 1 };
    const withWash = phrases.map((list, chunk) => (chunk < 3 ? [...list, mention('Car Wash Company'), mention('Car Wash Company')] : list));
    const keywords = clusterTfidfKeywords(withWash, [clustering, other], { keywordsPerCluster: 2 });
    assert.ok(keywords.includes('car wash'));
    assert.ok(!keywords.includes('Car Wash Company'));
    assert.equal(new Set(keywords.map((keyword) => keyword.toLowerCase())).size, keywords.length);
  });

  test('single words are kept only when they are names: not common words, initials, bare first names or fragments', () => {
    const chunk = (...surfaces: string[]): PhraseOccurrence[] => surfaces.map(mention);
    const names = [chunk('Mother', 'DC', 'Sam', 'Sam Marle', 'Gaugewatch'), chunk('Mother', 'DC', 'Sam', 'Gaugewatch'), chunk('Sam Marle')];
    const texts = ['Mother, DC and Sam Marle built Gaugewatch.', 'Sam told his mother about Gaugewatch.', 'Sam Marle.'];
    const keywords = clusterTfidfKeywords(names, [{ assignments: Int32Array.from([0, 0, 0]), clusters: 1 }], { keywordsPerCluster: 10, texts });
    assert.deepEqual(keywords, ['Gaugewatch', 'Sam Marle']);
  });

  test('a phrase must recur in minChunks chunks of the cluster, not only repeat in one', () => {
    const repeated = [[mention('soap bucket'), mention('soap bucket'), mention('soap bucket')], [mention('car wash')], [mention('car wash')]];
    const keywords = clusterTfidfKeywords(repeated, [{ assignments: Int32Array.from([0, 0, 0]), clusters: 1 }]);
    assert.deepEqual(keywords, ['car wash']);
  });

  test('kept clusters keep their keywords; the others are chosen avoiding every other cluster\'s keywords', () => {
    const full = clusterTfidfKeywordsByCluster(phrases, [clustering], { keywordsPerCluster: 2 });
    assert.deepEqual(full.byCluster, [
      [
        [
          { key: 'car wash', surface: 'car wash' },
          { key: 'soap bucket', surface: 'soap bucket' },
        ],
        [
          { key: 'fishing boat', surface: 'fishing boat' },
          { key: 'harbour wall', surface: 'harbour wall' },
        ],
      ],
    ]);
    // The second cluster keeps what it had (even a phrase it would not choose now); the first avoids it.
    const kept = [undefined, [{ key: 'car wash', surface: 'Car Wash' }]];
    const updated = clusterTfidfKeywordsByCluster(phrases, [{ ...clustering, kept }], { keywordsPerCluster: 2 });
    assert.deepEqual(updated.byCluster[0]?.[1], [{ key: 'car wash', surface: 'Car Wash' }]);
    assert.deepEqual(
      updated.byCluster[0]?.[0]?.map((keyword) => keyword.key),
      ['soap bucket', 'kestermouth'],
    );
    assert.deepEqual(updated.keywords, ['soap bucket', 'Kestermouth', 'Car Wash']);
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import oxigraph from 'oxigraph';
import { KgragError } from '../../../core/errors.js';
import { sparqlStringLiteral } from './sparql-string-literal.js';

test('escapes quotes, backslashes and line breaks per the SPARQL grammar', () => {
  assert.equal(sparqlStringLiteral('plain'), '"plain"');
  assert.equal(sparqlStringLiteral('Douglas "Adams"', 'en'), '"Douglas \\"Adams\\""@en');
  assert.equal(sparqlStringLiteral('a\\b'), '"a\\\\b"');
  assert.equal(sparqlStringLiteral('line\nbreak\r\ttab'), '"line\\nbreak\\r\\ttab"');
  assert.equal(sparqlStringLiteral("it's", 'en-gb'), '"it\'s"@en-gb');
});

test('rejects language tags that could carry query text', () => {
  assert.throws(
    () => sparqlStringLiteral('x', 'en } ; DROP ALL'),
    (error: unknown) => KgragError.isInstance(error) && error.code === 'KG_INVALID_LANGUAGE',
  );
  assert.throws(() => sparqlStringLiteral('x', ''), (error: unknown) => KgragError.isInstance(error));
});

test('every hostile text round-trips through a real SPARQL engine as one literal', () => {
  const texts = [
    'x"@en } ; DROP ALL ; SELECT * { ?s ?p "',
    'ends with a backslash\\',
    '\\"',
    '\\u0022 } ; DROP ALL ; #',
    '\\\\u0022',
    '"""triple"""',
    "single ' quote",
    'multi\nline\r\ntext',
    'tab\tand\u000cform feed\u0008backspace',
    'unicode: Ærøskøbing – 東京 – 🚢 – \u2028',
    '# not a comment',
    '',
  ];
  const store = new oxigraph.Store();
  const predicate = oxigraph.namedNode('http://example.org/label');
  texts.forEach((text, index) => store.add(oxigraph.quad(oxigraph.namedNode(`http://example.org/item${index}`), predicate, oxigraph.literal(text, 'en'))));
  const size = store.size;
  texts.forEach((text, index) => {
    const json = store.query(`SELECT ?item WHERE { ?item <http://example.org/label> ${sparqlStringLiteral(text, 'en')} }`, {
      results_format: 'application/sparql-results+json',
    });
    const bindings = (JSON.parse(json as string) as { results: { bindings: Array<{ item: { value: string } }> } }).results.bindings;
    assert.deepEqual(
      bindings.map((binding) => binding.item.value),
      [`http://example.org/item${index}`],
      `text ${JSON.stringify(text)}`,
    );
  });
  assert.equal(store.size, size);
});

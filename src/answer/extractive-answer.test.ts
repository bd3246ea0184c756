import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Embedder } from '../providers/embed/embedder.js';
import type { ContextChunk } from './answer-types.js';
import { extractiveAnswer, extractiveLabel, unsupportedAnswer } from './extractive-answer.js';

function chunk(hid: number, text: string): ContextChunk {
  return { id: `chunk-${hid}`, hid, documentId: `doc-${hid}`, documentTitle: `Document ${hid}`, source: `docs/${hid}.md`, text, score: 1, scores: {} };
}

const town = chunk(4, 'Kestermouth is a small harbour town on the east coast. The town has a long fishing tradition and a busy market.');
const bridge = chunk(9, 'The Weir Bridge collapsed during the great flood of 1952. Engineers rebuilt the Weir Bridge in 1954 using local granite.');
const kesterWeirBridge = {
  ...chunk(3, 'The Kester Weir Bridge carries Ferry Street across the River Kester below the weir. The bridge was opened on Saturday 14 May 1938 by the council chairman. During the flood of 1947 the bridge remained open when every other crossing was closed.'),
  documentTitle: 'Kester Weir Bridge',
};
const weather = chunk(2, '# Weather\nStorms are common in winter. Fishermen stay ashore when the wind rises above gale force.');

describe('extractiveAnswer', () => {
  test('quotes the sentence that answers the question and cites its chunk', async () => {
    // "rebuilt" occurs in one sentence only, so it has the highest IDF; that sentence has all question terms.
    const result = await extractiveAnswer('When was the Weir Bridge rebuilt?', [town, bridge, weather], { maxSentences: 1 });
    assert.equal(result.answer.text, 'Engineers rebuilt the Weir Bridge in 1954 using local granite. [Data: Sources (9)]');
    assert.deepEqual(result.citations, [
      {
        dataset: 'Sources',
        hid: 9,
        id: 'chunk-9',
        title: 'Document 9',
        source: 'docs/9.md',
        quote: 'Engineers rebuilt the Weir Bridge in 1954 using local granite.',
      },
    ]);
  });

  test('is labelled as extractive', async () => {
    const result = await extractiveAnswer('When was the Weir Bridge rebuilt?', [bridge]);
    assert.equal(result.answer.kind, 'extractive');
    assert.equal(result.answer.label, extractiveLabel);
    assert.match(extractiveLabel, /extractive/);
  });

  test('adds the sentences that answer the other parts of the question, best first, one line and one citation each', async () => {
    // Each bridge sentence answers one half of the question; the town and weather sentences answer neither.
    const result = await extractiveAnswer('When was the Weir Bridge rebuilt, and in which flood did it fall?', [town, bridge, weather]);
    const lines = result.answer.text.split('\n');
    assert.deepEqual(lines, [
      'The Weir Bridge collapsed during the great flood of 1952. [Data: Sources (9)]',
      'Engineers rebuilt the Weir Bridge in 1954 using local granite. [Data: Sources (9)]',
    ]);
    assert.deepEqual(
      result.citations.map((citation) => citation.quote),
      ['The Weir Bridge collapsed during the great flood of 1952.', 'Engineers rebuilt the Weir Bridge in 1954 using local granite.'],
    );
    for (const citation of result.citations) assert.ok(bridge.text.includes(citation.quote as string));
  });

  test('a sentence about its document\'s subject that does not name it counts the title\'s words, at half weight', async () => {
    const article = { ...chunk(3, 'The Kester Weir Bridge carries Ferry Street across the river below the weir. After years of petitions, the design was entrusted to the engineering firm Ivesley & Thorne.'), documentTitle: 'Kester Weir Bridge' };
    const firm = { ...chunk(4, 'In its first years the firm designed small road bridges and sluice gates along the Kester.'), documentTitle: 'Ivesley & Thorne' };
    const result = await extractiveAnswer('Who designed the Kester Weir Bridge?', [firm, article]);
    assert.ok(
      result.citations.some((citation) => citation.quote === 'After years of petitions, the design was entrusted to the engineering firm Ivesley & Thorne.'),
      JSON.stringify(result.citations.map((citation) => citation.quote)),
    );
  });

  test('a sentence defining what the question names answers its "what is" part, though it shares no new word', async () => {
    const myth = { ...chunk(7, 'In Akkadian mythology it is associated with other demons like Gallu and Lilu.'), documentTitle: 'Alû' };
    const lilu = { ...chunk(8, 'A lilu is a masculine Akkadian word for a spirit, related to the demon Alû.'), documentTitle: 'Lilu (mythology)' };
    const result = await extractiveAnswer('If Gallu is a demon Lilu is what?', [myth, lilu]);
    assert.ok(result.citations.some((citation) => citation.quote === 'A lilu is a masculine Akkadian word for a spirit, related to the demon Alû.'), JSON.stringify(result.citations.map((citation) => citation.quote)));
  });

  test('a definition answers a "what is" part; a question asking for a date has none', async () => {
    const bridge = { ...chunk(3, 'The Kester Weir Bridge was opened on 14 May 1938 by the council chairman. The Kester Weir Bridge stood firm in the flood and was the only crossing open in the valley.'), documentTitle: 'Kester Weir Bridge' };
    const dated = await extractiveAnswer('On what date was the Kester Weir Bridge opened?', [bridge]);
    assert.deepEqual(dated.citations.map((citation) => citation.quote), ['The Kester Weir Bridge was opened on 14 May 1938 by the council chairman.']);
    for (const question of ['What was the Kester Weir Bridge, and on what date was it opened?', 'Was the Kester Weir Bridge opened in 1938?']) {
      const defined = await extractiveAnswer(question, [bridge]);
      assert.equal(defined.citations.length, 2, `${question} ${JSON.stringify(defined.citations.map((citation) => citation.quote))}`);
    }
  });

  test('quotes a further sentence only when it answers a part of the question the quoted ones do not', async () => {
    const colossus = { ...chunk(5, 'Colossus was designed by the engineer Tommy Flowers. It was built at the Post Office Research Station at Dollis Hill in London. Colossus first worked in December 1943.'), documentTitle: 'Colossus computer' };
    const scheutz = { ...chunk(6, 'The difference engine of Per Georg Scheutz was designed and built in Stockholm in 1853.'), documentTitle: 'Scheutz difference engine' };
    const result = await extractiveAnswer('Who designed Colossus and where was it built?', [colossus, scheutz]);
    assert.deepEqual(
      result.citations.map((citation) => citation.quote),
      ['Colossus was designed by the engineer Tommy Flowers.', 'It was built at the Post Office Research Station at Dollis Hill in London.'],
      'the Scheutz sentence shares "designed" and "built" but answers nothing the two do not',
    );
  });

  test('cites the chunk of each quoted sentence', async () => {
    const result = await extractiveAnswer('Why do fishermen stay ashore in storms?', [town, bridge, weather], { maxSentences: 2 });
    assert.equal(result.citations[0]?.hid, 2);
    assert.equal(result.citations[0]?.quote, 'Fishermen stay ashore when the wind rises above gale force.');
    assert.match(result.answer.text, /^Fishermen stay ashore when the wind rises above gale force\. \[Data: Sources \(2\)\]/);
  });

  test('never quotes markdown headings or very short fragments', async () => {
    const result = await extractiveAnswer('weather storms winter', [chunk(1, '# Weather storms\nStorms are common in winter. Winter storm.')], { maxSentences: 3 });
    assert.deepEqual(
      result.citations.map((citation) => citation.quote),
      ['Storms are common in winter.'],
    );
  });

  test('near-duplicate sentences are not quoted twice (redundancy penalty)', async () => {
    const twin = chunk(5, 'Engineers rebuilt the Weir Bridge in 1954 using local granite.');
    const result = await extractiveAnswer('When was the Weir Bridge rebuilt?', [bridge, twin], { maxSentences: 2 });
    const quotes = result.citations.map((citation) => citation.quote);
    assert.equal(new Set(quotes).size, quotes.length, JSON.stringify(quotes));
    assert.equal(quotes[0], 'Engineers rebuilt the Weir Bridge in 1954 using local granite.');
    assert.equal(result.citations[0]?.hid, 9, 'the better-ranked chunk wins a tie');
  });

  test('reads only the first maxChunks chunks', async () => {
    const result = await extractiveAnswer('When was the Weir Bridge rebuilt?', [town, bridge], { maxChunks: 1 });
    assert.ok(result.citations.every((citation) => citation.hid === 4));
  });

  test('an embedder adds semantic similarity to the lexical score', async () => {
    // "stone" never occurs in the chunks. The fake embedder puts stone/granite texts on axis 0 and
    // everything else on axis 1, so the granite sentence scores 0.3 · 1 and beats the 0.1 rank bonus of
    // the first chunk.
    const embedder: Embedder = {
      id: 'test-axes',
      dimensions: 2,
      maxBatchSize: 100,
      embed: async (texts) => texts.map((text) => (/stone|granite/i.test(text) ? Float32Array.from([1, 0]) : Float32Array.from([0, 1]))),
    };
    const question = 'Which stone?';
    const plain = await extractiveAnswer(question, [town, bridge], { maxSentences: 1 });
    assert.deepEqual(plain.citations, [], 'without the embedder no sentence is relevant, so nothing is quoted');
    assert.equal(plain.answer.text, unsupportedAnswer);
    const semantic = await extractiveAnswer(question, [town, bridge], { maxSentences: 1, embedder });
    assert.equal(semantic.citations[0]?.quote, 'Engineers rebuilt the Weir Bridge in 1954 using local granite.');
  });

  test('with no candidate sentences it says so, labelled, without citations', async () => {
    for (const chunks of [[], [chunk(1, 'Too short. Tiny.')], [chunk(2, '# Only a heading that is long enough')]]) {
      const result = await extractiveAnswer('When was the Weir Bridge rebuilt?', chunks);
      assert.deepEqual(result, {
        answer: { text: 'No passage in the index matches this question.', kind: 'extractive', label: extractiveLabel },
        citations: [],
      });
    }
  });

  test('when no sentence shares enough with the question it says so and quotes nothing', async () => {
    // Each shares one word: "town" with the first chunk, "storms" with the third. Before, the best three were quoted.
    for (const question of ['Which town hosted the 1998 football World Cup?', 'How do storms form over the Atlantic ocean?']) {
      const result = await extractiveAnswer(question, [town, bridge, weather]);
      assert.deepEqual(result, { answer: { text: unsupportedAnswer, kind: 'extractive', label: extractiveLabel }, citations: [] }, question);
    }
  });

  test('quotes only the sentences that answer: not another sentence that merely names the subject again', async () => {
    // The rebuilding sentence names the Weir Bridge and a year, but the collapse sentence already answered "when".
    const result = await extractiveAnswer('When did the Weir Bridge collapse?', [town, bridge, weather]);
    assert.deepEqual(
      result.citations.map((citation) => citation.quote),
      ['The Weir Bridge collapsed during the great flood of 1952.'],
    );
  });

  test('a near-equal sentence is quoted as another answer only when it holds the kind of answer asked for', async () => {
    // The last two sentences tie on the question's words and both hold a year: either may be the answer. The first
    // names the bridge and nearly ties on words, but holds no year: it is no other answer to "when".
    const result = await extractiveAnswer('When was the Kester Weir Bridge opened?', [kesterWeirBridge]);
    assert.deepEqual(
      result.citations.map((citation) => citation.quote),
      ['The bridge was opened on Saturday 14 May 1938 by the council chairman.', 'During the flood of 1947 the bridge remained open when every other crossing was closed.'],
    );
  });

  test('a century or a decade answers "when" as a year does', async () => {
    // Both sentences hold every word of the question; the first holds a year, so the second is quoted as another answer
    // only if its century is one.
    const lacy = { ...chunk(7, 'The Blue Lacy breed was developed over a century in Texas and adopted as its state dog in 2005. The Blue Lacy breed was developed by the Lacy brothers in the mid-19th century.'), documentTitle: 'Blue Lacy' };
    const result = await extractiveAnswer('In which century was the Blue Lacy breed developed?', [lacy]);
    assert.ok(
      result.citations.some((citation) => citation.quote === 'The Blue Lacy breed was developed by the Lacy brothers in the mid-19th century.'),
      JSON.stringify(result.citations.map((citation) => citation.quote)),
    );
    const mill = { ...chunk(8, 'The Sedley Mill weaving shed was rebuilt after years of decline and listed in 1998. The Sedley Mill weaving shed was rebuilt with steel trusses in the 1960s.'), documentTitle: 'Sedley Mill' };
    const decade = await extractiveAnswer('In which decade was the Sedley Mill weaving shed rebuilt?', [mill]);
    assert.ok(
      decade.citations.some((citation) => citation.quote === 'The Sedley Mill weaving shed was rebuilt with steel trusses in the 1960s.'),
      JSON.stringify(decade.citations.map((citation) => citation.quote)),
    );
  });

  test('"on what date" asks for a day: a sentence with a bare year holds no answer to it', async () => {
    const result = await extractiveAnswer('On what date was the Kester Weir Bridge opened?', [kesterWeirBridge]);
    assert.deepEqual(
      result.citations.map((citation) => citation.quote),
      ['The bridge was opened on Saturday 14 May 1938 by the council chairman.'],
    );
    // Nor does the verb "may": a month holds a day beside a number.
    const rumour = { ...chunk(4, 'The Kester Weir Bridge was opened on 14 May 1938. The Kester Weir Bridge may have opened to carts in 1937.'), documentTitle: 'Kester Weir Bridge' };
    const dated = await extractiveAnswer('On what date was the Kester Weir Bridge opened?', [rumour]);
    assert.deepEqual(dated.citations.map((citation) => citation.quote), ['The Kester Weir Bridge was opened on 14 May 1938.']);
  });

  test('a sentence that names its subject only through the document title supports an answer', async () => {
    const opened = { ...chunk(3, 'It carries Ferry Street across the river. The bridge was opened on 14 May 1938 by the council chairman.'), documentTitle: 'Kester Weir Bridge' };
    const result = await extractiveAnswer('On what date was the Kester Weir Bridge opened?', [town, opened], { maxSentences: 1 });
    assert.equal(result.citations[0]?.quote, 'The bridge was opened on 14 May 1938 by the council chairman.');
  });

  test('a "who" question takes a firm named "X & Y" for the name it asks for', async () => {
    // Both sentences hold two of the question's three terms, each with one term no other sentence has ("weir",
    // "design"): they tie on words. A name the question does not hold boosts a sentence for "who"; "Ferry Street" is
    // one, and so is "Ivesley & Thorne", which the earlier chunk quotes and which wins only when it counts as a name.
    const firm = chunk(5, 'The design of the bridge went to Ivesley & Thorne after a long delay.');
    const street = chunk(6, 'The Weir Bridge carries Ferry Street over the river below the town.');
    const result = await extractiveAnswer('Who designed the Weir Bridge?', [firm, street], { maxSentences: 1 });
    assert.equal(result.citations[0]?.quote, 'The design of the bridge went to Ivesley & Thorne after a long delay.');
  });

  test('is deterministic', async () => {
    const question = 'What is Kestermouth known for?';
    assert.deepEqual(await extractiveAnswer(question, [town, bridge, weather]), await extractiveAnswer(question, [town, bridge, weather]));
  });

  test('reads Chinese, Japanese and Korean sentences, short as they are in letters', async () => {
    const poet = { ...chunk(3, '李龙雪是一位诗人，出生于南京。他写了冬光湖。'), documentTitle: '李龙雪' };
    const zh = await extractiveAnswer('李龙雪出生在哪里？', [poet]);
    assert.equal(zh.answer.text, '李龙雪是一位诗人，出生于南京。 [Data: Sources (3)]');
    const novelist = { ...chunk(5, '高橋星夢は仙台で生まれた。代表作は小説の川森杉です。'), documentTitle: '高橋星夢' };
    const ja = await extractiveAnswer('川森杉を書いたのは誰ですか？', [novelist]);
    assert.equal(ja.citations[0]?.quote, '代表作は小説の川森杉です。');
    const painter = { ...chunk(7, '윤타모는 전주에서 태어났다. 대표작은 포토오이다.'), documentTitle: '윤타모' };
    const ko = await extractiveAnswer('윤타모는 어디에서 태어났습니까?', [painter]);
    assert.equal(ko.citations[0]?.quote, '윤타모는 전주에서 태어났다.');
  });

  test('still says a Chinese question is not answered by passages about something else', async () => {
    const poet = { ...chunk(3, '李龙雪是一位诗人，出生于南京。他写了冬光湖。'), documentTitle: '李龙雪' };
    const result = await extractiveAnswer('王春风的画在哪个博物馆？', [poet]);
    assert.equal(result.answer.text, unsupportedAnswer);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { minimalDocx } from '../../../test/fixtures/text/minimal-docx.js';
import { maxDocumentXmlBytes } from './load-docx.js';
import { loadFileBytes } from './load-file-bytes.js';

const file = { source: 'docs/report.docx', fileName: 'report.docx' };
const paragraph = (text: string, style?: string): string =>
  `<w:p>${style === undefined ? '' : `<w:pPr><w:pStyle w:val="${style}"/><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr>`}<w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;

const body = [
  paragraph('Kester Weir Bridge', 'Title'),
  paragraph('History', 'Heading1'),
  // One sentence split over runs, with a tab, a line break, entities and a tracked deletion.
  '<w:p><w:r><w:rPr><w:b/></w:rPr><w:t>The bridge </w:t></w:r><w:r><w:t>opened on</w:t><w:tab/><w:t>14 May 1938</w:t><w:br/><w:t>&lt;Mill &amp; Weir&gt; &#x2014; &quot;rebuilt&quot;</w:t></w:r><w:del><w:r><w:delText>a deleted draft</w:delText></w:r></w:del></w:p>',
  '<w:p><w:r><w:instrText> PAGE </w:instrText></w:r></w:p>',
  paragraph('Design', 'Heading2'),
  '<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Engineer</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Ada Marsh</w:t></w:r></w:p></w:tc></w:tr><w:tr><w:tc><w:p><w:r><w:t>Span</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>42 m</w:t></w:r></w:p><w:p><w:r><w:t>(main arch)</w:t></w:r></w:p></w:tc></w:tr></w:tbl>',
  // A text box: its paragraph nests in a run; Word also writes a fallback copy of it, read once.
  '<w:p><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent><w:p><w:r><w:t>A boxed note.</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>A boxed note.</w:t></w:r></w:p></w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r><w:r><w:t>After the box.</w:t></w:r></w:p>',
  '<w:p/>',
].join('');

describe('loading .docx', () => {
  it('reads paragraphs, runs, tabs, breaks, entities, tables and text boxes, with headings as sections', async () => {
    const { documents, warnings } = await loadFileBytes(minimalDocx(body), file, {});
    assert.deepEqual(warnings, []);
    assert.equal(documents.length, 1);
    const [document] = documents;
    assert.equal(document?.title, 'Kester Weir Bridge', 'the Title paragraph when there is no dc:title');
    assert.equal(document?.source, 'docs/report.docx');
    assert.equal(
      document?.text,
      [
        'Kester Weir Bridge',
        'History',
        'The bridge opened on\t14 May 1938\n<Mill & Weir> \u2014 "rebuilt"',
        'Design',
        'Engineer | Ada Marsh',
        'Span | 42 m (main arch)',
        'A boxed note.',
        'After the box.',
      ].join('\n\n'),
    );
    const sections = document?.metadata['sections'] as Array<{ heading: string; level: number; start: number }>;
    assert.deepEqual(
      sections.map(({ heading, level }) => [heading, level]),
      [
        ['Kester Weir Bridge', 1],
        ['History', 1],
        ['Design', 2],
      ],
    );
    for (const section of sections) assert.equal(document?.text.slice(section.start, section.start + section.heading.length), section.heading);
  });

  it('takes the title from the document properties, and reads stored (uncompressed) archives', async () => {
    const { documents } = await loadFileBytes(minimalDocx(paragraph('Body text only.'), { title: 'Annual &amp; Final', stored: true }), file, {});
    assert.equal(documents[0]?.title, 'Annual & Final');
    assert.equal(documents[0]?.text, 'Body text only.');
  });

  it('an empty document, a damaged file and a ZIP without a document each give one warning naming the file', async () => {
    const empty = await loadFileBytes(minimalDocx('<w:p/>'), file, {});
    assert.deepEqual(empty.documents, []);
    assert.deepEqual(empty.warnings.map((warning) => warning.code), ['empty']);

    const damaged = await loadFileBytes(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]), file, {});
    assert.deepEqual(damaged.documents, []);
    assert.equal(damaged.warnings.length, 1);
    assert.equal(damaged.warnings[0]?.code, 'parse-error');
    assert.match(damaged.warnings[0]?.message ?? '', /^docs\/report\.docx could not be read as a Word document \(it is not a ZIP archive\), so it was skipped; .*save it as PDF, Markdown \(\.md\) or plain text \(\.txt\)/);

    const bytes = minimalDocx(paragraph('x'));
    const renamed = Buffer.from(bytes).toString('latin1').replaceAll('word/document.xml', 'word/documant.xml');
    const noDocument = await loadFileBytes(new Uint8Array(Buffer.from(renamed, 'latin1')), file, {});
    assert.match(noDocument.warnings[0]?.message ?? '', /\(it holds no word\/document\.xml\)/);
  });

  it('a legacy .doc is skipped with a warning that says what to convert it to', async () => {
    const { documents, warnings } = await loadFileBytes(new Uint8Array([0xd0, 0xcf, 0x11, 0xe0]), { source: 'old.doc', fileName: 'old.doc' }, {});
    assert.deepEqual(documents, []);
    assert.equal(warnings[0]?.code, 'unsupported-type');
    assert.match(warnings[0]?.message ?? '', /^old\.doc is a Word 97–2003 document, which kgrag cannot read, so it was skipped; save it as PDF, Markdown \(\.md\) or plain text \(\.txt\)\.$/);
  });

  it('a document whose XML unpacks past the limit is skipped from the archive directory, before it is unpacked', async () => {
    // A 733 KB .docx that unpacked to 250 MB made a server unresponsive for half an hour; this one unpacks to 65 MB.
    const repeats = Math.ceil((maxDocumentXmlBytes + 1024 * 1024) / 120);
    const bomb = minimalDocx(paragraph('The weir was rebuilt in 1952 by the harbour board, and again in 1978.').repeat(repeats));
    assert.ok(bomb.length < 2 * 1024 * 1024, `the archive is small (${bomb.length} bytes)`);
    const started = process.memoryUsage().arrayBuffers;
    const { documents, warnings } = await loadFileBytes(bomb, file, {});
    assert.deepEqual(documents, []);
    assert.deepEqual(warnings.map((warning) => warning.code), ['too-large']);
    assert.match(warnings[0]?.message ?? '', /^docs\/report\.docx unpacks to 6\d MB of document XML, more than the 64 MB kgrag reads from a Word document, so it was skipped without unpacking it; split it into smaller documents\.$/);
    assert.ok(process.memoryUsage().arrayBuffers - started < maxDocumentXmlBytes / 2, 'nothing the size of the unpacked XML was allocated');
  });
});


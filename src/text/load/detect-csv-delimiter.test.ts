import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectCsvDelimiter } from './detect-csv-delimiter.js';

describe('detectCsvDelimiter', () => {
  it('finds a comma, a semicolon or a tab in the header', () => {
    assert.equal(detectCsvDelimiter('title,text\nA,Alpha.\n'), ',');
    assert.equal(detectCsvDelimiter('title;text\nA;Alpha, with a comma.\n'), ';');
    assert.equal(detectCsvDelimiter('title\ttext\r\nA\tAlpha; beta, gamma.\r\n'), '\t');
    assert.equal(detectCsvDelimiter('\uFEFFid;title;text\n1;A;x\n'), ';', 'after a BOM');
  });

  it('ignores delimiters inside quoted header fields, even across lines', () => {
    assert.equal(detectCsvDelimiter('"name, full";"text, long"\n"Smith, J";"Said, hi"\n'), ';');
    assert.equal(detectCsvDelimiter('"a;b","c\nd;e"\nx,y\n'), ',');
    assert.equal(detectCsvDelimiter('size 5" disk;text\n5;x\n'), ';', 'a stray quote inside a field opens nothing');
  });

  it('breaks a tie in the header by the rows: the delimiter that splits them like the header', () => {
    const semicolons = 'name, short;text\nA;one, two, three\nB;four\nC;five, six\n';
    assert.equal(detectCsvDelimiter(semicolons), ';');
    const commas = 'name;short,text\nA,one; two\nB,three\nC,four; five; six\n';
    assert.equal(detectCsvDelimiter(commas), ',');
  });

  it('gives a comma for a one-column file and for empty text', () => {
    assert.equal(detectCsvDelimiter('text\nOnly one column.\n'), ',');
    assert.equal(detectCsvDelimiter(''), ',');
  });
});

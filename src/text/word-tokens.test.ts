import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { queryTerms, wordTokens } from './word-tokens.js';

describe('wordTokens', () => {
  it('keeps the letter and digit runs of spaced scripts, lower-cased and without diacritics', () => {
    assert.deepEqual(wordTokens('Café déjà-vu, 1990s São Paulo!'), ['cafe', 'deja', 'vu', '1990s', 'sao', 'paulo']);
  });

  it('cuts Chinese, Japanese and Korean runs into overlapping character bigrams', () => {
    // One token per clause matched nothing: "东京是日本的首都" and "日本的首都是哪里" shared no token.
    assert.deepEqual(wordTokens('日本的首都'), ['日本', '本的', '的首', '首都']);
    assert.deepEqual(wordTokens('ラーメン'), ['ラー', 'ーメ', 'メン']);
    assert.deepEqual(wordTokens('서울은 수도'), ['서울', '울은', '수도']);
    assert.deepEqual(wordTokens('iPhone用 日'), ['iphone', '用', '日'], 'a lone CJK letter is a token; Latin letters next to it are a word');
    assert.deepEqual(wordTokens('𠮷野家'), ['𠮷野', '野家'], 'characters outside the BMP stay whole');
  });

  it('keeps the voicing marks of kana and composes Hangul syllables', () => {
    assert.deepEqual(wordTokens('です'), ['です']);
    assert.notDeepEqual(wordTokens('がす'), wordTokens('かす'));
    assert.deepEqual(wordTokens('한국'.normalize('NFD')), ['한국']);
  });

  it('gives a question about a CJK passage terms the passage holds', () => {
    const passage = new Set(wordTokens('鈴木は京都で生まれた小説家です。代表作は影扉菊で、1920年に発表されました。'));
    const shared = queryTerms('影扉菊を書いた作家はどこで生まれましたか？').filter((term) => passage.has(term));
    assert.deepEqual(shared, ['影扉', '扉菊', 'で生', '生ま', 'まれ', 'れま', 'まし', 'した']);
  });
});

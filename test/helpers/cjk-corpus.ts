import { createRandom } from '../../src/core/random.js';

/** One generated passage and a question only it answers. */
export interface CjkPassage {
  language: 'zh' | 'ja' | 'ko';
  title: string;
  text: string;
  question: string;
}

/*
 * A small corpus of Chinese, Japanese and Korean biographies, generated from templates: each names a made-up
 * author, a birthplace and a work, and the question about a passage names its work. Nothing sets the title
 * apart but the characters around it, as in running text: a question shares no run of letters with its
 * passage, so a tokenizer that splits only at spaces and punctuation finds nothing to match.
 */

const hanzi = '春夏秋冬风花雪月山河湖海星云雷雨松竹梅兰龙凤虎鹤金银铜铁光明清远长青白黑红绿';
const kanji = '桜椿藤菊松杉森林川谷岩浜泉滝霧霞嵐虹空星月光影夢歌詩鏡扉灯';
const hangulSyllables = '가나다라마바사아자차카타파하고노도로모보소오조초코토포호구누두루무부수우주추';
const zhSurnames = '王李张刘陈杨黄赵周吴';
const jaSurnames = ['佐藤', '鈴木', '高橋', '田中', '伊藤', '渡辺', '山本', '中村', '小林', '加藤'];
const koSurnames = '김이박최정강조윤장임';
const zhCities = ['苏州', '杭州', '成都', '西安', '南京', '洛阳', '开封', '扬州'];
const jaCities = ['京都', '奈良', '札幌', '金沢', '長崎', '仙台', '松江', '函館'];
const koCities = ['부산', '대구', '광주', '대전', '전주', '경주', '춘천', '목포'];

function pick<T>(items: ArrayLike<T>, random: () => number): T {
  return items[Math.floor(random() * items.length)] as T;
}

function word(alphabet: string, length: number, random: () => number): string {
  return Array.from({ length }, () => pick(alphabet, random)).join('');
}

/** `perLanguage` passages in each of Chinese, Japanese and Korean, with distinct work titles; deterministic. */
export function generateCjkCorpus(perLanguage: number, seed = 17): CjkPassage[] {
  const random = createRandom(seed);
  const used = new Set<string>();
  const fresh = (make: () => string): string => {
    for (;;) {
      const candidate = make();
      if (!used.has(candidate)) {
        used.add(candidate);
        return candidate;
      }
    }
  };
  const passages: CjkPassage[] = [];
  for (let index = 0; index < perLanguage; index++) {
    const year = 1900 + Math.floor(random() * 100);
    const zhName = pick(zhSurnames, random) + fresh(() => word(hanzi, 2, random));
    const zhWork = fresh(() => word(hanzi, 3, random));
    passages.push({
      language: 'zh',
      title: `${zhName}`,
      text: `${zhName}是一位诗人，出生于${pick(zhCities, random)}。他最著名的作品是${zhWork}，创作于${year}年。这部作品讲述了一个家族三代人的故事。`,
      question: `${zhWork}的作者出生在哪里？`,
    });
    const jaName = pick(jaSurnames, random) + fresh(() => word(kanji, 2, random));
    const jaWork = fresh(() => word(kanji, 3, random));
    passages.push({
      language: 'ja',
      title: `${jaName}`,
      text: `${jaName}は${pick(jaCities, random)}で生まれた小説家です。代表作は${jaWork}で、${year}年に発表されました。この作品は港町の人々の暮らしを描いています。`,
      question: `${jaWork}を書いた作家はどこで生まれましたか？`,
    });
    const koName = pick(koSurnames, random) + fresh(() => word(hangulSyllables, 2, random));
    const koWork = fresh(() => word(hangulSyllables, 3, random));
    passages.push({
      language: 'ko',
      title: `${koName}`,
      text: `${koName}은 ${pick(koCities, random)}에서 태어난 화가이다. 대표작은 ${koWork}이며 ${year}년에 발표되었다. 이 작품은 바닷가 마을의 풍경을 그렸다.`,
      question: `${koWork}를 그린 화가는 어디에서 태어났습니까?`,
    });
  }
  return passages;
}

import { fillPrompt, type PromptTemplate } from '../../core/prompt-library.js';
import type { ChatMessage } from '../../providers/llm/language-model.js';

/**
 * The one-shot rerank conversation of Graph RAG with Milvus (milvus-io/bootcamp `tutorials/quickstart/graph_rag_with_milvus.ipynb` step 5), in our
 * words with the same content: the instruction to pick 3 useful relationships and answer in JSON with the
 * thought process, the Third Crusade / Eleanor of Aquitaine example with its 11 numbered relationships, the
 * example's JSON answer as the assistant's turn, then the question and the candidate lines. A line
 * `<<<user>>>` or `<<<assistant>>>` starts a turn. Placeholders: `{question}`, `{relationships}`.
 */
const relationsRerankText = `<<<user>>>
Below is a list of relationship descriptions. Choose the 3 relationships that are most likely to help answer the question. Reply with a JSON object that holds your thought process and the chosen relationships, most relevant first.

Question:
When was the mother of the leader of the Third Crusade born?

Relationship descriptions:
[1] Eleanor was born in 1122.
[2] Eleanor married King Louis VII of France.
[3] Eleanor was the Duchess of Aquitaine.
[4] Eleanor took part in the Second Crusade.
[5] Eleanor had eight children.
[6] Eleanor was married to Henry II of England.
[7] Eleanor was the mother of Richard the Lionheart.
[8] Richard the Lionheart was the King of England.
[9] Henry II was the father of Richard the Lionheart.
[10] Henry II was the King of England.
[11] Richard the Lionheart led the Third Crusade.

<<<assistant>>>
{"thought_process": "To answer, I first need the leader of the Third Crusade, then his mother, and finally the relationship that gives her birth date. Richard the Lionheart led the Third Crusade, Eleanor was his mother, and Eleanor was born in 1122.", "useful_relationships": ["[11] Richard the Lionheart led the Third Crusade", "[7] Eleanor was the mother of Richard the Lionheart", "[1] Eleanor was born in 1122"]}

<<<user>>>
Question:
{question}

Relationship descriptions:
{relationships}

Reply with the JSON object only.`;

/** The rerank prompt of `relations`. */
export const relationsRerankPrompt: PromptTemplate = {
  name: 'relations-rerank',
  description:
    'Graph RAG with Milvus one-shot rerank: pick the useful "[id] relationship" lines as JSON {thought_process, useful_relationships}; lines <<<user>>> / <<<assistant>>> start turns; placeholders {question}, {relationships}',
  text: relationsRerankText,
};

const turnMarker = /^<<<(user|assistant)>>>[ \t]*$/;

/**
 * Fills a rerank prompt text (built-in or a workspace override) and splits it into chat turns at its
 * `<<<user>>>` / `<<<assistant>>>` lines; text before the first marker, or a text without markers, is one
 * user turn. Placeholders are filled per turn, so braces inside the question or the lines stay verbatim.
 */
export function renderRelationsRerankMessages(text: string, question: string, relationshipLines: readonly string[]): ChatMessage[] {
  const values = { question, relationships: relationshipLines.join('\n') };
  const messages: ChatMessage[] = [];
  let role: ChatMessage['role'] = 'user';
  let lines: string[] = [];
  const flush = (): void => {
    const content = lines.join('\n').trim();
    if (content.length > 0) messages.push({ role, content: fillPrompt(content, values) });
    lines = [];
  };
  for (const line of text.split('\n')) {
    const marker = turnMarker.exec(line);
    if (!marker) {
      lines.push(line);
      continue;
    }
    flush();
    role = marker[1] === 'assistant' ? 'assistant' : 'user';
  }
  flush();
  return messages;
}

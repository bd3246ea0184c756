// The chains of dependent requests bench/llm-throughput.ts derives from the mock server's log, on requests sent over
// real HTTP by the real adapter: conversations, quoted replies, and requests that merely came later.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { longestDependencyChain, type LoggedChat } from '../bench/request-chains.js';
import { createOpenAiCompatibleLanguageModel } from '../src/providers/llm/openai-compatible-language-model.js';
import { startMockOpenAiServer, type MockAnsweredRequest, type MockOpenAiServer } from '../src/testing/index.js';

/** Replies by the last user message: a fixed table, so every reply is known before it is asked for. */
const replies: Record<string, string> = {
  'Name four trees.': 'Alder, Birch, Cedar, Damson.',
  'Name three more trees; avoid: Alder,Birch,Cedar,Damson': 'Elm, Fir, Gum',
  'Clean this list: Elm, Fir, Gum': 'Elm, Fir, Gum',
  'Name a tree; avoid: Elm,Fir,Gum': 'Hazel',
  'Extract entities.': '{"entities": [{"name": "Alder Lane", "type": "geo"}]}',
  'MANY were missed, add them.': '{"entities": []}',
  'Types allowed: person, geo, event. Anything else?': 'N',
  'Say something about Cedar Lane, the Birch tree and Alder Road.': 'They are places.',
  'Entity types: person, geo, event.': '{"types": ["person", "geo", "event"]}',
};

describe('longestDependencyChain', () => {
  const servers: MockOpenAiServer[] = [];
  after(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  it('follows conversations and quoted replies, not requests that only came later', async () => {
    const log: MockAnsweredRequest[] = [];
    const server = await startMockOpenAiServer({
      onResponse: (request) => log.push(request),
      reply: (request) => replies[request.messages.at(-1)?.content ?? ''] ?? 'unknown',
    });
    servers.push(server);
    const model = createOpenAiCompatibleLanguageModel({ baseURL: server.url, modelId: 'mock-model' });
    const ask = async (...messages: Array<{ role: 'user' | 'assistant'; content: string }>): Promise<string> => (await model.generate({ messages })).text;

    // A JSON reply whose strings a later template lists: no quotation of it.
    await ask({ role: 'user', content: 'Entity types: person, geo, event.' });
    // A quoting chain of four: each prompt quotes the reply before it (an echoing clean-up included).
    const trees = await ask({ role: 'user', content: 'Name four trees.' });
    const more = await ask({ role: 'user', content: `Name three more trees; avoid: ${trees.replace(/\.$/, '').split(', ').join(',')}` });
    const cleaned = await ask({ role: 'user', content: `Clean this list: ${more}` });
    await ask({ role: 'user', content: `Name a tree; avoid: ${cleaned.split(', ').join(',')}` });
    // A conversation of three turns: each carries the one before.
    const first = { role: 'user' as const, content: 'Extract entities.' };
    const extracted = await ask(first);
    const gleaning = [first, { role: 'assistant' as const, content: extracted }, { role: 'user' as const, content: 'MANY were missed, add them.' }];
    const gleaned = await ask(...gleaning);
    await ask(...gleaning, { role: 'assistant', content: gleaned }, { role: 'user', content: 'Types allowed: person, geo, event. Anything else?' });
    // A later request that names the first reply's trees, but not as its list.
    await ask({ role: 'user', content: 'Say something about Cedar Lane, the Birch tree and Alder Road.' });

    const logged: LoggedChat[] = log.map((request) => ({
      receivedAt: request.receivedAt,
      answeredAt: request.answeredAt,
      messages: (request.body as { messages: Array<{ role: string; content: string }> }).messages,
      reply: request.content,
    }));
    const prompts = logged.map((request) => request.messages.at(-1)?.content);
    const chain = longestDependencyChain(logged);
    assert.deepEqual(
      chain.requests.map((index) => prompts[index]),
      ['Name four trees.', 'Name three more trees; avoid: Alder,Birch,Cedar,Damson', 'Clean this list: Elm, Fir, Gum', 'Name a tree; avoid: Elm,Fir,Gum'],
    );
    assert.deepEqual(chain.links, ['quotation', 'quotation', 'quotation']);
    const without = (pattern: RegExp): LoggedChat[] => logged.filter((request) => !pattern.test(request.messages[0]?.content ?? ''));
    const conversation = longestDependencyChain(without(/tree|Elm/));
    assert.deepEqual(
      conversation.requests.map((index) => without(/tree|Elm/)[index]?.messages.at(-1)?.content),
      ['Extract entities.', 'MANY were missed, add them.', 'Types allowed: person, geo, event. Anything else?'],
    );
    assert.deepEqual(conversation.links, ['conversation', 'conversation']);
    const unrelated = logged.filter((request) => /^(Entity types|Name four|Say something|Types allowed)/.test(request.messages.at(-1)?.content ?? ''));
    assert.equal(unrelated.length, 4);
    assert.equal(longestDependencyChain(unrelated).requests.length, 1, 'no request of these quotes another');
  });

  it('does not link a request sent before the reply it seems to quote was answered', () => {
    const request = (receivedAt: number, answeredAt: number, prompt: string, reply: string): LoggedChat => ({ receivedAt, answeredAt, messages: [{ role: 'user', content: prompt }], reply });
    const overlapping = [request(0, 200, 'Name four trees.', 'Alder, Birch, Cedar, Damson.'), request(150, 350, 'Avoid: Alder,Birch,Cedar,Damson', 'Elm')];
    assert.equal(longestDependencyChain(overlapping).requests.length, 1);
    const after = [overlapping[0] as LoggedChat, request(200, 400, 'Avoid: Alder,Birch,Cedar,Damson', 'Elm')];
    assert.equal(longestDependencyChain(after).requests.length, 2);
  });
});

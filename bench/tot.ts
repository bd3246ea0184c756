import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKgrag } from '../src/api/create-kgrag.js';
import { fileURLToPath } from 'node:url';
import { createScriptedLanguageModel, startMockOpenAiServer } from '../src/testing/index.js';
import { collegePolicy, collegeQuestion, httpPolicyReply, twoHopPolicy, twoHopQuestion } from '../test/helpers/lantern-keeper-graph.js';
import { sampleLlmReply } from '../test/helpers/sample-llm-responder.js';
import { startOxigraphSparqlEndpoint } from '../test/helpers/oxigraph-sparql-endpoint.js';
import { type BenchResult, result } from './bench-utils.js';

const latencyMs = 200;
const breadths = [1, 3] as const;

/**
 * What one Tree-of-Traversals question costs: the two-hop question of the tests ("Who was the father of
 * the director of The Lantern Keeper?", 7 expansions to the answer) over the Wikidata-shaped fixture in
 * oxigraph behind a loopback SPARQL endpoint, with the loopback OpenAI-compatible mock answering every
 * call after 200 ms as a competent model would (the scripted two-hop policy), 8 calls in flight. Reported
 * per branching factor k (1 = Chain-of-Traversals, 3 = the paper): LLM calls, tokens, SPARQL requests, and
 * wall time, which the 200 ms calls dominate — it shows how much of the sampling runs in parallel.
 * A third case walks the index of the sample corpus and the fixture at once (`tot_multi_*`, k = 1: Clara
 * Ivesley → her college in the index → its inception in Wikidata): its SPARQL requests include the linking
 * of every entity the index hands out into Wikidata.
 */
export async function benchTot(runs: number): Promise<Record<string, BenchResult>> {
  const endpoint = await startOxigraphSparqlEndpoint({ turtle: readFileSync(new URL('../test/fixtures/wikidata-mini.ttl', import.meta.url), 'utf8') });
  const server = await startMockOpenAiServer({ latencyMs, reply: httpPolicyReply(twoHopPolicy) });
  const collegeServer = await startMockOpenAiServer({ latencyMs, reply: httpPolicyReply(collegePolicy) });
  // The standard-mode index of the sample corpus (scripted extraction), built once and queried per run.
  const indexed = mkdtempSync(join(tmpdir(), 'kgrag-bench-tot-index-'));
  const indexer = await createKgrag({ workspace: indexed, env: {}, llm: createScriptedLanguageModel({ responses: [{ match: () => true, reply: (request) => sampleLlmReply(request) }] }) });
  await indexer.index([fileURLToPath(new URL('../examples/sample-corpus', import.meta.url))], { mode: 'standard' });
  await indexer.close();
  const measured = new Map<string, number[]>();
  const add = (key: string, value: number): void => {
    measured.set(key, [...(measured.get(key) ?? []), value]);
  };
  try {
    for (let run = 0; run < runs; run++) {
      const multi = await createKgrag({
        workspace: indexed,
        env: {},
        config: {
          llm: { provider: 'openai-compatible', baseURL: collegeServer.url, apiKey: 'bench', model: 'mock-model', concurrency: 8, cache: false },
          methods: { tot: { knowledgeGraphs: { wikidata: { type: 'sparql', endpoint: endpoint.url } } } },
        },
      });
      const multiBefore = endpoint.requests.length;
      const multiStarted = performance.now();
      const college = await multi.query(collegeQuestion, { method: 'tot', params: { sampleBreadth: 1, graphs: ['index', 'wikidata'] } });
      const multiWallMs = performance.now() - multiStarted;
      await multi.close();
      if (college.answer.text !== '1889') throw new Error(`tot over index + wikidata answered "${college.answer.text}"`);
      add('tot_multi_k1_wall_s', multiWallMs / 1000);
      add('tot_multi_k1_llm_calls', college.usage.llmCalls);
      add('tot_multi_k1_sparql_requests', endpoint.requests.length - multiBefore);
      process.stderr.write(`  run ${run + 1}/${runs} index + wikidata, k=1: ${college.usage.llmCalls} LLM calls, ${endpoint.requests.length - multiBefore} SPARQL requests, ${(multiWallMs / 1000).toFixed(2)} s\n`);
      for (const k of breadths) {
        const workspace = mkdtempSync(join(tmpdir(), 'kgrag-bench-tot-'));
        try {
          const kgrag = await createKgrag({
            workspace,
            env: {},
            config: {
              llm: { provider: 'openai-compatible', baseURL: server.url, apiKey: 'bench', model: 'mock-model', concurrency: 8 },
              methods: { tot: { graphs: ['wikidata'], knowledgeGraphs: { wikidata: { type: 'sparql', endpoint: endpoint.url } } } },
            },
          });
          const requestsBefore = endpoint.requests.length;
          const started = performance.now();
          const answer = await kgrag.query(twoHopQuestion, { method: 'tot', params: { sampleBreadth: k } });
          const wallMs = performance.now() - started;
          await kgrag.close();
          if (answer.answer.text !== 'Thomas Ellison') throw new Error(`tot k=${k} answered "${answer.answer.text}"`);
          const sparql = endpoint.requests.length - requestsBefore;
          add(`tot_k${k}_wall_s`, wallMs / 1000);
          add(`tot_k${k}_llm_calls`, answer.usage.llmCalls);
          add(`tot_k${k}_input_tokens`, answer.usage.inputTokens);
          add(`tot_k${k}_output_tokens`, answer.usage.outputTokens);
          add(`tot_k${k}_sparql_requests`, sparql);
          add(`tot_k${k}_sequential_call_rounds`, wallMs / latencyMs);
          process.stderr.write(`  run ${run + 1}/${runs} k=${k}: ${answer.usage.llmCalls} LLM calls, ${answer.usage.inputTokens} + ${answer.usage.outputTokens} tokens, ${sparql} SPARQL requests, ${(wallMs / 1000).toFixed(2)} s\n`);
        } finally {
          rmSync(workspace, { recursive: true, force: true });
        }
      }
    }
  } finally {
    await Promise.all([server.close(), collegeServer.close()]);
    await endpoint.close();
    rmSync(indexed, { recursive: true, force: true });
  }
  const units: Record<string, string> = { wall_s: 's', llm_calls: 'count', input_tokens: 'count', output_tokens: 'count', sparql_requests: 'count', sequential_call_rounds: 'x 200 ms' };
  return Object.fromEntries([...measured].map(([key, values]) => [key, result(values, units[key.replace(/^tot_(?:multi_)?k\d+_/, '')] ?? 'count')]));
}

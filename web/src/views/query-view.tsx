import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { QueryRequest, QueryResult } from '../api-types';
import { type ChangedParams, nestParams, ParamsForm } from '../components/params-form';
import { QueryAnswer } from '../components/query-answer';
import { QueryCommunities } from '../components/query-communities';
import { QueryPassages, RankingBadge, rankingOf } from '../components/query-passages';
import { useQueryRun } from '../components/query-run';
import { resultEntityIds } from '../components/query-subgraph-targets';
import { QueryTrace, QueryUsage } from '../components/query-trace';
import { MethodNotBuilt } from '../components/method-not-built';
import { SubgraphCanvas } from '../components/subgraph-canvas';
import { useExplorer } from '../explorer-context';
import './query-view.css';

/**
 * The query playground: a question to one method (variant, parameters from its JSON Schema, topK, context only),
 * streamed; the answer with linked references, the retrieved subgraph, the passages with their ranking kind, the
 * trace and the usage.
 */
export function QueryView({ active }: { active: boolean }) {
  const explorer = useExplorer();
  const [question, setQuestion] = useState('');
  const [methodName, setMethodName] = useState(explorer.defaultMethod);
  const [variant, setVariant] = useState('');
  const [params, setParams] = useState<ChangedParams>({});
  const [topK, setTopK] = useState('');
  const [contextOnly, setContextOnly] = useState(false);
  const query = useQueryRun();

  const method = explorer.methods.find((entry) => entry.name === methodName);
  useEffect(() => {
    if (!method && explorer.methods.length > 0) setMethodName(explorer.methods.some((entry) => entry.name === explorer.defaultMethod) ? explorer.defaultMethod : (explorer.methods[0]?.name ?? ''));
  }, [explorer.methods, explorer.defaultMethod]);

  async function submit(request: QueryRequest): Promise<QueryResult | undefined> {
    return query.run(request);
  }

  function currentRequest(): QueryRequest {
    const nested = nestParams(params);
    const k = Number(topK);
    return {
      question: question.trim(),
      method: methodName,
      ...(variant ? { variant } : {}),
      ...(Object.keys(nested).length > 0 ? { params: nested } : {}),
      ...(topK !== '' && Number.isInteger(k) && k > 0 ? { topK: k } : {}),
      ...(contextOnly ? { contextOnly: true } : {}),
    };
  }

  const result = query.result;
  // The mark scripts and the explorer benchmark time an answer by: set once a result and its subgraph are drawn.
  const markedResult = useRef<QueryResult | undefined>(undefined);
  const answerDrawn = (drawn: QueryResult) => {
    if (markedResult.current === drawn) return;
    markedResult.current = drawn;
    performance.mark('kgrag:answer-drawn');
  };
  useEffect(() => {
    if (result && !result.context.subgraph) answerDrawn(result);
  }, [result]);

  const entityIds = useMemo(() => (result ? resultEntityIds(result) : new Set<string>()), [result]);
  // A method that cannot answer without a chat model is marked in the list, and runs only for its context.
  const noLlm = explorer.stats?.llm !== undefined && !explorer.stats.llm.configured;
  const blockedByLlm = method !== undefined && method.needsLlm && noLlm && !contextOnly;
  const canRun = question.trim() !== '' && method !== undefined && method.built && !blockedByLlm && !query.running;

  return (
    <div class="query-view">
      <form
        class="query-form"
        data-testid="query-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (canRun) void submit(currentRequest());
        }}
      >
        <textarea
          data-testid="query-question"
          aria-label="Question"
          placeholder="Ask a question about the documents (Ctrl+Enter runs)"
          rows={3}
          value={question}
          onInput={(event) => setQuestion(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
              event.preventDefault();
              if (canRun) void submit(currentRequest());
            }
          }}
        />
        <div class="query-controls">
          <label>
            Method{' '}
            <select data-testid="query-method" value={methodName} onChange={(event) => {
              setMethodName(event.currentTarget.value);
              setVariant('');
              setParams({});
            }}>
              {explorer.methods.map((entry) => (
                <option value={entry.name} title={entry.description} data-needs-llm={entry.needsLlm && noLlm ? 'true' : undefined}>
                  {entry.name}
                  {entry.built ? '' : ' (not built)'}
                  {entry.needsLlm && noLlm ? ' (needs an LLM)' : ''}
                </option>
              ))}
            </select>
          </label>
          {method && method.variants.length > 0 && (
            <label>
              Variant{' '}
              <select data-testid="query-variant" value={variant} onChange={(event) => setVariant(event.currentTarget.value)}>
                <option value="">default ({method.variants[0]})</option>
                {method.variants.map((name) => (
                  <option value={name}>{name}</option>
                ))}
              </select>
            </label>
          )}
          <label>
            topK{' '}
            <input data-testid="query-topk" type="number" min={1} step={1} class="narrow" placeholder="method's" value={topK} onInput={(event) => setTopK(event.currentTarget.value)} />
          </label>
          <label>
            <input data-testid="query-context-only" type="checkbox" checked={contextOnly} onChange={(event) => setContextOnly(event.currentTarget.checked)} /> Context only
          </label>
          {query.running ? (
            <button type="button" data-testid="query-stop" onClick={query.stop}>
              Stop
            </button>
          ) : (
            <button type="submit" class="primary" data-testid="query-run" disabled={!canRun}>
              Run
            </button>
          )}
        </div>
        {method && <p class="method-description muted" data-testid="method-description">{method.description}</p>}
        {method && !method.built && <MethodNotBuilt name={method.name} />}
        {method && method.needsLlm && noLlm && (
          <p class="notice" data-testid="method-needs-llm">
            {method.name} cannot answer without a language model, and the server has none: choose another method, or tick “Context only” to see what it would read. The server's configuration sets a model (KGRAG_LLM_BASE_URL, or OPENAI_API_KEY).
          </p>
        )}
        {method && Object.keys(method.parameters.properties ?? {}).length > 0 && (
          <details class="query-params">
            <summary>Parameters{Object.keys(params).length > 0 ? ` (${Object.keys(params).length} changed)` : ''}</summary>
            <ParamsForm schema={method.parameters} values={params} onChange={setParams} />
          </details>
        )}
      </form>

      {query.error && (
        <p class="error" role="alert" data-testid="query-error">
          {query.error === 'stopped' ? 'Stopped.' : query.error}
        </p>
      )}
      {(query.running || result || query.streamed) && (
        <div class="query-output" data-testid="query-output">
          <section class="panel answer-panel">
            <h3>Answer {result && <span class="muted">· {result.method}{result.variant ? `:${result.variant}` : ''}</span>}</h3>
            <QueryAnswer result={result} streamed={query.streamed} />
          </section>
          {result?.context.subgraph && (
            <section class="panel subgraph-panel">
              <h3>
                Retrieved subgraph{' '}
                {entityIds.size > 0 && (
                  <button class="small" data-testid="show-on-graph" onClick={() => explorer.highlight({ label: result.question, entityIds }, true)}>
                    Show on the graph ({entityIds.size})
                  </button>
                )}
              </h3>
              <SubgraphCanvas subgraph={result.context.subgraph} method={result.method} active={active} onDrawn={() => answerDrawn(result)} />
            </section>
          )}
          {result && !result.context.subgraph && (result.context.communities?.length ?? 0) > 0 && (
            <section class="panel communities-panel">
              <h3>Communities used ({result.context.communities?.length})</h3>
              <QueryCommunities communities={result.context.communities ?? []} />
            </section>
          )}
          {result && (
            <section class="panel passages-panel">
              <h3>
                Passages ({result.context.chunks.length}) <RankingBadge ranking={rankingOf(result.context.ranking, method?.ranking)} />
              </h3>
              <QueryPassages chunks={result.context.chunks} />
            </section>
          )}
          {result && (
            <section class="panel trace-panel">
              <h3>Trace</h3>
              <QueryUsage usage={result.usage} />
              <QueryTrace steps={result.trace.steps} />
            </section>
          )}
        </div>
      )}
    </div>
  );
}


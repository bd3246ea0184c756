import { useEffect, useMemo, useState } from 'preact/hooks';
import type { MethodDescription, QueryRequest } from '../api-types';
import { QueryAnswer } from '../components/query-answer';
import { type EvalFile, parseEvalFile } from '../components/query-eval-file';
import { QueryPassages, RankingBadge, rankingOf } from '../components/query-passages';
import { type RecallResult, recallOf } from '../components/query-recall';
import { useQueryRun } from '../components/query-run';
import { QueryUsage } from '../components/query-trace';
import { MethodNotBuilt } from '../components/method-not-built';
import { SubgraphCanvas } from '../components/subgraph-canvas';
import { useExplorer } from '../explorer-context';
import './query-view.css';
import './compare-view.css';

/** The deepest recall cut-off `kgrag eval` reports: it retrieves `k = 10` passages from methods that take a `k`. */
const evalDepth = 10;

/** Every method and method:variant the select offers. */
function choicesOf(methods: readonly MethodDescription[]): string[] {
  return methods.flatMap((method) => [method.name, ...method.variants.map((variant) => `${method.name}:${variant}`)]);
}

interface Run {
  token: number;
  question: string;
  gold: string[] | undefined;
}

/**
 * The same question to 2–4 methods side by side, run concurrently; with an evaluation file loaded, each column
 * also shows Recall@k of the question's gold passages against that method's ranking, as `kgrag eval` computes it.
 */
export function CompareView({ active }: { active: boolean }) {
  const explorer = useExplorer();
  const choices = useMemo(() => choicesOf(explorer.methods), [explorer.methods]);
  // Marked before a run: without a chat model such a method's column would only say it cannot answer.
  const noLlm = explorer.stats?.llm !== undefined && !explorer.stats.llm.configured;
  const needsLlm = (choice: string): boolean => noLlm && explorer.methods.some((method) => method.needsLlm && method.name === choice.split(':')[0]);
  const [columns, setColumns] = useState<string[]>([]);
  const [question, setQuestion] = useState('');
  const [evalFile, setEvalFile] = useState<EvalFile | undefined>();
  const [evalError, setEvalError] = useState<string | undefined>();
  const [picked, setPicked] = useState<number | undefined>();
  const [run, setRun] = useState<Run | undefined>();

  useEffect(() => {
    if (columns.length > 0 || choices.length === 0) return;
    const preferred = [explorer.defaultMethod, 'ppr', 'kgp', 'basic:bm25', 'local'].filter((name, index, all) => choices.includes(name) && all.indexOf(name) === index);
    setColumns((preferred.length >= 2 ? preferred : choices).slice(0, 3));
  }, [choices]);

  const pickedQuestion = picked === undefined ? undefined : evalFile?.questions[picked];
  const goldFor = pickedQuestion && pickedQuestion.question === question.trim() ? pickedQuestion.goldKeys : undefined;

  async function load(file: File): Promise<void> {
    try {
      const parsed = parseEvalFile(file.name, await file.text());
      setEvalFile(parsed);
      setEvalError(undefined);
      setPicked(undefined);
    } catch (error) {
      setEvalFile(undefined);
      setEvalError(error instanceof Error ? error.message : String(error));
    }
  }

  const start = () => {
    if (question.trim() === '' || columns.length < 2) return;
    setRun({ token: (run?.token ?? 0) + 1, question: question.trim(), gold: goldFor });
  };

  return (
    <div class="compare-view">
      <div class="query-form compare-form" data-testid="compare-form">
        <textarea
          data-testid="compare-question"
          aria-label="Question to compare"
          rows={2}
          placeholder="A question for every method (Ctrl+Enter runs)"
          value={question}
          onInput={(event) => setQuestion(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
              event.preventDefault();
              start();
            }
          }}
        />
        <div class="query-controls">
          {columns.map((name, index) => (
            <span class="compare-method">
              <select aria-label={`Method ${index + 1}`} data-testid="compare-method" value={name} onChange={(event) => {
                const next = [...columns];
                next[index] = event.currentTarget.value;
                setColumns(next);
              }}>
                {choices.map((choice) => (
                  <option value={choice}>
                    {choice}
                    {needsLlm(choice) ? ' (needs an LLM)' : ''}
                  </option>
                ))}
              </select>
              {columns.length > 2 && (
                <button class="link small" aria-label={`Remove ${name}`} onClick={() => setColumns(columns.filter((_, position) => position !== index))}>
                  ×
                </button>
              )}
            </span>
          ))}
          {columns.length < 4 && (
            <button data-testid="compare-add" onClick={() => setColumns([...columns, choices.find((choice) => !columns.includes(choice)) ?? choices[0] ?? ''])}>
              + Method
            </button>
          )}
          <button class="primary" data-testid="compare-run" disabled={question.trim() === '' || columns.length < 2} onClick={start}>
            Compare
          </button>
        </div>
        <div class="query-controls">
          <label>
            Evaluation file{' '}
            <input type="file" data-testid="compare-eval-file" accept=".jsonl,.json" onChange={(event) => {
              const file = event.currentTarget.files?.[0];
              if (file) void load(file);
            }} />
          </label>
          {evalFile && (
            <select data-testid="compare-eval-question" aria-label="Question of the evaluation file" class="eval-question" value={picked === undefined ? '' : String(picked)} onChange={(event) => {
              const index = event.currentTarget.value === '' ? undefined : Number(event.currentTarget.value);
              setPicked(index);
              const chosen = index === undefined ? undefined : evalFile.questions[index];
              if (chosen) setQuestion(chosen.question);
            }}>
              <option value="">Pick one of {evalFile.questions.length} questions ({evalFile.format})</option>
              {evalFile.questions.map((entry, index) => (
                <option value={String(index)}>
                  {entry.id}: {entry.question.length > 90 ? `${entry.question.slice(0, 89)}…` : entry.question}
                </option>
              ))}
            </select>
          )}
          {evalError && <span class="error" data-testid="compare-eval-error">{evalError}</span>}
        </div>
        {goldFor && pickedQuestion && (
          <p class="muted gold-note" data-testid="compare-gold">
            {goldFor.length} gold passage{goldFor.length === 1 ? '' : 's'}; answers: {pickedQuestion.answers.join(' · ') || '—'}. Methods that take <code>k</code> retrieve {evalDepth} passages, as <code>kgrag eval</code> does.
          </p>
        )}
      </div>
      {run && (
        <div class="compare-columns" style={{ gridTemplateColumns: `repeat(${columns.length}, minmax(0, 1fr))` }}>
          {columns.map((name) => (
            <CompareColumn name={name} run={run} keyRule={evalFile?.keyRule ?? 'title-text'} active={active} />
          ))}
        </div>
      )}
    </div>
  );
}

interface ColumnProps {
  name: string;
  run: Run;
  keyRule: EvalFile['keyRule'];
  active: boolean;
}

function CompareColumn({ name, run, keyRule, active }: ColumnProps) {
  const explorer = useExplorer();
  const query = useQueryRun();
  const [recall, setRecall] = useState<RecallResult | string | undefined>();
  const [methodName = name, variant] = name.split(':');
  const method = explorer.methods.find((entry) => entry.name === methodName);

  useEffect(() => {
    setRecall(undefined);
    const takesK = method?.parameters.properties?.['k'] !== undefined;
    const request: QueryRequest = {
      question: run.question,
      method: methodName,
      ...(variant ? { variant } : {}),
      ...(run.gold && takesK ? { params: { k: evalDepth } } : {}),
    };
    let current = true;
    void query.run(request).then(async (result) => {
      if (!result || !run.gold || !current) return;
      try {
        const computed = await recallOf(explorer.api, result.context.chunks, run.gold, keyRule);
        if (current) setRecall(computed);
      } catch (error) {
        if (current) setRecall(error instanceof Error ? error.message : String(error));
      }
    });
    return () => {
      current = false;
    };
  }, [run.token, name]);

  useEffect(() => () => query.stop(), []);

  const result = query.result;
  const ranking = rankingOf(result?.context.ranking, method?.ranking);
  return (
    <section class="panel compare-column" data-testid="compare-column" data-method={name}>
      <h3>
        {name} {query.running && <span class="muted">running…</span>}
        {query.running && (
          <button class="small" onClick={query.stop}>
            Stop
          </button>
        )}
      </h3>
      {method && !method.built && <MethodNotBuilt name={method.name} />}
      {query.error && <p class="error">{query.error}</p>}
      {result && <RankingBadge ranking={ranking} />}
      {run.gold && result && (
        <div class="recall" data-testid="compare-recall">
          {recall === undefined ? (
            <span class="muted">computing recall…</span>
          ) : typeof recall === 'string' ? (
            <span class="error">{recall}</span>
          ) : (
            <>
              {recall.recall.map(({ k, value }) => (
                <span class="recall-value" data-k={k} data-value={value === null ? '' : String(value)}>
                  R@{k} <strong>{value === null ? '—' : `${Math.round(value * 100)}%`}</strong>
                </span>
              ))}
              {ranking.kind === 'fallback' && <span class="ranking ranking-fallback">fallback ranking: not this method's result</span>}
              <span class="muted recall-keys" title={recall.keys === 'eval-key' ? 'documents indexed by kgrag eval carry their passage key' : 'the workspace was not indexed by kgrag eval: keys rebuilt from title and text'}>
                {recall.gold} gold · keys {recall.keys === 'eval-key' ? 'from kgrag eval' : `derived (${keyRule})`}
              </span>
            </>
          )}
        </div>
      )}
      {(result || query.streamed) && <QueryAnswer result={result} streamed={query.streamed} />}
      {result?.context.subgraph && <SubgraphCanvas subgraph={result.context.subgraph} method={result.method} active={active} labelled={4} testId="compare-subgraph" />}
      {result && (
        <>
          <h4>Passages ({result.context.chunks.length})</h4>
          <QueryPassages chunks={result.context.chunks} gold={typeof recall === 'object' ? recall.goldChunkIds : undefined} />
          <QueryUsage usage={result.usage} />
        </>
      )}
    </section>
  );
}

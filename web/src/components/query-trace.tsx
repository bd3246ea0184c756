import type { QueryResult } from '../api-types';

const number = new Intl.NumberFormat('en');

/** The usage of a query: LLM calls, tokens, cost and latency. */
export function QueryUsage({ usage }: { usage: QueryResult['usage'] }) {
  return (
    <dl class="query-usage" data-testid="usage">
      <dt>Latency</dt>
      <dd>{number.format(Math.round(usage.latencyMs))} ms</dd>
      <dt>LLM calls</dt>
      <dd>{usage.llmCalls}</dd>
      <dt>Tokens in / out</dt>
      <dd>
        {number.format(usage.inputTokens)} / {number.format(usage.outputTokens)}
      </dd>
      <dt>Cost</dt>
      <dd>${usage.costUsd.toFixed(usage.costUsd < 0.01 && usage.costUsd > 0 ? 5 : 2)}</dd>
    </dl>
  );
}

/** The trace's steps as horizontal bars (width ∝ ms), in the order they ran. */
export function QueryTrace({ steps }: { steps: QueryResult['trace']['steps'] }) {
  const longest = Math.max(1, ...steps.map((step) => step.ms));
  const row = 20;
  const labelWidth = 150;
  const barWidth = 260;
  return (
    <svg class="query-trace" data-testid="trace" width={labelWidth + barWidth + 80} height={steps.length * row + 4} role="img" aria-label="Time per step">
      {steps.map((step, index) => (
        <g transform={`translate(0 ${index * row + 2})`}>
          <title>{`${step.name}: ${step.ms.toFixed(1)} ms`}</title>
          <text x={labelWidth - 6} y={row / 2 + 4} text-anchor="end" font-size="12">
            {step.name.length > 22 ? `${step.name.slice(0, 21)}…` : step.name}
          </text>
          <rect x={labelWidth} y={3} width={Math.max(1, (step.ms / longest) * barWidth)} height={row - 6} fill="#1f5fbf" rx={2} />
          <text x={labelWidth + Math.max(1, (step.ms / longest) * barWidth) + 4} y={row / 2 + 4} font-size="11" fill="#6b6b6b">
            {step.ms < 10 ? step.ms.toFixed(1) : Math.round(step.ms)} ms
          </text>
        </g>
      ))}
    </svg>
  );
}

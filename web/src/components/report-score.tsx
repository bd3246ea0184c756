import type { CommunityView } from '../api-types';

type ReportScoreProps = { report: Pick<NonNullable<CommunityView['report']>, 'rating' | 'ratingExplanation' | 'generatedBy'> };

/**
 * A report's score under the name of what it measures: an LLM report's rating is the model's judgement of the
 * community's importance; an extractive report's is its connectivity (no model judged it). The explanation is the tooltip.
 */
export function ReportScore({ report }: ReportScoreProps) {
  const label = report.generatedBy === 'extractive' ? 'connectivity' : 'importance';
  const value = Number.isInteger(report.rating) ? String(report.rating) : report.rating.toFixed(1);
  return (
    <span class="rating" title={report.ratingExplanation || undefined} data-testid="report-score">
      {label} {value}
    </span>
  );
}

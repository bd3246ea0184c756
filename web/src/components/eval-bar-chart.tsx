/** One row of the chart: a method, with the marks of its status ("proxy", "fallback", "error 3/10"). */
export interface EvalBarRow {
  label: string;
  /** Status marks shown under the name. */
  note?: string;
  /** Why its bars are hatched: its ranking is a proxy's or a fallback's, not its own. */
  marked?: string;
  /** Every question failed: no bars, the note says why. */
  failed?: boolean;
}

/** One measure drawn for every row (a cut-off k, a latency percentile), in one colour, named in the legend. */
export interface EvalBarSeries {
  label: string;
  color: string;
  /** One value per row; null when it does not apply. */
  values: Array<number | null>;
}

/** Props of {@link EvalBarChart}. */
export interface EvalBarChartProps {
  title: string;
  rows: EvalBarRow[];
  series: EvalBarSeries[];
  /** What the values measure, under the axis. */
  axisLabel: string;
  /** The end of the axis; a round number above the largest value when absent. */
  max?: number;
  format: (value: number) => string;
  testId: string;
}

/** Series colours (Tableau 10): a chart has a few measures, each its own colour, however many methods it shows. */
export const evalSeriesColors = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'] as const;

const margin = 12;
const titleFont = 14;
const font = 11;
const smallFont = 9;
const plotWidth = 320;
const barHeight = 9;
const barGap = 2;
const rowPadding = 10;
const labelGap = 8;
/** Average glyph width of the 11px system font, to lay out without measuring. */
const glyph = 6.2;

/** A round step for about five ticks up to `max`. */
function tickStep(max: number): number {
  const raw = max / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const unit = [1, 2, 2.5, 5, 10].find((candidate) => candidate * power >= raw) ?? 10;
  return unit * power;
}

/**
 * A horizontal bar chart as hand-written SVG, laid out as `kgrag eval`'s report.svg: one row per method with its name
 * (and status marks) on the left, one bar per measure, the value after each bar, a legend of the measures under the
 * title. Rows grow the chart downwards, never sideways, so any number of methods fits the pane; colours name the
 * measures, not the methods, so they never repeat. A proxy's or fallback's bars are hatched; a missing value is a
 * dash, never a zero-length bar.
 */
export function EvalBarChart({ title, rows, series, axisLabel, max, format, testId }: EvalBarChartProps) {
  const largest = Math.max(0, ...series.flatMap((entry) => entry.values.map((value) => value ?? 0)));
  const step = tickStep(max ?? (largest > 0 ? largest : 1));
  const end = max ?? Math.ceil((largest > 0 ? largest : 1) / step) * step;
  const ticks = Array.from({ length: Math.floor(end / step + 1e-9) + 1 }, (_, index) => index * step);
  const labelWidth = Math.max(0, ...rows.map((row) => Math.max(row.label.length * glyph, (row.note?.length ?? 0) * glyph * (smallFont / font))));
  const plotLeft = margin + labelWidth + labelGap;
  const valueWidth = Math.max(0, ...series.flatMap((entry) => entry.values.map((value) => (value === null ? 1 : format(value).length)))) * glyph * (smallFont / font) + 6;
  const hatched = rows.some((row) => row.marked !== undefined);
  const legend = [...series.map((entry) => ({ label: entry.label, color: entry.color, hatched: false })), ...(hatched ? [{ label: 'hatched: proxy or fallback ranking', color: '#999', hatched: true }] : [])];
  const legendWidth = legend.reduce((sum, item) => sum + 16 + item.label.length * glyph + 14, 0);
  const width = Math.ceil(Math.max(plotLeft + plotWidth + valueWidth + margin, margin * 2 + title.length * glyph * (titleFont / font), margin * 2 + legendWidth));
  const legendTop = margin + titleFont + 16;
  const plotTop = legendTop + 14;
  const rowHeight = series.length * barHeight + (series.length - 1) * barGap + rowPadding;
  const plotBottom = plotTop + Math.max(1, rows.length) * rowHeight;
  const height = plotBottom + 2 * font + 14;
  const x = (value: number) => plotLeft + (Math.min(Math.max(value, 0), end) / end) * plotWidth;
  const patternId = `${testId}-hatch`;
  let legendX = margin;

  return (
    <figure class="eval-chart" data-testid={testId}>
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={title} font-size={font}>
        <defs>
          <pattern id={patternId} patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)">
            <rect width="6" height="6" fill="rgba(255,255,255,0)" />
            <line x1="0" y1="0" x2="0" y2="6" stroke="#fff" stroke-width="3" />
          </pattern>
        </defs>
        <text x={margin} y={margin + titleFont - 2} font-size={titleFont} font-weight="600" fill="#1d1d1f">
          {title}
        </text>
        {legend.map((item) => {
          const at = legendX;
          legendX += 16 + item.label.length * glyph + 14;
          return (
            <g class="legend-item">
              <rect x={at} y={legendTop - 9} width={11} height={11} fill={item.color} />
              {item.hatched && <rect x={at} y={legendTop - 9} width={11} height={11} fill={`url(#${patternId})`} />}
              <text x={at + 16} y={legendTop} fill="#333">
                {item.label}
              </text>
            </g>
          );
        })}
        {ticks.map((tick) => (
          <g>
            <line x1={x(tick)} x2={x(tick)} y1={plotTop} y2={plotBottom} stroke={tick === 0 ? '#888' : '#e6e6e6'} />
            <text x={x(tick)} y={plotBottom + font + 2} text-anchor="middle" fill="#555">
              {format(tick)}
            </text>
          </g>
        ))}
        <text x={plotLeft + plotWidth / 2} y={plotBottom + 2 * font + 8} text-anchor="middle" fill="#333">
          {axisLabel}
        </text>
        {rows.map((row, rowIndex) => {
          const rowTop = plotTop + rowIndex * rowHeight + rowPadding / 2;
          const barsHeight = rowHeight - rowPadding;
          return (
            <g class="eval-chart-row" data-row={row.label}>
              <text x={plotLeft - labelGap} y={row.note ? rowTop + barsHeight / 2 - 1 : rowTop + barsHeight / 2 + font * 0.35} text-anchor="end" fill="#1d1d1f">
                {row.label}
              </text>
              {row.note && (
                <text x={plotLeft - labelGap} y={rowTop + barsHeight / 2 + smallFont} text-anchor="end" font-size={smallFont} fill="#b03a2e">
                  {row.note}
                </text>
              )}
              {row.failed ? (
                <text x={plotLeft + 6} y={rowTop + barsHeight / 2 + font * 0.35} fill="#b03a2e">
                  no result
                </text>
              ) : (
                series.map((entry, seriesIndex) => {
                  const value = entry.values[rowIndex] ?? null;
                  const top = rowTop + seriesIndex * (barHeight + barGap);
                  const describe = `${row.label}, ${entry.label}: ${value === null ? 'no value' : format(value)}${row.marked ? ` (${row.marked})` : ''}`;
                  if (value === null) {
                    return (
                      <text x={plotLeft + 4} y={top + barHeight - 1} font-size={smallFont} fill="#999">
                        <title>{describe}</title>–
                      </text>
                    );
                  }
                  const right = x(value);
                  return (
                    <g>
                      <title>{describe}</title>
                      <rect x={plotLeft} y={top} width={Math.max(0, right - plotLeft)} height={barHeight} fill={entry.color} />
                      {row.marked !== undefined && <rect x={plotLeft} y={top} width={Math.max(0, right - plotLeft)} height={barHeight} fill={`url(#${patternId})`} />}
                      <text x={right + 3} y={top + barHeight - 1} font-size={smallFont} fill="#333">
                        {format(value)}
                      </text>
                    </g>
                  );
                })
              )}
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

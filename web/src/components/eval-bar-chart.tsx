/** One bar's value; `marked` bars (a proxy's or a fallback's ranking) are hatched and say so in their tooltip. */
export interface EvalBar {
  value: number | null;
  marked?: string;
}

/** A series of bars, one per group, drawn in one colour and named in the legend. */
export interface EvalBarSeries {
  label: string;
  color: string;
  bars: EvalBar[];
}

/** Props of {@link EvalBarChart}. */
export interface EvalBarChartProps {
  title: string;
  /** The groups along the x axis. */
  groups: string[];
  xLabel: string;
  yLabel: string;
  series: EvalBarSeries[];
  /** The top of the y axis; a round number above the largest value when absent. */
  max?: number;
  format: (value: number) => string;
  testId: string;
}

/** Series colours (Tableau 10), in legend order. */
export const evalSeriesColors = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'] as const;

const plotHeight = 200;
const barWidth = 26;
const barGap = 2;
const groupGap = 22;
const left = 58;
const right = 16;
const top = 34;
const font = 11;
/** Average glyph width of the 11px system font, to lay out the legend without measuring. */
const glyph = 6.2;

/** A round step for about five ticks up to `max`. */
function tickStep(max: number): number {
  const raw = max / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const unit = [1, 2, 2.5, 5, 10].find((candidate) => candidate * power >= raw) ?? 10;
  return unit * power;
}

/**
 * A grouped vertical bar chart as hand-written SVG: y axis with ticks and label, groups along the x axis with their
 * label, a value over each bar, and a legend that wraps. Missing values (not applicable, or a failed method) get no
 * bar but a dash, so an absent number never reads as zero.
 */
export function EvalBarChart({ title, groups, xLabel, yLabel, series, max, format, testId }: EvalBarChartProps) {
  const largest = Math.max(0, ...series.flatMap((entry) => entry.bars.map((bar) => bar.value ?? 0)));
  const step = tickStep(max ?? (largest > 0 ? largest : 1));
  const top_ = max ?? Math.ceil((largest > 0 ? largest : 1) / step) * step;
  const ticks = Array.from({ length: Math.floor(top_ / step + 1e-9) + 1 }, (_, index) => index * step);
  const groupWidth = series.length * barWidth + (series.length - 1) * barGap;
  // Each group's slot is wide enough for its bars and for the longest group label under them.
  const slot = Math.max(groupWidth + groupGap, Math.max(0, ...groups.map((group) => group.length)) * glyph + 14);
  const titleWidth = title.length * glyph * (14 / font);
  const plotWidth = Math.max(260, groups.length * slot + groupGap, titleWidth - left + 10);
  const width = left + plotWidth + right;
  const hatched = series.some((entry) => entry.bars.some((bar) => bar.marked !== undefined));

  // The legend wraps into rows as wide as the chart.
  const legendItems = series.map((entry) => ({ label: entry.label, color: entry.color, hatched: false }));
  if (hatched) legendItems.push({ label: 'hatched: proxy or fallback ranking, not the method’s own', color: '#999', hatched: true });
  const legendRows: Array<Array<{ label: string; color: string; hatched: boolean; x: number }>> = [[]];
  let x = left;
  for (const item of legendItems) {
    const itemWidth = 16 + item.label.length * glyph + 16;
    const row = legendRows[legendRows.length - 1] as Array<{ label: string; color: string; hatched: boolean; x: number }>;
    if (row.length > 0 && x + itemWidth > width - right) {
      legendRows.push([]);
      x = left;
    }
    (legendRows[legendRows.length - 1] as typeof row).push({ ...item, x });
    x += itemWidth;
  }
  const plotBottom = top + plotHeight;
  const legendTop = plotBottom + 52;
  const height = legendTop + legendRows.length * 18 + 6;
  const y = (value: number) => plotBottom - (Math.min(value, top_) / top_) * plotHeight;
  const patternId = `${testId}-hatch`;

  return (
    <figure class="eval-chart" data-testid={testId}>
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={title} font-size={font}>
        <defs>
          <pattern id={patternId} patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)">
            <rect width="6" height="6" fill="rgba(255,255,255,0)" />
            <line x1="0" y1="0" x2="0" y2="6" stroke="#fff" stroke-width="3" />
          </pattern>
        </defs>
        <text x={left} y={18} font-size={14} font-weight="600" fill="#1d1d1f">
          {title}
        </text>
        {ticks.map((tick) => (
          <g>
            <line x1={left} x2={left + plotWidth} y1={y(tick)} y2={y(tick)} stroke={tick === 0 ? '#888' : '#e6e6e6'} />
            <text x={left - 6} y={y(tick) + 4} text-anchor="end" fill="#555">
              {format(tick)}
            </text>
          </g>
        ))}
        <line x1={left} x2={left} y1={top} y2={plotBottom} stroke="#888" />
        <text transform={`translate(14 ${top + plotHeight / 2}) rotate(-90)`} text-anchor="middle" fill="#333">
          {yLabel}
        </text>
        {groups.map((group, groupIndex) => {
          const groupLeft = left + groupGap / 2 + groupIndex * slot + (slot - groupWidth) / 2;
          return (
            <g data-group={group}>
              {series.map((entry, seriesIndex) => {
                const bar = entry.bars[groupIndex] ?? { value: null };
                const barLeft = groupLeft + seriesIndex * (barWidth + barGap);
                const describe = `${entry.label}, ${group}: ${bar.value === null ? 'no value' : format(bar.value)}${bar.marked ? ` (${bar.marked})` : ''}`;
                if (bar.value === null) {
                  return (
                    <text x={barLeft + barWidth / 2} y={plotBottom - 4} text-anchor="middle" fill="#999">
                      <title>{describe}</title>–
                    </text>
                  );
                }
                const barTop = y(bar.value);
                return (
                  <g>
                    <title>{describe}</title>
                    <rect x={barLeft} y={barTop} width={barWidth} height={Math.max(0, plotBottom - barTop)} fill={entry.color} />
                    {bar.marked !== undefined && <rect x={barLeft} y={barTop} width={barWidth} height={Math.max(0, plotBottom - barTop)} fill={`url(#${patternId})`} />}
                    <text x={barLeft + barWidth / 2} y={barTop - 3} text-anchor="middle" font-size={9} fill="#333">
                      {format(bar.value)}
                    </text>
                  </g>
                );
              })}
              <text x={groupLeft + groupWidth / 2} y={plotBottom + 16} text-anchor="middle" fill="#333">
                {group}
              </text>
            </g>
          );
        })}
        <text x={left + plotWidth / 2} y={plotBottom + 36} text-anchor="middle" fill="#333">
          {xLabel}
        </text>
        {legendRows.map((row, rowIndex) =>
          row.map((item) => (
            <g class="legend-item">
              <rect x={item.x} y={legendTop + rowIndex * 18 - 9} width={11} height={11} fill={item.color} />
              {item.hatched && <rect x={item.x} y={legendTop + rowIndex * 18 - 9} width={11} height={11} fill={`url(#${patternId})`} />}
              <text x={item.x + 16} y={legendTop + rowIndex * 18} fill="#333">
                {item.label}
              </text>
            </g>
          )),
        )}
      </svg>
    </figure>
  );
}

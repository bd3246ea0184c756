/** Whole numbers with thousands separators: `1,200`. */
export const integerFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** A USD amount for tables: `unknown` when no price is known (never shown as free), 4 decimals below $1. */
export function formatUsd(value: number | null): string {
  if (value === null) return 'unknown';
  if (value === 0) return '0';
  if (value < 0.0001) return '< 0.0001';
  return value < 1 ? value.toFixed(4) : value.toFixed(2);
}

/** A price per million tokens with cents always shown ($0.40) and finer digits kept ($0.075). */
export function formatPerMillion(value: number): string {
  return Number(value.toFixed(2)) === value ? value.toFixed(2) : String(value);
}

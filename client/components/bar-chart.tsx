import { useId } from 'react';

export interface Bar {
  label: string;
  value: number;
  color: string;
}

const ROW = 28;
const BAR_WIDTH = 250;

/**
 * A small horizontal bar chart in plain SVG (no chart library): titled for screen readers, and every
 * number is written beside its bar, so nothing depends on seeing the lengths.
 */
export function BarChart({ title, bars, testId }: { title: string; bars: Bar[]; testId?: string }) {
  const id = useId();
  const max = Math.max(1, ...bars.map((b) => b.value));
  // Room for the longest label (about 7 px a character at 13 px), so no label is cut off.
  const LABEL_WIDTH = Math.min(220, Math.max(80, 12 + 7 * Math.max(...bars.map((b) => b.label.length))));
  const WIDTH = LABEL_WIDTH + BAR_WIDTH;
  const barSpace = BAR_WIDTH - 48;
  const height = bars.length * ROW + 8;
  return (
    <figure style={{ margin: 0 }} data-testid={testId}>
      <svg role="img" aria-labelledby={`${id}-title ${id}-desc`} viewBox={`0 0 ${WIDTH} ${height}`} width={WIDTH} height={height} style={{ maxWidth: '100%', height: 'auto' }}>
        <title id={`${id}-title`}>{title}</title>
        <desc id={`${id}-desc`}>{bars.map((b) => `${b.label}: ${b.value}`).join(', ')}</desc>
        {bars.map((bar, i) => {
          const y = 4 + i * ROW;
          const w = Math.round((bar.value / max) * barSpace);
          return (
            <g key={bar.label}>
              <text x={0} y={y + 15} fontSize={13} fill="currentColor">
                {bar.label}
              </text>
              <rect x={LABEL_WIDTH} y={y + 2} width={Math.max(w, bar.value > 0 ? 2 : 0)} height={18} rx={3} fill={bar.color} />
              <text x={LABEL_WIDTH + w + 6} y={y + 15} fontSize={13} fontWeight={600} fill="currentColor" data-testid={testId ? `${testId}-value-${i}` : undefined}>
                {bar.value}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

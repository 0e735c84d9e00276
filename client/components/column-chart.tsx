import { useId } from 'react';

export interface Column {
  /** The x-axis text of the column (a day, a week, a month). */
  label: string;
  value: number;
}

const HEIGHT = 120;
const AXIS = 18;
/** Room on both sides for the first and last axis labels. */
const PAD = 16;

/**
 * A small column chart over time in plain SVG (no chart library): titled for screen readers, with every
 * value in its description and in a tooltip, so nothing depends on seeing the heights. Every `tickEvery`th
 * label is written under its column.
 */
export function ColumnChart({
  title,
  columns,
  color = 'var(--fgColor-accent, #0969da)',
  tickEvery = 1,
  testId,
}: {
  title: string;
  columns: Column[];
  color?: string;
  tickEvery?: number;
  testId?: string;
}) {
  const id = useId();
  const max = Math.max(1, ...columns.map((c) => c.value));
  const step = columns.length > 16 ? 14 : 28;
  const width = Math.max(columns.length * step, 120) + 2 * PAD;
  return (
    <figure style={{ margin: 0 }} data-testid={testId}>
      <svg
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
        viewBox={`0 0 ${width} ${HEIGHT + AXIS}`}
        width={width}
        height={HEIGHT + AXIS}
        style={{ display: 'block', maxWidth: '100%', height: 'auto' }}
      >
        <title id={`${id}-title`}>{title}</title>
        <desc id={`${id}-desc`}>{columns.map((c) => `${c.label}: ${c.value}`).join(', ')}</desc>
        <line x1={0} y1={HEIGHT + 0.5} x2={width} y2={HEIGHT + 0.5} stroke="var(--borderColor-default, #d1d9e0)" />
        {columns.map((column, i) => {
          const h = Math.round((column.value / max) * (HEIGHT - 8));
          return (
            <g key={column.label}>
              <rect x={PAD + i * step + 2} y={HEIGHT - h} width={step - 4} height={Math.max(h, column.value > 0 ? 2 : 0)} rx={2} fill={color}>
                <title>{`${column.label}: ${column.value}`}</title>
              </rect>
              {i % tickEvery === 0 && (
                <text x={PAD + i * step + step / 2} y={HEIGHT + 13} fontSize={9} textAnchor="middle" fill="var(--fgColor-muted, #59636e)">
                  {column.label}
                </text>
              )}
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

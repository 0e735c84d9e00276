import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvCell, csvRecordCounter, csvRow, safeFileName } from '../../shared/csv.ts';

describe('CSV', () => {
  it('quotes per RFC 4180 and neutralises spreadsheet formulas', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    for (const start of ['+', '-', '@', '\t', '\r']) expect(csvCell(`${start}1`).replace(/^"/, '')).toMatch(/^'/);
    expect(csvCell(null)).toBe('');
    expect(csvRow([1, 'x', null])).toBe('1,x,\r\n');
  });

  it('makes file names safe for Content-Disposition', () => {
    expect(safeFileName('bicycles', 'csv')).toBe('bicycles.csv');
    expect(safeFileName('../"evil"\r\nname', 'csv')).toBe('evil-name.csv');
    expect(safeFileName('', 'csv')).toBe('export.csv');
  });

  it('counts records however the stream is split, with line breaks and quotes inside cells', () => {
    const cell = fc.string({ unit: fc.constantFrom('a', ',', '"', '\n', '\r', ' ', 'é', '='), maxLength: 12 });
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 1, maxLength: 4 }), { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 10 }), (rows, cuts) => {
        const bytes = new TextEncoder().encode(rows.map(csvRow).join(''));
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const count = csvRecordCounter();
        let total = 0;
        let from = 0;
        for (const to of [...points, bytes.length]) {
          total = count(bytes.subarray(from, to));
          from = to;
        }
        expect(total).toBe(rows.length);
      }),
      { numRuns: 500 },
    );
  });
});

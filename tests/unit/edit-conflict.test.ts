import { describe, expect, it } from 'vitest';
import { mergeValues } from '../../client/entity/edit-conflict.ts';

/** The three-way merge of a form's edits with a newer version of its record (ADR 063). */
describe('mergeValues', () => {
  const base = { city: 'Old town', biography: '', first_name: 'Ada', area: 'North' };

  it('takes their value into a field the user left, keeps the user’s in a field they left, and flags a field both changed', () => {
    const current = { ...base, city: 'Mine', biography: 'My words' };
    const next = { ...base, city: 'Theirs', first_name: 'Adela' };
    expect(mergeValues(base, current, next)).toEqual({
      values: { city: 'Mine', biography: 'My words', first_name: 'Adela', area: 'North' },
      conflicts: { city: { theirs: 'Theirs', mine: 'Mine' } },
      updated: { first_name: 'Adela' },
    });
  });

  it('is no conflict when both wrote the same value', () => {
    const current = { ...base, city: 'Same' };
    expect(mergeValues(base, current, { ...base, city: 'Same' })).toEqual({ values: current, conflicts: {}, updated: {} });
  });

  it('keeps a field still undecided from an earlier change a conflict, with their newest value, even when the newest change left it', () => {
    const current = { ...base, city: 'Mine' };
    const earlier = { ...base, city: 'Theirs' };
    const open = { city: { theirs: 'Theirs', mine: 'Mine' } };
    // Against the earlier version their city is unchanged; the user has still not chosen.
    expect(mergeValues(earlier, current, { ...earlier, area: 'South' }, open).conflicts).toEqual(open);
    expect(mergeValues(earlier, current, { ...earlier, city: 'Theirs again' }, open).conflicts).toEqual({ city: { theirs: 'Theirs again', mine: 'Mine' } });
    // Their value came round to the user's: nothing left to choose.
    expect(mergeValues(earlier, current, { ...earlier, city: 'Mine' }, open).conflicts).toEqual({});
  });

  it('counts null, undefined and a missing value as the same', () => {
    expect(mergeValues({ a: null }, { a: undefined }, { a: null }).conflicts).toEqual({});
  });
});

import { useEffect, useMemo, useRef, useState, type Dispatch, type SetStateAction } from 'react';
import type { EntityRecord } from '../../shared/entity/define.ts';
import { isOwnVersion } from './own-versions.ts';

/**
 * One edit-conflict behaviour for every form that edits a record (ADR 063): the engine's record form and
 * the pages written by hand (the user page) alike. The record's version the form's edits are based on is
 * `base`; a newer version of the record reaching the form that this form did not save — someone else, or
 * the same person in another tab — is merged three ways, field by field, against `base`:
 *
 * - a field only they changed takes their value (the user had not touched it): listed in the notice;
 * - a field only the user changed keeps the user's value;
 * - a field both changed to different values is a conflict: the field keeps the user's value, the notice
 *   shows theirs and yours, and the form refuses to save until the user chose, per field, theirs or mine.
 *
 * The version a save carries is always the newest one merged, so a save never silently overwrites, and a
 * save refused as stale (409) is merged the same way instead of losing the edits.
 */

export type FormValues = Record<string, unknown>;

export interface FieldConflict {
  theirs: unknown;
  mine: unknown;
}

export interface ConflictNoticeState {
  /** Fields both sides changed, not yet decided: their value and the user's. */
  conflicts: Record<string, FieldConflict>;
  /** Fields only they changed while the user was editing, as they are now in the form. */
  updated: Record<string, unknown>;
  /** The user's save was refused because the record had changed (409). */
  refused: boolean;
}

const NO_NOTICE: ConflictNoticeState = { conflicts: {}, updated: {}, refused: false };

export const sameValue = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Merges `next` (the record's newer values) into `current` (the form's) against `base` (what the edits
 * started from). `open` are conflicts still undecided from an earlier merge: they stay conflicts (with their
 * newest value) until their value and the user's agree.
 */
export function mergeValues(
  base: FormValues,
  current: FormValues,
  next: FormValues,
  open: Record<string, FieldConflict> = {},
): { values: FormValues; conflicts: Record<string, FieldConflict>; updated: Record<string, unknown> } {
  const values: FormValues = { ...current };
  const conflicts: Record<string, FieldConflict> = {};
  const updated: Record<string, unknown> = {};
  for (const key of Object.keys(next)) {
    const mine = current[key];
    const theirs = next[key];
    if (sameValue(mine, theirs)) continue;
    if (key in open) conflicts[key] = { theirs, mine };
    else if (sameValue(mine, base[key])) {
      values[key] = theirs;
      updated[key] = theirs;
    } else if (!sameValue(theirs, base[key])) conflicts[key] = { theirs, mine };
  }
  return { values, conflicts, updated };
}

interface Options<V extends FormValues> {
  /** The entity's name: a version this tab's own action wrote is not someone else's (own-versions.ts). */
  entity: string;
  record: EntityRecord | null;
  /** The form's values for a record. */
  valuesOf: (record: EntityRecord | null) => V;
  values: V;
  setValues: Dispatch<SetStateAction<V>>;
}

/**
 * The base record of a form's edits and what changed underneath them. Answers the base (its version is the
 * one to save with), whether the form has unsaved edits, the notice's state, and the ways out of it.
 */
export function useEditConflicts<V extends FormValues>({ entity, record, valuesOf, values, setValues }: Options<V>) {
  const [base, setBase] = useState(record);
  const [notice, setNotice] = useState<ConflictNoticeState>(NO_NOTICE);
  /** The user tried to save with fields undecided. */
  const [blocked, setBlocked] = useState(false);
  const valuesOfRef = useRef(valuesOf);
  valuesOfRef.current = valuesOf;
  const initial = useMemo(() => valuesOfRef.current(base), [base]);
  const dirty = useMemo(() => !sameValue(values, initial), [values, initial]);

  /** Takes `fresh` as the new base, merging the user's edits into it. */
  const merge = (fresh: EntityRecord, refused: boolean) => {
    const merged = mergeValues(initial, values, valuesOfRef.current(fresh), notice.conflicts);
    setValues(merged.values as V);
    setBase(fresh);
    // A form without edits simply follows the record, as it does a change this page made itself (an action
    // button) that meets none of its edits: nothing to tell.
    const own = isOwnVersion(entity, fresh.id, fresh.version);
    if ((!dirty || own) && !refused && Object.keys(merged.conflicts).length === 0) return;
    setNotice((previous) => ({ conflicts: merged.conflicts, updated: { ...previous.updated, ...merged.updated }, refused: previous.refused || refused }));
  };

  useEffect(() => {
    // A newer version than the one the edits are based on, that this form did not save (its save moves `base` first).
    if (!record || !base || record.id !== base.id || Number(record.version) <= Number(base.version)) return;
    merge(record, false);
  }, [record]); // eslint-disable-line react-hooks/exhaustive-deps

  const resolve = (key: string, choice: 'theirs' | 'mine') => {
    const conflict = notice.conflicts[key];
    if (!conflict) return;
    if (choice === 'theirs') setValues((current) => ({ ...current, [key]: conflict.theirs }));
    setNotice(({ conflicts: { [key]: _decided, ...rest }, ...others }) => ({ ...others, conflicts: rest }));
  };
  /** Starts again from `from` (the record as saved, or reloaded with the user's edits given up). */
  const reset = (from: EntityRecord) => {
    setBase(from);
    setValues(valuesOfRef.current(from));
    setNotice(NO_NOTICE);
    setBlocked(false);
  };
  const undecided = Object.keys(notice.conflicts).length > 0;
  return {
    base,
    initial,
    dirty,
    notice,
    /** Fields still waiting for the user's choice: the form must not save until there are none. */
    undecided,
    blocked: blocked && undecided,
    /** Whether a save may go ahead: not while a field waits for the user's choice (the notice then says so). */
    maySave: () => {
      setBlocked(undecided);
      return !undecided;
    },
    resolve,
    reset,
    /** A save refused as stale: the record as it is now, merged with the edits, the notice saying so. */
    refusedWith: (fresh: EntityRecord) => merge(fresh, true),
    dismiss: () => {
      setNotice(NO_NOTICE);
      setBlocked(false);
    },
  };
}

export type EditConflicts = ReturnType<typeof useEditConflicts>;

import { useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { ChoiceOption } from '../../shared/entity/define.ts';
import { TextInput } from '../components/controls.tsx';
import { useReferenceChoices, type PickerProps } from './reference-choices.tsx';

/**
 * A type-ahead over a reference (issue 33: Activity's person): a text box that searches the API as it is
 * typed in and lists the matches below it, in the ARIA combobox pattern (Arrow keys move through the
 * matches, Enter chooses, Escape closes; the box's name is `label`). Emptying the box and leaving it, or
 * choosing the empty entry, clears the value.
 */
export function ReferenceCombobox({
  reference,
  value,
  onChange,
  label,
  emptyLabel,
  testId,
}: Omit<PickerProps, 'include' | 'invalid' | 'stacked' | 'activeOnly' | 'name'> & { emptyLabel: string }) {
  const { withSelected, filter, setFilter, loading } = useReferenceChoices(reference, value);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const listId = `${testId ?? 'reference'}-choices`;
  const chosen = value === null ? null : (withSelected(value).find((o) => o.id === value) ?? null);
  const [typing, setTyping] = useState(false);
  const shown = typing ? filter : (chosen?.label ?? '');
  const matches = withSelected(null);
  const choose = (option: ChoiceOption | null) => {
    onChange(option ? option.id : null);
    setTyping(false);
    setFilter('');
    setOpen(false);
    setActive(-1);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setOpen(true);
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((i) => Math.max(-1, Math.min(matches.length - 1, i + step)));
    } else if (event.key === 'Enter' && open) {
      event.preventDefault();
      if (active === -1) choose(shown.trim() === '' ? null : (matches[0] ?? chosen));
      else choose(matches[active] ?? null);
    } else if (event.key === 'Escape' && open) {
      event.preventDefault();
      setOpen(false);
      setTyping(false);
      setFilter('');
    }
  };
  return (
    <span className="bo-combobox">
      <TextInput
        role="combobox"
        aria-label={label}
        aria-expanded={open}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={open && active >= 0 ? `${listId}-${active}` : undefined}
        autoComplete="off"
        placeholder={emptyLabel}
        value={shown}
        onChange={(e) => {
          setTyping(true);
          setFilter(e.target.value);
          setOpen(true);
          setActive(-1);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => {
          // A click on a match lands first (mousedown is kept from blurring the box).
          if (typing && filter.trim() === '') choose(null);
          setOpen(false);
          setTyping(false);
          setFilter('');
        }}
        onKeyDown={onKeyDown}
        data-testid={testId}
      />
      {open && (
        <ComboboxMatches listId={listId} label={label} emptyLabel={emptyLabel} matches={matches} value={value} active={active} loading={loading} choose={choose} testId={testId} />
      )}
    </span>
  );
}

/** The type-ahead's matches under its box: the empty choice first, a word when nothing matches. */
function ComboboxMatches({
  listId,
  label,
  emptyLabel,
  matches,
  value,
  active,
  loading,
  choose,
  testId,
}: {
  listId: string;
  label: string;
  emptyLabel: string;
  matches: ChoiceOption[];
  value: number | null;
  active: number;
  loading: boolean;
  choose: (option: ChoiceOption | null) => void;
  testId?: string;
}) {
  const { t } = useTranslation();
  return (
    <ul id={listId} role="listbox" aria-label={label} className="bo-combobox-list" data-testid={`${testId ?? 'reference'}-listbox`}>
      <li id={`${listId}-empty`} role="option" aria-selected={value === null} onMouseDown={(e) => e.preventDefault()} onClick={() => choose(null)} className="bo-muted">
        {emptyLabel}
      </li>
      {matches.map((option, i) => (
        <li
          key={option.id}
          id={`${listId}-${i}`}
          role="option"
          aria-selected={option.id === value}
          data-active={i === active || undefined}
          onMouseDown={(e) => e.preventDefault()}
          onClick={() => choose(option)}
        >
          {option.label}
        </li>
      ))}
      {!loading && matches.length === 0 && (
        <li role="option" aria-selected={false} aria-disabled="true" className="bo-muted">
          {t('form.noMatches')}
        </li>
      )}
    </ul>
  );
}

import { seededText } from './seeded-names.ts';
import { Select, TextInput } from '../components/controls.tsx';
import { keepPreviousData } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { OPTIONS_LIMIT, type ChoiceOption, type FieldDef } from '../../shared/entity/define.ts';
import { entityApi } from './entity-api.ts';

type Reference = NonNullable<FieldDef['reference']>;

function useDebounced(value: string, ms: number): string {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

/**
 * The choices of a reference field (a form's select, a list's filter): the first OPTIONS_LIMIT records
 * matching the filter text, always with the record `current` names, so a chosen value beyond the first page
 * still shows. The filter box is offered when there are more records than one list holds. `activeOnly`
 * (choosing a new value) leaves out inactive catalogue entries but the current one (ADR 041).
 */
export function useReferenceChoices(reference: Reference, current: number | null | undefined, activeOnly = false) {
  const [filter, setFilter] = useState('');
  const search = useDebounced(filter.trim(), 250);
  // The router of the referenced entity is named after it: no need to load its definition.
  const target = { name: reference.entity };
  const input = {
    ...(reference.role ? { role: reference.role } : {}),
    ...(search ? { search } : {}),
    ...(current ? { include: current } : {}),
    ...(activeOnly ? { activeOnly } : {}),
  };
  const query = entityApi(target).options.useQuery(input, { placeholderData: keepPreviousData });
  const options: ChoiceOption[] = query.data ?? [];
  // Labels of every choice seen, so a value picked under one filter keeps its label under the next.
  const seen = useRef(new Map<number, ChoiceOption>());
  for (const option of options) seen.current.set(option.id, option);
  // More records than one list shows (the list is full), or a filter is already narrowing it.
  const filterable = filter !== '' || options.length >= OPTIONS_LIMIT;
  /** The choices to render: the filtered list, with the value in `selected` added when the filter hides it. */
  const withSelected = (selected: number | null | undefined): ChoiceOption[] =>
    selected && !options.some((o) => o.id === selected) && seen.current.has(selected) ? [seen.current.get(selected)!, ...options] : options;
  return { options, withSelected, filter, setFilter, filterable, loading: query.isLoading };
}

/** The filter box above a long choice list. */
export function ChoiceFilter({ label, value, onChange, testId }: { label: string; value: string; onChange: (value: string) => void; testId?: string }) {
  const { t } = useTranslation();
  return (
    <TextInput
      type="search"
      size="small"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      aria-label={t('form.filterChoices', { name: label })}
      placeholder={t('form.filterPlaceholder')}
      data-testid={testId}
    />
  );
}

export interface PickerProps {
  reference: Reference;
  value: number | null;
  onChange: (value: number | null) => void;
  /** The accessible name (the field's label). */
  label: string;
  /** The empty choice's text ("—", "Buddy: all"); without it there is none. */
  emptyLabel?: string;
  /** The record whose label must be known even beyond the first page; default: `value`. */
  include?: number | null;
  invalid?: boolean;
  /** Filter box above the select (forms) rather than beside it (toolbars). */
  stacked?: boolean;
  /** Choosing a value to store (a form): inactive entries are left out but the one `include` names. */
  activeOnly?: boolean;
  name?: string;
  testId?: string;
}

/** A select over a reference's choices with a filter box when they are many: forms, list filters, calendars. */
export function ReferencePicker({ reference, value, onChange, label, emptyLabel, include, invalid, stacked, activeOnly, name, testId }: PickerProps) {
  const { t } = useTranslation();
  const { withSelected, filter, setFilter, filterable } = useReferenceChoices(reference, include === undefined ? value : include, activeOnly);
  const options = withSelected(value);
  const filterBox = filterable && <ChoiceFilter label={label} value={filter} onChange={setFilter} testId={`choice-filter-${name ?? testId ?? 'reference'}`} />;
  const select = (
    <Select
      value={value === null ? '' : String(value)}
      onChange={(e) => onChange(e.target.value ? Number(e.target.value) : null)}
      block={stacked}
      validationStatus={invalid ? 'error' : undefined}
      aria-label={label}
      data-field={name}
      data-testid={testId}
    >
      {emptyLabel !== undefined && <Select.Option value="">{emptyLabel}</Select.Option>}
      {value !== null && !options.some((o) => o.id === value) && <Select.Option value={String(value)}>{t('form.loadingChoice')}</Select.Option>}
      {options.map((option) => (
        <Select.Option key={option.id} value={String(option.id)}>
          {option.inactive ? t('form.inactiveChoice', { label: seededText(t, reference.entity, option.label) }) : seededText(t, reference.entity, option.label)}
        </Select.Option>
      ))}
    </Select>
  );
  return (
    <span className={stacked ? 'bo-stack' : 'bo-inline'}>
      {filterBox}
      {select}
    </span>
  );
}

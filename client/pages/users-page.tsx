import { Button, Checkbox, Dialog, Flash, FormControl, Heading, Label, Select, TextInput, Textarea } from '@primer/react';
import { UnderlineTabs } from '../components/underline-tabs.ts';
import { MailIcon, PersonAddIcon, SearchIcon } from '@primer/octicons-react';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { Link, useSearchParams } from 'react-router-dom';
import styled from 'styled-components';
import { ROLE } from '../../shared/roles.ts';
import { ACCOUNT_STATUSES, INVITATION_STATUSES, USER_TYPES, bulkInviteInput, inviteInput, type BulkInviteResult } from '../../shared/schemas/users.ts';
import { parseUserListParams } from './users-list-params.ts';
import { usersTabOf, type UsersTab } from './users-tabs.ts';
import { SubscriptionsList } from './subscriptions-list.tsx';
import { subscriptionPlansEntity } from '../../shared/entities/subscription-plans.ts';
import { ResourceListPage } from '../entity/resource-list-page.tsx';
import { ErrorState } from '../components/error-state.tsx';
import { RecordActions } from '../entity/record-actions.tsx';
import type { UserListRow } from '../../shared/entities/users.ts';
import { usersEntity } from '../../shared/entities/users.ts';
import { rowActionKeys, type EntityRecord } from '../../shared/entity/define.ts';
import { invitationTestId } from './user-invitations.ts';
import { Pager } from '../components/pager.tsx';
import { TextField } from '../components/text-field.tsx';
import { useZodForm } from '../components/use-zod-form.ts';
import { errorText, fieldText } from '../errors.ts';
import { useRoleNames } from './use-role-names.ts';
import { seededText } from '../entity/seeded-names.ts';
import { useSession } from '../session.ts';
import { useToast } from '../shell/toasts.tsx';
import { trpc } from '../trpc.ts';
import { DataTable } from '../components/data-table.ts';
import { FilterBar } from '../components/filter-bar.tsx';
import { breakableText } from '../components/breakable-text.tsx';
import { formatDate } from '../../shared/format.ts';
import { WIDE_MEDIA } from '../components/breakpoints.ts';

const Table = styled(DataTable)`
  th,
  td {
    padding: 8px;
    vertical-align: top;
  }
  /*
   * Ten columns fit a laptop screen when long values wrap between words, e-mails before their "@" and
   * dots (breakableText); dates and the action stay on one line. Never mid-word (issue 19).
   */
  td {
    overflow-wrap: normal;
  }
  ${WIDE_MEDIA} {
    td:nth-last-child(-n + 3) {
      white-space: nowrap;
    }
  }
`;

const COLUMNS = ['name', 'email', 'phone_number', 'country', 'language', 'roles', 'account_status', 'invited_at', 'member_since'] as const;

/** Roles an invitation gives: chosen explicitly, none by default (a role can open the back office). */
function RoleChoice({ value, onChange }: { value: string[]; onChange: (roles: string[]) => void }) {
  const { t } = useTranslation();
  const names = useRoleNames();
  return (
    <fieldset style={{ border: 0, padding: 0, display: 'flex', flexWrap: 'wrap', gap: 16 }} data-testid="invite-roles">
      <legend style={{ fontWeight: 600, marginBottom: 4 }}>{t('users.fields.roles')}</legend>
      {names.map((role) => (
        <FormControl key={role}>
          <Checkbox checked={value.includes(role)} onChange={(e) => onChange(e.target.checked ? [...value, role] : value.filter((r) => r !== role))} />
          <FormControl.Label>{seededText(t, 'roles', role)}</FormControl.Label>
        </FormControl>
      ))}
    </fieldset>
  );
}

const date = (value: string | null | undefined, lang: string) => (value ? formatDate(value, lang) : '—');

/**
 * An invitation dialog's submit: the form validated, `send` run, the users list refreshed, then `after`; a
 * failure is shown in the dialog (and on the form's fields when `fieldErrors`).
 */
function useInviteSubmit<T>(
  form: { validate(element: HTMLFormElement): T | null; applyServerError(error: unknown): void },
  send: (input: T) => Promise<() => void>,
  fieldErrors = false,
) {
  const { t } = useTranslation();
  const utils = trpc.useUtils();
  const [error, setError] = useState<string | null>(null);
  const onSubmit = async (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const input = form.validate(e.currentTarget);
    if (!input) return;
    try {
      const after = await send(input);
      await utils.users.list.invalidate();
      after();
    } catch (err) {
      if (fieldErrors) form.applyServerError(err);
      setError(errorText(t, err));
    }
  };
  return { error, onSubmit };
}

function InviteDialog({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const invite = trpc.users.invite.useMutation();
  const form = useZodForm(inviteInput, { email: '', first_name: '', last_name: '', roles: [] as string[] });
  const roles = form.values.roles ?? [];
  const { error, onSubmit } = useInviteSubmit(
    form,
    async (input) => {
      await invite.mutateAsync(input);
      return () => {
        toast.success((t) => t('users.invited', { email: input.email }));
        onClose();
      };
    },
    true,
  );
  return (
    <Dialog title={t('users.invite')} onClose={onClose} width="medium">
      <form noValidate data-testid="invite-form" style={{ display: 'flex', flexDirection: 'column', gap: 12 }} onSubmit={onSubmit}>
        {error && <Flash variant="danger">{error}</Flash>}
        <TextField name="email" type="email" label={t('users.fields.email')} value={form.values.email} onChange={(v) => form.set('email', v)} error={form.errors.email} required />
        <TextField name="first_name" label={t('users.fields.first_name')} value={form.values.first_name} onChange={(v) => form.set('first_name', v)} />
        <TextField name="last_name" label={t('users.fields.last_name')} value={form.values.last_name} onChange={(v) => form.set('last_name', v)} />
        <RoleChoice value={roles} onChange={(next) => form.set('roles', next)} />
        <Button type="submit" variant="primary" loading={invite.isPending}>
          {t('users.sendInvite')}
        </Button>
      </form>
    </Dialog>
  );
}

/** Why one address of a bulk invite failed: its field message (§5 'Provided value is not Email.') or its code. */
function bulkFailure(t: TFunction, result: BulkInviteResult): string {
  const field = Object.values(result.error?.fields ?? {})[0];
  if (field) return fieldText(t, field) ?? field;
  return t(`errors.${result.error?.message ?? 'generic'}`, { defaultValue: result.error?.cause ?? t('errors.generic') });
}

function BulkInviteDialog({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const bulk = trpc.users.bulkInvite.useMutation();
  const form = useZodForm(bulkInviteInput, { emails: '', roles: [] as string[] });
  const [results, setResults] = useState<BulkInviteResult[] | null>(null);
  const { error, onSubmit } = useInviteSubmit(form, async (input) => {
    const answered = ((await bulk.mutateAsync(input)).results ?? []) as BulkInviteResult[];
    return () => setResults(answered);
  });
  return (
    <Dialog title={t('users.bulkInvite')} onClose={onClose} width="large">
      {results ? (
        <div data-testid="bulk-results">
          <p>{t('users.bulkSummary', { ok: results.filter((r) => r.success).length, failed: results.filter((r) => !r.success).length })}</p>
          <ul>
            {results.map((r) => (
              <li key={r.email} data-success={r.success}>
                <strong>{r.email}</strong>: {r.success ? t('users.bulkInvited') : bulkFailure(t, r)}
              </li>
            ))}
          </ul>
          <Button onClick={onClose} data-testid="bulk-close">
            {t('users.close')}
          </Button>
        </div>
      ) : (
        <form noValidate style={{ display: 'flex', flexDirection: 'column', gap: 12 }} onSubmit={onSubmit}>
          {error && <Flash variant="danger">{error}</Flash>}
          <RoleChoice value={form.values.roles ?? []} onChange={(next) => form.set('roles', next)} />
          <FormControl required>
            <FormControl.Label>{t('users.addresses')}</FormControl.Label>
            <Textarea name="emails" value={form.values.emails} onChange={(e) => form.set('emails', e.target.value)} block rows={5} data-testid="bulk-emails" />
            <FormControl.Caption>{t('users.addressesHelp')}</FormControl.Caption>
            {form.errors.emails && <FormControl.Validation variant="error">{t(form.errors.emails)}</FormControl.Validation>}
          </FormControl>
          <Button type="submit" variant="primary" loading={bulk.isPending}>
            {t('users.sendInvites')}
          </Button>
        </form>
      )}
    </Dialog>
  );
}

const TABS: { tab: UsersTab; label: string }[] = [
  { tab: 'users', label: 'routes.users' },
  { tab: 'subscriptions', label: 'resources.subscriptions.name' },
  { tab: 'plans', label: 'resources.subscription-plans.name' },
];

/** Admin-only tabs: the users, all subscriptions, and the subscription plans (ADR 012). */
function UsersTabs({ current }: { current: UsersTab }) {
  const { t } = useTranslation();
  return (
    <UnderlineTabs aria-label={t('users.tabs')}>
      {TABS.map(({ tab, label }) => (
        <Link key={tab} to={tab === 'users' ? '/users' : `/users?tab=${tab}`} aria-current={current === tab ? 'page' : undefined} data-testid={`tab-${tab}`}>
          {t(label)}
        </Link>
      ))}
    </UnderlineTabs>
  );
}

/** /users (Admin and BuddyShop): search, filters, invite, bulk invite, resend. Details and the other tabs are Admin only. */
/** A row's buttons: the actions declared `inList` (the invitation's); erasure and export are on the user's page. */
const USER_ROW_ACTIONS = rowActionKeys(usersEntity);

export default function UsersPage() {
  const { t } = useTranslation();
  const { roles } = useSession();
  const isAdmin = roles.includes(ROLE.Admin);
  const [search] = useSearchParams();
  const tab = isAdmin ? usersTabOf(search) : 'users';
  if (tab === 'users') return <UsersList isAdmin={isAdmin} />;
  return (
    <section>
      <Heading as="h1">{t('routes.users')}</Heading>
      <UsersTabs current={tab} />
      <div style={{ marginTop: 16 }}>{tab === 'subscriptions' ? <SubscriptionsList /> : <ResourceListPage def={subscriptionPlansEntity} headingLevel="h2" />}</div>
    </section>
  );
}

type UpdateParams = (changes: Record<string, string | number | undefined>) => void;
type UserRow = UserListRow;
type FilterKey = 'role' | 'user_type' | 'account_status' | 'invitation_status';

/** The list's search, filters and page live in the address; the search box waits for a pause in typing. */
function useListAddress() {
  const [search, setSearch] = useSearchParams();
  const params = useMemo(() => parseUserListParams(search), [search]);
  const [text, setText] = useState(params.search ?? '');
  const update: UpdateParams = (changes) =>
    setSearch((current) => {
      const next = new URLSearchParams(current);
      for (const [k, v] of Object.entries(changes)) {
        if (v === undefined || v === '') next.delete(k);
        else next.set(k, String(v));
      }
      if (!('page' in changes)) next.delete('page');
      return next;
    });
  // Back and forward change the URL: the search box follows it.
  useEffect(() => setText(params.search ?? ''), [params.search]);
  useEffect(() => {
    if ((text || undefined) === params.search) return;
    const timer = setTimeout(() => update({ search: text.trim() || undefined }), 300);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only typing starts the wait; `update` and `params` change with the address this effect itself changes
  }, [text]);
  return { params, update, text, setText };
}

/** The search box and the role, type and status filters. */
function UsersFilters({ params, update, text, setText }: ReturnType<typeof useListAddress>) {
  const { t } = useTranslation();
  const roleNames = useRoleNames();
  const filter = (key: FilterKey, options: readonly (string | number)[], label: (o: string | number) => string) => (
    <Select
      aria-label={t(`users.fields.${key}`)}
      value={params[key] === undefined ? '' : String(params[key])}
      onChange={(e) => update({ [key]: e.target.value || undefined })}
      data-testid={`filter-${key}`}
    >
      <Select.Option value="">{t('list.filterAll', { name: t(`users.fields.${key}`) })}</Select.Option>
      {options.map((o) => (
        <Select.Option key={String(o)} value={String(o)}>
          {label(o)}
        </Select.Option>
      ))}
    </Select>
  );
  return (
    <FilterBar
      active={(['role', 'user_type', 'account_status', 'invitation_status'] as const).filter((key) => params[key] !== undefined).length}
      search={
        <TextInput
          leadingVisual={SearchIcon}
          aria-label={t('list.search')}
          placeholder={t('list.search')}
          value={text}
          onChange={(e) => setText(e.target.value)}
          data-testid="list-search"
        />
      }
    >
      {filter('role', roleNames, (o) => seededText(t, 'roles', String(o)))}
      {filter('user_type', USER_TYPES, (o) => t(`users.types.${o}`))}
      {filter('account_status', ACCOUNT_STATUSES, (o) => t(`users.accountStatus.${o}`))}
      {filter('invitation_status', INVITATION_STATUSES, (o) => t(`users.invitationStatus.${o}`))}
    </FilterBar>
  );
}

/** One user as a row: the name links to their page for an Admin, who also gets the invitation buttons. */
function UserTableRow({ u, isAdmin, label }: { u: UserRow; isAdmin: boolean; label: Record<(typeof COLUMNS)[number], string> }) {
  const { t, i18n } = useTranslation();
  const name = [u.first_name, u.last_name].filter(Boolean).join(' ') || '—';
  return (
    <tr>
      <td data-label={label.name}>{isAdmin ? <Link to={`/users/${u.id}`}>{name}</Link> : name}</td>
      <td data-label={label.email}>{breakableText(u.email)}</td>
      <td data-label={label.phone_number}>{u.phone_number ?? '—'}</td>
      <td data-label={label.country}>{u.country ? t(`profile.countries.${u.country}`) : '—'}</td>
      <td data-label={label.language}>{u.language ? t(`languages.${u.language}`) : '—'}</td>
      <td data-label={label.roles}>
        {u.roles.map((r) => (
          <Label key={r} style={{ marginRight: 4 }}>
            {seededText(t, 'roles', r)}
          </Label>
        ))}
      </td>
      <td data-label={label.account_status}>
        {t(`users.accountStatus.${u.account_status}`)}
        {u.invitation_status === 'pending' || u.invitation_status === 'canceled' ? ` · ${t(`users.invitationStatus.${u.invitation_status}`)}` : ''}
      </td>
      <td data-label={label.invited_at}>{date(u.invited_at, i18n.language)}</td>
      <td data-label={label.member_since}>{date(u.member_since, i18n.language)}</td>
      <td>{isAdmin && <RecordActions def={usersEntity} record={u as unknown as EntityRecord} only={USER_ROW_ACTIONS} variant="compact" testId={invitationTestId(u.id)} />}</td>
    </tr>
  );
}

function UsersTable({ rows, isAdmin }: { rows: UserRow[]; isAdmin: boolean }) {
  const { t } = useTranslation();
  const label = Object.fromEntries(COLUMNS.map((c) => [c, t(`users.fields.${c}`)])) as Record<(typeof COLUMNS)[number], string>;
  return (
    <div style={{ overflowX: 'auto', position: 'relative' }}>
      <Table data-testid="list-table">
        <thead>
          <tr>
            {COLUMNS.map((c) => (
              <th key={c} scope="col">
                {label[c]}
              </th>
            ))}
            <th scope="col">
              <span className="visually-hidden">{t('list.actions')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((u) => (
            <UserTableRow key={u.id} u={u} isAdmin={isAdmin} label={label} />
          ))}
        </tbody>
      </Table>
    </div>
  );
}

function UsersList({ isAdmin }: { isAdmin: boolean }) {
  const { t } = useTranslation();
  const address = useListAddress();
  const { params, update } = address;
  const list = trpc.users.list.useQuery(params);
  const [dialog, setDialog] = useState<'invite' | 'bulk' | null>(null);
  return (
    <section>
      <div style={{ display: 'flex', flexWrap: 'wrap', justifyContent: 'space-between', alignItems: 'center', gap: 8 }}>
        <Heading as="h1">{t('routes.users')}</Heading>
        {isAdmin && (
          <div style={{ display: 'flex', flexWrap: 'wrap', gap: 8 }}>
            <Button leadingVisual={MailIcon} onClick={() => setDialog('bulk')} data-testid="bulk-invite">
              {t('users.bulkInvite')}
            </Button>
            <Button variant="primary" leadingVisual={PersonAddIcon} onClick={() => setDialog('invite')} data-testid="invite">
              {t('users.invite')}
            </Button>
          </div>
        )}
      </div>
      {isAdmin && <UsersTabs current="users" />}
      <UsersFilters {...address} />
      {list.error ? (
        <ErrorState error={list.error} onRetry={() => void list.refetch()} />
      ) : !list.data ? (
        <p role="status">{t('app.loading')}</p>
      ) : list.data.results.length === 0 ? (
        <p data-testid="list-empty">{t('list.noMatches')}</p>
      ) : (
        <UsersTable rows={list.data.results} isAdmin={isAdmin} />
      )}
      {list.data && <Pager paginator={list.data.paginator} onPage={(page) => update({ page })} onPageSize={(size) => update({ page_size: size })} />}
      {dialog === 'invite' && <InviteDialog onClose={() => setDialog(null)} />}
      {dialog === 'bulk' && <BulkInviteDialog onClose={() => setDialog(null)} />}
    </section>
  );
}

import { Button, Flash, FormControl, Heading, IconButton, Label, Select, TextInput } from '@primer/react';
import { MailIcon, PersonAddIcon, SearchIcon, SyncIcon, TrashIcon } from '@primer/octicons-react';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import styled from 'styled-components';
import { trialGroupsEntity } from '../../shared/entities/trial-groups.ts';
import { fieldErrorsOf } from '../../shared/schemas/messages.ts';
import { trialInviteInput, type TrialGroupMember, type TrialInviteResult } from '../../shared/schemas/trial-groups.ts';
import { BarChart } from '../components/bar-chart.tsx';
import { ResourceDetailPage } from '../entity/resource-detail-page.tsx';
import { errorText, fieldText } from '../errors.ts';
import { useConfirm } from '../shell/confirm.tsx';
import { useToast } from '../shell/toasts.tsx';
import { trpc } from '../trpc.ts';
import { DataTable } from '../components/data-table.ts';
import { breakableText } from '../components/breakable-text.tsx';
import { formatDate } from '../../shared/format.ts';

const Section = styled.section`
  margin-top: 32px;
  h2 {
    font-size: 20px;
    margin-bottom: 8px;
  }
`;

const Table = styled(DataTable)`
  th,
  td {
    padding: 6px 8px;
  }
`;

const dateText = (value: string | null, lang: string) => (value ? formatDate(value, lang) : '—');

function useRefreshGroup(id: number) {
  const utils = trpc.useUtils();
  return () => Promise.all([utils.trialGroups.statistics.invalidate({ id }), utils.trialGroups.invites.list.invalidate({ id }), utils.trialGroups.users.list.invalidate({ id })]);
}

/** Registered and invited counts, as a small chart with the numbers written out. */
function Statistics({ id }: { id: number }) {
  const { t } = useTranslation();
  const stats = trpc.trialGroups.statistics.useQuery({ id });
  const s = stats.data;
  return (
    <Section aria-labelledby="trial-stats-title" data-testid="trial-statistics">
      <Heading as="h2" id="trial-stats-title">
        {t('trialGroups.statistics')}
      </Heading>
      {!s ? (
        stats.error ? (
          <Flash variant="danger">{errorText(t, stats.error)}</Flash>
        ) : (
          <p role="status">{t('app.loading')}</p>
        )
      ) : (
        <div style={{ display: 'flex', flexWrap: 'wrap', gap: 24, alignItems: 'center' }}>
          <BarChart
            testId="trial-chart"
            title={t('trialGroups.chartTitle')}
            bars={[
              { label: t('trialGroups.invited'), value: s.invited, color: 'var(--bgColor-accent-emphasis, #0969da)' },
              { label: t('trialGroups.registered'), value: s.registered, color: 'var(--bgColor-success-emphasis, #1f883d)' },
              { label: t('trialGroups.members'), value: s.members, color: 'var(--bgColor-done-emphasis, #8250df)' },
            ]}
          />
          <dl style={{ margin: 0, display: 'grid', gridTemplateColumns: 'auto auto', gap: '4px 12px' }}>
            <dt>{t('trialGroups.invited')}</dt>
            <dd style={{ margin: 0, fontWeight: 600 }} data-testid="stat-invited">
              {s.invited}
            </dd>
            <dt>{t('trialGroups.registered')}</dt>
            <dd style={{ margin: 0, fontWeight: 600 }} data-testid="stat-registered">
              {s.registered}
            </dd>
            <dt>{t('trialGroups.pending')}</dt>
            <dd style={{ margin: 0, fontWeight: 600 }} data-testid="stat-pending">
              {s.pending}
            </dd>
            <dt>{t('trialGroups.conversion')}</dt>
            <dd style={{ margin: 0, fontWeight: 600 }}>{s.invited ? `${Math.round((100 * s.registered) / s.invited)} %` : '—'}</dd>
          </dl>
        </div>
      )}
    </Section>
  );
}

/** §4: the invite's mode is VIEW while the invitation is on its way and CREATE again once it succeeded. */
type InviteMode = 'CREATE' | 'VIEW';

function InviteForm({ id }: { id: number }) {
  const { t } = useTranslation();
  const toast = useToast();
  const refresh = useRefreshGroup(id);
  const invite = trpc.trialGroups.invite.useMutation();
  const [mode, setMode] = useState<InviteMode>('CREATE');
  const [emails, setEmails] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [results, setResults] = useState<TrialInviteResult[] | null>(null);

  const onSubmit = async (event: React.FormEvent) => {
    event.preventDefault();
    const parsed = trialInviteInput.safeParse({ emails });
    if (!parsed.success) {
      setError(fieldErrorsOf(parsed.error).emails);
      return;
    }
    setError(undefined);
    setMode('VIEW');
    try {
      const answer = ((await invite.mutateAsync({ id, emails: parsed.data.emails })) as { results: TrialInviteResult[] }).results;
      setResults(answer);
      setMode('CREATE');
      setEmails('');
      await refresh();
      const ok = answer.filter((r) => r.success).length;
      if (ok > 0) toast.success((t) => t('trialGroups.invitedToast', { count: ok }));
      if (ok < answer.length) toast.warn((t) => t('trialGroups.someFailed', { count: answer.length - ok }));
    } catch (err) {
      setMode('CREATE');
      toast.error((t) => errorText(t, err));
    }
  };

  return (
    <form onSubmit={onSubmit} noValidate data-testid="trial-invite-form" data-mode={mode} style={{ display: 'flex', flexDirection: 'column', gap: 8, maxWidth: 640 }}>
      <FormControl required disabled={mode === 'VIEW'}>
        <FormControl.Label>{t('trialGroups.inviteLabel')}</FormControl.Label>
        <TextInput
          block
          name="emails"
          value={emails}
          onChange={(e) => setEmails(e.target.value)}
          readOnly={mode === 'VIEW'}
          validationStatus={error ? 'error' : undefined}
          data-testid="trial-invite-emails"
        />
        <FormControl.Caption>{t('users.addressesHelp')}</FormControl.Caption>
        {error && <FormControl.Validation variant="error">{fieldText(t, error)}</FormControl.Validation>}
      </FormControl>
      <div>
        <Button type="submit" variant="primary" leadingVisual={MailIcon} loading={mode === 'VIEW'} data-testid="trial-invite-submit">
          {t('trialGroups.invite')}
        </Button>
      </div>
      {results && (
        <ul data-testid="trial-invite-results" style={{ margin: 0 }}>
          {results.map((r) => (
            <li key={r.email} data-success={r.success}>
              <strong>{r.email}</strong>:{' '}
              {r.success ? t(`trialGroups.result.${r.status ?? 'invited'}`) : t(`errors.${r.error?.message ?? 'generic'}`, { defaultValue: r.error?.cause ?? t('errors.generic') })}
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}

const INVITE_COLUMNS = ['email', 'status', 'invitedAt', 'registeredAt', 'sentCount'] as const;

function Invites({ id }: { id: number }) {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const confirm = useConfirm();
  const refresh = useRefreshGroup(id);
  const invites = trpc.trialGroups.invites.list.useQuery({ id });
  const reinvite = trpc.trialGroups.reinvite.useMutation();
  const waiting = (invites.data ?? []).filter((i) => i.status === 'invited').length;
  const inviteLabels = Object.fromEntries(INVITE_COLUMNS.map((c) => [c, t(`trialGroups.columns.${c}`)])) as Record<(typeof INVITE_COLUMNS)[number], string>;
  return (
    <Section aria-labelledby="trial-invites-title" data-testid="trial-invites">
      <div style={{ display: 'flex', flexWrap: 'wrap', justifyContent: 'space-between', alignItems: 'center', gap: 8 }}>
        <Heading as="h2" id="trial-invites-title">
          {t('trialGroups.invites')}
        </Heading>
        <Button
          leadingVisual={SyncIcon}
          disabled={waiting === 0 || reinvite.isPending}
          loading={reinvite.isPending}
          data-testid="trial-reinvite"
          onClick={async () => {
            if (!(await confirm({ message: t('trialGroups.reinviteConfirm', { count: waiting }) }))) return;
            try {
              const { reinvited } = await reinvite.mutateAsync({ id });
              await refresh();
              toast.success((t) => t('trialGroups.reinvited', { count: reinvited }));
            } catch (error) {
              toast.error((t) => errorText(t, error));
            }
          }}
        >
          {t('trialGroups.reinvite', { count: waiting })}
        </Button>
      </div>
      <InviteForm id={id} />
      {!invites.data ? null : invites.data.length === 0 ? (
        <p style={{ color: 'var(--fgColor-muted)' }}>{t('trialGroups.noInvites')}</p>
      ) : (
        <div style={{ overflowX: 'auto', marginTop: 16 }}>
          <Table>
            <thead>
              <tr>
                {INVITE_COLUMNS.map((c) => (
                  <th key={c} scope="col">
                    {inviteLabels[c]}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {invites.data.map((invite) => (
                <tr key={invite.id} data-testid={`invite-${invite.email}`}>
                  <td data-label={inviteLabels.email}>{breakableText(invite.email)}</td>
                  <td data-label={inviteLabels.status}>
                    <Label variant={invite.status === 'registered' ? 'success' : 'attention'}>{t(`trialGroups.status.${invite.status}`)}</Label>
                  </td>
                  <td data-label={inviteLabels.invitedAt}>{dateText(invite.invited_at, i18n.language)}</td>
                  <td data-label={inviteLabels.registeredAt}>{dateText(invite.registered_at, i18n.language)}</td>
                  <td data-label={inviteLabels.sentCount}>{invite.sent_count}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        </div>
      )}
    </Section>
  );
}

/** Adds a user to the group: a search (debounced), the users found who are not members yet, and the add. */
function AddMemberForm({ id, memberIds }: { id: number; memberIds: Set<number> }) {
  const { t } = useTranslation();
  const toast = useToast();
  const refresh = useRefreshGroup(id);
  const add = trpc.trialGroups.users.add.useMutation();
  const [search, setSearch] = useState('');
  const [debounced, setDebounced] = useState('');
  const [chosen, setChosen] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(search.trim()), 300);
    return () => clearTimeout(timer);
  }, [search]);
  const options = trpc.users.options.useQuery({ search: debounced || undefined });
  const choices = (options.data ?? []).filter((o) => !memberIds.has(o.id));

  return (
    <form
      style={{ display: 'flex', flexWrap: 'wrap', gap: 8, alignItems: 'center', marginBottom: 12 }}
      onSubmit={async (e) => {
        e.preventDefault();
        const userId = Number(chosen);
        if (!userId) return;
        try {
          await add.mutateAsync({ id, user_id: userId });
          await refresh();
          setChosen('');
          toast.success((t) => t('trialGroups.memberAdded', { name: choices.find((c) => c.id === userId)?.label ?? '' }));
        } catch (error) {
          toast.error((t) => errorText(t, error));
        }
      }}
    >
      <TextInput
        leadingVisual={SearchIcon}
        aria-label={t('trialGroups.findUser')}
        placeholder={t('trialGroups.findUser')}
        value={search}
        onChange={(e) => setSearch(e.target.value)}
      />
      <Select aria-label={t('trialGroups.chooseUser')} value={chosen} onChange={(e) => setChosen(e.target.value)} data-testid="trial-add-user">
        <Select.Option value="">{t('trialGroups.chooseUser')}</Select.Option>
        {choices.map((o) => (
          <Select.Option key={o.id} value={String(o.id)}>
            {o.label}
          </Select.Option>
        ))}
      </Select>
      <Button type="submit" leadingVisual={PersonAddIcon} disabled={!chosen} loading={add.isPending} data-testid="trial-add-user-submit">
        {t('trialGroups.addUser')}
      </Button>
    </form>
  );
}

/** The group's users, each removable (after a confirmation). */
function MembersTable({ id, members }: { id: number; members: TrialGroupMember[] }) {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const confirm = useConfirm();
  const refresh = useRefreshGroup(id);
  const remove = trpc.trialGroups.users.remove.useMutation();
  return (
    <div style={{ overflowX: 'auto' }}>
      <Table>
        <thead>
          <tr>
            <th scope="col">{t('users.fields.name')}</th>
            <th scope="col">{t('users.fields.email')}</th>
            <th scope="col">{t('trialGroups.columns.addedAt')}</th>
            <th scope="col">
              <span className="visually-hidden">{t('list.actions')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {members.map((m) => {
            const name = [m.first_name, m.last_name].filter(Boolean).join(' ') || m.email;
            return (
              <tr key={m.user_id} data-testid={`member-${m.email}`}>
                <td data-label={t('users.fields.name')}>
                  <Link to={`/users/${m.user_id}`}>{name}</Link>
                </td>
                <td data-label={t('users.fields.email')}>{breakableText(m.email)}</td>
                <td data-label={t('trialGroups.columns.addedAt')}>{dateText(m.added_at, i18n.language)}</td>
                <td style={{ textAlign: 'right' }}>
                  <IconButton
                    icon={TrashIcon}
                    variant="invisible"
                    size="small"
                    aria-label={t('trialGroups.removeUser', { name })}
                    onClick={async () => {
                      if (!(await confirm({ message: t('trialGroups.removeConfirm', { name }), danger: true }))) return;
                      try {
                        await remove.mutateAsync({ id, key: m.user_id });
                        await refresh();
                        toast.success((t) => t('trialGroups.memberRemoved', { name }));
                      } catch (error) {
                        toast.error((t) => errorText(t, error));
                      }
                    }}
                  />
                </td>
              </tr>
            );
          })}
        </tbody>
      </Table>
    </div>
  );
}

function Members({ id }: { id: number }) {
  const { t } = useTranslation();
  const members = trpc.trialGroups.users.list.useQuery({ id });
  const memberIds = new Set((members.data ?? []).map((m) => m.user_id));

  return (
    <Section aria-labelledby="trial-members-title" data-testid="trial-members">
      <Heading as="h2" id="trial-members-title">
        {t('trialGroups.users')}
      </Heading>
      <AddMemberForm id={id} memberIds={memberIds} />
      {!members.data ? null : members.data.length === 0 ? (
        <p style={{ color: 'var(--fgColor-muted)' }}>{t('trialGroups.noUsers')}</p>
      ) : (
        <MembersTable id={id} members={members.data} />
      )}
    </Section>
  );
}

/** /trial-groups/:id: the group's form, its statistics, invitations (invite, bulk reinvite) and users. */
export default function TrialGroupPage() {
  return (
    <ResourceDetailPage def={trialGroupsEntity}>
      {(id) => (
        <>
          <Statistics id={id} />
          <Invites id={id} />
          <Members id={id} />
        </>
      )}
    </ResourceDetailPage>
  );
}

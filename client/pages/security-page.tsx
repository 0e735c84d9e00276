import { Button, Flash, Heading } from '@primer/react';
import { useState } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { ROLE } from '../../shared/roles.ts';
import { secondFactorInput } from '../../shared/schemas/credentials.ts';
import { formatDateTime } from '../../shared/format.ts';
import { PageSpinner } from '../components/page-spinner.tsx';
import { TextField } from '../components/text-field.tsx';
import { useZodForm } from '../components/use-zod-form.ts';
import { errorText, fieldErrorsOf } from '../errors.ts';
import { useSession } from '../session.ts';
import { useToast } from '../shell/toasts.tsx';
import { trpc } from '../trpc.ts';
import { Passkeys } from './security-passkeys.tsx';
import { ActionTableHead, FirstFactorCodes, Row, Section, ShownOnce, Table } from './security-parts.tsx';

/**
 * Sign-in security (issue 32, ADR 068): the authenticator app (enrolled with a code, its secret and recovery
 * codes shown once), new recovery codes, the user's sessions (each can be ended), and for Admins the policy
 * naming the roles that must have a second factor. A sign-in the policy sends here can open nothing else.
 */

/** The code field of the forms: the sign-in step's own rule (a classic object around the zod/mini field). */
const codeForm = z.object({ code: secondFactorInput.shape.code });

export default function SecurityPage() {
  const { t } = useTranslation();
  const factors = trpc.security.factors.useQuery();
  const session = useSession();
  if (!factors.data) return factors.error ? <p role="alert">{errorText(t, factors.error)}</p> : <PageSpinner />;
  const enrolled = Boolean(factors.data.totp) || factors.data.passkeys.length > 0;
  return (
    <div>
      <Heading as="h1" style={{ marginBottom: 16 }}>
        {t('security.title')}
      </Heading>
      {factors.data.required && !enrolled && (
        <Flash variant="warning" style={{ marginBottom: 16, maxWidth: 760 }} data-testid="enrol-required">
          {t('security.enrolRequired')}
        </Flash>
      )}
      <AuthenticatorApp enrolled={Boolean(factors.data.totp)} since={factors.data.totp?.created_at ?? null} />
      <Passkeys passkeys={factors.data.passkeys} />
      {enrolled && <RecoveryCodes left={factors.data.recovery_codes_left} />}
      <Sessions />
      {session.roles.includes(ROLE.Admin) && <Policy />}
    </div>
  );
}

const useCodeForm = () => useZodForm(codeForm, { code: '' });
type CodeFormState = ReturnType<typeof useCodeForm>;

/**
 * A code form's submit: the API's step with the code, then `done`, a toast and the page's data anew; a wrong code
 * under the field. The toast's text is a function of `t`, written when drawn, so it follows a language switch (ADR 078).
 */
function useCodeSubmit<R>(form: CodeFormState, send: (input: { code: string }) => Promise<R>, done: (result: R) => void, success: (t: TFunction) => string) {
  const toast = useToast();
  const utils = trpc.useUtils();
  return async (event: React.FormEvent) => {
    event.preventDefault();
    const input = form.validate();
    if (!input) return;
    try {
      done(await send(input));
      form.setValues({ code: '' });
      toast.success(success);
      await utils.security.invalidate();
    } catch (error) {
      form.applyServerError(error);
      if (!fieldErrorsOf(error).code) toast.error((t) => errorText(t, error));
    }
  };
}

/** A one-time-code form: the code field and its button. */
function CodeRow({
  form,
  label,
  onSubmit,
  testId,
  children,
}: {
  form: CodeFormState;
  label: string;
  onSubmit: (event: React.FormEvent) => void;
  testId: string;
  children: React.ReactNode;
}) {
  return (
    <Row onSubmit={onSubmit} noValidate data-testid={testId}>
      <TextField name="code" label={label} value={form.values.code} onChange={(v) => form.set('code', v)} error={form.errors.code} autoComplete="one-time-code" required />
      {children}
    </Row>
  );
}

function AuthenticatorApp({ enrolled, since }: { enrolled: boolean; since: string | null }) {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const start = trpc.security.startTotp.useMutation();
  const confirm = trpc.security.confirmTotp.useMutation();
  const remove = trpc.security.removeTotp.useMutation();
  const confirmForm = useCodeForm();
  const removeForm = useCodeForm();
  const [codes, setCodes] = useState<string[] | null>(null);

  const onConfirm = useCodeSubmit(
    confirmForm,
    (input) => confirm.mutateAsync(input),
    (done) => {
      setCodes(done.recovery_codes);
      start.reset();
    },
    (t) => t('security.totpAdded'),
  );
  const onRemove = useCodeSubmit(
    removeForm,
    (input) => remove.mutateAsync(input),
    () => undefined,
    (t) => t('security.totpRemoved'),
  );

  return (
    <Section aria-labelledby="security-totp">
      <Heading as="h2" id="security-totp" style={{ fontSize: 20 }}>
        {t('security.totpTitle')}
      </Heading>
      <FirstFactorCodes codes={codes} onDone={() => setCodes(null)} />
      {enrolled ? (
        <>
          <p data-testid="totp-enrolled">{t('security.totpEnrolled', { since: formatDateTime(since, i18n.language) })}</p>
          <CodeRow form={removeForm} label={t('security.removeCode')} onSubmit={onRemove} testId="totp-remove-form">
            <Button type="submit" variant="danger" loading={remove.isPending}>
              {t('security.totpRemove')}
            </Button>
          </CodeRow>
        </>
      ) : start.data ? (
        <>
          <p>{t('security.totpScan')}</p>
          <img src={start.data.qr} width={200} height={200} alt={t('security.qrAlt')} data-testid="totp-qr" />
          <p>
            {t('security.totpSecret')} <code data-testid="totp-secret">{start.data.secret}</code>
          </p>
          <CodeRow form={confirmForm} label={t('security.totpCode')} onSubmit={onConfirm} testId="totp-confirm-form">
            <Button type="submit" variant="primary" loading={confirm.isPending} data-testid="totp-confirm">
              {t('security.totpConfirm')}
            </Button>
          </CodeRow>
        </>
      ) : (
        <>
          <p>{t('security.totpHelp')}</p>
          <Button
            variant="primary"
            loading={start.isPending}
            onClick={() => start.mutate(undefined, { onError: (error) => toast.error((t) => errorText(t, error)) })}
            data-testid="totp-start"
          >
            {t('security.totpStart')}
          </Button>
        </>
      )}
    </Section>
  );
}

function RecoveryCodes({ left }: { left: number }) {
  const { t } = useTranslation();
  const toast = useToast();
  const utils = trpc.useUtils();
  const renew = trpc.security.newRecoveryCodes.useMutation();
  const [codes, setCodes] = useState<string[] | null>(null);
  return (
    <Section aria-labelledby="security-recovery">
      <Heading as="h2" id="security-recovery" style={{ fontSize: 20 }}>
        {t('security.recoveryCodes')}
      </Heading>
      <p data-testid="recovery-left">{t('security.recoveryLeft', { count: left })}</p>
      {codes ? (
        <ShownOnce codes={codes} onDone={() => setCodes(null)} />
      ) : (
        <Button
          loading={renew.isPending}
          onClick={() =>
            renew.mutate(undefined, {
              onSuccess: (done) => {
                setCodes(done.recovery_codes);
                void utils.security.invalidate();
              },
              onError: (error) => toast.error((t) => errorText(t, error)),
            })
          }
          data-testid="recovery-renew"
        >
          {t('security.recoveryRenew')}
        </Button>
      )}
    </Section>
  );
}

function Sessions() {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const sessions = trpc.security.sessions.useQuery();
  const utils = trpc.useUtils();
  const end = trpc.security.endSession.useMutation();
  const onEnd = (id: string) =>
    end.mutate(
      { id },
      {
        onSuccess: (done) => {
          if (done.current) window.location.assign('/login');
          else {
            toast.success((t) => t('security.sessionEnded'));
            void utils.security.sessions.invalidate();
          }
        },
        onError: (error) => toast.error((t) => errorText(t, error)),
      },
    );
  return (
    <Section aria-labelledby="security-sessions">
      <Heading as="h2" id="security-sessions" style={{ fontSize: 20 }}>
        {t('security.sessionsTitle')}
      </Heading>
      <p>{t('security.sessionsHelp')}</p>
      {!sessions.data ? (
        sessions.error ? (
          <p role="alert">{errorText(t, sessions.error)}</p>
        ) : (
          <PageSpinner />
        )
      ) : (
        <Table data-testid="sessions">
          <ActionTableHead columns={[t('security.device'), t('security.address'), t('security.signedIn'), t('security.lastSeen')]} />
          <tbody>
            {sessions.data.map((s) => (
              <tr key={s.id} data-testid={s.current ? 'session-current' : 'session-other'}>
                <td>
                  {deviceOf(s.user_agent) ?? t('security.unknownDevice')}
                  {s.current && <strong> ({t('security.thisSession')})</strong>}
                </td>
                <td>{s.ip ?? '–'}</td>
                <td>{formatDateTime(s.created_at, i18n.language)}</td>
                <td>{formatDateTime(s.last_seen_at ?? s.created_at, i18n.language)}</td>
                <td>
                  <Button size="small" variant="danger" onClick={() => onEnd(s.id)} disabled={end.isPending} data-testid="session-end">
                    {s.current ? t('security.endThis') : t('security.end')}
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Section>
  );
}

/** A browser and system from a User-Agent, roughly: what a person recognises, not a fingerprint. */
export function deviceOf(userAgent: string | null): string | null {
  if (!userAgent) return null;
  const browser = /Edg\//.test(userAgent)
    ? 'Edge'
    : /Firefox\//.test(userAgent)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(userAgent)
        ? 'Chrome'
        : /Safari\//.test(userAgent)
          ? 'Safari'
          : null;
  const system = /Android/.test(userAgent)
    ? 'Android'
    : /iPhone|iPad/.test(userAgent)
      ? 'iOS'
      : /Mac OS X/.test(userAgent)
        ? 'macOS'
        : /Windows/.test(userAgent)
          ? 'Windows'
          : /Linux/.test(userAgent)
            ? 'Linux'
            : null;
  if (!browser && !system) return userAgent.slice(0, 60);
  return [browser, system].filter(Boolean).join(' · ');
}

const POLICY_ROLES = [ROLE.Admin, ROLE.Buddy, ROLE.Shop] as const;

function Policy() {
  const { t } = useTranslation();
  const toast = useToast();
  const policy = trpc.security.policy.useQuery();
  const utils = trpc.useUtils();
  const save = trpc.security.setPolicy.useMutation();
  const [chosen, setChosen] = useState<string[] | null>(null);
  if (!policy.data) return policy.error ? <p role="alert">{errorText(t, policy.error)}</p> : null;
  const roles = chosen ?? policy.data.roles;
  const toggle = (role: string) => setChosen(roles.includes(role) ? roles.filter((r) => r !== role) : [...roles, role]);
  return (
    <Section aria-labelledby="security-policy">
      <Heading as="h2" id="security-policy" style={{ fontSize: 20 }}>
        {t('security.policyTitle')}
      </Heading>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate(
            { roles },
            {
              onSuccess: (done) => {
                utils.security.policy.setData(undefined, done);
                setChosen(null);
                toast.success((t) => t('security.policySaved'));
              },
              onError: (error) => toast.error((t) => errorText(t, error)),
            },
          );
        }}
        data-testid="policy-form"
      >
        <fieldset style={{ border: 0, padding: 0, margin: 0 }}>
          <legend style={{ marginBottom: 8 }}>{t('security.policyHelp')}</legend>
          {POLICY_ROLES.map((role) => (
            <label key={role} style={{ display: 'flex', gap: 8, alignItems: 'center', marginBottom: 4 }}>
              <input type="checkbox" name="roles" value={role} checked={roles.includes(role)} onChange={() => toggle(role)} data-testid={`policy-${role}`} />
              {role}
            </label>
          ))}
        </fieldset>
        <Button type="submit" style={{ marginTop: 8 }} loading={save.isPending} data-testid="policy-save">
          {t('security.policySave')}
        </Button>
      </form>
    </Section>
  );
}

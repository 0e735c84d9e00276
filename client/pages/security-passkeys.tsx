import { Button, Heading } from '@primer/react';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { PasskeyCredential } from '../../shared/schemas/passkeys.ts';
import { formatDateTime } from '../../shared/format.ts';
import { TextField } from '../components/text-field.tsx';
import { appCodeOf, errorText } from '../errors.ts';
import { useToast } from '../shell/toasts.tsx';
import { trpc } from '../trpc.ts';
import { ActionTableHead, FirstFactorCodes, Row, Section, Table } from './security-parts.tsx';

interface PasskeyRow {
  id: number;
  name: string | null;
  created_at: string;
  last_used_at: string | null;
}

/** Adding a passkey: options from the API, the browser makes the passkey, the answer registered. */
function usePasskeys() {
  const { t } = useTranslation();
  const toast = useToast();
  const utils = trpc.useUtils();
  const options = trpc.security.passkeyOptions.useMutation();
  const add = trpc.security.addPasskey.useMutation();
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | undefined>();
  const [codes, setCodes] = useState<string[] | null>(null);
  const [making, setMaking] = useState(false);

  const onAdd = async (event: React.FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return setNameError(t('validation.required'));
    setNameError(undefined);
    setMaking(true);
    try {
      const { startRegistration, browserSupportsWebAuthn } = await import('@simplewebauthn/browser');
      if (!browserSupportsWebAuthn()) return toast.error((t) => t('security.passkeyUnsupported'));
      const optionsJSON = (await options.mutateAsync()) as unknown as PublicKeyCredentialCreationOptionsJSON;
      let response;
      try {
        response = await startRegistration({ optionsJSON });
      } catch {
        return toast.error((t) => t('security.passkeyCanceled'));
      }
      const done = await add.mutateAsync({ name: trimmed, response: response as unknown as PasskeyCredential });
      setName('');
      toast.success((t) => t('security.passkeyAdded'));
      if (done.recovery_codes) setCodes(done.recovery_codes);
      await utils.security.invalidate();
    } catch (error) {
      toast.error((t) => errorText(t, error));
    } finally {
      setMaking(false);
    }
  };
  return { name, setName, nameError, codes, setCodes, making, onAdd };
}

/** The user's passkeys, each with its Remove button (named after the passkey), which asks for fresh proof first. */
function PasskeyTable({ passkeys, onRemove }: { passkeys: PasskeyRow[]; onRemove: (passkey: PasskeyRow) => void }) {
  const { t, i18n } = useTranslation();
  return (
    <Table data-testid="passkeys">
      <ActionTableHead columns={[t('security.passkeyName'), t('security.passkeyAddedOn'), t('security.passkeyLastUsed')]} />
      <tbody>
        {passkeys.map((p) => (
          <tr key={p.id} data-testid="passkey-row">
            <td>{p.name ?? '–'}</td>
            <td>{formatDateTime(p.created_at, i18n.language)}</td>
            <td>{p.last_used_at ? formatDateTime(p.last_used_at, i18n.language) : t('security.passkeyNever')}</td>
            <td>
              <Button size="small" variant="danger" onClick={() => onRemove(p)} aria-label={t('security.passkeyRemove', { name: p.name ?? '' })} data-testid="passkey-remove">
                {t('security.passkeyRemoveShort')}
              </Button>
            </td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/**
 * Removing a passkey asks for fresh proof that it is the user (ADR 075): the password, or one of their passkeys (a
 * confirm ceremony of the browser); the signed-in session alone is not enough, and the API refuses without it.
 */
function RemoveConfirmation({ passkey, onDone }: { passkey: PasskeyRow; onDone: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const utils = trpc.useUtils();
  const confirmOptions = trpc.security.passkeyConfirmOptions.useMutation();
  const remove = trpc.security.removePasskey.useMutation();
  const [password, setPassword] = useState('');
  const [passwordError, setPasswordError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const box = useRef<HTMLFormElement>(null);
  useEffect(() => box.current?.querySelector('input')?.focus(), [passkey.id]);

  const send = async (proof: { password: string } | { passkey: PasskeyCredential }) => {
    try {
      await remove.mutateAsync({ id: passkey.id, ...proof });
      toast.success((t) => t('security.passkeyRemoved'));
      onDone();
      await utils.security.invalidate();
    } catch (error) {
      if (appCodeOf(error) === 'fresh_proof_invalid') setPasswordError('errors.fresh_proof_invalid');
      else toast.error((t) => errorText(t, error));
    }
  };
  const withPassword = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!password) return setPasswordError('validation.required');
    setPasswordError(undefined);
    setBusy(true);
    await send({ password });
    setBusy(false);
  };
  const withPasskey = async () => {
    setBusy(true);
    try {
      const { startAuthentication } = await import('@simplewebauthn/browser');
      const optionsJSON = (await confirmOptions.mutateAsync()) as unknown as PublicKeyCredentialRequestOptionsJSON;
      let answer;
      try {
        answer = await startAuthentication({ optionsJSON });
      } catch {
        return toast.error((t) => t('security.passkeyNotConfirmed'));
      }
      await send({ passkey: answer as unknown as PasskeyCredential });
    } catch (error) {
      toast.error((t) => errorText(t, error));
    } finally {
      setBusy(false);
    }
  };
  const titleId = `passkey-remove-${passkey.id}`;
  return (
    <Row ref={box} onSubmit={(event) => void withPassword(event)} noValidate aria-labelledby={titleId} data-testid="passkey-remove-form">
      <p id={titleId} style={{ flexBasis: '100%', margin: 0 }}>
        {t('security.passkeyRemoveProof', { name: passkey.name ?? '' })}
      </p>
      <TextField
        name="current-password"
        type="password"
        label={t('security.currentPassword')}
        value={password}
        onChange={setPassword}
        error={passwordError}
        autoComplete="current-password"
        required
      />
      <Button type="submit" variant="danger" loading={busy && !confirmOptions.isPending} disabled={busy} data-testid="passkey-remove-password">
        {t('security.passkeyRemoveWithPassword')}
      </Button>
      <Button type="button" onClick={() => void withPasskey()} disabled={busy} data-testid="passkey-remove-passkey">
        {t('security.passkeyRemoveWithPasskey')}
      </Button>
      <Button type="button" variant="invisible" onClick={onDone} disabled={busy} data-testid="passkey-remove-cancel">
        {t('form.cancel')}
      </Button>
    </Row>
  );
}

/**
 * Passkeys (ADR 075): named, listed, removable. Adding one asks the API for options, lets the browser make the
 * passkey (its WebAuthn code loads only here), and registers the answer; a first factor shows recovery codes.
 */
export function Passkeys({ passkeys }: { passkeys: PasskeyRow[] }) {
  const { t } = useTranslation();
  const { name, setName, nameError, codes, setCodes, making, onAdd } = usePasskeys();
  const [removing, setRemoving] = useState<PasskeyRow | null>(null);
  // A passkey listed no more (removed, or gone in another session) is no longer being removed.
  const shown = removing && passkeys.some((p) => p.id === removing.id) ? removing : null;
  return (
    <Section aria-labelledby="security-passkeys">
      <Heading as="h2" id="security-passkeys" style={{ fontSize: 20 }}>
        {t('security.passkeysTitle')}
      </Heading>
      <p>{t('security.passkeysHelp')}</p>
      <FirstFactorCodes codes={codes} onDone={() => setCodes(null)} />
      {passkeys.length === 0 ? <p data-testid="passkeys-none">{t('security.passkeyNone')}</p> : <PasskeyTable passkeys={passkeys} onRemove={setRemoving} />}
      {shown && <RemoveConfirmation key={shown.id} passkey={shown} onDone={() => setRemoving(null)} />}
      <Row onSubmit={(event) => void onAdd(event)} noValidate data-testid="passkey-add-form">
        <TextField
          name="passkey-name"
          label={t('security.passkeyName')}
          caption={t('security.passkeyNameHint')}
          value={name}
          onChange={setName}
          error={nameError}
          maxLength={64}
          required
        />
        <Button type="submit" variant="primary" loading={making} data-testid="passkey-add">
          {t('security.passkeyAdd')}
        </Button>
      </Row>
    </Section>
  );
}

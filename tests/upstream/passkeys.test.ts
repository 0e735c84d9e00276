import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seal } from '../../upstream/lib/factors.ts';
import { startUpstream } from '../../upstream/start.ts';
import { testLogger } from '../support/run-log.ts';
import { DEMO_PASSWORD } from '../support/stack.ts';

/**
 * Passkeys in the API (issue 32, ADR 075), against a software authenticator written here (ES256, `none`
 * attestation): registration and sign-in, each challenge once and for five minutes only, the signature
 * counter, user verification, the relying party and origin of the config, removal, and a passkey as the
 * second factor the Admin policy asks for. Chromium's own authenticator is in tests/e2e/passkeys.test.ts.
 */

type Upstream = Awaited<ReturnType<typeof startUpstream>>;
type Body = { success: boolean; data: any; error: any };
let up: Upstream;
const ORIGIN = 'https://backoffice.example';
const RP_ID = 'backoffice.example';

beforeAll(async () => {
  up = await startUpstream({
    port: 0,
    demoPassword: DEMO_PASSWORD,
    logger: testLogger('upstream-passkeys'),
    config: { scryptCost: 1024, logMailLinks: false, webauthn: { rpId: RP_ID, origins: [ORIGIN] } },
    backgroundJobs: false,
  });
});
afterAll(async () => {
  await up?.close();
});

async function call(path: string, init: { method?: string; body?: unknown; token?: string; ip?: string } = {}) {
  const res = await fetch(up.url + path, {
    method: init.method ?? (init.body ? 'POST' : 'GET'),
    headers: {
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      // A client address as the back office forwards it (ADR 028): each throttle test has addresses of its own.
      ...(init.ip ? { 'x-forwarded-for': init.ip, 'x-forwarded-secret': up.config.forwardedSecret! } : {}),
    },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Body };
}

let nextUser = 1;
async function newUser(roles: string[] = []): Promise<{ email: string; token: string; refresh: string }> {
  const email = `passkey${nextUser++}.${Date.now()}@example.com`;
  const admin = (await call('account/login', { body: { email: 'admin@example.com', password: DEMO_PASSWORD } })).body.data.token as string;
  expect((await call('users/invite/', { token: admin, body: { email, roles } })).status).toBe(200);
  const { rows } = await up.db.query<{ link: string }>("select link from outbox where lower(to_email) = lower($1) and kind = 'invite' order by id desc limit 1", [email]);
  expect((await call('account/accept-invite', { body: { token: rows[0]!.link.split('/').pop(), password: 'chosen-pass', password_confirm: 'chosen-pass' } })).status).toBe(200);
  const pair = (await call('account/login', { body: { email, password: 'chosen-pass' } })).body.data;
  return { email, token: pair.token, refresh: pair.refresh_token };
}

// --- A software authenticator: just enough CBOR, COSE and authenticator data for ES256 with `none` attestation.

function cbor(value: unknown): Buffer {
  const head = (major: number, n: number) =>
    n < 24 ? Buffer.from([(major << 5) | n]) : n < 256 ? Buffer.from([(major << 5) | 24, n]) : Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value as object);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const b64 = (b: Buffer) => b.toString('base64url');
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest();
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

interface Authenticator {
  credentialId: Buffer;
  privateKey: KeyObject;
  cose: Buffer;
  counter: number;
  /** The user handle of the registration's options (`user.id`), returned with every assertion as a resident credential does. */
  userHandle?: string;
}

function newAuthenticator(): Authenticator {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const cose = cbor(
    new Map<number, unknown>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]),
  );
  return { credentialId: randomBytes(32), privateKey, cose, counter: 0 };
}

function authData(rpId: string, flags: number, counter: number, attested?: Authenticator): Buffer {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(counter);
  const parts: Buffer[] = [sha256(rpId), Buffer.from([flags | (attested ? AT : 0)]), count];
  if (attested) {
    const length = Buffer.alloc(2);
    length.writeUInt16BE(attested.credentialId.length);
    parts.push(Buffer.alloc(16), length, attested.credentialId, attested.cose);
  }
  return Buffer.concat(parts);
}

const clientData = (type: string, challenge: string, origin = ORIGIN) => Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));

interface Ceremony {
  origin?: string;
  rpId?: string;
  flags?: number;
  challenge?: string;
}

function attestation(auth: Authenticator, options: { challenge: string; user?: { id: string } }, c: Ceremony = {}) {
  if (options.user) auth.userHandle = options.user.id;
  const data = authData(c.rpId ?? RP_ID, c.flags ?? UP | UV, 0, auth);
  return {
    id: b64(auth.credentialId),
    rawId: b64(auth.credentialId),
    type: 'public-key',
    clientExtensionResults: {},
    response: {
      clientDataJSON: b64(clientData('webauthn.create', c.challenge ?? options.challenge, c.origin)),
      attestationObject: b64(cbor({ fmt: 'none', attStmt: {}, authData: data })),
      transports: ['internal'],
    },
  };
}

function assertion(auth: Authenticator, options: { challenge: string }, c: Ceremony & { counter?: number } = {}) {
  auth.counter = c.counter ?? auth.counter + 1;
  const data = authData(c.rpId ?? RP_ID, c.flags ?? UP | UV, auth.counter);
  const cd = clientData('webauthn.get', c.challenge ?? options.challenge, c.origin);
  return {
    id: b64(auth.credentialId),
    rawId: b64(auth.credentialId),
    type: 'public-key',
    clientExtensionResults: {},
    response: {
      clientDataJSON: b64(cd),
      authenticatorData: b64(data),
      signature: b64(sign('sha256', Buffer.concat([data, sha256(cd)]), auth.privateKey)),
      ...(auth.userHandle ? { userHandle: auth.userHandle } : {}),
    },
  };
}

const registrationOptions = async (token: string) =>
  (await call('account/factors/passkey/options', { token, body: {} })).body.data as { challenge: string; rp: { id: string }; user: { id: string } };
const confirmOptions = async (token: string) =>
  (await call('account/factors/passkey/confirm-options', { token, body: {} })).body.data as { challenge: string; allowCredentials: { id: string }[] };
const signInOptions = async () => (await call('account/login/passkey/options', { body: {} })).body.data as { challenge: string; rpId: string; userVerification: string };

async function registered(user: { token: string }): Promise<Authenticator> {
  const auth = newAuthenticator();
  const added = await call('account/factors/passkey', { token: user.token, body: { name: 'Laptop', response: attestation(auth, await registrationOptions(user.token)) } });
  expect(added.status).toBe(200);
  return auth;
}

const signIn = async (response: unknown) => call('account/login/passkey', { body: { response } });
const refused = { status: 400, body: { error: { message: 'passkey_invalid' } } };

describe('passkeys', () => {
  it('registers a passkey as a factor change, then signs in with it alone, as its first and second factor', async () => {
    const user = await newUser();
    const other = await newUser().then(() => call('account/login', { body: { email: user.email, password: 'chosen-pass' } }));
    const options = await registrationOptions(user.token);
    expect(options.rp.id).toBe(RP_ID);
    const auth = newAuthenticator();
    const added = await call('account/factors/passkey', { token: user.token, body: { name: 'Laptop', response: attestation(auth, options) } });
    expect(added.status).toBe(200);
    // The first factor: recovery codes, shown once; the user's other sessions end.
    expect(added.body.data.recovery_codes).toHaveLength(10);
    expect((await call('account/', { token: other.body.data.token })).status).toBe(401);
    const factors = (
      await call('account/factors', { token: (await call('account/login/passkey', { body: { response: assertion(auth, await signInOptions()) } })).body.data.token })
    ).body.data;
    expect(factors.passkeys).toEqual([expect.objectContaining({ name: 'Laptop', last_used_at: expect.any(String) })]);
    // A password sign-in now asks for a second factor, and names the passkey among its ways.
    expect((await call('account/login', { body: { email: user.email, password: 'chosen-pass' } })).body.data).toMatchObject({
      second_factor_required: true,
      methods: expect.arrayContaining(['passkey', 'recovery']),
    });
    const { rows } = await up.db.query<{ action: string; changes: unknown }>(
      "select a.action, a.changes from audit_log a join users u on u.id = a.record_id where a.entity = 'users' and u.email = $1 and a.action in ('factor_added', 'sign_in') order by a.id",
      [user.email],
    );
    expect(rows.slice(-2)).toEqual([
      { action: 'factor_added', changes: { factor: [null, 'passkey'] } },
      { action: 'sign_in', changes: { method: [null, 'passkey'], second_factor: [null, 'passkey'] } },
    ]);
  });

  it('slows refused sign-ins from one address: after the free failures 429 with Retry-After, even for a right answer', async () => {
    const auth = await registered(await newUser());
    const [ip, other] = ['198.51.100.7', '198.51.100.8'];
    const answer = async (origin?: string) => ({ response: assertion(auth, await signInOptions(), origin ? { origin } : {}) });
    for (let i = 0; i < up.config.loginThrottle.freeFailures; i++)
      expect(await call('account/login/passkey', { body: await answer('https://evil.example'), ip })).toMatchObject(refused);
    const throttled = await call('account/login/passkey', { body: await answer(), ip });
    expect(throttled).toMatchObject({ status: 429, body: { error: { message: 'too_many_attempts' } } });
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not slowed by this one's failures; its success is given back, so it never counts.
    for (let i = 0; i < up.config.loginThrottle.freeFailures + 1; i++) expect((await call('account/login/passkey', { body: await answer(), ip: other })).status).toBe(200);
    const { rows } = await up.db.query<{ scope: string; count: number }>("select scope, count from throttle where key like '198.51.100.8%' order by scope");
    expect(rows).toEqual([{ scope: 'login-ip', count: 0 }]);
  });

  it('takes each challenge once: the same signed answer is refused the second time, counter or not', async () => {
    const auth = await registered(await newUser());
    // A counter of 0 (many passkeys keep none, synced ones above all): only the challenge tells a replay.
    const answer = assertion(auth, await signInOptions(), { counter: 0 });
    expect((await signIn(answer)).status).toBe(200);
    expect(await signIn(answer)).toMatchObject(refused);
  });

  it('refuses an expired challenge, a forged one, and a registration challenge used to sign in', async () => {
    const user = await newUser();
    // Asked for before the passkey exists: registering it ends this token's session version (ADR 068).
    const registration = await registrationOptions(user.token);
    const auth = await registered(user);
    const expired = seal(up.config.jwtSecret, 'webauthn-challenge', JSON.stringify({ k: 'authenticate', u: null, e: Date.now() - 1000 }));
    expect(await signIn(assertion(auth, { challenge: b64(Buffer.from(expired)) }))).toMatchObject(refused);
    expect(await signIn(assertion(auth, { challenge: b64(randomBytes(32)) }))).toMatchObject(refused);
    expect(await signIn(assertion(auth, registration))).toMatchObject(refused);
    expect((await signIn(assertion(auth, await signInOptions()))).status).toBe(200);
  });

  it('refuses a counter that did not move on (a cloned authenticator)', async () => {
    const auth = await registered(await newUser());
    expect((await signIn(assertion(auth, await signInOptions(), { counter: 5 }))).status).toBe(200);
    expect(await signIn(assertion(auth, await signInOptions(), { counter: 5 }))).toMatchObject(refused);
    expect(await signIn(assertion(auth, await signInOptions(), { counter: 3 }))).toMatchObject(refused);
    expect((await signIn(assertion(auth, await signInOptions(), { counter: 6 }))).status).toBe(200);
  });

  it('requires user verification, the configured relying party and origin', async () => {
    const user = await newUser();
    expect((await signInOptions()).userVerification).toBe('required');
    const unverified = newAuthenticator();
    expect(
      await call('account/factors/passkey', { token: user.token, body: { name: 'Key', response: attestation(unverified, await registrationOptions(user.token), { flags: UP }) } }),
    ).toMatchObject(refused);
    expect(
      await call('account/factors/passkey', {
        token: user.token,
        body: { name: 'Key', response: attestation(newAuthenticator(), await registrationOptions(user.token), { origin: 'https://evil.example' }) },
      }),
    ).toMatchObject(refused);
    const auth = await registered(user);
    expect(await signIn(assertion(auth, await signInOptions(), { flags: UP }))).toMatchObject(refused);
    expect(await signIn(assertion(auth, await signInOptions(), { origin: 'https://evil.example' }))).toMatchObject(refused);
    expect(await signIn(assertion(auth, await signInOptions(), { rpId: 'evil.example' }))).toMatchObject(refused);
    expect((await signIn(assertion(auth, await signInOptions()))).status).toBe(200);
  });

  it('removes only the user’s own passkey, never the last factor the policy requires, and the passkey satisfies the policy', async () => {
    const admin = (await call('account/login', { body: { email: 'admin@example.com', password: DEMO_PASSWORD } })).body.data.token as string;
    const user = await newUser(['Shop']);
    const stranger = await newUser();
    expect((await call('second-factor-policy', { token: admin, method: 'PUT', body: { roles: ['Shop'] } })).status).toBe(200);
    let auth: Authenticator;
    let id: number;
    try {
      const enrolling = (await call('account/login', { body: { email: user.email, password: 'chosen-pass' } })).body.data.token as string;
      expect((await call('services/', { token: enrolling })).body.error.message).toBe('second_factor_enrolment_required');
      auth = await registered({ token: enrolling });
      const signedIn = (await signIn(assertion(auth, await signInOptions()))).body.data.token as string;
      expect(JSON.parse(Buffer.from(signedIn.split('.')[1]!, 'base64url').toString())).not.toHaveProperty('enrol');
      id = (await call('account/factors', { token: signedIn })).body.data.passkeys[0].id as number;
      expect((await call(`account/factors/passkey/${id}/remove`, { token: stranger.token, body: {} })).status).toBe(404);
      expect(await call(`account/factors/passkey/${id}/remove`, { token: signedIn, body: { password: 'chosen-pass' } })).toMatchObject({
        status: 409,
        body: { error: { message: 'second_factor_required' } },
      });
    } finally {
      await call('second-factor-policy', { token: admin, method: 'PUT', body: { roles: [] } });
    }
    // Without the policy it goes, with its recovery codes (no factor left), and signs in no more.
    const token = (await signIn(assertion(auth, await signInOptions()))).body.data.token as string;
    expect((await call(`account/factors/passkey/${id}/remove`, { token, body: { password: 'chosen-pass' } })).status).toBe(200);
    const { rows } = await up.db.query<{ n: number }>('select count(*)::int as n from recovery_codes r join users u on u.id = r.user_id where u.email = $1', [user.email]);
    expect(rows[0]!.n).toBe(0);
    expect(await signIn(assertion(auth, await signInOptions()))).toMatchObject(refused);
    expect((await call('account/login', { body: { email: user.email, password: 'chosen-pass' } })).body.data.token).toEqual(expect.any(String));
  });

  it('removes a passkey only with fresh proof in the same request: the password, a code, or a passkey’s answer to this user’s confirm challenge', async () => {
    const user = await newUser();
    const other = await newUser();
    const auth = await registered(user);
    const second = await registered({ token: (await signIn(assertion(auth, await signInOptions()))).body.data.token as string });
    const token = (await signIn(assertion(second, await signInOptions()))).body.data.token as string;
    const otherAuth = await registered(other);
    const otherToken = (await signIn(assertion(otherAuth, await signInOptions()))).body.data.token as string;
    const ids = ((await call('account/factors', { token })).body.data.passkeys as { id: number }[]).map((p) => p.id);
    expect(ids).toHaveLength(2);
    const remove = (body: unknown) => call(`account/factors/passkey/${ids[0]}/remove`, { token, body });
    // The signed-in session alone is not enough; nor a wrong password, nor a passkey's answer to a sign-in challenge,
    // to another user's confirm challenge, or another user's passkey answering this user's.
    expect(await remove({})).toMatchObject({ status: 400, body: { error: { message: 'fresh_proof_required' } } });
    expect(await remove({ password: 'not-the-password' })).toMatchObject({ status: 400, body: { error: { message: 'fresh_proof_invalid' } } });
    expect(await remove({ code: '000000' })).toMatchObject({ status: 400, body: { error: { message: 'wrong_code' } } });
    expect(await remove({ passkey: assertion(auth, await signInOptions()) })).toMatchObject(refused);
    expect(await remove({ passkey: assertion(auth, await confirmOptions(otherToken)) })).toMatchObject(refused);
    expect(await remove({ passkey: assertion(otherAuth, await confirmOptions(token)) })).toMatchObject(refused);
    // A confirm challenge is not a sign-in's either, and names only this user's passkeys.
    const confirm = await confirmOptions(token);
    expect(confirm.allowCredentials.map((c) => c.id).sort()).toEqual([b64(auth.credentialId), b64(second.credentialId)].sort());
    expect(await signIn(assertion(auth, confirm))).toMatchObject(refused);
    expect((await call('account/factors', { token })).body.data.passkeys).toHaveLength(2);
    // This user's passkey answering their confirm challenge (from another address: the five refusals above used this
    // address's free attempts, as wrong codes do): removed, a factor change that ends the session's version.
    const removed = await call(`account/factors/passkey/${ids[0]}/remove`, { token, body: { passkey: assertion(second, await confirmOptions(token)) }, ip: '198.51.100.60' });
    expect(removed.status).toBe(200);
    const after = (await signIn(assertion(second, await signInOptions()))).body.data.token as string;
    expect((await call('account/factors', { token: after })).body.data.passkeys).toEqual([expect.objectContaining({ id: ids[1] })]);
    // The password is proof too (the last passkey of a user whom no policy requires a factor).
    expect((await call(`account/factors/passkey/${ids[1]}/remove`, { token: after, body: { password: 'chosen-pass' }, ip: '198.51.100.61' })).status).toBe(200);
    expect(await signIn(assertion(second, await signInOptions()))).toMatchObject(refused);
  });

  it('keeps a user’s WebAuthn handle when the API’s JWT secret is rotated: a passkey registered before still signs in', async () => {
    const user = await newUser();
    const auth = await registered(user);
    expect(auth.userHandle).toEqual(expect.any(String));
    const before = up.config.jwtSecret;
    try {
      (up.config as { jwtSecret: string }).jwtSecret = randomBytes(32).toString('hex');
      // The authenticator returns the handle it was registered with; the API's stored handle still matches it.
      const signedIn = await signIn(assertion(auth, await signInOptions()));
      expect(signedIn.status).toBe(200);
      // A second passkey of the user is registered under the same handle.
      const token = signedIn.body.data.token as string;
      expect((await registrationOptions(token)).user.id).toBe(auth.userHandle);
    } finally {
      (up.config as { jwtSecret: string }).jwtSecret = before;
    }
    // A handle that is not the user's is refused.
    expect(await signIn(assertion({ ...auth, userHandle: b64(randomBytes(32)) }, await signInOptions()))).toMatchObject(refused);
  });
});

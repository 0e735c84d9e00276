import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agent, mutate, signIn } from '../support/http.ts';
import { DEMO_PASSWORD, latestMail, linkPath, startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.close());

describe('password flows through the outbox', () => {
  it('forgot → mailed link → reset → sign in with the new password', async () => {
    const email = 'buddy@example.com';
    expect((await mutate(agent(stack), 'auth.forgotPassword', { email })).status).toBe(200);
    const mail = await latestMail(stack.upstream, email);
    const path = linkPath(mail.link);
    expect(path).toMatch(/^\/reset-password\/[\w-]+$/);
    const token = path.split('/').pop()!;

    expect((await agent(stack).get(path)).status).toBe(200);
    const mismatch = await mutate(agent(stack), 'auth.resetPassword', { token, password: 'new-pass', password_confirm: 'other' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.data.fieldErrors.password_confirm).toBe('validation.passwordsDoNotMatch');

    expect((await mutate(agent(stack), 'auth.resetPassword', { token, password: 'new-pass', password_confirm: 'new-pass' })).status).toBe(200);
    const reused = await mutate(agent(stack), 'auth.resetPassword', { token, password: 'new-pass', password_confirm: 'new-pass' });
    expect(reused.status).toBe(400);
    expect(reused.body.error.message).toBe('Provided token does not exist');

    await signIn(agent(stack), email, 'new-pass');
    const old = await mutate(agent(stack), 'auth.login', { email, password: DEMO_PASSWORD });
    expect(old.status).toBe(400);
  });

  it('does not reveal whether an address has an account', async () => {
    const res = await mutate(agent(stack), 'auth.forgotPassword', { email: 'nobody@example.com' });
    expect(res.status).toBe(200);
  });
});

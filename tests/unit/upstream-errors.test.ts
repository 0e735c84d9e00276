import { describe, expect, it } from 'vitest';
import { errorFromEnvelope } from '../../server/upstream/client.ts';

describe('§8 error extraction', () => {
  it('shows the cause when message and cause are both present', () => {
    const e = errorFromEnvelope(400, { success: false, data: null, error: { message: 'user_exists', cause: 'User already exists' } });
    expect(e).toMatchObject({ status: 400, code: 'user_exists', message: 'User already exists' });
  });

  it('keeps credential errors vague: one status, code and text whatever the API said was wrong (ADR 018)', () => {
    const answers = [
      errorFromEnvelope(400, { success: false, error: { message: 'wrong_password', cause: 'Wrong Password', fields: { password: 'wrong' } } }),
      errorFromEnvelope(404, { success: false, error: { message: 'user_does_not_exist', cause: 'User does not exist' } }),
    ];
    for (const e of answers)
      expect({ status: e.status, code: e.code, message: e.message, fields: e.fields }).toEqual({
        status: 400,
        code: 'wrong_password',
        message: 'Invalid credentials.',
        fields: undefined,
      });
  });

  it('uses the error text when the error is a plain string, and a clear text when the body is missing', () => {
    expect(errorFromEnvelope(400, { success: false, error: 'Bad thing' }).message).toBe('Bad thing');
    expect(errorFromEnvelope(400, null)).toMatchObject({ code: 'unexpected_response', message: 'Unexpected server response' });
    expect(errorFromEnvelope(500, null)).toMatchObject({ retryable: true, message: 'Something went wrong, please contact our support.' });
  });

  it('passes field errors through', () => {
    expect(errorFromEnvelope(400, { error: { message: 'validation_error', fields: { email: 'Provided value is not Email.' } } }).fields).toEqual({
      email: 'Provided value is not Email.',
    });
  });
});

describe('a database that is restarting (ADR 046)', () => {
  it('tells connection failures from errors in the request', async () => {
    const { isDatabaseUnavailable } = await import('../../upstream/db.ts');
    const unavailable = [
      { code: '57P01', message: 'terminating connection due to administrator command' },
      { code: '57P03', message: 'the database system is starting up' },
      { code: '08006', message: 'connection failure' },
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      new Error('Connection terminated unexpectedly'),
      new Error('Client has encountered a connection error and is not queryable'),
    ];
    for (const error of unavailable) expect(isDatabaseUnavailable(error), String(error.message)).toBe(true);
    const requestErrors = [{ code: '23505', message: 'duplicate key value' }, { code: '22P02', message: 'invalid input syntax' }, new Error('boom'), null, 'text'];
    for (const error of requestErrors) expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('reaches the browser as a retryable 503 with its own code and text', () => {
    const e = errorFromEnvelope(503, {
      success: false,
      data: null,
      error: { message: 'database_unavailable', cause: 'The database is unavailable for a moment. Please try again shortly.' },
    });
    expect(e).toMatchObject({ status: 503, code: 'database_unavailable', retryable: true, message: 'The database is unavailable for a moment. Please try again shortly.' });
  });
});

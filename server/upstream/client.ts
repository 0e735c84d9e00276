import { Pool, errors as undiciErrors } from 'undici';
import type { Dispatcher } from 'undici';
import { CREDENTIAL_ERROR_CODES, ERROR_TEXT, INVALID_CREDENTIALS } from '../../shared/errors.ts';
import { traceparentOf } from '../../shared/request-log.server.ts';
import { IDEMPOTENCY_HEADER } from '../../shared/http-headers.ts';

/**
 * The one way the back-office talks to the marketplace API: an undici Pool that adds the §7
 * headers, unwraps the `{success, data, error}` envelope and turns failures into UpstreamError
 * with the §8 display rules. Session handling (tokens, refresh) lives in session/, not here.
 */
export interface UpstreamClientOptions {
  baseUrl: string;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** Extra attempts for idempotent calls on connection errors and 502/503/504. */
  retries?: number;
  connections?: number;
  /** Sent as X-Forwarded-Secret with X-Forwarded-For: the API believes the client address only with it (ADR 028). */
  forwardedSecret?: string;
  /** Observes every attempt (metrics): method, `path` as the caller gave it (relative to the base URL), status (0 = no answer), seconds. */
  onCall?: (method: string, path: string, status: number, seconds: number) => void;
}

export interface UpstreamCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Relative to the base URL, e.g. `account/login` or `roles/12/`. */
  path: string;
  query?: Record<string, string | number | boolean | null | undefined>;
  body?: unknown;
  token?: string | null;
  lang?: string;
  signal?: AbortSignal;
  /**
   * The browser's address, sent as X-Forwarded-For (with the secret that makes the API believe it, ADR 028):
   * the API throttles that visitor rather than the back office (ADR 018), and records it in the change
   * history (ADR 038). Every call made for a browser's request carries it.
   */
  clientIp?: string;
  /** The browser's User-Agent, on sign-in calls: the API shows it on the user's sessions page (ADR 068). */
  clientAgent?: string;
  /** Names this write so the API does it once (ADR 042): the browser's key, numbered after the request's first write. */
  idempotencyKey?: string;
  /** The browser request's id, sent as X-Request-Id and (a trace id) as W3C `traceparent`: the API logs and records the call under the same id. */
  requestId?: string;
}

export class UpstreamError extends Error {
  readonly status: number;
  /** The upstream's error code (`error.message`), or our own for transport failures. */
  readonly code: string;
  readonly fields: Record<string, string> | undefined;
  /** True when trying again later may succeed (timeouts, 5xx, connection errors). */
  readonly retryable: boolean;

  constructor(status: number, code: string, message: string, fields?: Record<string, string>, retryable = false) {
    super(message);
    this.name = 'UpstreamError';
    this.status = status;
    this.code = code;
    this.fields = fields;
    this.retryable = retryable;
  }
}

export const UNEXPECTED_RESPONSE = 'Unexpected server response';

/** §8: cause shown when message and cause are both present; credential errors stay vague. */
export function errorFromEnvelope(status: number, body: unknown): UpstreamError {
  const error = (body as { error?: unknown } | null)?.error;
  if (error && typeof error === 'object') {
    const { message, cause, fields } = error as { message?: unknown; cause?: unknown; fields?: unknown };
    const code = typeof message === 'string' ? message : 'upstream_error';
    const cleanFields = isStringRecord(fields) ? fields : undefined;
    // Whatever the API says about which part was wrong, the browser gets one answer (ADR 018).
    if (CREDENTIAL_ERROR_CODES.includes(code)) return new UpstreamError(INVALID_CREDENTIALS.status, INVALID_CREDENTIALS.code, INVALID_CREDENTIALS.text);
    const text =
      typeof cause === 'string' && cause ? cause : typeof message === 'string' ? ((ERROR_TEXT as Record<string, string>)[message] ?? message) : ERROR_TEXT.internal_error;
    return new UpstreamError(status, code, text, cleanFields, status >= 500);
  }
  if (typeof error === 'string' && error) return new UpstreamError(status, 'upstream_error', error, undefined, status >= 500);
  return new UpstreamError(
    status,
    status >= 500 ? 'upstream_unavailable' : 'unexpected_response',
    status >= 500 ? ERROR_TEXT.internal_error : UNEXPECTED_RESPONSE,
    undefined,
    status >= 500,
  );
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return !!value && typeof value === 'object' && Object.values(value).every((v) => typeof v === 'string');
}

const RETRYABLE_STATUS = new Set([502, 503, 504]);
// Only reads are retried: a write whose answer was lost may have happened, and must not run twice.
const IDEMPOTENT = new Set(['GET']);

export interface UpstreamClient {
  readonly baseUrl: URL;
  call<T>(call: UpstreamCall): Promise<T>;
  /** A raw request for streaming answers (CSV export); the caller owns the body. */
  stream(call: UpstreamCall): Promise<Dispatcher.ResponseData>;
  close(): Promise<void>;
}

export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const options_ = options;
  const baseUrl = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : options.baseUrl + '/');
  const pool = new Pool(baseUrl.origin, {
    connections: options.connections ?? 64,
    connectTimeout: options.connectTimeoutMs ?? 3000,
    headersTimeout: options.headersTimeoutMs ?? 10000,
    bodyTimeout: options.bodyTimeoutMs ?? 30000,
    keepAliveTimeout: 10000,
  });
  const retries = options.retries ?? 2;

  async function once<T>(call: UpstreamCall): Promise<T> {
    const options = requestOptions(baseUrl, call, options_.forwardedSecret);
    const started = performance.now();
    const observe = (status: number) => options_.onCall?.(call.method, call.path, status, (performance.now() - started) / 1000);
    let response: Dispatcher.ResponseData;
    try {
      response = await pool.request(options);
    } catch (error) {
      const failure = transportError(error);
      observe(failure.status);
      throw failure;
    }
    observe(response.statusCode);
    return dataOf<T>(response);
  }

  return {
    baseUrl,
    async call<T>(call: UpstreamCall): Promise<T> {
      const attempts = IDEMPOTENT.has(call.method) ? retries + 1 : 1;
      for (let attempt = 1; ; attempt++) {
        try {
          return await once<T>(call);
        } catch (error) {
          const retry =
            attempt < attempts && error instanceof UpstreamError && (error.code === 'upstream_unreachable' || RETRYABLE_STATUS.has(error.status)) && !call.signal?.aborted;
          if (!retry) throw error;
          await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
        }
      }
    },
    async stream(call) {
      try {
        return await pool.request(requestOptions(baseUrl, call, options_.forwardedSecret));
      } catch (error) {
        throw transportError(error);
      }
    },
    close: () => pool.close(),
  };
}

const PLAIN_PATH = /^[\w-]+(?:\/[\w-]+)*\/?$|^$/;

/** The undici request of a call: its URL below `baseUrl`, query, headers and JSON body. */
/** The request undici sends for a call; the visitor's address goes with the secret that makes the API believe it (ADR 028). */
function requestOptions(baseUrl: URL, call: UpstreamCall, forwardedSecret: string | undefined): Dispatcher.RequestOptions {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(call.query ?? {})) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const path = call.path.replace(/^\/+/, '');
  // A path of plain segments is the base's path followed by it, as `new URL` would resolve it (ADR 070); one with
  // dots, escapes or a query of its own is resolved by `new URL` as before.
  let target: string;
  if (PLAIN_PATH.test(path)) target = `${baseUrl.pathname}${path}${params.size > 0 ? `?${params}` : ''}`;
  else {
    const url = new URL(path, baseUrl);
    for (const [key, value] of params) url.searchParams.set(key, value);
    target = url.pathname + url.search;
  }
  const headers: Record<string, string> = {
    accept: 'application/json',
    'accept-language': call.lang ?? 'en',
    'app-platform': 'backoffice',
  };
  if (call.token) headers.authorization = `Bearer ${call.token}`;
  if (call.requestId) {
    headers['x-request-id'] = call.requestId;
    const traceparent = traceparentOf(call.requestId);
    if (traceparent) headers.traceparent = traceparent;
  }
  if (call.idempotencyKey && call.method !== 'GET') headers[IDEMPOTENCY_HEADER] = call.idempotencyKey;
  if (call.clientAgent) headers['user-agent'] = call.clientAgent.slice(0, 300);
  if (call.clientIp) {
    headers['x-forwarded-for'] = call.clientIp;
    if (forwardedSecret) headers['x-forwarded-secret'] = forwardedSecret;
  }
  let body: string | undefined;
  if (call.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.body);
  }
  return { method: call.method, path: target, headers, body, signal: call.signal };
}

/** The `data` of a successful envelope; otherwise the error the answer stands for. */
async function dataOf<T>(response: Dispatcher.ResponseData): Promise<T> {
  let parsed: unknown;
  try {
    const text = await response.body.text();
    parsed = text ? JSON.parse(text) : null;
  } catch (error) {
    if (error instanceof undiciErrors.UndiciError) throw transportError(error);
    parsed = null;
  }
  const envelope = parsed as { success?: unknown; data?: unknown } | null;
  if (response.statusCode >= 200 && response.statusCode < 300 && envelope && envelope.success === true) {
    if (envelope.data === undefined || envelope.data === null) {
      throw new UpstreamError(502, 'unexpected_response', UNEXPECTED_RESPONSE);
    }
    return envelope.data as T;
  }
  if (response.statusCode < 300 && (!envelope || typeof envelope.success !== 'boolean')) {
    throw new UpstreamError(502, 'unexpected_response', UNEXPECTED_RESPONSE);
  }
  throw errorFromEnvelope(response.statusCode < 300 ? 400 : response.statusCode, parsed);
}

function transportError(error: unknown): UpstreamError {
  const timeout = error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError || error instanceof undiciErrors.ConnectTimeoutError;
  if (timeout) return new UpstreamError(504, 'upstream_timeout', 'The marketplace API did not answer in time.', undefined, true);
  if ((error as { name?: string })?.name === 'AbortError') return new UpstreamError(499, 'aborted', 'The request was cancelled.');
  return new UpstreamError(503, 'upstream_unreachable', 'The marketplace API cannot be reached.', undefined, true);
}

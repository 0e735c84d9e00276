import { DEFAULT_OPERATION_RANGE, type OperationRange } from '../shared/geo.ts';

/** Settings of the reference API; `start.ts` fills them from options, `main.ts` from the environment. */
export interface UpstreamConfig {
  jwtSecret: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** A just-rotated refresh token still returns the same new pair for this long (ADR 004). */
  refreshGraceSeconds: number;
  /** Base of links in e-mails (the back office), e.g. http://localhost:3000 */
  appUrl: string;
  /** Origin the browser uses for signed uploads and file URLs, e.g. http://127.0.0.1:4010 */
  publicOrigin: string;
  uploadDir: string;
  maxUploadBytes: number;
  corsOrigins: string[];
  logMailLinks: boolean;
  googleClientId?: string;
  googleJwksUrl: string;
  /**
   * The passkeys' relying party (ADR 075): the RP ID (a registrable domain, never an IP address) and the
   * origins a browser may sign from. Unset: the host and origin of `appUrl` (WEBAUTHN_RP_ID, WEBAUTHN_ORIGINS).
   */
  webauthn?: { rpId: string; origins: string[] };
  /**
   * Sign-in throttling (ADR 018): per client address and account, `freeFailures` wrong attempts, then each
   * further attempt waits 2^(failures − free) seconds, at most `maxDelaySeconds`; per client address alone,
   * `ipFreeFailures` before the same backoff. Failures are forgotten after `forgetAfterSeconds` of quiet.
   */
  loginThrottle: { freeFailures: number; ipFreeFailures: number; maxDelaySeconds: number; forgetAfterSeconds: number };
  /**
   * Password-reset requests in a rolling hour (ADR 018, 028): per client address and address as typed, and per
   * client address, refused with 429; per address as typed, mails sent — past that, silently none.
   */
  forgotPasswordLimits: { perClientAndEmailPerHour: number; perIpPerHour: number; mailsPerEmailPerHour: number };
  /**
   * Peers whose `X-Forwarded-For` names the client (proxy-addr notation: `loopback`, addresses, CIDRs).
   * Default loopback: the in-process back office. A client calling the API directly cannot choose its address.
   */
  trustedProxies: string[];
  /**
   * The secret the back office sends as `X-Forwarded-Secret` with the client address (ADR 028): X-Forwarded-For
   * is believed only on requests that carry it, so another process on a trusted address cannot pick an address.
   * `null`: the trusted proxies alone decide (an operator's explicit list). `startUpstream` generates one when unset.
   */
  forwardedSecret: string | null;
  /**
   * The key of the change history's hash chain (ADR 035): AUDIT_KEY, at least 32 characters. `startUpstream`
   * keeps a generated one in the database when unset (as the JWT secret), with a warning: a key beside the
   * log it protects shows only edits made without reading it.
   */
  auditKey: string;
  /** Days the change history keeps an entry, pruned behind a signed checkpoint (ADR 038); null: for ever. */
  auditRetentionDays: number | null;
  /**
   * Where the change history's signed head is written outside the database (ADR 059): AUDIT_HEAD_FILE, else
   * beside the data (`defaultAuditHeadFile`); null: only in the log. Written every `auditHeadIntervalMs` when it moved.
   */
  auditHeadFile: string | null;
  auditHeadIntervalMs: number;
  /** Lists count exactly up to this many rows; beyond, the planner's estimate, labelled as one (ADR 040). */
  exactCountUpTo: number;
  /** Absolute lifetime of a sign-in: after this a session's refresh tokens are refused, however often rotated (ADR 017). */
  sessionMaxAgeSeconds: number;
  /** scrypt N; lower in tests for speed. */
  scryptCost: number;
  /** Services must lie within this circle (§5, §9; ADR 011). */
  operationRange: OperationRange;
  /** Per-user upload quota (ADR 020): signed addresses per hour, and bytes stored per day. */
  uploadsPerHour: number;
  uploadBytesPerDay: number;
  /** An upload no record refers to this long after it was signed is deleted, file and row (ADR 020). */
  unusedUploadMaxAgeSeconds: number;
}

export const DEFAULT_CONFIG: Omit<UpstreamConfig, 'jwtSecret' | 'publicOrigin' | 'uploadDir' | 'forwardedSecret' | 'auditKey'> = {
  accessTokenTtlSeconds: 900,
  refreshTokenTtlSeconds: 30 * 24 * 3600,
  refreshGraceSeconds: 10,
  appUrl: 'http://localhost:3000',
  maxUploadBytes: 5 * 1024 * 1024,
  corsOrigins: [],
  logMailLinks: false,
  googleJwksUrl: 'https://www.googleapis.com/oauth2/v3/certs',
  loginThrottle: { freeFailures: 5, ipFreeFailures: 20, maxDelaySeconds: 15 * 60, forgetAfterSeconds: 24 * 3600 },
  forgotPasswordLimits: { perClientAndEmailPerHour: 3, perIpPerHour: 20, mailsPerEmailPerHour: 10 },
  trustedProxies: ['loopback'],
  sessionMaxAgeSeconds: 30 * 24 * 3600,
  auditRetentionDays: null,
  auditHeadFile: null,
  auditHeadIntervalMs: 5000,
  exactCountUpTo: 10_000,
  scryptCost: 16384,
  operationRange: DEFAULT_OPERATION_RANGE,
  uploadsPerHour: 60,
  uploadBytesPerDay: 100 * 1024 * 1024,
  unusedUploadMaxAgeSeconds: 24 * 3600,
};

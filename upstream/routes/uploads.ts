import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createReadStream } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { UPLOAD_CONTENT_TYPES, UPLOAD_KINDS, mayUpload } from '../../shared/schemas/uploads.ts';
import { rolesFromScope } from '../../shared/roles.ts';
import type { UpstreamConfig } from '../config.ts';
import type { Db } from '../db.ts';
import { ApiError, ok } from '../lib/api-error.ts';
import { STAFF_ROLES, requireAuth } from '../lib/auth.ts';
import { hmac } from '../lib/tokens.ts';

const SIGNED_URL_TTL_SECONDS = 600;
const EXTENSION: Record<string, string> = { 'image/jpg': 'jpg', 'image/jpeg': 'jpg', 'image/png': 'png' };
const KEY = /^(company_logo|user_profile_picture|bicycle|service_image|service_detail_image|event_logo)\/[0-9a-f-]{36}\.(jpg|png)$/;

function magicMatches(body: Buffer, contentType: string): boolean {
  if (contentType === 'image/png') return body.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  return body.length > 3 && body[0] === 0xff && body[1] === 0xd8 && body[2] === 0xff;
}

/**
 * §7 uploads: GET upload/ returns a short-lived signed PUT address bound to a server-chosen key and the
 * content type, and the public address the file will have. The PUT target stores files on local disk,
 * standing in for an object store (S3-style `x-amz-acl: public-read`).
 */
export function registerUploadRoutes(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  const root = resolve(config.uploadDir);
  registerSigning(app, db, config);

  // Before anything else, so even an answer the route never sees (a body over the size limit, 413) can be
  // read by the back office's page and explained.
  app.addHook('onRequest', async (req, reply) => {
    if (req.url.startsWith('/files/')) cors(config, req, reply);
  });

  app.options('/files/*', async (_req, reply) => {
    return reply.code(204).send();
  });

  registerFileStore(app, db, config, root);
  registerFileServe(app, db, root);
}

function cors(config: UpstreamConfig, req: FastifyRequest, reply: FastifyReply) {
  const origin = req.headers.origin;
  if (origin && (config.corsOrigins.includes('*') || config.corsOrigins.includes(origin))) {
    reply.header('access-control-allow-origin', origin).header('vary', 'Origin');
    reply.header('access-control-allow-methods', 'GET, PUT, OPTIONS').header('access-control-allow-headers', 'content-type, x-amz-acl').header('access-control-max-age', '600');
  }
}

/**
 * The per-user quota (ADR 020): at signing, at most `uploadsPerHour` addresses an hour and some of the
 * day's bytes left; at storing (this file already counted), the day's bytes within `uploadBytesPerDay`.
 */
async function checkQuota(tx: Db, config: UpstreamConfig, userId: number, phase: 'sign' | 'store') {
  // One user's uploads are counted one at a time, so parallel requests cannot all slip under the limit.
  await tx.query("select pg_advisory_xact_lock(hashtext('uploads'), hashtext($1::text))", [String(userId)]);
  const { rows } = await tx.query<{ signed: number; stored: number }>(
    `select count(*) filter (where created_at > now() - interval '1 hour')::int as signed,
            coalesce(sum(size) filter (where used_at > now() - interval '1 day'), 0)::bigint as stored
       from uploads where created_by = $1 and created_at > now() - interval '1 day'`,
    [userId],
  );
  const signed = Number(rows[0]!.signed);
  const stored = Number(rows[0]!.stored);
  if (phase === 'sign' && signed >= config.uploadsPerHour) throw new ApiError(429, 'upload_quota');
  if (phase === 'sign' ? stored >= config.uploadBytesPerDay : stored > config.uploadBytesPerDay) throw new ApiError(413, 'upload_quota_bytes');
}

/** GET upload/: a signed PUT address for a new key, counted against the user's quota. */
function registerSigning(app: FastifyInstance, db: Db, config: UpstreamConfig) {
  app.get('/api/upload/', { preHandler: requireAuth(config, STAFF_ROLES) }, async (req, reply) => {
    const query = z.object({ kind: z.enum(UPLOAD_KINDS), content_type: z.enum(UPLOAD_CONTENT_TYPES) }).safeParse(req.query);
    if (!query.success) throw new ApiError(400, 'invalid_upload');
    if (!mayUpload(rolesFromScope(req.user!.roles), query.data.kind)) throw new ApiError(403, 'forbidden');
    const key = `${query.data.kind}/${randomUUID()}.${EXTENSION[query.data.content_type]}`;
    const expires = Math.floor(Date.now() / 1000) + SIGNED_URL_TTL_SECONDS;
    const sig = hmac(config.jwtSecret, key, query.data.content_type, String(expires));
    await db.transaction(async (tx) => {
      await checkQuota(tx, config, req.user!.id, 'sign');
      await tx.query('insert into uploads (key, kind, content_type, created_by) values ($1, $2, $3, $4)', [key, query.data.kind, query.data.content_type, req.user!.id]);
    });
    const params = new URLSearchParams({ expires: String(expires), sig });
    return ok(reply, {
      url: `${config.publicOrigin}/files/upload/${key}?${params}`,
      access_url: `${config.publicOrigin}/files/${key}`,
      key,
      expires_at: new Date(expires * 1000).toISOString(),
    });
  });
}

/** The PUT's key and body, once its signature, expiry, headers and content are checked. */
async function verifiedUpload(db: Db, config: UpstreamConfig, req: FastifyRequest) {
  const key = (req.params as { '*': string })['*'];
  const { expires, sig } = req.query as { expires?: string; sig?: string };
  const { rows } = await db.query<{ content_type: string; used_at: Date | null }>('select content_type, used_at from uploads where key = $1', [key]);
  const upload = rows[0];
  const expected = upload && expires ? Buffer.from(hmac(config.jwtSecret, key, upload.content_type, expires)) : null;
  const given = Buffer.from(sig ?? '');
  if (!KEY.test(key) || !upload || !expected || expected.length !== given.length || !timingSafeEqual(expected, given)) throw new ApiError(403, 'invalid_signature');
  if (Number(expires) * 1000 < Date.now() || upload.used_at) throw new ApiError(403, 'invalid_signature');
  if (req.headers['content-type'] !== upload.content_type) throw new ApiError(415, 'invalid_upload');
  if (req.headers['x-amz-acl'] !== 'public-read') throw new ApiError(403, 'invalid_signature', 'The public-read access header is required.');
  const body = req.body as Buffer;
  if (!Buffer.isBuffer(body) || body.length === 0) throw new ApiError(400, 'invalid_upload');
  if (!magicMatches(body, upload.content_type)) throw new ApiError(415, 'invalid_upload');
  return { key, body };
}

/** PUT files/upload/…: stores the file of a signed address, once. */
function registerFileStore(app: FastifyInstance, db: Db, config: UpstreamConfig, root: string) {
  app.put('/files/upload/*', { bodyLimit: config.maxUploadBytes }, async (req, reply) => {
    const { key, body } = await verifiedUpload(db, config, req);
    // The address is used up here, in one statement: of two PUTs racing with it, exactly one gets the row.
    await db.transaction(async (tx) => {
      const { rows: claimed } = await tx.query<{ created_by: number | null }>(
        'update uploads set used_at = now(), size = $2 where key = $1 and used_at is null returning created_by',
        [key, body.length],
      );
      if (!claimed[0]) throw new ApiError(403, 'invalid_signature');
      if (claimed[0].created_by !== null) await checkQuota(tx, config, Number(claimed[0].created_by), 'store');
    });
    const path = join(root, key);
    try {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, body);
    } catch (error) {
      // Storage failed: the address may be tried again.
      await db.query('update uploads set used_at = null, size = null where key = $1', [key]);
      throw error;
    }
    await db.query('update uploads set uploaded_at = now() where key = $1', [key]);
    return ok(reply, { key, size: body.length });
  });
}

/** GET files/…: an uploaded file, publicly. */
function registerFileServe(app: FastifyInstance, db: Db, root: string) {
  app.get('/files/*', async (req, reply) => {
    const key = (req.params as { '*': string })['*'];
    if (!KEY.test(key)) throw new ApiError(404, 'not_found');
    const { rows } = await db.query<{ content_type: string }>('select content_type from uploads where key = $1 and uploaded_at is not null', [key]);
    const path = join(root, key);
    if (!rows[0] || !path.startsWith(root + '/')) throw new ApiError(404, 'not_found');
    const info = await stat(path).catch(() => null);
    if (!info) throw new ApiError(404, 'not_found');
    reply
      .header('content-type', rows[0].content_type === 'image/jpg' ? 'image/jpeg' : rows[0].content_type)
      .header('content-length', info.size)
      .header('x-content-type-options', 'nosniff')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('cache-control', 'private, max-age=31536000, immutable');
    return reply.send(createReadStream(path));
  });
}

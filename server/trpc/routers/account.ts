import { z } from 'zod';
import { changeEmailInput, profileSchema, profileUpdateInput } from '../../../shared/schemas/auth.ts';
import { mayUpload, uploadSignInput } from '../../../shared/schemas/uploads.ts';
import { rolesOf } from '../../../shared/route-table.ts';
import { UpstreamError } from '../../upstream/client.ts';
import { requireRoles, roleProcedure, router } from '../init.ts';

const profileProcedure = roleProcedure(...rolesOf('/profile'));

function parseProfile(raw: unknown) {
  const parsed = profileSchema.safeParse(raw);
  if (!parsed.success) throw new UpstreamError(502, 'unexpected_response', 'Unexpected server response');
  return parsed.data;
}

export const accountRouter = router({
  get: profileProcedure.query(async ({ ctx }) => parseProfile(await ctx.session.call({ method: 'GET', path: 'account/', lang: ctx.lang }))),
  update: profileProcedure.input(profileUpdateInput).mutation(async ({ ctx, input }) => {
    const profile = parseProfile(await ctx.session.call({ method: 'PUT', path: 'account/', body: input, lang: ctx.lang }));
    ctx.profiles.forget(profile.id);
    return profile;
  }),
  /** Mails a confirmation link to the new address; the address changes when it is opened. */
  changeEmail: profileProcedure
    .input(changeEmailInput)
    .mutation(async ({ ctx, input }) => parseProfile(await ctx.session.call({ method: 'POST', path: 'account/change-email', body: input, lang: ctx.lang }))),
});

export interface SignedUpload {
  url: string;
  accessUrl: string;
}

export const uploadRouter = router({
  /** The browser reports a failed PUT: the user sees nothing (§8), operations see it in the log. */
  reportFailure: roleProcedure()
    .input(uploadSignInput.pick({ kind: true }).extend({ status: z.number().int().min(0).max(999), reason: z.string().max(200) }))
    .mutation(({ ctx, input }) => {
      ctx.log.warn({ upload: input }, 'upload failed in the browser');
      return { logged: true as const };
    }),
  /** A short-lived signed PUT address for one image (spec §7 upload/). */
  sign: roleProcedure()
    .input(uploadSignInput)
    .mutation(async ({ ctx, input }): Promise<SignedUpload> => {
      await requireRoles(ctx, (roles) => mayUpload(roles, input.kind));
      const data = await ctx.session.call<{ url?: unknown; access_url?: unknown }>({
        method: 'GET',
        path: 'upload/',
        query: { kind: input.kind, content_type: input.contentType },
        lang: ctx.lang,
      });
      if (typeof data.url !== 'string' || typeof data.access_url !== 'string') {
        throw new UpstreamError(502, 'unexpected_response', 'Unexpected server response');
      }
      return { url: data.url, accessUrl: data.access_url };
    }),
});

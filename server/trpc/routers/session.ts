import { profileSchema, type Profile } from '../../../shared/schemas/auth.ts';
import type { Role } from '../../../shared/roles.ts';
import { UpstreamError } from '../../upstream/client.ts';
import { SessionExpiredError } from '../../session/request-session.ts';
import { publicProcedure, router } from '../init.ts';

export interface SessionView {
  authenticated: boolean;
  roles: Role[];
  expired: boolean;
  user: Pick<Profile, 'id' | 'email' | 'first_name' | 'last_name' | 'profile_image' | 'language'> | null;
}

/** What the shell needs: who is signed in and with which roles. Never carries tokens. */
export const sessionRouter = router({
  me: publicProcedure.query(async ({ ctx }): Promise<SessionView> => {
    const anonymous: SessionView = { authenticated: false, roles: [], expired: false, user: null };
    if (!ctx.session.isAuthenticated()) return anonymous;
    try {
      await ctx.session.ensureFresh();
      const raw = await ctx.session.call<unknown>({ method: 'GET', path: 'account/', lang: ctx.lang });
      const parsed = profileSchema.safeParse(raw);
      if (!parsed.success) throw new UpstreamError(502, 'unexpected_response', 'Unexpected server response');
      const info = ctx.session.info();
      const { id, email, first_name, last_name, profile_image, language } = parsed.data;
      return {
        authenticated: true,
        roles: info?.roles ?? [],
        expired: info?.expired ?? false,
        user: { id, email, first_name, last_name, profile_image, language },
      };
    } catch (error) {
      if (error instanceof SessionExpiredError) {
        ctx.session.clear();
        return anonymous;
      }
      throw error;
    }
  }),
});

import { profileSchema, type SessionUser } from '../../../shared/schemas/auth.ts';
import type { Role } from '../../../shared/roles.ts';
import { UpstreamError } from '../../upstream/client.ts';
import { SessionExpiredError } from '../../session/request-session.ts';
import { publicProcedure, router } from '../init.ts';

export interface SessionView {
  authenticated: boolean;
  roles: Role[];
  expired: boolean;
  user: SessionUser | null;
}

/**
 * What the shell needs: who is signed in and with which roles. Never carries tokens. The roles come from
 * the token; the name and avatar from the API's profile, kept a short while per token (ctx.profiles) since
 * every page asks for them (ADR 024).
 */
export const sessionRouter = router({
  me: publicProcedure.query(async ({ ctx }): Promise<SessionView> => {
    const anonymous: SessionView = { authenticated: false, roles: [], expired: false, user: null };
    if (!ctx.session.isAuthenticated()) return anonymous;
    try {
      await ctx.session.ensureFresh();
      const token = ctx.session.accessToken();
      let user = token ? ctx.profiles.get(token) : undefined;
      if (!user) {
        const raw = await ctx.session.call<unknown>({ method: 'GET', path: 'account/', lang: ctx.lang });
        const parsed = profileSchema.safeParse(raw);
        if (!parsed.success) throw new UpstreamError(502, 'unexpected_response', 'Unexpected server response');
        const { id, email, first_name, last_name, profile_image, language } = parsed.data;
        user = { id, email, first_name, last_name, profile_image, language };
        // The token the call ended with (a 401 on the way refreshes it).
        const current = ctx.session.accessToken();
        if (current) ctx.profiles.set(current, String(id), user);
      }
      const info = ctx.session.info();
      return { authenticated: true, roles: info?.roles ?? [], expired: info?.expired ?? false, user };
    } catch (error) {
      if (error instanceof SessionExpiredError) {
        ctx.session.clear();
        return anonymous;
      }
      throw error;
    }
  }),
});

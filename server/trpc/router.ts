import { router } from './init.ts';
import { accountRouter, uploadRouter } from './routers/account.ts';
import { authRouter } from './routers/auth.ts';
import { entityRouters } from './routers/entities.ts';
import { sessionRouter } from './routers/session.ts';

export const appRouter = router({
  auth: authRouter,
  session: sessionRouter,
  account: accountRouter,
  upload: uploadRouter,
  ...entityRouters,
});

export type AppRouter = typeof appRouter;

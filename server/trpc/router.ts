import { router } from './init.ts';
import { accountRouter, uploadRouter } from './routers/account.ts';
import { authRouter } from './routers/auth.ts';
import { entityRouters } from './entity-router.ts';
import { sessionRouter } from './routers/session.ts';
import { dashboardRouter } from './routers/dashboard.ts';
import { geoRouter } from './routers/geo.ts';
import { dispatchRouter } from './routers/dispatch.ts';
import { auditRouter } from './routers/audit.ts';
import { securityRouter } from './routers/security.ts';

export const appRouter = router({
  auth: authRouter,
  session: sessionRouter,
  account: accountRouter,
  upload: uploadRouter,
  ...entityRouters,
  dashboard: dashboardRouter,
  geo: geoRouter,
  dispatch: dispatchRouter,
  audit: auditRouter,
  security: securityRouter,
});

export type AppRouter = typeof appRouter;

# syntax=docker/dockerfile:1
# Debian 13 (trixie): its postgresql-client is 17, the major version of the PostgreSQL the deployments run
# (pg_dump must be as new as the server it dumps, ADR 057).
FROM node:24-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-trixie-slim AS runtime
# pg_dump and pg_restore for `npm run backup` / `npm run restore` (the nightly backup job, ADR 057).
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-client && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
# The reference API and its migrations run from source on Node 24 (`node upstream/main.ts`,
# `node scripts/migrate.ts`, `node scripts/audit-verify.ts`, `node scripts/backup.ts`): the same image is the back office, the API, the
# migration job and the backup job (deploy/, ADR 039, 057).
COPY --from=build --chown=node:node /app/upstream ./upstream
COPY --from=build --chown=node:node /app/shared ./shared
# The API's list searches read the seeded catalogue names' translations from the locales (ADR 078, issue 33).
COPY --from=build --chown=node:node /app/locales ./locales
COPY --from=build --chown=node:node /app/scripts/migrate.ts /app/scripts/audit-verify.ts /app/scripts/backup.ts /app/scripts/restore.ts ./scripts/
# Mount points of the uploads and backups volumes: a new named volume takes this ownership.
RUN mkdir -p /app/data /var/lib/bike/uploads /var/lib/bike/backups /var/lib/bike/audit && chown node:node /app/data /var/lib/bike/uploads /var/lib/bike/backups /var/lib/bike/audit
USER node
# The in-process API listens on 127.0.0.1 only; its files are served on 3000 (ADR 029).
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "dist/server/main.js"]

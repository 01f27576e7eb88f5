# mcp-drift as a service. Build: `docker build -t mcp-drift .`; the stack (PostgreSQL, a mail
# server and the service) is in docker-compose.yml.
#
# Three stages: `build` bundles the program (scripts/build.mjs, esbuild) with every
# dependency; `deps` installs the production dependencies alone (PGlite, which the bundle
# loads from node_modules); the final image gets those and the bundle, nothing else.
# package.json's `prepare` script runs the build, so installs skip scripts; no dependency
# needs one (PGlite is WebAssembly, the rest is plain JavaScript). CI replays these
# stages without an engine: `node scripts/replay-dockerfile.mjs`.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
# What the build reads: the build script, the sources, and tsconfig.json (the console's JSX).
COPY scripts/build.mjs ./scripts/
COPY tsconfig.json ./
COPY src ./src
RUN npm run build

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

FROM node:20-bookworm-slim
# HTTP_HOST: the health and metrics endpoint must be reachable from outside the container
# (the program's own default is loopback only). MCP_DRIFT_HOME holds the embedded database
# when DATABASE_URL is unset, and the .eml outbox when SMTP_URL is.
ENV NODE_ENV=production \
    HTTP_HOST=0.0.0.0 \
    HTTP_PORT=8464 \
    MCP_DRIFT_HOME=/var/lib/mcp-drift
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Migrations and the console's stylesheet and script are read at run time, from next to
# dist/ (src/db/migrate.ts, src/console/console-app.tsx).
COPY drizzle ./drizzle
COPY console-assets ./console-assets
COPY package.json ./
RUN chmod +x dist/cli/main.js \
    && ln -s /app/dist/cli/main.js /usr/local/bin/mcp-drift \
    && mkdir -p /var/lib/mcp-drift \
    && chown node:node /var/lib/mcp-drift
# The image's unprivileged user; it owns nothing under /app, so the code cannot be changed.
USER node
EXPOSE 8464
# Liveness only: readiness (/readyz) depends on the database, and an orchestrator should not
# restart the service because PostgreSQL is down. No curl in the slim image: node fetches.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.HTTP_PORT}/healthz`, { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["mcp-drift"]
CMD ["serve"]

# syntax=docker/dockerfile:1.20
# Quad's production image (README "Deploy with Docker"): the built JavaScript of the core and of every workspace
# package, production dependencies only, run by the unprivileged `node` user. One image serves every process:
# `run --role api` (the default command), `run --role worker` and `migrate`, as compose.yaml runs them.
# test/deploy/ lints this file and runs its commands (test/deploy/image.test.ts follows the last stage step by step).

# The Node.js release the image builds and runs on: the one package.json pins as its `node` dev dependency, which CI
# and `npm test` run (test/deploy/files.test.ts checks they match). Raise both together for Node's security releases.
ARG NODE_VERSION=24.21.0

# Every workspace's package.json and the lockfile, alone (the paths follow package.json's "workspaces"): the install
# layers below are built again only when one of them changes.
FROM scratch AS manifests
COPY --parents package.json package-lock.json core/package.json core/web/package.json plugins/*/package.json \
  plugins/pods/cli/package.json plugins/submodules/*/package.json examples/*/package.json /

# Build: every dependency, then `npm run build` (scripts/build.mjs): each package's dist/ with its SQL migrations and
# page bundles beside, and the dashboard. No install script runs: the build needs none (test/deploy/files.test.ts
# keeps the list of the packages that have one, and why each may be skipped).
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY --from=manifests / ./
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build

# Runtime: production dependencies and built files, no sources and no build tools. Without install scripts the
# embedded PostgreSQL's binaries cannot run: the image always needs DATABASE_URL.
FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=manifests / ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY config ./config
COPY migrations ./migrations
COPY --from=build --parents /app/./core/bin /app/./core/dist /app/./core/web/dist /app/./plugins/*/dist /app/./plugins/pods/cli/dist \
  /app/./plugins/submodules/*/dist /app/./examples/*/dist ./
# DATA_DIR (./data): the JWT key pair and the session key, the only files Quad writes; a volume in compose.yaml.
RUN install -d -o node -g node /app/data
USER node
# The API (PORT) and the MCP tool server (TOOL_PORT).
EXPOSE 8000 8001
# Liveness of the API process (GET /health/live). The worker serves no HTTP: compose.yaml turns this off for it.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --start-interval=2s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8000) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# `quad`, as `npx quad` runs it once built: `docker compose run --rm api org list` runs `quad org list`.
ENTRYPOINT ["node", "--conditions=production", "--enable-source-maps", "core/dist/cli.js"]
CMD ["run", "--role", "api"]

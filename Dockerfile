# One image for the four CA Manager services (and the embedded all-in-one app).
#
#   docker build --build-arg APP=gateway -t ca-manager-gateway .
#
# APP picks the service: gateway | issuance | revocation | ocsp-responder (or embedded).
# It is baked in as a default and can be overridden at run time (`-e APP=...`), so one image
# tag can serve every Deployment (deploy/base does exactly that).
#
# TypeScript runs through SWC's require hook (@swc-node/register, a runtime dependency):
# there is no emitted JavaScript. The `build` stage only type-checks; the runtime stage copies
# its sources from that stage so a type error fails the image build.

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS base
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

# Production dependencies only. typescript stays: @swc-node/register needs it (peer
# dependency) to read tsconfig.json at start-up.
FROM base AS deps
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

# Full install and type-check of every project.
FROM base AS build
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
ENV NX_DAEMON=false \
    NX_NO_CLOUD=true \
    NX_TUI=false \
    CI=true
RUN npx nx run-many -t build

FROM base AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    DATA_DIR=/data \
    NPM_CONFIG_CACHE=/tmp/.npm
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/package.json /app/tsconfig.json /app/tsconfig.base.json ./
COPY --from=build /app/libs ./libs
COPY --from=build /app/apps ./apps
# tools/ makes `npm run token` and `npm run ops` usable inside a running container.
COPY --from=build /app/tools ./tools
COPY deploy/docker/entrypoint.sh /usr/local/bin/ca-manager-entrypoint
# Code stays owned by root (read-only for the service); only DATA_DIR and /tmp are written.
# /tmp also holds @swc-node/register's transform cache.
RUN mkdir -p /data && chown node:node /data
USER node
# gateway 3000, ocsp-responder 3001, issuance health 3002, revocation health 3003
EXPOSE 3000 3001 3002 3003

# Declared last so the four builds share every layer above.
ARG APP=""
ENV APP=${APP}

# The entry script execs node, so node is PID 1 and receives SIGTERM directly.
ENTRYPOINT ["/bin/sh", "/usr/local/bin/ca-manager-entrypoint"]

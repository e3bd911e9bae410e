# syntax=docker/dockerfile:1
# statusbot's container image: `podman build -t statusbot .` (or docker build).
# Every stage starts from NODE_IMAGE, so one build argument swaps the Node.js base.
ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: compile the TypeScript, then keep only the runtime dependencies ---
FROM ${NODE_IMAGE} AS build
# better-sqlite3 compiles SQLite where no prebuilt binary can be fetched: a C++
# toolchain and Python for node-gyp, in this stage only.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /build
ENV SCARF_ANALYTICS=false \
    npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
COPY package.json package-lock.json ./
# Install scripts are skipped (no `prepare` build before the sources are here), then
# the one native package is built. node-gyp compiles against the base's own Node.js
# headers when it has them, rather than downloading them.
RUN npm ci --ignore-scripts \
 && if [ -d /usr/local/include/node ]; then export npm_config_nodedir=/usr/local; \
    elif [ -d /usr/include/node ]; then export npm_config_nodedir=/usr; fi \
 && npm rebuild better-sqlite3 \
 && node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY migrations migrations
COPY adapters adapters
# The build records REVISION, the commit, for `statusbot --version` (the image has no .git).
ARG REVISION=unknown
# tsconfig.build.json also names bench/, which the image leaves out.
# Of better-sqlite3 the server loads its .node file and lib/: SQLite's sources
# and the compiler's intermediate files are build leftovers. Source maps go too,
# but for swagger-ui-dist's: /api/docs serves them.
RUN STATUSBOT_BUILD_COMMIT="${REVISION}" npm run build \
 && npm prune --omit=dev --ignore-scripts \
 && cd node_modules/better-sqlite3 \
 && find build -mindepth 1 -maxdepth 1 ! -name Release -exec rm -rf {} + \
 && find build/Release -mindepth 1 ! -name better_sqlite3.node -exec rm -rf {} + \
 && rm -rf deps src \
 && cd /build \
 && find node_modules -name '*.map' -type f ! -path 'node_modules/swagger-ui-dist/*' -delete \
 && find dist -name '*.map' -type f -delete

# --- runtime ---
FROM ${NODE_IMAGE}
ARG VERSION=0.0.0-dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="statusbot" \
      org.opencontainers.image.description="Self-hosted incident and status service with a chat-ops front and an HTTP API (/api/v2)." \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
# uid 10001: an id of its own, not the base's `node` user (1000), which a host may map to a person.
RUN groupadd --system --gid 10001 statusbot \
 && useradd --system --uid 10001 --gid 10001 --home-dir /data --no-create-home --shell /usr/sbin/nologin statusbot \
 && mkdir -p /data /etc/statusbot \
 && chown 10001:10001 /data && chmod 0750 /data
WORKDIR /app
COPY --from=build /build/package.json ./package.json
COPY --from=build /build/node_modules ./node_modules
COPY --from=build /build/dist ./dist
COPY examples ./examples
# `statusbot ARGS` in the container (podman exec NAME statusbot key create …) runs
# as the entrypoint does: with the mounted config, on /data.
COPY deploy/container/entrypoint.sh /usr/local/bin/statusbot
# Everything statusbot writes is the SQLite database under /data: the root file
# system may be read-only. STATUSBOT_DB may name a postgres:// URL instead.
ENV NODE_ENV=production \
    STATUSBOT_DB=/data/statusbot.db
VOLUME /data
EXPOSE 8080
USER 10001:10001
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/local/bin/statusbot"]
CMD ["serve"]

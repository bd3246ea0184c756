# syntax=docker/dockerfile:1
# kgrag's server image: `kgrag serve` (the HTTP API, OpenAI-compatible chat, MCP and the web explorer), `kgrag worker`
# and `kgrag migrate` from one image. Build: docker build -t kgrag .   Run: see compose.yaml and README "Deploying".

# Build: install every dependency, build dist/ (the library, the CLI and the explorer), pack the package, and install
# the package with its production dependencies only, as a user's `npm install kgrag` would.
FROM node:20-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY scripts ./scripts
COPY src ./src
COPY web ./web
COPY examples ./examples
COPY README.md LICENSE ./
# `npm ci` runs `prepare`, which builds dist/.
RUN npm ci --no-audit --no-fund \
 && npm pack --ignore-scripts --pack-destination /tmp
WORKDIR /app
RUN echo '{"name":"kgrag-app","private":true,"type":"module"}' > package.json \
 && npm install --omit=dev --no-audit --no-fund /tmp/kgrag-*.tgz \
 && npm cache clean --force

# Run: the installed package and Node, as the unprivileged `node` user; no compiler, no sources, no dev dependencies.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    KGRAG_SERVER_HOST=0.0.0.0 \
    KGRAG_SERVER_PORT=8080
COPY --from=build --chown=node:node /app /app
RUN mkdir /data && chown node:node /data
USER node
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/node_modules/kgrag/bin/kgrag.js", "-w", "/data"]
CMD ["serve"]

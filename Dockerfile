# Clinic back end: a multi-stage image. Build: docker build -t clinic-backend .
# Run (embedded engine, data in a volume): docker run -p 3030:3030 -e AUTH_SECRET="$(openssl rand -base64 48)"
#   -e PROCESSOR=stripe -e STRIPE_SECRET_KEY=sk_live_... -e GATEWAYS='[]' -v clinic-data:/data clinic-backend
# (production refuses sandbox payments unless ALLOW_SANDBOX_PAYMENTS=true, and a weak AUTH_SECRET: docs/deployment.md)

# 1. Build with the dev dependencies (no install scripts: none is needed, and none phones home).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY console ./console
COPY scripts ./scripts
COPY public ./public
# TypeScript to lib/, and the browser console to public/console.js.
RUN npm run build

# 2. The runtime: production dependencies only (no TypeScript, no build step at start), compiled JavaScript, config
#    and public files; runs as `node`.
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3030 \
    DATA_DIR=/data \
    SHUTDOWN_GRACE_MS=10000
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/lib ./lib
COPY config ./config
COPY --from=build /app/public ./public
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3030
# Ready = store reachable, indexes built, start-up recovery done, not shutting down (GET /health/ready).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3030) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself is PID 1's child of nothing: SIGTERM reaches it and it drains within SHUTDOWN_GRACE_MS.
STOPSIGNAL SIGTERM
CMD ["node", "lib/index.js"]

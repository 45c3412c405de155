# syntax=docker/dockerfile:1
# Multi-stage build: the first stage installs everything and type-checks; the runtime stage holds
# production dependencies only (tsx runs the TypeScript sources directly, so there is no emit step).
# Debian 13 (trixie), not 12 (bookworm): uWebSockets.js 20.57's Node 24 binary needs glibc 2.38+
# (README, Dependencies); bookworm has 2.36 and the simulator would refuse to start there.

FROM node:24-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json vitest.config.ts ./
COPY src ./src
COPY strategies ./strategies
COPY config ./config
COPY bench ./bench
COPY test ./test
COPY scripts ./scripts
RUN npm run typecheck

FROM node:24-trixie-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/src ./src
COPY --from=build /app/strategies ./strategies
COPY --from=build /app/config ./config
COPY --from=build /app/tsconfig.json ./tsconfig.json
# var/ holds the simulator's generated demo keys and the OMS journal; owned by the unprivileged user.
RUN mkdir -p /app/var && chown -R node:node /app/var
USER node
CMD ["npm", "start"]

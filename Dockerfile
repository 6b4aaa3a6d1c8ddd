# One image for the worker, the simulator and the starter CLI (docker-compose.yml picks the command).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY test ./test
COPY scripts ./scripts
# No `npm prune --omit=dev`: the Temporal SDK is a peer of the package, installed here as a dev dependency, and the
# worker needs it (test/compose/compose.test.ts checks this).
RUN npx tsc -p tsconfig.build.json && node scripts/bundle-workflows.mjs

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/workflow-bundle.js /app/dist/workflow-bundle-otel.js ./dist/
# The mount points of docker-compose.yml's named volumes (and the defaults of DATAOPS_BLOB_DIR and DATAOPS_EXPORT_DIR),
# owned by the user the image runs as: a new named volume copies this ownership, so the worker can write to it.
RUN mkdir -p /shared/blobs /shared/exports /data /app/.dataops/blobs /app/.dataops/exports \
 && chown -R node:node /shared /data /app/.dataops
USER node
CMD ["node", "dist/src/worker.js"]

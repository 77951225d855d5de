// The Dockerfile and .dockerignore that `gantry new --transport http` writes (docs/deploy.md
// shows the same file). Instructions per https://docs.docker.com/reference/dockerfile/.

/** What the Dockerfile depends on in the project. */
export interface DockerfileOptions {
  /**
   * The project depends on `@gantry/*` tarballs in `vendor/` (a project made from a Gantry
   * checkout): both stages need them before `npm ci`.
   */
  vendor: boolean;
}

/** The port the image serves on; `src/main.ts` reads it from `PORT`. */
export const DOCKER_PORT = 3000;

/**
 * A multi-stage Dockerfile: `build` installs every dependency and compiles `src/` to `dist/`;
 * the runtime stage installs the production dependencies only, copies `dist/` from `build`, and
 * runs as the image's unprivileged `node` user. `npm ci` needs `package-lock.json`, which the
 * first `npm install` writes. `src/main.ts` reads `HOST` and `PORT`: the image sets
 * `HOST=0.0.0.0` so the server is reachable from outside the container. The health check probes
 * `GET /healthz` (served by `http()`) with Node's own `fetch`, as `node:20-slim` has no curl.
 */
export function dockerfile(options: DockerfileOptions): string {
  const vendor = options.vendor
    ? ['# The @gantry/* tarballs package.json refers to.', 'COPY vendor ./vendor']
    : [];
  return [
    '# syntax=docker/dockerfile:1',
    '# Build stage: every dependency, then TypeScript compiled to dist/.',
    'FROM node:20-slim AS build',
    'WORKDIR /app',
    '# package-lock.json is written by the first `npm install`; `npm ci` installs exactly it.',
    'COPY package*.json ./',
    ...vendor,
    'RUN npm ci',
    'COPY tsconfig.json ./',
    'COPY src ./src',
    'RUN npm run build',
    '',
    '# Runtime stage: production dependencies and the compiled server only.',
    'FROM node:20-slim AS runtime',
    'ENV NODE_ENV=production',
    'WORKDIR /app',
    'COPY package*.json ./',
    ...vendor,
    'RUN npm ci --omit=dev && npm cache clean --force',
    'COPY --from=build /app/dist ./dist',
    '# src/main.ts listens on HOST:PORT; every interface, so that the port can be published.',
    `ENV HOST=0.0.0.0 PORT=${DOCKER_PORT}`,
    '# The unprivileged user of the node images.',
    'USER node',
    `EXPOSE ${DOCKER_PORT}`,
    'HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \\',
    `  CMD node -e "fetch('http://127.0.0.1:${DOCKER_PORT}/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"`,
    '# What `docker stop` sends: the server drains and exits.',
    'STOPSIGNAL SIGTERM',
    'CMD ["node", "dist/main.js"]',
    '',
  ].join('\n');
}

/**
 * Keeps the build context small and the image free of what the host built or installed: the
 * stages install and compile for themselves.
 */
export const DOCKERIGNORE = [
  'node_modules',
  'dist',
  '.git',
  'coverage',
  '*.log',
  '.env',
  '.env.*',
  'Dockerfile',
  '.dockerignore',
  '',
].join('\n');

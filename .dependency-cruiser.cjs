/**
 * Layer rules of ../shared/ARCHITECTURE.md, checked by `npm test` (scripts/test.sh) and
 * `npm run lint:deps`. Test files are outside the rules: they may assemble anything.
 */
const tests = '\\.spec\\.ts$|(^|/)test/|\\.contract\\.ts$|/decider-spec\\.ts$';

/**
 * The packages from the bottom up. A package imports only packages of a lower tier, so there is no
 * cycle between packages (a file-level cycle check misses one that runs through different files of
 * each, as libs/runtime -> sagas -> libs/runtime did). A new lib gets a tier here.
 */
const TIERS = [
  ['libs/domain', 'libs/config'],
  // What use cases fail with (the closed error union): the domain's codes and the application's.
  ['libs/application'],
  ['libs/eventstore', 'libs/readstore'],
  ['libs/subscriptions', 'libs/providers', 'libs/http', 'libs/payments'],
  ['libs/messaging'],
  ['libs/runtime'],
  ['projections'],
  // The use cases (command and query handlers apart from any transport): HTTP, timers, sagas and the CLI call them.
  ['usecases'],
  ['sagas'],
  // The composition root: the context modules and the registrations list the apps are built from.
  ['contexts'],
];
const packageOrder = TIERS.flatMap((tier, rank) =>
  tier.map((pkg) => ({
    name: `package-order:${pkg}`,
    severity: 'error',
    comment: `${pkg} imports only packages below its tier (TIERS in .dependency-cruiser.cjs).`,
    from: { path: `^${pkg}/`, pathNot: tests },
    to: { path: `^(${TIERS.slice(rank).flat().filter((p) => p !== pkg).join('|')}|apps)/` },
  })),
);

module.exports = {
  forbidden: [
    ...packageOrder,
    {
      name: 'libs-not-composition-sagas-projections',
      severity: 'error',
      comment: 'The libraries are what sagas and projections stand on; the runtime is handed the context modules (Platform.open), it never imports them.',
      from: { path: '^libs/', pathNot: tests },
      to: { path: '^(contexts|sagas|projections)/' },
    },
    {
      name: 'context-modules-only-wire',
      severity: 'error',
      comment:
        'A context module declares and wires: what does work (commands, queries, I/O, ids) lives beside its saga or projection. So no package or builtin, and of the infrastructure libs only types.',
      from: { path: '^contexts/', pathNot: tests },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'core', 'local'],
        path: '^(libs/(eventstore|readstore|subscriptions|messaging|http|payments)/)|(^|/)node_modules/|^node:|^[a-z_][a-z0-9_.-]*$',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'console-calls-only-the-public-api',
      severity: 'error',
      comment: 'The web console (apps/console) is a browser bundle that proves the public HTTP API is enough: it imports no other app, lib or package of the server, only its own files and browser packages.',
      from: { path: '^apps/console/' },
      to: { path: '^(apps/(?!console/)|libs|contexts|projections|sagas|usecases|test)/|^node:|^(fs|path|crypto|http|https|net|os|child_process)$' },
    },
    { name: 'no-cycles', severity: 'error', comment: 'An import cycle makes load order matter and layers meaningless.', from: {}, to: { circular: true } },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'libs/domain is plain TypeScript: no framework, no I/O, no app or infrastructure code.',
      from: { path: '^libs/domain/', pathNot: tests },
      to: {
        pathNot: '^libs/domain/',
        dependencyTypes: ['local'],
      },
    },
    {
      name: 'domain-no-node-builtins-or-packages',
      severity: 'error',
      comment:
        'No I/O, clock or framework package in the domain. Allowed: zod (schemas), uuid (only deterministic v5 ids are pure; v4/v7 ids come in with commands), node:crypto (hashes of key material), ipaddr.js (address parsing) and yaml (kubeconfig documents): pure computations.',
      from: { path: '^libs/domain/', pathNot: tests },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'core'], pathNot: '^(crypto|node:crypto)$|(^|/)node_modules/(zod|uuid|ipaddr\\.js|yaml)/' },
    },
    {
      name: 'usecases-transport-free',
      severity: 'error',
      comment: 'A use case is called by HTTP, the gateway, the event streams, timers and the CLI alike: it knows no HTTP (libs/http, Fastify, the Nest HTTP platform) and no app.',
      from: { path: '^usecases/', pathNot: `${tests}|^usecases/inject-ports\\.ts$` },
      to: { path: '^(apps|libs/http)/|(^|/)node_modules/(fastify|@fastify|@nestjs/(common|core|platform-[^/]+))/' },
    },
    {
      name: 'no-handlers-in-apps',
      severity: 'error',
      comment:
        'Command and query handlers are use cases (usecases/<context>); an app calls them through the buses and declares none. @nestjs/cqrs, whose @CommandHandler/@QueryHandler make a handler, is reached by an app only in its root module (CqrsModule) and common/bus-controller.ts (the buses, re-exported for controllers that inject them).',
      from: { path: '^apps/', pathNot: `${tests}|^apps/api/src/(app\\.module|common/bus-controller)\\.ts$` },
      to: { path: '(^|/)node_modules/@nestjs/cqrs/' },
    },
    {
      name: 'application-is-transport-free',
      severity: 'error',
      comment:
        'libs/application (what use cases fail with, and later the use cases themselves) knows no transport: it may build on the domain, never on libs/http, the runtime, an app or any package.',
      from: { path: '^libs/application/', pathNot: tests },
      to: { pathNot: '^libs/(application|domain)/', dependencyTypes: ['local', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'core'] },
    },
    {
      name: 'use-cases-throw-application-errors',
      severity: 'error',
      comment:
        'Handlers, route hooks, sagas and the runtime fail with AppError (libs/application); ApiError and its helpers are the HTTP edge\'s own (auth, limits, idempotency, parsing), mapped from AppError in one place.',
      from: { path: '^(apps|sagas|projections|usecases|libs/runtime)/', pathNot: tests },
      to: { path: '^libs/http/src/errors\\.ts$' },
    },
    {
      name: 'client-stands-alone',
      severity: 'error',
      comment: 'clients/typescript is a package of its own: it speaks to the API over HTTP only, never through its code.',
      from: { path: '^clients/', pathNot: tests },
      to: { path: '^(apps|contexts|libs|projections|sagas|usecases|test)/' },
    },
    { name: 'projections-not-apps', severity: 'error', from: { path: '^projections/' }, to: { path: '^apps/' } },
    { name: 'sagas-not-apps', severity: 'error', from: { path: '^sagas/' }, to: { path: '^apps/' } },
    { name: 'libs-not-apps', severity: 'error', comment: 'Libraries serve the apps, never the reverse.', from: { path: '^libs/' }, to: { path: '^apps/' } },
    {
      name: 'no-app-imports-another-app',
      severity: 'error',
      comment: 'apps/launcher alone composes apps (the API and the gateway in one process for `npm start`).',
      from: { path: '^apps/([^/]+)/', pathNot: '^apps/launcher/' },
      to: { path: '^apps/([^/]+)/', pathNot: '^apps/$1/' },
    },
    {
      name: 'runtime-not-http-surface',
      severity: 'error',
      comment: 'The runtime runs the log; it does not know NestJS or Fastify.',
      from: { path: '^(libs/runtime|projections|sagas|contexts)/' },
      to: { path: '(^|/)node_modules/(@nestjs|fastify)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|bench)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};

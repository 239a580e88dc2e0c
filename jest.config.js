/** Every suite runs against real engines started by scripts/engines.sh (see README). */
module.exports = {
  testEnvironment: 'node',
  // Transpile only: `npm run typecheck` (tsc) is the type gate; tests should not pay for it twice.
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.jest.json', diagnostics: false }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testMatch: ['<rootDir>/{apps,clients,contexts,libs,projections,sagas,test,usecases}/**/*.spec.ts'],
  testTimeout: 60000,
  slowTestThreshold: 30,
  // Drivers (pg, kafkajs, ioredis) may keep sockets for a moment after close(); never let that hang CI.
  forceExit: true,
  // PGLITE_TEMPLATE for every worker: embedded stores start from one initialized cluster.
  globalSetup: '<rootDir>/test/global-setup.mjs',
  // A net, not the fix: a worker whose heap is still above this after a test file is replaced before
  // the next. A leak grows a worker's heap file after file (each file loads the whole app again), and
  // near V8's limit every start crawls under GC until hooks time out; see enableDefaultMetrics.
  workerIdleMemoryLimit: '1536MB',
};

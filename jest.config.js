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
};

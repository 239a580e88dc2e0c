/** Every suite runs against real engines started by scripts/engines.sh (see README). */
const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022', keepClassNames: true } }];
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testMatch: ['<rootDir>/{apps,libs,projections,sagas,test}/**/*.spec.ts'],
  testTimeout: 60000,
  slowTestThreshold: 30,
  // Drivers (pg, kafkajs, ioredis) may keep sockets for a moment after close(); never let that hang CI.
  forceExit: true,
};

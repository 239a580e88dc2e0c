import { ManualClock } from './clock';

/**
 * The clock of a process a test spawned (test/support/spawn-server.ts), which the test moves instead
 * of waiting: only under NODE_ENV=test with TEST_CLOCK_OFFSET_MS set and an IPC channel to the parent
 * process, none of which a deployed process has; otherwise undefined (the system clock). It starts at
 * real time plus that offset (a restarted process resumes the time its test had moved to), and each
 * `{ advanceClockMs }` message moves it forward, answered `{ clockAdvancedMs }` once done.
 */
export function testClock(env: NodeJS.ProcessEnv = process.env): ManualClock | undefined {
  const offset = env.TEST_CLOCK_OFFSET_MS;
  if (env.NODE_ENV !== 'test' || offset === undefined || !process.send) return undefined;
  if (!/^\d{1,15}$/.test(offset)) throw new Error(`TEST_CLOCK_OFFSET_MS must be a whole number of milliseconds, not ${JSON.stringify(offset)}`);
  const clock = new ManualClock();
  clock.advance(Number(offset));
  process.on('message', (m: { advanceClockMs?: unknown }) => {
    const ms = m?.advanceClockMs;
    if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 0) return;
    clock.advance(ms);
    process.send!({ clockAdvancedMs: ms });
  });
  return clock;
}

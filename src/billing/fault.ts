import fs from 'node:fs'

// Test-only crash points: with NODE_ENV=test and FAULT_AFTER_STEP=<step>, the process kills itself (SIGKILL,
// no cleanup) right after that step of a multi-step operation, so tests can prove that a restart finishes
// the operation. Steps reached during startup recovery never fire. Ignored outside NODE_ENV=test.
export const faultPoint = (step: string, options: { recovering?: boolean } = {}) => {
  if (process.env.NODE_ENV !== 'test' || options.recovering) return
  if (process.env.FAULT_AFTER_STEP !== step) return
  fs.writeSync(1, `FAULT ${step}\n`)
  process.kill(process.pid, 'SIGKILL')
  // Block until the signal lands so not one more statement of the operation runs.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10_000)
}

/* global process, require */
// A CPU profile of a server process during a bench's measured load, no restart needed: preload it with
// BENCH_SERVER_NODE_OPTIONS="--require ./bench/cpu-profile.cjs" and BENCH_PROFILE_SIGNAL=1 (the find bench sends
// SIGUSR2 before its first measured round and after its last); the profile between the two signals is written to
// PROF_OUT (default ./server.cpuprofile), for Chrome DevTools or any .cpuprofile reader.
const inspector = require('node:inspector')
const fs = require('node:fs')

const session = new inspector.Session()
session.connect()
let signals = 0
process.on('SIGUSR2', () => {
  signals += 1
  if (signals === 1) {
    session.post('Profiler.enable')
    session.post('Profiler.setSamplingInterval', { interval: 250 })
    session.post('Profiler.start')
  } else if (signals === 2) {
    session.post('Profiler.stop', (error, result) => {
      if (!error)
        fs.writeFileSync(process.env.PROF_OUT || 'server.cpuprofile', JSON.stringify(result.profile))
    })
  }
})

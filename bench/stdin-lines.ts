// The listener processes of the realtime benches (bench/realtime-clients.ts, bench/sockets-clients.ts) read their
// orders from the bench on standard input, one line at a time: the listeners to open, then STOP.

/** The next line of standard input (lines that arrive before they are asked for wait in order). */
export const stdinLines = () => {
  let buffer = ''
  const waiting: ((line: string) => void)[] = []
  const ready: string[] = []
  process.stdin.setEncoding('utf8')
  process.stdin.on('data', (chunk: string) => {
    buffer += chunk
    let end: number
    while ((end = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, end)
      buffer = buffer.slice(end + 1)
      const next = waiting.shift()
      if (next) next(line)
      else ready.push(line)
    }
  })
  return () =>
    new Promise<string>((resolve) =>
      ready.length ? resolve(ready.shift() as string) : waiting.push(resolve)
    )
}

// A start-up and shut-down job: the one list of them is src/ops/jobs.ts (the top layer, which builds each); the
// domain's jobs (recovery loops, renewals) only produce this shape.
export interface Job {
  name: string
  start(): Promise<void>
  stop(): Promise<void>
}

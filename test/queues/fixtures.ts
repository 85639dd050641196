// Queue test fixtures, set up over HTTP as clients do: a queue of the clinic (test/helpers/appointments.ts), items
// added by the scheduler, and Socket.IO connections signed in as a fixture's accounts.
import assert from 'node:assert/strict'
import { restClient, signUp, socketClient, type SignedUp } from '../helpers/app'
import type { ClinicFixture } from '../helpers/appointments'

export const createQueue = async (
  url: string,
  clinic: ClinicFixture,
  extra: Record<string, unknown> = {}
) => {
  const res = await restClient(url, clinic.scheduler.token).post('/queues', {
    facility: clinic.id,
    name: `Queue ${Math.random().toString(36).slice(2, 8)}`,
    ...extra
  })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body
}

export const addItem = async (
  url: string,
  clinic: ClinicFixture,
  queue: string,
  patient: string,
  extra: Record<string, unknown> = {}
) => {
  const res = await restClient(url, clinic.scheduler.token).post('/queue-items', { queue, patient, ...extra })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body
}

/** `count` new patients (accounts of no facility). */
export const newPatients = (url: string, count: number): Promise<SignedUp[]> =>
  Promise.all(Array.from({ length: count }, () => signUp(url)))

export const connect = async (url: string, token: string) => {
  const connection = socketClient(url)
  await connection.client.authenticate({ strategy: 'jwt', accessToken: token })
  return connection
}

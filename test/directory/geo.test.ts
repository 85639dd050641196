// The directory's geo cells: every point within the radius lies in one of the covering cells (so the store's
// `cells $in` never misses an entry), near poles and the antimeridian too.
import assert from 'node:assert/strict'
import { cellsOf, coveringCells, distanceKm, EARTH_RADIUS_KM } from '../../src/directory/geo'
import { fold, termsOf, words } from '../../src/directory/text'

const random = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed / 0x7fffffff
}

describe('directory: geo cells and text terms', () => {
  it('uses R = 6378.1 km: one degree of latitude is R·π/180', () => {
    assert.ok(
      Math.abs(distanceKm({ lat: 0, lng: 0 }, { lat: 1, lng: 0 }) - (EARTH_RADIUS_KM * Math.PI) / 180) < 1e-9
    )
  })

  const centers = [
    { lat: 14.55, lng: 121.02 },
    { lat: 0, lng: 179.99 },
    { lat: -33.9, lng: -179.97 },
    { lat: 89.9, lng: 10 },
    { lat: -89.95, lng: -45 },
    { lat: 60, lng: 0 },
    { lat: 69.9, lng: 25 },
    { lat: -69.5, lng: 179.95 }
  ]
  for (const center of centers) {
    for (const radiusKm of [0.5, 5, 19.9, 37, 100]) {
      it(`covers every point within ${radiusKm} km of ${center.lat},${center.lng}`, () => {
        const cover = new Set(coveringCells(center, radiusKm))
        assert.ok(cover.size > 0 && cover.size <= 256, `${cover.size} cells`)
        const next = random(Math.round(center.lat * 1000 + radiusKm))
        for (let i = 0; i < 400; i++) {
          // Points spread over the disc, many right at its edge.
          const d = (i % 2 ? 1 - next() * 1e-4 : next()) * radiusKm
          const bearing = next() * 2 * Math.PI
          const a = d / EARTH_RADIUS_KM
          const lat1 = (center.lat * Math.PI) / 180
          const lng1 = (center.lng * Math.PI) / 180
          const lat2 = Math.asin(
            Math.sin(lat1) * Math.cos(a) + Math.cos(lat1) * Math.sin(a) * Math.cos(bearing)
          )
          const lng2 =
            lng1 +
            Math.atan2(
              Math.sin(bearing) * Math.sin(a) * Math.cos(lat1),
              Math.cos(a) - Math.sin(lat1) * Math.sin(lat2)
            )
          const point = { lat: (lat2 * 180) / Math.PI, lng: (((lng2 * 180) / Math.PI + 540) % 360) - 180 }
          if (distanceKm(center, point) > radiusKm) continue
          assert.ok(
            cellsOf(point).some((cell) => cover.has(cell)),
            `${JSON.stringify(point)} at ${distanceKm(center, point)} km is not covered`
          )
        }
      })
    }
  }

  it('folds case and accents and marks each term with its best tier', () => {
    assert.equal(fold('Clínica São Tomé'), 'clinica sao tome')
    assert.deepEqual(words('Cardio-Vascular  Clínica, 24/7'), ['cardio', 'vascular', 'clinica', '24', '7'])
    const terms = termsOf('Heart Center', 'heart care and more')
    assert.ok(
      terms.includes('3:heart') &&
        terms.includes('2:hea') &&
        terms.includes('1:care') &&
        terms.includes('2:c')
    )
    assert.ok(!terms.includes('1:heart'), 'one tier per word')
  })
})

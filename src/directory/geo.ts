// Distances and geohash cells for the directory's radius search. Each entry keeps the geohash cells of its point at
// precisions 1..MAX_PRECISION (one indexed array field, `cells`); a radius query looks its circle's bounding box up
// as a `$in` over the handful of cells of the finest precision that covers the box with at most MAX_CELLS cells,
// and the exact great-circle distance then decides. Distances use R = 6378.1 km, the radius MongoDB's own
// spherical queries use, so a point near the edge of a circle is in or out the same way everywhere.
// (haversine-distance and geolib fix their Earth radius at 6378137 m and geolib rounds to whole metres; the
// formula is five lines, so it lives here with the radius this design needs.)
import ngeohash from 'ngeohash'

export const EARTH_RADIUS_KM = 6378.1
export const MAX_PRECISION = 7
const MAX_CELLS = 32

export interface Point {
  lat: number
  lng: number
}

const rad = (deg: number) => (deg * Math.PI) / 180
const deg = (r: number) => (r * 180) / Math.PI

/** Great-circle distance in km (haversine, R = 6378.1 km). */
export const distanceKm = (a: Point, b: Point): number => {
  const dLat = rad(b.lat - a.lat)
  const dLng = rad(b.lng - a.lng)
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLng / 2) ** 2
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)))
}

/** The cells of a point, coarse to fine: the index keys of an entry. */
export const cellsOf = (point: Point): string[] => {
  const hash = ngeohash.encode(point.lat, point.lng, MAX_PRECISION)
  return Array.from({ length: MAX_PRECISION }, (_, i) => hash.slice(0, i + 1))
}

type Box = [minLat: number, minLng: number, maxLat: number, maxLng: number]

/** The bounding boxes (two when the circle crosses the antimeridian) of a circle. */
const boxesOf = (center: Point, radiusKm: number): Box[] => {
  const angular = radiusKm / EARTH_RADIUS_KM
  const minLat = center.lat - deg(angular)
  const maxLat = center.lat + deg(angular)
  const s = Math.sin(angular) / Math.cos(rad(center.lat))
  // A circle around a pole (or reaching it) spans every longitude.
  if (minLat <= -90 || maxLat >= 90 || s >= 1)
    return [[Math.max(-90, minLat), -180, Math.min(90, maxLat), 180]]
  const dLng = deg(Math.asin(s))
  const west = center.lng - dLng
  const east = center.lng + dLng
  if (west < -180)
    return [
      [minLat, west + 360, maxLat, 180],
      [minLat, -180, maxLat, east]
    ]
  if (east > 180)
    return [
      [minLat, west, maxLat, 180],
      [minLat, -180, maxLat, east - 360]
    ]
  return [[minLat, west, maxLat, east]]
}

const BASE32 = '0123456789bcdefghjkmnpqrstuvwxyz'
const MAX_REFINED = 256

/** Nearest and farthest distance (km) from `center` to a cell (corners for the farthest; the nearest point is the
 *  centre clamped into the cell, also across the antimeridian). */
const cellDistances = (center: Point, cell: string) => {
  const [minLat, minLng, maxLat, maxLng] = ngeohash.decode_bbox(cell)
  const lat = Math.min(maxLat, Math.max(minLat, center.lat))
  let nearest = Infinity
  for (const shift of [0, -360, 360]) {
    const lng = Math.min(maxLng, Math.max(minLng, center.lng + shift))
    nearest = Math.min(nearest, distanceKm(center, { lat, lng: lng - shift }))
  }
  const farthest = Math.max(
    ...[minLat, maxLat].flatMap((a) => [minLng, maxLng].map((b) => distanceKm(center, { lat: a, lng: b })))
  )
  return { nearest, farthest }
}

/**
 * The cells covering the circle: the bounding box's cells at the finest precision needing at most MAX_CELLS, without
 * those the circle does not reach, and each cell the circle's edge crosses replaced by its 32 sub-cells that the
 * circle reaches (entries carry every precision, so a mixed list works). Fewer candidates, same answers: a cell is
 * only left out when its nearest point is beyond the radius (with a 0.1% + 50 m margin;
 * only up to latitude 70° and radius 20 km, where that nearest point is reliable).
 */
export const coveringCells = (center: Point, radiusKm: number): string[] => {
  const cells = boundingCells(center, radiusKm)
  // The clamped nearest point is the true nearest one only over short longitude spans away from the poles (meridians
  // converge): elsewhere the bounding cells are kept as they are.
  if (Math.abs(center.lat) > 70 || radiusKm > 20 || cells.length === 0) return cells
  // (up to 70° and 20 km the clamped point is less than ~15 m farther than the true nearest point)
  const reach = radiusKm * 1.001 + 0.05
  const out: string[] = []
  for (const cell of cells) {
    const { nearest, farthest } = cellDistances(center, cell)
    if (nearest > reach) continue
    if (farthest <= radiusKm || cell.length >= MAX_PRECISION || out.length + 32 > MAX_REFINED) {
      out.push(cell)
      continue
    }
    for (const char of BASE32) {
      const child = cell + char
      if (cellDistances(center, child).nearest <= reach) out.push(child)
    }
  }
  return out
}

/** The cells whose union covers the circle's bounding box: the finest precision needing at most MAX_CELLS of them. */
const boundingCells = (center: Point, radiusKm: number): string[] => {
  const boxes = boxesOf(center, radiusKm)
  for (let precision = MAX_PRECISION; precision >= 1; precision--) {
    // A cheap estimate first: cell sizes at this precision (lat bits, lng bits) against the box sizes.
    const lngBits = Math.ceil((5 * precision) / 2)
    const latBits = Math.floor((5 * precision) / 2)
    const estimate = boxes.reduce(
      (sum, [a, b, c, d]) =>
        sum +
        (Math.floor((c - a) / (180 / 2 ** latBits)) + 2) * (Math.floor((d - b) / (360 / 2 ** lngBits)) + 2),
      0
    )
    if (estimate > MAX_CELLS * 2 && precision > 1) continue
    const cells = new Set<string>()
    for (const [a, b, c, d] of boxes)
      for (const cell of ngeohash.bboxes(a, b, c, d, precision)) cells.add(cell)
    if (cells.size <= MAX_CELLS || precision === 1) return [...cells]
  }
  return []
}

// Free slots of a provider between two instants: every page of GET /appointment-slots (a week of short slots is
// more than one page), refetched whenever `version` changes (a booking, a move, a cancellation).
import { useEffect, useRef, useState } from 'preact/hooks'
import { client, errorMessage } from '../../lib/api'

export interface Slot {
  provider: string
  schedule: string
  start: number
  end: number
}

const PAGE = 100
/** At most this many slots are shown (a week of 5-minute slots around the clock would be 2016). */
const MAX = 1000

export const useSlots = (
  query: { facility: string; provider: string; from: number; to: number } | null,
  version: unknown = 0
) => {
  const [state, setState] = useState<{ data: Slot[]; loading: boolean; error: string }>({
    data: [],
    loading: query !== null,
    error: ''
  })
  const latest = useRef(0)
  const [bump, setBump] = useState(0)
  const key = JSON.stringify(query)
  useEffect(() => {
    const call = ++latest.current
    if (!query) {
      setState({ data: [], loading: false, error: '' })
      return
    }
    setState((s) => ({ ...s, loading: true }))
    const load = async () => {
      const data: Slot[] = []
      for (;;) {
        const page = await client
          .service('appointment-slots')
          .find({ query: { ...query, $limit: PAGE, $skip: data.length } })
        data.push(...(page.data as Slot[]))
        if (page.data.length === 0 || data.length >= page.total || data.length >= MAX) return data
      }
    }
    load().then(
      (data) => call === latest.current && setState({ data, loading: false, error: '' }),
      (error: unknown) =>
        call === latest.current && setState({ data: [], loading: false, error: errorMessage(error) })
    )
  }, [key, String(version), bump])
  return { ...state, reload: () => setBump((n) => n + 1) }
}

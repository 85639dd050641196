// The signed-in person's account: profile, MFA, sessions.
export function AccountPage(_props: { params: Record<string, string> }) {
  return <h1>My account</h1>
}

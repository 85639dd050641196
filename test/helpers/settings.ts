// The environment variables the server reads, found in the code itself (for checks of .env.example and README).
import fs from 'node:fs'
import path from 'node:path'
import { secondsVariableNames } from '../../src/configuration'

const root = path.resolve(__dirname, '../..')

/** Variables the server reads: config/custom-environment-variables.json, the seconds variables of src/configuration.ts and process.env.X in src. */
export const serverVariables = (): string[] => {
  const names = new Set<string>(['NODE_ENV'])
  const walk = (node: any) => {
    for (const value of Object.values(node)) {
      if (typeof value === 'string') names.add(value)
      else if (value && typeof value === 'object' && '__name' in value)
        names.add((value as { __name: string }).__name)
      else if (value && typeof value === 'object') walk(value)
    }
  }
  walk(JSON.parse(fs.readFileSync(path.join(root, 'config/custom-environment-variables.json'), 'utf8')))
  for (const name of secondsVariableNames) names.add(name)
  const scan = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name)
      if (entry.isDirectory()) scan(file)
      else if (file.endsWith('.ts'))
        for (const match of fs.readFileSync(file, 'utf8').matchAll(/process\.env\.([A-Z0-9_]+)/g))
          names.add(match[1])
    }
  }
  scan(path.join(root, 'src'))
  return [...names].sort()
}

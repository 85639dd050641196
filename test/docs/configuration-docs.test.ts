// docs/configuration.md is generated from the configuration schema, its defaults and its variable names, so the
// page people read is the configuration the server checks: it must be what `npm run docs:config` writes now, list
// every variable the server reads and nothing else, and describe every setting.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { configurationDocPath, renderConfigurationDoc } from '../../scripts/generate-config-docs'
import { serverVariables } from '../helpers/settings'

const doc = () => fs.readFileSync(configurationDocPath, 'utf8')
const tableRows = (text: string) => text.split('\n').filter((line) => /^\| (`|—)/.test(line))

describe('docs/configuration.md', () => {
  it('is what npm run docs:config generates from the schema, the defaults and the variable names', () => {
    const expected = renderConfigurationDoc()
    const actual = doc()
    if (actual !== expected) {
      const line = actual.split('\n').findIndex((text, index) => text !== expected.split('\n')[index])
      assert.fail(
        `docs/configuration.md differs from the configuration (first at line ${line + 1}): run npm run docs:config`
      )
    }
  })

  it('lists exactly the variables the server reads, as .env.example does', () => {
    const listed = new Set<string>()
    for (const row of tableRows(doc())) {
      const variable = /^\| `([A-Z0-9_]+)`/.exec(row)?.[1]
      if (variable) listed.add(variable)
    }
    assert.deepEqual([...listed].sort(), serverVariables())
  })

  it('describes every setting, with its type and default', () => {
    const rows = tableRows(doc()).filter((row) => row.split('|').length === 7)
    assert.ok(rows.length >= 100, `only ${rows.length} settings`)
    for (const row of rows) {
      const [, , setting, type, defaultValue, description] = row.split(/(?<!\\)\|/).map((cell) => cell.trim())
      assert.ok(type && defaultValue, `${setting}: type and default`)
      assert.ok(
        description.length > 5,
        `${setting} has no description (add it to settingDescriptions in src/configuration.ts)`
      )
    }
  })
})

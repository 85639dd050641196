// The architecture's one rule, checked by `npm run lint`: a module imports only from its own layer and the layers
// below it, and no import circle exists (type imports count: a file importing every subsystem's types ties the
// tree into one circle). Layers, bottom up:
//   base      src/schema/, logger, configuration, declarations, runtime (per-app state), events, clock,
//             startup-error, auth-secret, the typed client, and each service's contract files (<name>.schema.ts,
//             <name>.shared.ts, client-params.ts): what a document is, which every layer may know
//   infra     src/store/, src/access/, src/cluster/, src/providers/
//   deps      src/deps.ts (the typed dependencies the composition root hands to the domain)
//   domain    src/appointments/, src/attachments/, src/auth/, src/audit/, src/billing/, src/directory/, src/fhir/, src/inventory/, src/jobs/, src/orders/,
//             src/notifications/, src/patients/, src/queues/, src/sandbox/, src/subscriptions/
//   hooks     src/hooks/
//   services  the rest of src/services/ (registration and service classes)
//   top       src/ops/, app.ts, http.ts, channels.ts, authentication.ts, admin.ts, socket-methods.ts, index.ts
const contract = 'src/services/[^/]+/[^/]+[.](schema|shared)[.]ts$|src/services/client-params[.]ts$'
const layers = {
  base: `^(src/schema/|src/(logger|configuration|declarations|runtime|events|clock|startup-error|auth-secret|client)[.]ts$|${contract})`,
  infra: '^src/(store|access|cluster|providers)/',
  deps: '^src/deps[.]ts$',
  domain:
    '^src/(appointments|attachments|auth|audit|billing|directory|fhir|inventory|jobs|notifications|orders|patients|queues|sandbox|subscriptions)/',
  hooks: '^src/hooks/',
  services: '^src/services/',
  top: '^src/(ops/|(app|http|channels|authentication|admin|socket-methods|index)[.]ts$)'
}
const order = ['base', 'infra', 'deps', 'domain', 'hooks', 'services', 'top']

const upward = order.slice(0, -1).map((layer, index) => ({
  name: `no-upward-from-${layer}`,
  comment: `A ${layer} module imports only from its own layer and below (${order.slice(0, index + 1).join(', ')}).`,
  severity: 'error',
  from: { path: layers[layer], pathNot: layer === 'services' ? contract : undefined },
  to: {
    path: order
      .slice(index + 1)
      .map((above) => layers[above])
      .join('|'),
    // A service's contract files are base, though they live in its folder.
    pathNot: contract
  }
}))

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circle, type imports included.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true }
    },
    {
      name: 'console-uses-the-client-only',
      comment:
        'The browser console talks to the server through the typed client: of src/ it imports the client and the ' +
        "services' contract files (their types) only, never the server's code.",
      severity: 'error',
      from: { path: '^console/' },
      to: { path: '^src/', pathNot: `^src/client[.]ts$|${contract}` }
    },
    {
      name: 'no-circular-in-console',
      comment: 'No import circle in the console either.',
      severity: 'error',
      from: { path: '^console/' },
      to: { circular: true }
    },
    {
      name: 'contracts-import-base-only',
      comment: "A service's schema and shared files are the base layer: they import base modules only.",
      severity: 'error',
      from: { path: contract },
      to: { path: '^src/', pathNot: layers.base }
    },
    ...upward.map((rule) => ({
      ...rule,
      from: Object.fromEntries(Object.entries(rule.from).filter(([, v]) => v))
    })),
    {
      name: 'no-orphans-in-src',
      comment: 'Every module in src/ is used (or is an entry point).',
      severity: 'warn',
      from: {
        orphan: true,
        path: '^src/',
        pathNot: '^src/(index|client)[.]ts$|[.]d[.]ts$|writer-thread[.]ts$'
      },
      to: {}
    }
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(test|bench|lib|public)/' }
  }
}

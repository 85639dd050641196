// Mocha setup: tests run with config/test.json on top of config/default.json.
process.env.NODE_ENV = process.env.NODE_ENV || 'test'
process.env.LOG_LEVEL = process.env.LOG_LEVEL || 'error'

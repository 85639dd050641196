// Empty: see package.json.

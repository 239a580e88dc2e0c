#!/usr/bin/env bash
# The whole test suite: brings up the real engines (installing them on first use), then runs jest.
# Point PG_URL / REDIS_URL / KAFKA_BROKERS / MONGO_URL at your own servers to skip starting ours.
set -Eeuo pipefail
cd "$(dirname "$0")/.."

# Types, specs and benches included (tsconfig.json): jest only transpiles, so without this a spec
# whose types no longer match the code it tests still runs, and passes for the wrong reason.
if ! npm run -s typecheck; then
  echo "test: type errors (see above)" >&2
  exit 1
fi

# Layer rules and import cycles (.dependency-cruiser.cjs): cheap, so first.
if ! npx --no-install depcruise --config .dependency-cruiser.cjs --output-type err apps clients contexts libs projections sagas usecases; then
  echo "test: dependency rules violated (see above)" >&2
  exit 1
fi

# The OpenAPI document of the real routes (built without starting anything), linted with Redocly's
# recommended rules (redocly.yaml, and the one reasoned exception in .redocly.lint-ignore.yaml, which
# names the document by the path `npm run lint:openapi` writes it to): an error fails the run.
if ! npm run -s lint:openapi; then
  echo "test: the OpenAPI document has lint errors (see above)" >&2
  exit 1
fi

# The typed client's generated types (clients/typescript) match the document: regenerate with
# `npm run client:generate` and commit when a route changed.
if ! npm run -s client:check; then
  echo "test: the TypeScript client is stale (see above)" >&2
  exit 1
fi

# The AsyncAPI document's payload schemas (event-schemas.generated.json) match the event types:
# regenerate with `npm run asyncapi:schemas` and commit when an event type changed or was added.
if ! npm run -s asyncapi:check; then
  echo "test: the event schemas are stale (see above)" >&2
  exit 1
fi

if ! bash scripts/engines.sh up; then
  echo "test: an engine could not be started (see the message above)." >&2
  echo "test: set PG_URL, REDIS_URL, KAFKA_BROKERS and/or MONGO_URL to use servers you already run." >&2
  exit 1
fi
eval "$(bash scripts/engines.sh env)"
export PG_URL REDIS_URL KAFKA_BROKERS MONGO_URL STRIPE_MOCK_URL

# PGlite (the embedded event store) loads its WASM through a dynamic import, which jest's VM needs
# this flag for.
export NODE_OPTIONS="${NODE_OPTIONS:-} --experimental-vm-modules --no-warnings"
results="$(mktemp -t jest-results.XXXXXX.json)"
set +e
npx jest --maxWorkers=2 --json --outputFile="$results" "$@"
status=$?
set -e
# One plain closing line for CI: "tests: N passed, N failed".
node -e '
  const r = require(process.argv[1]);
  if (r.numTotalTests === 0) { console.error("test: no test ran"); process.exit(1); }
  console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
' "$results" || status=1
rm -f "$results"
exit "$status"

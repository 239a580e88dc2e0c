#!/usr/bin/env bash
# Runs the event-store contract suite and the Idempotency-Key record contract
# (libs/**/test/*.contract-esdb.ts) against EventStoreDB. No EventStoreDB server can be installed
# on this project's CI machines, so CI does not run it; point ESDB_URL at a server to run it, e.g.
#   ESDB_URL='esdb://127.0.0.1:2113?tls=false' npm run test:esdb
set -Eeuo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${ESDB_URL:-}" ]]; then
  echo "test:esdb: ESDB_URL is not set; it must point at an EventStoreDB server (e.g. esdb://127.0.0.1:2113?tls=false)." >&2
  exit 2
fi
export NODE_OPTIONS="${NODE_OPTIONS:-} --experimental-vm-modules --no-warnings"
exec npx jest --testMatch '<rootDir>/libs/**/test/*.contract-esdb.ts' --runInBand "$@"

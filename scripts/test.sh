#!/usr/bin/env bash
# The whole test suite: brings up the real engines (installing them on first use), then runs jest.
# Point PG_URL / REDIS_URL / KAFKA_BROKERS / MONGO_URL at your own servers to skip starting ours.
set -Eeuo pipefail
cd "$(dirname "$0")/.."

if ! bash scripts/engines.sh up; then
  echo "test: an engine could not be started (see the message above)." >&2
  echo "test: set PG_URL, REDIS_URL, KAFKA_BROKERS and/or MONGO_URL to use servers you already run." >&2
  exit 1
fi
eval "$(bash scripts/engines.sh env)"
export PG_URL REDIS_URL KAFKA_BROKERS MONGO_URL

# PGlite (the embedded event store) loads its WASM through a dynamic import, which jest's VM needs
# this flag for.
export NODE_OPTIONS="${NODE_OPTIONS:-} --experimental-vm-modules --no-warnings"
exec npx jest --maxWorkers=2 "$@"

#!/usr/bin/env bash
# npm run bench: starts the server-profile engines, compiles bench/ (and what it imports) into dist/,
# runs dist/bench/run.js. Prints the figures table; writes bench/results/latest.json.
# Point PG_URL / REDIS_URL / KAFKA_BROKERS / MONGO_URL at your own servers to skip starting ours.
# Knobs: BENCH_ONLY=1,2,3,4,5,compute,list,create,wallets,webhooks,files,streams,gateway,console  BENCH_DURATION_MS  BENCH_ES_DURATION_MS  BENCH_CONCURRENCY  BENCH_KEYS  BENCH_RELAY_EVENTS
set -Eeuo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s)
if ! bash scripts/engines.sh up; then
  echo "bench: an engine could not be started (see the message above)." >&2
  exit 1
fi
eval "$(bash scripts/engines.sh env)"
export PG_URL REDIS_URL KAFKA_BROKERS MONGO_URL

echo "[bench] compiling bench/ -> dist/bench" >&2
npx tsc -p bench/tsconfig.json

node dist/bench/run.js
echo "[bench] total incl. engines + build: $(( $(date +%s) - started )) s" >&2

#!/usr/bin/env bash
# npm run soak -- --minutes N [--report file.json]: the soak of bench/soak.ts against the server-profile
# engines (started when PG_URL is unset, as bench.sh does). Exit 0 when it passed, 1 otherwise.
set -Eeuo pipefail
cd "$(dirname "$0")/.."
if [ -z "${PG_URL:-}" ]; then
  bash scripts/engines.sh up
  eval "$(bash scripts/engines.sh env)"
fi
export PG_URL REDIS_URL KAFKA_BROKERS MONGO_URL
exec node -r ./test/support/ts-register.js bench/soak.ts "$@"

#!/usr/bin/env bash
# Smoke check after `scripts/engines.sh up`: proves each engine answers a real request.
#   scripts/engines-smoke.sh [postgres redis kafka mongo]
set -Eeuo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
eval "$("$HERE/engines.sh" env)"
CACHE="${ENGINES_CACHE:-${HOME:-/root}/.cache/cloud-api-engines}"
KAFKA_VERSION="${KAFKA_VERSION:-3.9.2}"

names=("$@")
((${#names[@]})) || names=(postgres redis kafka mongo)
failed=0

ok() { printf 'smoke: %-9s OK    %s\n' "$1" "$2"; }
bad() { printf "smoke: %-9s FAIL  %s\n" "$1" "${*:2}" >&2; failed=1; }

hostport() { # url default-port
  local hp="${1#*://}"; hp="${hp##*@}"; hp="${hp%%/*}"; hp="${hp%%\?*}"; hp="${hp%%,*}"
  [[ "$hp" == *:* ]] || hp="$hp:$2"
  echo "$hp"
}

for n in "${names[@]}"; do
  case "$n" in
    postgres)
      if out="$(PGCONNECT_TIMEOUT=5 psql "$PG_URL" -XAtqc 'select 1' 2>&1)" && [[ "$out" == 1 ]]; then
        ok postgres "select 1 -> $out ($PG_URL)"
      else bad postgres "select 1 failed: $out"; fi
      ;;
    redis)
      if out="$(timeout 5 redis-cli -u "$REDIS_URL" ping 2>&1)" && [[ "$out" == PONG ]]; then
        ok redis "ping -> $out ($REDIS_URL)"
      else bad redis "ping failed: $out"; fi
      ;;
    kafka)
      libs="$CACHE/kafka-${KAFKA_VERSION}/libs"
      if [[ ! -d "$libs" ]]; then bad kafka "no Kafka jars in $libs (run scripts/engines.sh up kafka first)"; continue; fi
      topic="engines-smoke"
      kt() { timeout 60 java -Xmx256m -Dlog4j.configuration=file:/dev/null -cp "$libs/*" \
        org.apache.kafka.tools.TopicCommand --bootstrap-server "$KAFKA_BROKERS" "$@" 2>&1 | { grep -v '^log4j:' || true; }; }
      listed=0 out="" list=""
      if out="$(kt --create --if-not-exists --topic "$topic" --partitions 3 --replication-factor 1)"; then
        for _ in 1 2 3 4 5; do   # metadata of a just-created topic can take a moment to show up
          list="$(kt --list || true)"
          grep -qx "$topic" <<<"$list" && { listed=1; break; }
          sleep 1
        done
      fi
      if ((listed)); then
        ok kafka "created + listed topic '$topic' ($KAFKA_BROKERS; $(grep -c . <<<"$list") topics)"
      else bad kafka "topic create/list failed: ${out:-} | list: $(head -c 300 <<<"$list")"; fi
      ;;
    mongo)
      hp="$(hostport "$MONGO_URL" 27017)"
      # 1) OP_MSG {hello: 1, $db: "admin"} over bash /dev/tcp: the wire protocol answers
      # 2) OP_MSG {listDatabases: 1, $db: "admin"}: FerretDB's PostgreSQL backend answers too
      if ! timeout 5 bash -c '
          exec 3<>/dev/tcp/$0/$1 || exit 1
          printf "\x34\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\xdd\x07\x00\x00\x00\x00\x00\x00\x00\x1f\x00\x00\x00\x10hello\x00\x01\x00\x00\x00\x02\$db\x00\x06\x00\x00\x00admin\x00\x00" >&3
          len=$(head -c 4 <&3 | od -An -tu4 | tr -d " ")
          [[ "$len" =~ ^[0-9]+$ ]] && ((len > 4)) || exit 1
          head -c $((len - 4)) <&3 | tr -d "\000" | grep -aq -e isWritablePrimary -e ismaster
        ' "${hp%:*}" "${hp##*:}"; then
        bad mongo "no hello reply from $hp"
      elif timeout 15 bash -c '
          exec 3<>/dev/tcp/$0/$1 || exit 1
          printf "\x3c\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\xdd\x07\x00\x00\x00\x00\x00\x00\x00\x27\x00\x00\x00\x10listDatabases\x00\x01\x00\x00\x00\x02\$db\x00\x06\x00\x00\x00admin\x00\x00" >&3
          len=$(head -c 4 <&3 | od -An -tu4 | tr -d " ")     # reply length from the wire header
          [[ "$len" =~ ^[0-9]+$ ]] && ((len > 4)) || exit 1
          head -c $((len - 4)) <&3 | tr -d "\000" | grep -aq totalSize
        ' "${hp%:*}" "${hp##*:}"; then
        ok mongo "hello + listDatabases over the wire protocol answered ($MONGO_URL)"
      else
        bad mongo "hello OK but listDatabases got no reply in 15s: FerretDB's PostgreSQL backend is not answering" \
          "(each open cursor pins one of its 50 pooled PG connections; unexhausted cursors can starve it)"
      fi
      ;;
    *) bad "$n" "unknown engine" ;;
  esac
done

if ((failed)); then echo "smoke: FAILED" >&2; exit 1; fi
echo "smoke: all OK (${names[*]})"

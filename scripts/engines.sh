#!/usr/bin/env bash
# Install, cache and run the test engines (PostgreSQL, Redis, Kafka, MongoDB-compatible
# FerretDB) on loopback, without Docker, on Debian 12.
#
#   scripts/engines.sh up   [postgres|redis|kafka|mongo ...]   install if needed, start, wait until ready
#   scripts/engines.sh down [names...]                         stop (default: all)
#   scripts/engines.sh start kafka | stop kafka                aliases of up/down
#   scripts/engines.sh status [names...]                       show which engines answer
#   scripts/engines.sh env                                     print `export` lines for the URLs
#   scripts/engines.sh browser                                 install Debian's chromium if missing
#                                                              (`up` without names does it too)
#
# URLs (set any of them to use an existing server instead; `up` then only checks it answers):
#   PG_URL=postgres://cloud:cloud@127.0.0.1:55432/cloud
#   REDIS_URL=redis://127.0.0.1:56379
#   KAFKA_BROKERS=127.0.0.1:59092
#   MONGO_URL=mongodb://127.0.0.1:57017/cloud
#   STRIPE_MOCK_URL=http://127.0.0.1:52111   (stripe-mock: Stripe's API as its OpenAPI spec describes it)
# A URL equal to the default above counts as "ours" (so `eval "$(engines.sh env)"` followed by
# `engines.sh stop kafka; engines.sh start kafka` still manages the local engine).
#
# ENGINES_CACHE (default ~/.cache/cloud-api-engines): downloaded jars, built FerretDB and stripe-mock binaries.
# ENGINES_RUN   (default /tmp/cloud-api-engines): data, logs, pid files.
set -Eeuo pipefail

CACHE="${ENGINES_CACHE:-${HOME:-/root}/.cache/cloud-api-engines}"
RUN="${ENGINES_RUN:-/tmp/cloud-api-engines}"
ALL_ENGINES=(postgres redis kafka mongo stripe)

PG_PORT=55432
REDIS_PORT=56379
KAFKA_PORT=59092
KAFKA_CONTROLLER_PORT=59093
MONGO_PORT=57017
STRIPE_MOCK_PORT=52111

KAFKA_VERSION="${KAFKA_VERSION:-3.9.2}"      # latest 3.9.x on Maven Central
FERRETDB_VERSION="${FERRETDB_VERSION:-v1.24.2}"
STRIPE_MOCK_VERSION="${STRIPE_MOCK_VERSION:-v0.203.0}"
PG_MAJOR="${PG_MAJOR:-15}"

DEFAULT_PG_URL="postgres://cloud:cloud@127.0.0.1:${PG_PORT}/cloud"
DEFAULT_REDIS_URL="redis://127.0.0.1:${REDIS_PORT}"
DEFAULT_KAFKA_BROKERS="127.0.0.1:${KAFKA_PORT}"
DEFAULT_MONGO_URL="mongodb://127.0.0.1:${MONGO_PORT}/cloud"
DEFAULT_STRIPE_MOCK_URL="http://127.0.0.1:${STRIPE_MOCK_PORT}"

PG_BIN="/usr/lib/postgresql/${PG_MAJOR}/bin"
KAFKA_HOME="$CACHE/kafka-${KAFKA_VERSION}"
FERRETDB_BIN="$CACHE/ferretdb-${FERRETDB_VERSION}/ferretdb"
STRIPE_MOCK_BIN="$CACHE/stripe-mock-${STRIPE_MOCK_VERSION}/stripe-mock"

log() { printf '[engines] %s\n' "$*" >&2; }
now_ms() { date +%s%3N; }

# ---------------------------------------------------------------- helpers

# external NAME -> true if the user pointed NAME at another server via its env URL
external() {
  case "$1" in
    postgres) [[ -n "${PG_URL:-}" && "$PG_URL" != "$DEFAULT_PG_URL" ]] ;;
    redis) [[ -n "${REDIS_URL:-}" && "$REDIS_URL" != "$DEFAULT_REDIS_URL" ]] ;;
    kafka) [[ -n "${KAFKA_BROKERS:-}" && "$KAFKA_BROKERS" != "$DEFAULT_KAFKA_BROKERS" ]] ;;
    mongo) [[ -n "${MONGO_URL:-}" && "$MONGO_URL" != "$DEFAULT_MONGO_URL" ]] ;;
    stripe) [[ -n "${STRIPE_MOCK_URL:-}" && "$STRIPE_MOCK_URL" != "$DEFAULT_STRIPE_MOCK_URL" ]] ;;
  esac
}

url_of() {
  case "$1" in
    postgres) echo "${PG_URL:-$DEFAULT_PG_URL}" ;;
    redis) echo "${REDIS_URL:-$DEFAULT_REDIS_URL}" ;;
    kafka) echo "${KAFKA_BROKERS:-$DEFAULT_KAFKA_BROKERS}" ;;
    mongo) echo "${MONGO_URL:-$DEFAULT_MONGO_URL}" ;;
    stripe) echo "${STRIPE_MOCK_URL:-$DEFAULT_STRIPE_MOCK_URL}" ;;
  esac
}

env_name_of() {
  case "$1" in
    postgres) echo PG_URL ;; redis) echo REDIS_URL ;; kafka) echo KAFKA_BROKERS ;; mongo) echo MONGO_URL ;; stripe) echo STRIPE_MOCK_URL ;;
  esac
}

# host:port out of a URL / broker list (first entry); default port given as $2
hostport_of() {
  local u="$1" def="$2" hp
  hp="${u#*://}"; hp="${hp##*@}"; hp="${hp%%/*}"; hp="${hp%%\?*}"; hp="${hp%%,*}"
  [[ "$hp" == *:* ]] || hp="$hp:$def"
  echo "$hp"
}

tcp_open() { # host port
  timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null
}

# MongoDB wire-protocol OP_MSG {hello: 1, $db: "admin"} over /dev/tcp; true if a hello reply comes back
mongo_hello() { # host port
  timeout 5 bash -c '
    exec 3<>/dev/tcp/$0/$1 || exit 1
    printf "\x34\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\xdd\x07\x00\x00\x00\x00\x00\x00\x00\x1f\x00\x00\x00\x10hello\x00\x01\x00\x00\x00\x02\$db\x00\x06\x00\x00\x00admin\x00\x00" >&3
    dd bs=65536 count=1 <&3 2>/dev/null | tr -d "\000" | grep -aq -e isWritablePrimary -e ismaster
  ' "$1" "$2" 2>/dev/null
}

pid_alive() { # pidfile [cmdline-substring]  (the substring guards against a recycled pid)
  local p
  [[ -s "$1" ]] && p="$(head -n1 "$1")" && [[ "$p" =~ ^[0-9]+$ ]] && kill -0 "$p" 2>/dev/null || return 1
  [[ -z "${2:-}" ]] || tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qF -- "$2"
}

# A server this script has just started, in its start-up loop. Not pid_alive: the background subshell
# gets its pid before it execs the server, so for a moment its command line is still this script's and
# a cmdline guard would call a starting server dead (CI once failed a Kafka restart that way, with an
# empty log). A pid that fresh cannot have been recycled; an exited-but-unreaped child (state Z) is dead.
child_running() { # pidfile
  local p st
  [[ -s "$1" ]] && p="$(head -n1 "$1")" && [[ "$p" =~ ^[0-9]+$ ]] && kill -0 "$p" 2>/dev/null || return 1
  st="$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f1)"
  [[ "$st" != Z && -n "$st" ]]
}

tail_log() { # file
  if [[ -f "$1" ]]; then
    log "---- last 30 lines of $1 ----"
    tail -n 30 "$1" >&2 || true
    log "---- end of $1 ----"
  fi
}

fail() { # engine message [logfile]
  local e="$1" msg="$2" lf="${3:-}"
  [[ -n "$lf" ]] && tail_log "$lf"
  log "ERROR: engine '$e' could not start: $msg"
  log "Hint: the tests can instead be pointed at an existing server: export $(env_name_of "$e")=<url> (e.g. $(env_name_of "$e")=$(url_of "$e")) and re-run."
  exit 1
}

as_pg_user() { # run a command as the postgres OS user when we are root
  if [[ $EUID -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

APT_UPDATED=0
apt_install() { # pkg...  (installs only missing packages)
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  [[ $EUID -eq 0 ]] || { log "need root to apt-get install ${missing[*]}"; return 1; }
  log "apt-get install ${missing[*]}"
  # Never let package maintainer scripts start daemons on the default ports (5432, 6379).
  local policy_added=0
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && policy_added=1
  fi
  # Do not let the postgresql package create a Debian-default "main" cluster.
  if [[ " ${missing[*]} " == *" postgresql-"* && ! -e /etc/postgresql-common/createcluster.conf ]]; then
    mkdir -p /etc/postgresql-common
    echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.conf
  fi
  local rc=0
  if ((APT_UPDATED == 0)); then
    apt-get update -qq </dev/null >&2 || apt-get update </dev/null >&2 || rc=$?
    APT_UPDATED=1
  fi
  if ((rc == 0)); then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}" </dev/null >&2 9>&- || rc=$?
  fi
  ((policy_added)) && rm -f /usr/sbin/policy-rc.d
  return $rc
}

wait_until() { # seconds cmd...   -> 0 when cmd succeeds within the time
  local secs="$1"; shift
  local deadline=$((SECONDS + secs))
  while ((SECONDS < deadline)); do
    "$@" && return 0
    sleep 0.2
  done
  "$@"
}

stop_pidfile() { # name pidfile timeout-seconds cmdline-substring
  local name="$1" pf="$2" t="$3" pat="${4:-}" p
  pid_alive "$pf" "$pat" || { rm -f "$pf"; return 0; }
  p="$(head -n1 "$pf")"
  log "stopping $name (pid $p)"
  kill -TERM "$p" 2>/dev/null || true
  local deadline=$((SECONDS + t))
  while kill -0 "$p" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
  if kill -0 "$p" 2>/dev/null; then
    log "$name did not stop in ${t}s, killing"
    kill -KILL "$p" 2>/dev/null || true
    sleep 0.2
  fi
  rm -f "$pf"
}

# ---------------------------------------------------------------- postgres

PGDIR="$RUN/postgres"
PGDATA="$PGDIR/data"
PGSOCK="$PGDIR/sock"
PGLOG="$PGDIR/postgres.log"

pg_probe() { # url
  PGCONNECT_TIMEOUT=3 psql "$1" -XAtqc 'select 1' >/dev/null 2>&1
}

pg_local_psql() { # sql...  (superuser over the private unix socket)
  as_pg_user "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PGSOCK" -p "$PG_PORT" -U postgres -d postgres "$@"
}

install_postgres() {
  [[ -x "$PG_BIN/postgres" && -x "$PG_BIN/initdb" ]] && command -v psql >/dev/null && return 0
  apt_install "postgresql-$PG_MAJOR" "postgresql-client-$PG_MAJOR" || return 1
  [[ -x "$PG_BIN/postgres" ]]
}

write_pg_conf() {
  cat >"$PGDATA/engines.conf" <<EOF
# written by scripts/engines.sh on every start
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$PGSOCK'
max_connections = 400
shared_buffers = 256MB
# Bulk loads (a read-model rebuild, a 1M-event history) otherwise force a checkpoint every ~25 s, each
# followed by full-page images of every page touched again; index builds after a rebuild sort in memory.
max_wal_size = 4GB
maintenance_work_mem = 256MB
fsync = on
synchronous_commit = on
full_page_writes = on
logging_collector = off
log_line_prefix = '%m [%p] %q%u@%d '
log_timezone = 'UTC'
timezone = 'UTC'
EOF
  chown postgres:postgres "$PGDATA/engines.conf" 2>/dev/null || true
}

start_postgres() {
  install_postgres || fail postgres "could not install the Debian postgresql-$PG_MAJOR package"
  mkdir -p "$PGDIR" "$PGSOCK"
  chmod 755 "$RUN"
  [[ $EUID -eq 0 ]] && chown postgres:postgres "$PGDIR" "$PGSOCK"
  chmod 700 "$PGSOCK"
  local fresh=0
  if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
    log "postgres: initdb $PGDATA"
    rm -rf "$PGDATA"
    (cd "$PGDIR" && as_pg_user "$PG_BIN/initdb" -D "$PGDATA" -U postgres --encoding=UTF8 --locale=C.UTF-8 \
      --auth-local=trust --auth-host=scram-sha-256 >"$PGDIR/initdb.log" 2>&1) ||
      fail postgres "initdb failed" "$PGDIR/initdb.log"
    echo "include_if_exists = 'engines.conf'" >>"$PGDATA/postgresql.conf"
    fresh=1
  fi
  write_pg_conf
  if ! as_pg_user "$PG_BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1 && pg_probe "$DEFAULT_PG_URL"; then
    log "postgres: a server not started by this script already answers $DEFAULT_PG_URL; reusing it"
    return 0
  fi
  if ! as_pg_user "$PG_BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
    rm -f "$PGDATA/postmaster.pid" 2>/dev/null || true   # stale after a crash/reboot (pg_ctl said not running)
    log "postgres: starting on 127.0.0.1:$PG_PORT"
    (cd "$PGDIR" && as_pg_user "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$PGLOG" -w -t 60 start </dev/null >>"$PGDIR/pg_ctl.log" 2>&1 9>&-) ||
      fail postgres "pg_ctl start failed (is port $PG_PORT taken by another server?)" "$PGLOG"
  fi
  wait_until 30 as_pg_user "$PG_BIN/pg_isready" -q -h "$PGSOCK" -p "$PG_PORT" ||
    fail postgres "server not accepting connections" "$PGLOG"
  # role + databases (idempotent, cheap)
  pg_local_psql >>"$PGDIR/setup.log" 2>&1 <<'SQL' || fail postgres "could not create role/databases" "$PGDIR/setup.log"
DO $$BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'cloud') THEN
    CREATE ROLE cloud LOGIN SUPERUSER PASSWORD 'cloud';
  END IF;
END$$;
SELECT 'CREATE DATABASE cloud OWNER cloud' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'cloud')\gexec
SELECT 'CREATE DATABASE ferretdb OWNER cloud' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'ferretdb')\gexec
SQL
  ((fresh)) && log "postgres: created role cloud, databases cloud + ferretdb"
  pg_probe "$DEFAULT_PG_URL" || fail postgres "$DEFAULT_PG_URL does not answer 'select 1'" "$PGLOG"
}

stop_postgres() {
  [[ -s "$PGDATA/PG_VERSION" ]] || return 0
  if as_pg_user "$PG_BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
    log "stopping postgres"
    (cd "$PGDIR" && as_pg_user "$PG_BIN/pg_ctl" -D "$PGDATA" -m fast -w -t 60 stop </dev/null >>"$PGDIR/pg_ctl.log" 2>&1) ||
      (cd "$PGDIR" && as_pg_user "$PG_BIN/pg_ctl" -D "$PGDATA" -m immediate -w -t 30 stop </dev/null >>"$PGDIR/pg_ctl.log" 2>&1) || true
  fi
}

# ---------------------------------------------------------------- redis

REDISDIR="$RUN/redis"
REDISLOG="$REDISDIR/redis.log"
REDISPID="$REDISDIR/redis.pid"

redis_probe() { # url
  [[ "$(timeout 3 redis-cli -u "$1" ping 2>/dev/null)" == PONG ]]
}

start_redis() {
  command -v redis-server >/dev/null && command -v redis-cli >/dev/null ||
    apt_install redis-server redis-tools || fail redis "could not install the Debian redis-server package"
  mkdir -p "$REDISDIR"
  cat >"$REDISDIR/redis.conf" <<EOF
# written by scripts/engines.sh
bind 127.0.0.1
port $REDIS_PORT
protected-mode yes
daemonize yes
supervised no
pidfile $REDISPID
dir $REDISDIR
logfile $REDISLOG
loglevel notice
databases 16
save ""
appendonly no
EOF
  if ! pid_alive "$REDISPID" redis-server && redis_probe "$DEFAULT_REDIS_URL"; then
    log "redis: something already answers on 127.0.0.1:$REDIS_PORT (not started by this script); reusing it"
    return 0
  fi
  if ! pid_alive "$REDISPID" redis-server; then
    rm -f "$REDISPID"
    log "redis: starting on 127.0.0.1:$REDIS_PORT"
    (cd "$REDISDIR" && redis-server "$REDISDIR/redis.conf" </dev/null >>"$REDISLOG" 2>&1 9>&-) ||
      fail redis "redis-server failed to start" "$REDISLOG"
  fi
  wait_until 20 redis_probe "$DEFAULT_REDIS_URL" || fail redis "no PONG on 127.0.0.1:$REDIS_PORT" "$REDISLOG"
}

stop_redis() {
  if pid_alive "$REDISPID" redis-server; then
    log "stopping redis (pid $(head -n1 "$REDISPID"))"
    timeout 10 redis-cli -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true
    stop_pidfile redis "$REDISPID" 10 redis-server
  fi
}

# ---------------------------------------------------------------- kafka

KAFKADIR="$RUN/kafka"
KAFKADATA="$KAFKADIR/data"
KAFKALOG="$KAFKADIR/kafka.log"
KAFKAPID="$KAFKADIR/kafka.pid"

install_kafka() {
  [[ -f "$KAFKA_HOME/libs/.complete" ]] && return 0
  command -v java >/dev/null || apt_install openjdk-17-jre-headless || return 1
  command -v mvn >/dev/null || apt_install maven || return 1
  log "kafka: fetching org.apache.kafka:kafka_2.13:$KAFKA_VERSION jars with Maven into $KAFKA_HOME/libs"
  mkdir -p "$KAFKA_HOME"
  cat >"$KAFKA_HOME/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local</groupId>
  <artifactId>kafka-runtime</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-storage</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId><version>1.7.36</version></dependency>
    <dependency><groupId>ch.qos.reload4j</groupId><artifactId>reload4j</artifactId><version>1.2.25</version></dependency>
  </dependencies>
</project>
EOF
  rm -rf "$KAFKA_HOME/libs"
  (cd "$KAFKA_HOME" && mvn -B -q -ntp -Dstyle.color=never -Dmaven.repo.local="$CACHE/m2" \
    dependency:copy-dependencies -DoutputDirectory=libs -DincludeScope=runtime </dev/null >"$KAFKA_HOME/mvn.log" 2>&1) || {
    tail_log "$KAFKA_HOME/mvn.log"; return 1; }
  ls "$KAFKA_HOME"/libs/kafka_2.13-*.jar >/dev/null 2>&1 || return 1
  touch "$KAFKA_HOME/libs/.complete"
}

kafka_java() { # main-class args...   (runs a Kafka class with the cached jars, in the foreground)
  java -Xmx256m -Dlog4j.configuration="file:$KAFKADIR/tools-log4j.properties" -cp "$KAFKA_HOME/libs/*" "$@"
}

write_kafka_conf() {
  mkdir -p "$KAFKADIR"
  cat >"$KAFKADIR/server.properties" <<EOF
# written by scripts/engines.sh - single node KRaft (combined broker + controller)
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$KAFKADATA
num.partitions=3
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
auto.create.topics.enable=true
group.initial.rebalance.delay.ms=0
num.recovery.threads.per.data.dir=2
log.retention.hours=168
delete.topic.enable=true
EOF
  cat >"$KAFKADIR/log4j.properties" <<'EOF'
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka=INFO
log4j.logger.org.apache.kafka=INFO
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.kafka.log.LogCleaner=WARN
log4j.logger.org.apache.kafka.clients=WARN
EOF
  cat >"$KAFKADIR/tools-log4j.properties" <<'EOF'
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
EOF
}

kafka_ready_local() {
  tcp_open 127.0.0.1 "$KAFKA_PORT" && grep -q 'Kafka Server started' "$KAFKALOG" 2>/dev/null
}

start_kafka() {
  install_kafka || fail kafka "could not fetch the Kafka $KAFKA_VERSION jars from Maven Central (see $KAFKA_HOME/mvn.log)"
  write_kafka_conf
  if pid_alive "$KAFKAPID" kafka.Kafka; then
    wait_until 90 kafka_ready_local || fail kafka "running (pid $(head -n1 "$KAFKAPID")) but not ready" "$KAFKALOG"
    return 0
  fi
  rm -f "$KAFKAPID"
  if tcp_open 127.0.0.1 "$KAFKA_PORT"; then
    log "kafka: something already listens on 127.0.0.1:$KAFKA_PORT (not started by this script); reusing it (stop/start cannot control it)"
    return 0
  fi
  tcp_open 127.0.0.1 "$KAFKA_CONTROLLER_PORT" &&
    fail kafka "controller port $KAFKA_CONTROLLER_PORT is already in use by a process this script did not start"
  if [[ ! -s "$KAFKADIR/cluster.id" ]]; then
    kafka_java kafka.tools.StorageTool random-uuid 2>"$KAFKADIR/format.log" | tail -n1 >"$KAFKADIR/cluster.id.tmp" &&
      [[ -s "$KAFKADIR/cluster.id.tmp" ]] && mv "$KAFKADIR/cluster.id.tmp" "$KAFKADIR/cluster.id" ||
      fail kafka "StorageTool random-uuid failed" "$KAFKADIR/format.log"
  fi
  if [[ ! -s "$KAFKADATA/meta.properties" ]]; then
    log "kafka: formatting $KAFKADATA (cluster id $(cat "$KAFKADIR/cluster.id"))"
    kafka_java kafka.tools.StorageTool format --ignore-formatted -t "$(cat "$KAFKADIR/cluster.id")" \
      -c "$KAFKADIR/server.properties" >>"$KAFKADIR/format.log" 2>&1 ||
      fail kafka "StorageTool format failed" "$KAFKADIR/format.log"
  fi
  [[ -f "$KAFKALOG" ]] && mv -f "$KAFKALOG" "$KAFKALOG.prev"
  log "kafka: starting on 127.0.0.1:$KAFKA_PORT (controller $KAFKA_CONTROLLER_PORT)"
  (
    cd "$KAFKADIR"
    exec setsid nohup java -Xms256m -Xmx512m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
      -Dlog4j.configuration="file:$KAFKADIR/log4j.properties" -Dkafka.logs.dir="$KAFKADIR" \
      -cp "$KAFKA_HOME/libs/*" kafka.Kafka "$KAFKADIR/server.properties" </dev/null >"$KAFKALOG" 2>&1 9>&-
  ) &
  echo $! >"$KAFKAPID"
  local deadline=$((SECONDS + 90))
  until kafka_ready_local; do
    child_running "$KAFKAPID" || fail kafka "the JVM exited during start-up" "$KAFKALOG"
    ((SECONDS < deadline)) || fail kafka "not ready after 90s" "$KAFKALOG"
    sleep 0.2
  done
}

# Every test run and bench creates topics under a fresh prefix, and this broker is a disposable local
# bus: once the data directory holds more than KAFKA_PRUNE_AT partitions (thousands made a restart
# take over 90 s, which the relay test's broker stop/start then hit), `up` starts it empty. Only at
# `up` (the start of a test or bench run), never at a `start` made by a test in the middle of a run.
prune_kafka_leftovers() {
  local limit="${KAFKA_PRUNE_AT:-1500}" count
  [[ -d "$KAFKADATA" ]] || return 0
  count=$(find "$KAFKADATA" -mindepth 1 -maxdepth 1 -type d | wc -l)
  ((count > limit)) || return 0
  log "kafka: $count partition directories left by earlier runs (> $limit); starting the local broker empty"
  stop_kafka
  rm -rf "$KAFKADATA"
}

stop_kafka() {
  # SIGTERM = controlled shutdown; logs are flushed, data + cluster id stay for the next start
  stop_pidfile kafka "$KAFKAPID" 60 kafka.Kafka
}

# ---------------------------------------------------------------- mongo (FerretDB on PostgreSQL)

MONGODIR="$RUN/mongo"
MONGOLOG="$MONGODIR/ferretdb.log"
MONGOPID="$MONGODIR/ferretdb.pid"

install_ferretdb() {
  [[ -x "$FERRETDB_BIN" ]] && "$FERRETDB_BIN" --version >/dev/null 2>&1 && return 0
  command -v go >/dev/null || { log "go toolchain not found"; return 1; }
  local bdir="$CACHE/ferretdb-build" blog="$CACHE/ferretdb-build.log" dir
  log "mongo: building FerretDB $FERRETDB_VERSION with Go (first time only, takes a few minutes)"
  mkdir -p "$bdir" "$(dirname "$FERRETDB_BIN")"
  : >"$blog"
  # Fetch the module source through the Go module proxy.
  dir="$(cd "$bdir" && GOFLAGS=-mod=mod go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" 2>>"$blog" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')"
  [[ -n "$dir" && -d "$dir/cmd/ferretdb" ]] || { tail_log "$blog"; return 1; }
  # FerretDB's build/version package embeds build/version/*.txt. version.txt is generated from git
  # by `task gen-version` and is not in the module zip; when the main module is FerretDB itself
  # (e.g. `go install ...@v1.24.2`) init() panics "Invalid build/version/version.txt file content".
  # So build from a writable copy of the module with version.txt written in, which gives a binary
  # identical to an official one (reports the right version).
  rm -rf "$bdir/src" && cp -R "$dir" "$bdir/src" && chmod -R u+w "$bdir/src"
  echo "$FERRETDB_VERSION" >"$bdir/src/build/version/version.txt"
  echo "source" >"$bdir/src/build/version/package.txt"
  (cd "$bdir/src" && GOFLAGS= CGO_ENABLED=0 go build -trimpath -buildvcs=false -tags ferretdb_no_sqlite \
    -o "$FERRETDB_BIN.tmp" ./cmd/ferretdb) >>"$blog" 2>&1 || { tail_log "$blog"; return 1; }
  mv -f "$FERRETDB_BIN.tmp" "$FERRETDB_BIN"
  rm -rf "$bdir/src"
  "$FERRETDB_BIN" --version >>"$blog" 2>&1 || { tail_log "$blog"; return 1; }
}

ferretdb_pg_url() {
  if [[ -n "${FERRETDB_PG_URL:-}" ]]; then echo "$FERRETDB_PG_URL"; return; fi
  local u="${PG_URL:-$DEFAULT_PG_URL}" q=""
  [[ "$u" == *\?* ]] && q="?${u#*\?}" && u="${u%%\?*}"
  local scheme="${u%%://*}" rest="${u#*://}"
  # FerretDB v1 holds one pool connection per statement of a command until the command ends: a
  # small pool deadlocks under bulk writes and concurrent tests, so give it a large one.
  if [[ -z "$q" ]]; then q="?pool_max_conns=200"; elif [[ "$q" != *pool_max_conns* ]]; then q="${q}&pool_max_conns=200"; fi
  echo "${scheme}://${rest%%/*}/ferretdb${q}"
}

# FerretDB v1 pushes an equality filter down as `_jsonb->'field' @> '<json>'` (also for `_id`), in a
# prepared statement whose key is a parameter. Its own indexes are btree on `(_jsonb->'field')`, which
# cannot serve `@>`, and after five executions PostgreSQL switches to a generic plan that cannot use
# any expression index: every update or get by `_id` became a sequential scan of the collection
# (about 110 updates/s at 20k documents). So, in FerretDB's backing database only:
# - plan_cache_mode=force_custom_plan: plans see the real key and value;
# - an event trigger gives each btree index FerretDB creates on `(_jsonb->'f')` (the unique `_id`
#   index of every collection included) a GIN `jsonb_path_ops` twin on the same expression, which
#   `@>` can use;
# - synchronous_commit=off: read models are rebuildable from the event store and each document
#   records the position it reflects, so losing the last few ms of writes to an OS crash only means
#   re-applying events (commit order is still preserved). The event store keeps synchronous commit.
# Measured with 8 concurrent updateOne by _id on 20k documents: 113/s before, ~1,200-1,600/s after.
# - default_toast_compression=lz4: a read-model document is stored as FerretDB's JSON with its type
#   schema, over the 2 kB TOAST threshold, so every insert and update compressed it with pglz (a
#   third of PostgreSQL's CPU in a perf profile of bulk inserts) and every read decompressed it. lz4
#   is several times cheaper both ways: PostgreSQL CPU per 40k inserted documents fell by ~25%.
# Needs the superuser role the script creates; on an external server without it this is skipped.
tune_ferretdb_backend() {
  local u; u="$(ferretdb_pg_url)"; u="${u%%\?*}"
  psql "$u" -X -q -v ON_ERROR_STOP=1 >>"$MONGODIR/tune.log" 2>&1 <<'SQL' || log "mongo: could not tune FerretDB's PostgreSQL database (see $MONGODIR/tune.log); continuing untuned"
ALTER DATABASE ferretdb SET plan_cache_mode = force_custom_plan;
ALTER DATABASE ferretdb SET synchronous_commit = off;
ALTER DATABASE ferretdb SET default_toast_compression = 'lz4';
CREATE OR REPLACE FUNCTION public.cloud_api_gin_twin() RETURNS event_trigger LANGUAGE plpgsql AS $fn$
DECLARE
  r record; am text; col text; fld text; tbl regclass; twin text;
BEGIN
  FOR r IN SELECT objid FROM pg_event_trigger_ddl_commands() WHERE command_tag = 'CREATE INDEX' AND object_type = 'index' LOOP
    SELECT a.amname, i.indrelid::regclass INTO am, tbl FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam WHERE i.indexrelid = r.objid;
    CONTINUE WHEN am IS DISTINCT FROM 'btree';
    col := pg_get_indexdef(r.objid, 1, true);
    fld := substring(col FROM '^\(_jsonb -> ''([^'']+)''::text\)$');
    CONTINUE WHEN fld IS NULL;
    -- one twin per collection and field, however many btree indexes start with that field
    twin := left((SELECT relname FROM pg_class WHERE oid = tbl), 45) || '_' || left(md5(fld), 8) || '_gin';
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %s USING gin ((_jsonb -> %L) jsonb_path_ops) WITH (gin_pending_list_limit = 128)', twin, tbl, fld);
  END LOOP;
END
$fn$;
DROP EVENT TRIGGER IF EXISTS cloud_api_gin_twin;
CREATE EVENT TRIGGER cloud_api_gin_twin ON ddl_command_end WHEN TAG IN ('CREATE INDEX') EXECUTE FUNCTION public.cloud_api_gin_twin();
-- twins made by earlier versions of this script: same storage parameters
DO $do$
DECLARE r record;
BEGIN
  FOR r IN SELECT c.oid::regclass AS idx FROM pg_class c JOIN pg_am a ON a.oid = c.relam
           WHERE a.amname = 'gin' AND c.relname LIKE '%\_gin' AND NOT coalesce(c.reloptions @> ARRAY['gin_pending_list_limit=128'], false) LOOP
    EXECUTE format('ALTER INDEX %s SET (fastupdate = on, gin_pending_list_limit = 128)', r.idx);
    PERFORM gin_clean_pending_list(r.idx);
  END LOOP;
END
$do$;
SQL
}

start_mongo() {
  install_ferretdb || fail mongo "could not build FerretDB $FERRETDB_VERSION with Go (see $CACHE/ferretdb-build.log)"
  # FerretDB stores its data in PostgreSQL.
  local pgu; pgu="$(url_of postgres)"
  if external postgres; then
    pg_probe "$pgu" || fail mongo "PG_URL=$pgu (FerretDB's backend) does not answer"
  else
    pg_probe "$pgu" || start_postgres
  fi
  # the backend database must exist (cheap check; created on the fly e.g. on a reused server)
  psql "$pgu" -XAtqc "select 1 from pg_database where datname='ferretdb'" 2>/dev/null | grep -q 1 ||
    psql "$pgu" -Xqc 'create database ferretdb' >/dev/null 2>&1 || true
  mkdir -p "$MONGODIR/state"
  tune_ferretdb_backend
  if pid_alive "$MONGOPID" ferretdb; then
    wait_until 30 mongo_hello 127.0.0.1 "$MONGO_PORT" || fail mongo "FerretDB running but not answering hello" "$MONGOLOG"
    return 0
  fi
  rm -f "$MONGOPID"
  if mongo_hello 127.0.0.1 "$MONGO_PORT"; then
    log "mongo: a MongoDB-compatible server already answers on 127.0.0.1:$MONGO_PORT (not started by this script); reusing it"
    return 0
  fi
  tcp_open 127.0.0.1 "$MONGO_PORT" && fail mongo "port $MONGO_PORT is already in use by a process that does not speak the MongoDB protocol"
  [[ -f "$MONGOLOG" ]] && mv -f "$MONGOLOG" "$MONGOLOG.prev"
  log "mongo: starting FerretDB $FERRETDB_VERSION on 127.0.0.1:$MONGO_PORT (PostgreSQL backend)"
  # GOGC=400: FerretDB v1 allocates several objects per BSON value, and with Go's default GOGC=100 a
  # perf profile of bulk inserts spent ~30% of its CPU in the garbage collector. With 400 its CPU per
  # 80k inserted documents fell by ~25% (interleaved runs), and 8 concurrent 10k-document list queries
  # went from 0.23 to 0.41 queries/s. No GOMEMLIMIT: FerretDB v1 decodes every match of a query in
  # memory, so concurrent large lists exceed any small cap and a capped heap collects non-stop
  # (GOMEMLIMIT=1GiB: 0.14 queries/s). Uncapped, GOGC=400 let the heap reach 16 GiB of a 24 GiB
  # machine after three list benches (and keep it), so the soft limit is a third of the machine's
  # memory, at most 8 GiB: far above what the lists need live, well short of starving the rest.
  local memlimit="${FERRETDB_GOMEMLIMIT:-}"
  if [[ -z "$memlimit" ]]; then
    local total_kib
    total_kib=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo 2>/dev/null || echo 0)
    local cap_mib=$((total_kib / 3 / 1024))
    ((cap_mib > 8192)) && cap_mib=8192
    ((cap_mib < 1024)) && cap_mib=1024
    memlimit="${cap_mib}MiB"
  fi
  (
    cd "$MONGODIR"
    GOGC="${FERRETDB_GOGC:-400}" GOMEMLIMIT="$memlimit" exec setsid nohup "$FERRETDB_BIN" --handler=postgresql --postgresql-url="$(ferretdb_pg_url)" \
      --listen-addr="127.0.0.1:$MONGO_PORT" --state-dir="$MONGODIR/state" --telemetry=disable \
      --debug-addr=- --log-level=info --mode=normal --test-batch-size=1000 </dev/null >"$MONGOLOG" 2>&1 9>&-
  ) &
  echo $! >"$MONGOPID"
  local deadline=$((SECONDS + 30))
  until mongo_hello 127.0.0.1 "$MONGO_PORT"; do
    child_running "$MONGOPID" || fail mongo "FerretDB exited during start-up" "$MONGOLOG"
    ((SECONDS < deadline)) || fail mongo "FerretDB not answering hello after 30s" "$MONGOLOG"
    sleep 0.2
  done
}

stop_mongo() {
  stop_pidfile mongo "$MONGOPID" 20 ferretdb
}

# ---------------------------------------------------------------- stripe (stripe-mock)

STRIPEDIR="$RUN/stripe"
STRIPELOG="$STRIPEDIR/stripe-mock.log"
STRIPEPID="$STRIPEDIR/stripe-mock.pid"

# stripe-mock answers like Stripe's API from its OpenAPI spec and fixtures (request parameters are
# validated, responses are canned): what the Stripe payment driver is tested against. A Go module: a
# one-file wrapper module requires it at a pinned version (go.sum pins its dependencies) and builds
# the binary into the cache, from the Go module proxy, the way FerretDB is built above.
install_stripe_mock() {
  [[ -x "$STRIPE_MOCK_BIN" ]] && "$STRIPE_MOCK_BIN" -version >/dev/null 2>&1 && return 0
  command -v go >/dev/null || { log "stripe: Go is needed to build stripe-mock"; return 1; }
  local bdir="$CACHE/stripe-mock-build" blog="$CACHE/stripe-mock-build.log"
  log "stripe: building stripe-mock $STRIPE_MOCK_VERSION with Go (first time only)"
  mkdir -p "$bdir" "$(dirname "$STRIPE_MOCK_BIN")"
  : >"$blog"
  printf 'module cloudapi/stripemock\n\ngo 1.22\n\nrequire github.com/stripe/stripe-mock %s\n' "$STRIPE_MOCK_VERSION" >"$bdir/go.mod"
  printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/stripe/stripe-mock"\n' >"$bdir/tools.go"
  (cd "$bdir" && GOFLAGS=-mod=mod go mod tidy && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -buildvcs=false \
    -o "$STRIPE_MOCK_BIN.tmp" github.com/stripe/stripe-mock) >>"$blog" 2>&1 || { tail_log "$blog"; return 1; }
  mv -f "$STRIPE_MOCK_BIN.tmp" "$STRIPE_MOCK_BIN"
}

# GET /v1/charges with stripe-mock's test key answers 200 with a list
stripe_probe() { # url
  curl -fsS -m 3 -u sk_test_123: "$1/v1/charges" >/dev/null 2>&1
}

start_stripe() {
  install_stripe_mock || fail stripe "could not build stripe-mock $STRIPE_MOCK_VERSION with Go (see $CACHE/stripe-mock-build.log)"
  mkdir -p "$STRIPEDIR"
  if pid_alive "$STRIPEPID" stripe-mock; then
    wait_until 15 stripe_probe "$DEFAULT_STRIPE_MOCK_URL" || fail stripe "stripe-mock running but not answering" "$STRIPELOG"
    return 0
  fi
  rm -f "$STRIPEPID"
  if stripe_probe "$DEFAULT_STRIPE_MOCK_URL"; then
    log "stripe: a Stripe-compatible server already answers on $DEFAULT_STRIPE_MOCK_URL (not started by this script); reusing it"
    return 0
  fi
  tcp_open 127.0.0.1 "$STRIPE_MOCK_PORT" && fail stripe "port $STRIPE_MOCK_PORT is already in use by a process that does not answer like Stripe"
  log "stripe: starting stripe-mock $STRIPE_MOCK_VERSION on 127.0.0.1:$STRIPE_MOCK_PORT"
  (
    cd "$STRIPEDIR"
    exec setsid nohup "$STRIPE_MOCK_BIN" -http-addr "127.0.0.1:$STRIPE_MOCK_PORT" </dev/null >"$STRIPELOG" 2>&1 9>&-
  ) &
  echo $! >"$STRIPEPID"
  local deadline=$((SECONDS + 30))
  until stripe_probe "$DEFAULT_STRIPE_MOCK_URL"; do
    child_running "$STRIPEPID" || fail stripe "stripe-mock exited during start-up" "$STRIPELOG"
    ((SECONDS < deadline)) || fail stripe "stripe-mock not answering after 30s" "$STRIPELOG"
    sleep 0.2
  done
}

stop_stripe() {
  stop_pidfile stripe "$STRIPEPID" 10 stripe-mock
}

# ---------------------------------------------------------------- dispatch

probe_engine() { # name url  -> 0 if the server at url answers
  case "$1" in
    postgres) pg_probe "$2" ;;
    redis) redis_probe "$2" ;;
    kafka) local hp; hp="$(hostport_of "$2" 9092)"; tcp_open "${hp%:*}" "${hp##*:}" ;;
    mongo) local hp; hp="$(hostport_of "$2" 27017)"; mongo_hello "${hp%:*}" "${hp##*:}" ;;
    stripe) stripe_probe "$2" ;;
  esac
}

ensure_client_tools() {
  local n need_psql=0 need_redis=0
  for n in "$@"; do
    case "$n" in postgres|mongo) need_psql=1 ;; redis) need_redis=1 ;; esac
  done
  if ((need_psql)) && ! command -v psql >/dev/null; then apt_install "postgresql-client-$PG_MAJOR" || true; fi
  if ((need_redis)) && ! command -v redis-cli >/dev/null; then apt_install redis-tools || true; fi
}

up_one() {
  local e="$1" t0; t0=$(now_ms)
  if external "$e"; then
    local u; u="$(url_of "$e")"
    probe_engine "$e" "$u" || {
      log "ERROR: engine '$e': $(env_name_of "$e")=$u is set but does not answer."
      log "Unset $(env_name_of "$e") to let this script start a local $e, or fix the URL."
      exit 1; }
    log "$e: using existing server $(env_name_of "$e")=$u"
    return 0
  fi
  "start_$e"
  log "$e: ready at $(url_of "$e") ($(( $(now_ms) - t0 )) ms)"
}

down_one() {
  local e="$1"
  if external "$e"; then log "$e: $(env_name_of "$e") points at an external server; not stopping it"; return 0; fi
  "stop_$e"
}

normalize() { # engine names -> canonical
  local n
  for n in "$@"; do
    case "$n" in
      postgres|postgresql|pg) echo postgres ;;
      redis) echo redis ;;
      kafka) echo kafka ;;
      mongo|mongodb|ferretdb) echo mongo ;;
      stripe|stripe-mock) echo stripe ;;
      *) log "unknown engine '$n' (known: ${ALL_ENGINES[*]})"; exit 2 ;;
    esac
  done
}

with_lock() {
  mkdir -p "$RUN" "$CACHE"
  chmod 755 "$RUN" 2>/dev/null || true
  # fd 9 is closed (9>&-) for every daemon we launch, so servers never hold this lock
  exec 9>>"$RUN/.engines.lock"
  flock -w 900 9 || { log "could not get $RUN/.engines.lock (another engines.sh still running?)"; exit 1; }
}

cmd_env() {
  echo "export PG_URL='$(url_of postgres)'"
  echo "export REDIS_URL='$(url_of redis)'"
  echo "export KAFKA_BROKERS='$(url_of kafka)'"
  echo "export MONGO_URL='$(url_of mongo)'"
  echo "export STRIPE_MOCK_URL='$(url_of stripe)'"
}

cmd_status() {
  local e rc=0
  for e in "$@"; do
    if probe_engine "$e" "$(url_of "$e")"; then
      printf '%-9s up    %s\n' "$e" "$(url_of "$e")"
    else
      printf '%-9s down  %s\n' "$e" "$(url_of "$e")"; rc=1
    fi
  done
  return $rc
}

# The web console's browser tests (test/console) drive Debian's chromium (browsers cannot be
# downloaded by npm here). A file test when it is installed, so `up` stays cheap.
ensure_browser() {
  [[ -x /usr/bin/chromium ]] && return 0
  apt_install chromium || log "chromium: could not install the Debian package; the console's browser tests need /usr/bin/chromium"
}

usage() {
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

main() {
  local cmd="${1:-}"; shift || true
  local names=()
  local everything=1
  if (($#)); then mapfile -t names < <(normalize "$@"); everything=0; else names=("${ALL_ENGINES[@]}"); fi
  case "$cmd" in
    up|start)
      with_lock
      ensure_client_tools "${names[@]}"
      ((everything)) && ensure_browser
      local t0 e; t0=$(now_ms)
      # dependency order: postgres before mongo (FerretDB backend)
      if [[ "$cmd" == up && " ${names[*]} " == *" kafka "* ]] && ! external kafka; then prune_kafka_leftovers; fi
      for e in postgres redis kafka mongo stripe; do
        [[ " ${names[*]} " == *" $e "* ]] && up_one "$e"
      done
      log "all requested engines ready (${names[*]}) in $(( $(now_ms) - t0 )) ms"
      ;;
    down|stop)
      with_lock
      local e
      for e in stripe mongo kafka redis postgres; do
        [[ " ${names[*]} " == *" $e "* ]] && down_one "$e"
      done
      log "stopped: ${names[*]}"
      ;;
    restart)
      "$0" down "${names[@]}" && exec "$0" up "${names[@]}" ;;
    env) cmd_env ;;
    browser) with_lock; ensure_browser ;;
    status) cmd_status "${names[@]}" ;;
    -h|--help|help|"") usage ;;
    *) log "unknown command '$cmd'"; usage ;;
  esac
}

main "$@"

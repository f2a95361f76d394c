#!/usr/bin/env bash
# CI database setup (root, Debian bookworm, idempotent): make sure the machine's
# PostgreSQL 15 cluster runs on 127.0.0.1:5432 and that pgvector is installed and
# created in template1, so every test database has the `vector` extension; then start
# the suite's own server (below) unless TEST_DATABASE_URL names another one.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
PSQL=(psql -h 127.0.0.1 -U postgres -v ON_ERROR_STOP=1 -qtA)

log() { echo "[setup-postgres] $*"; }

if ! pg_isready -q -h 127.0.0.1; then
  log "starting PostgreSQL 15 cluster 'main'"
  pg_ctlcluster --skip-systemctl-redirect 15 main start || true
  for _ in $(seq 1 60); do
    pg_isready -q -h 127.0.0.1 && break
    sleep 0.5
  done
  pg_isready -q -h 127.0.0.1 || { log "PostgreSQL did not become ready on 127.0.0.1:5432"; exit 1; }
fi
log "PostgreSQL is ready on 127.0.0.1:5432"

if [ -z "$("${PSQL[@]}" -d postgres -c "select 1 from pg_available_extensions where name='vector'")" ]; then
  # Bookworm ships no pgvector package; trixie's source package builds against PG 15.
  log "pgvector missing: building it from Debian trixie's source package"
  started=$SECONDS
  cat > /etc/apt/sources.list.d/quad-pgvector-src.sources <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends postgresql-server-dev-15 make gcc dpkg-dev >/dev/null
  build_dir=$(mktemp -d)
  trap 'rm -rf "$build_dir"' EXIT
  chown _apt "$build_dir" 2>/dev/null || true  # lets apt download sandboxed, without a warning
  (
    cd "$build_dir"
    apt-get source -qq pgvector/trixie
    cd pgvector-*/
    make -s PG_CONFIG="$PG_CONFIG"
    make -s install PG_CONFIG="$PG_CONFIG"
  )
  log "pgvector built and installed in $((SECONDS - started)) s"
else
  log "pgvector is already installed"
fi

"${PSQL[@]}" -d template1 -c "SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS vector"
log "vector $("${PSQL[@]}" -d template1 -c "select extversion from pg_extension where extname='vector'") is in template1"

# The suite's own server: a cluster of the same binaries on 127.0.0.1:54330, made once and kept (its migrated
# templates with it), tuned for data that lives for one test file: no flush to disk at commit, at checkpoints or
# when a database is cloned (fsync, synchronous_commit and full_page_writes off), and no autovacuum, whose workers
# visited each of the dozens of databases in turn (7 % of a core with no test running; PostgreSQL still vacuums
# against wraparound). Against the machine's durable server, the same suite took tap 404 s instead of 447 s and its
# test processes 520 s of CPU instead of 573 s: the tests waited on no flush. The machine's server keeps its own
# settings. Options apply when the server starts: stop it (pg_ctl -D <folder> stop) to change them.
[ -n "${TEST_DATABASE_URL:-}" ] && exit 0
TEST_PORT=54330
if [ "$(id -u)" = 0 ]; then
  # PostgreSQL refuses to run as root: the cluster belongs to the postgres user.
  TEST_DIR=/var/lib/quad/test-postgres-15
  as_cluster_owner() { runuser -u postgres -- "$@"; }
  give_to_cluster_owner() { chown postgres:postgres "$1"; }
else
  TEST_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/quad/test-postgres-15"
  as_cluster_owner() { "$@"; }
  give_to_cluster_owner() { :; }
fi
BIN=/usr/lib/postgresql/15/bin
if ! pg_isready -q -h 127.0.0.1 -p "$TEST_PORT"; then
  if [ ! -s "$TEST_DIR/PG_VERSION" ]; then
    log "making the suite's cluster in $TEST_DIR"
    mkdir -p "$TEST_DIR"
    give_to_cluster_owner "$TEST_DIR"
    chmod 700 "$TEST_DIR"
    as_cluster_owner "$BIN/initdb" -D "$TEST_DIR" -A trust -U postgres -E UTF8 --no-sync >/dev/null
  fi
  as_cluster_owner "$BIN/pg_ctl" -D "$TEST_DIR" -l "$TEST_DIR/server.log" -w -s start -o "-p $TEST_PORT -k $TEST_DIR \
    -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off -c synchronous_commit=off -c full_page_writes=off \
    -c autovacuum=off"
fi
"${PSQL[@]}" -p "$TEST_PORT" -d template1 -c "SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS vector"
log "the suite's server is ready on 127.0.0.1:$TEST_PORT ($TEST_DIR)"

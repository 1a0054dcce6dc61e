# start_postgres DIR: a real PostgreSQL 16 + pgvector from the pgserver package, unless
# REDSTRING_TEST_POSTGRES_DSN already names a server. Exports REDSTRING_TEST_POSTGRES_DSN,
# a unix-socket DSN (postgresql://postgres@/postgres?host=DIR&port=P, which asyncpg and psql
# accept); the server also listens on 127.0.0.1:P, logged when it starts.
start_postgres() {
  if [ -n "${REDSTRING_TEST_POSTGRES_DSN:-}" ]; then
    log "using PostgreSQL at REDSTRING_TEST_POSTGRES_DSN"
    return 0
  fi
  local dir="$1"
  mkdir -p "$dir"
  log "starting PostgreSQL (pgserver) in $dir"
  REDSTRING_TEST_POSTGRES_DSN="$(uv run --frozen --no-sync python scripts/lib/pgserver_ctl.py start "$dir")" \
    || die "PostgreSQL did not start (see above)"
  export REDSTRING_TEST_POSTGRES_DSN
  _POSTGRES_DIR="$dir"
}

stop_postgres() {
  if [ -n "${_POSTGRES_DIR:-}" ]; then
    uv run --frozen --no-sync python scripts/lib/pgserver_ctl.py stop "$_POSTGRES_DIR" || true
    _POSTGRES_DIR=""
  fi
}

# start_redis DIR: Debian's redis-server on a free loopback port, unless
# REDSTRING_TEST_REDIS_URL already names one. Installs the package when it is missing.
start_redis() {
  if [ -n "${REDSTRING_TEST_REDIS_URL:-}" ]; then
    log "using Redis at REDSTRING_TEST_REDIS_URL"
    return 0
  fi
  local dir="$1"
  mkdir -p "$dir"
  if ! command -v redis-server >/dev/null 2>&1; then
    log "installing redis-server (Debian package)"
    if [ "$(id -u)" = 0 ]; then
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server) >/dev/null \
        || die "could not install redis-server with apt-get"
    else
      die "redis-server is missing: run 'sudo apt-get install -y redis-server'"
    fi
  fi
  local port
  port="$(free_port)"
  log "starting Redis on 127.0.0.1:$port"
  redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save '' --appendonly no \
    --dir "$dir" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" \
    || die "redis-server did not start; see $dir/redis.log"
  local tries=0
  until redis-cli -p "$port" ping >/dev/null 2>&1; do
    tries=$((tries + 1))
    [ "$tries" -gt 100 ] && die "Redis did not answer PING on port $port; see $dir/redis.log"
    sleep 0.1
  done
  export REDSTRING_TEST_REDIS_URL="redis://127.0.0.1:$port/0"
  _REDIS_PIDFILE="$dir/redis.pid"
}

stop_redis() {
  if [ -n "${_REDIS_PIDFILE:-}" ] && [ -f "$_REDIS_PIDFILE" ]; then
    kill "$(cat "$_REDIS_PIDFILE")" 2>/dev/null || true
    _REDIS_PIDFILE=""
  fi
}

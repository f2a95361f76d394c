#!/usr/bin/env bash
# SSH for the pods module's tests (root, Debian bookworm, idempotent): Debian's openssh-server, whose sshd the tests
# start on a loopback port as a "pod" (test/fakes/pod-ssh), and the ssh client and ssh-keygen the CLI runs. Only the
# binaries are used: the package's own service is not started (the tests run sshd with their own config).
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
log() { echo "[setup-ssh] $*"; }

if [ -x /usr/sbin/sshd ] && command -v ssh >/dev/null && command -v ssh-keygen >/dev/null; then
  log "OpenSSH is installed: $(ssh -V 2>&1)"
else
  log "installing Debian's openssh-server and openssh-client"
  started=$SECONDS
  # policy-rc.d keeps the package from starting its own sshd on port 22.
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  apt-get install -y -qq --no-install-recommends openssh-server openssh-client >/dev/null 2>&1 || {
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends openssh-server openssh-client >/dev/null
  }
  log "OpenSSH installed in $((SECONDS - started)) s: $(ssh -V 2>&1)"
fi
# sshd refuses to start without its privilege-separation folder.
mkdir -p /run/sshd

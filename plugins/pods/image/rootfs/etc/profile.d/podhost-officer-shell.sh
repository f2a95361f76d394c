# An officer's terminal on the pod (root, logged in with an officer's certificate) becomes the officer shell the
# connected route lists (plugins/pods/ssh/sessions.ts): `bash --rcfile /etc/podhost/admin.bashrc`, with the officer's
# username in PODHOST_USER. The service's own commands and SFTP start no login shell, a login with the backend key
# has no certificate, and members' login shells are not root's: all of those stay as they are.
if [ -z "${PODHOST_USER:-}" ] && [ -n "${SSH_USER_AUTH:-}" ] && [ -t 0 ] && [ "$(id -u)" = 0 ]; then
  PODHOST_USER=$(/usr/local/lib/podhost/officer-name "$SSH_USER_AUTH" 2> /dev/null) || PODHOST_USER=
  if [ -n "$PODHOST_USER" ]; then
    export PODHOST_USER
    cd /workspace 2> /dev/null || true
    exec bash --rcfile /etc/podhost/admin.bashrc -i
  fi
  unset PODHOST_USER
fi

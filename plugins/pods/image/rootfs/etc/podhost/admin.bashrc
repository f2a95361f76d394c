# The rc file of an officer's shell on the pod (root): started by /etc/profile.d/podhost-officer-shell.sh with the
# officer's username in PODHOST_USER, which is how the connected route tells officers' sessions (spec document 2).
[ -f /etc/bash.bashrc ] && . /etc/bash.bashrc
[ -f /root/.bashrc ] && . /root/.bashrc
PS1='\[\e[1;31m\]root\[\e[0m\] (officer ${PODHOST_USER}) \w\$ '
echo "Officer shell as root (${PODHOST_USER}). Members' folders are in /workspace; what you change outside them changes the pod for every member."

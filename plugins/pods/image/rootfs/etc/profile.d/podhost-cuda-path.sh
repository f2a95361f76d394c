# CUDA's tools on the PATH of every login shell (officers' and members'): sshd starts sessions with its own PATH, not
# the image's ENV, and the CUDA images keep nvcc and its friends in /usr/local/cuda/bin.
if [ -d /usr/local/cuda/bin ]; then
  case ":$PATH:" in
    *:/usr/local/cuda/bin:*) ;;
    *) PATH="$PATH:/usr/local/cuda/bin" ;;
  esac
fi

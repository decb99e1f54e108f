#!/bin/sh
# Runs a command with no browser visible: in a private mount namespace (root needed), /usr/bin gets
# an overlay without the Chromium and Chrome launchers and /usr/lib/chromium an empty tmpfs.
# Used by .ci/run when the workplace's shared tool is not beside the repository.
exec unshare -m sh -c '
  layer=$(mktemp -d); mkdir "$layer/upper" "$layer/work"
  mount -t overlay overlay -o "lowerdir=/usr/bin,upperdir=$layer/upper,workdir=$layer/work" /usr/bin || exit 97
  for name in chromium chromium-browser google-chrome google-chrome-stable microsoft-edge; do rm -f "/usr/bin/$name"; done
  if [ -d /usr/lib/chromium ]; then mount -t tmpfs none /usr/lib/chromium; fi
  unset CHROMIUM_PATH
  exec "$@"' sh "$@"

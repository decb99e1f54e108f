#!/usr/bin/env bash
# A newcomer's first run, from a fresh clone on a machine with no browser: `npm ci`, `npm run build`,
# then `npm start` until the demo answers a question over HTTP with sources. Prints the time from
# the install to the first answer. Usage: .ci/fresh-start.sh (from the repository)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
# npm start runs in its own process group, so stopping it stops the API server it started too.
trap 'kill -- -"$(cat "$work/start.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$work"' EXIT
git clone -q "$repo" "$work/app"
cd "$work/app"
port=$((20000 + RANDOM % 20000))
started=$(date +%s)
echo "fresh clone: npm ci"
npm ci --no-audit --no-fund --loglevel=error
echo "fresh clone: npm run build"
npm run --silent build >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
echo "fresh clone: npm start (PORT=$port)"
PORT=$port setsid npm start >"$work/start.log" 2>&1 &
echo $! >"$work/start.pid"
if ! node .ci/first-answer.mjs "http://127.0.0.1:$port" 600; then
  echo "npm start did not answer; its output:"; cat "$work/start.log"; exit 1
fi
echo "fresh clone: from npm ci to the first answer in $(( $(date +%s) - started )) s"
echo "what the first npm start printed:"; sed 's/^/  | /' "$work/start.log"

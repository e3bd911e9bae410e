#!/bin/sh
# Runs `statusbot ARGS` (default `serve`). A config mounted at the image's
# config path is used when STATUSBOT_CONFIG names none; without one, statusbot
# serves the demo, as `npm start` does.
set -e
DEFAULT_CONFIG=/etc/statusbot/statusbot.yml
if [ -z "${STATUSBOT_CONFIG:-}" ] && [ -e "$DEFAULT_CONFIG" ]; then
  export STATUSBOT_CONFIG="$DEFAULT_CONFIG"
fi
# exec: node is PID 1 and gets `podman stop`'s SIGTERM itself.
exec node /app/dist/src/cli.js "$@"

#!/bin/sh
# Container entry point of the CA Manager image.
#   no arguments: runs the service named by $APP (apps/$APP/src/main.ts)
#   arguments:    runs them instead, e.g. `npm run token -- --tenant <uuid>`
set -eu
cd /app

if [ "$#" -gt 0 ]; then
  exec "$@"
fi

if [ -z "${APP:-}" ] || [ ! -f "apps/${APP}/src/main.ts" ]; then
  echo "APP must name one of: $(ls apps | tr '\n' ' ')(got '${APP:-}')" >&2
  exit 64
fi

# exec: node replaces the shell, so SIGTERM from `docker stop` / the kubelet reaches it.
exec node -r @swc-node/register "apps/${APP}/src/main.ts"

#!/usr/bin/env bash
# Creates the Nx project files of one project: tools/scaffold-project.sh <apps|libs> <name> <tags...>
set -eu
kind=$1; name=$2; shift 2
root=$kind/$name
mkdir -p $root/src
tags=$(printf '"%s",' "$@"); tags="[${tags%,}]"
if [ "$kind" = apps ]; then ptype=application; else ptype=library; fi
serve=""; testint=""
if [ "$kind" = apps ]; then
  serve=',
    "serve": { "executor": "nx:run-commands", "continuous": true, "options": { "command": "node -r @swc-node/register '$root'/src/main.ts" } }'
fi
cat > $root/project.json <<JSON
{
  "name": "$name",
  "\$schema": "../../node_modules/nx/schemas/project-schema.json",
  "projectType": "$ptype",
  "sourceRoot": "$root/src",
  "tags": $tags,
  "targets": {
    "build": { "executor": "nx:run-commands", "options": { "command": "tsc -p $root/tsconfig.json --noEmit" } },
    "test": { "executor": "nx:run-commands", "options": { "command": "jest -c $root/jest.config.js --testPathIgnorePatterns int-spec" } },
    "test-int": { "executor": "nx:run-commands", "options": { "command": "jest -c $root/jest.config.js --testPathPatterns int-spec --passWithNoTests" } },
    "lint": { "executor": "nx:run-commands", "options": { "command": "eslint $root --max-warnings 0" } }$serve
  }
}
JSON
cat > $root/tsconfig.json <<JSON
{
  "extends": "../../tsconfig.base.json",
  "compilerOptions": { "noEmit": true, "types": ["node", "jest"] },
  "include": ["src/**/*.ts", "test/**/*.ts"]
}
JSON
cat > $root/jest.config.js <<JS
module.exports = { ...require('../../jest.preset.js'), displayName: '$name', rootDir: __dirname };
JS

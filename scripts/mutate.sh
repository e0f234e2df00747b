#!/usr/bin/env bash
# Mutation testing (docs/mutation.md): scripts/mutate.py does the work; --help lists the options.
set -euo pipefail
py=/usr/bin/python3
[ -x "$py" ] || py=python3
exec "$py" "$(dirname "$0")/mutate.py" "$@"

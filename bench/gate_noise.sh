#!/usr/bin/env bash
# Does `hnprecheck gate` tell noise from change on this machine, while it is
# busy? The driver is bench/gate_noise.py (its docstring says what each
# stage measures); this wrapper only checks what it needs.
#   bench/gate_noise.sh [--calls 50] [--baseline 10] [--new 3] [--load intermittent|hogs:N|none]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v taskset >/dev/null || { echo "needs taskset (util-linux)" >&2; exit 2; }
exec python3 bench/gate_noise.py "$@"

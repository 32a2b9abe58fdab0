#!/usr/bin/env bash
# Configures and builds into build/ (binary: build/bin/hnprecheck).
#   scripts/build.sh [extra cmake -D options]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
elif [ $# -gt 0 ]; then
  cmake -S . -B build "$@" >/dev/null
fi
cmake --build build -j "$(nproc)"

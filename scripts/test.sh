#!/usr/bin/env bash
# The test command: set up everything a fresh machine needs (environment, models), then run the suite.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
. scripts/env.sh
duocthu-models prepare
export QT_QPA_PLATFORM=offscreen
ruff check duocthu_desktop ingestion models tests
set +e
python -m pytest -q -p no:cacheprovider "$@"
rc=$?
set -e
[ "$rc" -eq 5 ] && { echo "no tests collected" >&2; exit 1; }
exit "$rc"

#!/usr/bin/env bash
# The set-up command: install, prepare the models and the sample index, then start the app
# (or, where no display is available, answer a sample question in the terminal).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
. scripts/env.sh
duocthu-models prepare
SHARED="${DUOCTHU_SHARED:-$ROOT/../shared}"
INDEX="${DUOCTHU_INDEX:-$(python -c 'from duocthu_desktop.settings import data_dir; print(data_dir() / "sample-index")')}"
# rebuilt when missing, older than the PDF, or made by a build that did not yet write dosing.jsonl
if [ ! -f "$INDEX/report.json" ] || [ ! -f "$INDEX/dosing.jsonl" ] \
   || [ "$SHARED/corpus/duocthu-2018-sample.pdf" -nt "$INDEX/report.json" ]; then
  duocthu-ingest build --pdf "$SHARED/corpus/duocthu-2018-sample.pdf" --out "$INDEX"
fi
duocthu-ingest check "$INDEX"
export DUOCTHU_INDEX="$INDEX"
if python -c 'import duocthu_desktop.ui.app' 2>/dev/null && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
  exec duocthu --index "$INDEX"
fi
duocthu-ask --index "$INDEX" "${1:-Liều paracetamol cho bé 5 tuổi nặng 18 kg, đường uống?}"

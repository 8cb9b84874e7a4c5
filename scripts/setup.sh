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
# Qt's X11 window needs a few xcb libraries a server image may lack: installed whatever DISPLAY says now (a display
# may come later, over ssh -X or a desktop session); best effort, the terminal answer works without them
XCB_PACKAGES="$(python -m duocthu_desktop.app.qt_libs 2>/dev/null || true)"
if [ -n "$XCB_PACKAGES" ] && command -v apt-get >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && SUDO="sudo -n"
  # shellcheck disable=SC2086 # one word per package
  $SUDO apt-get install -y -qq $XCB_PACKAGES >/dev/null 2>&1 \
    || { $SUDO apt-get update -qq >/dev/null 2>&1 && $SUDO apt-get install -y -qq $XCB_PACKAGES >/dev/null 2>&1; } \
    || echo "setup: could not install $XCB_PACKAGES (the window needs them; see the line duocthu prints)" >&2
fi
# Xvfb and xdotool run the real window without a screen (its checks and screenshots at a set size); best effort
if ! command -v Xvfb >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && SUDO="sudo -n"
  $SUDO apt-get install -y -qq xvfb xdotool >/dev/null 2>&1 \
    || echo "setup: could not install xvfb xdotool (only the checks under a virtual screen need them)" >&2
fi
# The app opens its window where there is a display; elsewhere it says so and answers the sample question here.
exec duocthu --index "$INDEX" --ask "${1:-Liều paracetamol cho bé 5 tuổi nặng 18 kg, đường uống?}"

#!/usr/bin/env bash
# Builds the one-folder bundle an admin copies to an offline laptop (build.spec), and checks it.
#
#   bash scripts/dist.sh            build (or reuse) the bundle; prints the folder on the last line
#   bash scripts/dist.sh --check    the same, then start the built programs with no virtual environment and no
#                                   network, and exit non-zero unless every step passes (about 30 s)
#
# The bundle is cached under the cache folder, keyed by the hash of what goes into it (the source, the launcher,
# build.spec, pyproject.toml, the models' files, the sample index and its PDF, the PyInstaller and Python versions): an unchanged
# checkout reuses it at once; a new key replaces the old folder. Builds from the active virtual environment
# ($VIRTUAL_ENV), else from the project's (scripts/env.sh). PyInstaller is not a project dependency: a pinned
# version is installed into that environment when missing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CHECK=0
for arg in "$@"; do
  case "$arg" in
    --check) CHECK=1 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "dist.sh: unknown argument $arg (use --check)" >&2; exit 2 ;;
  esac
done
PYINSTALLER_VERSION="6.22.3"
CACHE="${DUOCTHU_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/duocthu}"
if [ -z "${VIRTUAL_ENV:-}" ] || [ ! -x "$VIRTUAL_ENV/bin/python" ]; then
  # shellcheck disable=SC1091
  . "$ROOT/scripts/env.sh"
fi
PY="$VIRTUAL_ENV/bin/python"
say() { echo "[dist] $*" >&2; }
fail() { echo "[dist] FAILED: $*" >&2; exit 1; }

if ! "$PY" -c "import PyInstaller, sys; sys.exit(PyInstaller.__version__ != '$PYINSTALLER_VERSION')" 2>/dev/null; then
  say "installing pyinstaller $PYINSTALLER_VERSION into $VIRTUAL_ENV (a build tool, not a project dependency)"
  "$PY" -m pip install -q "pyinstaller==$PYINSTALLER_VERSION"
fi

# What goes in, where setup put it (each can be overridden): the sample index, its PDF, the models.
eval "$(cd "$ROOT" && PYTHONPATH="$ROOT" "$PY" - <<'EOF'
import json, os, shlex
from pathlib import Path
from duocthu_desktop import bundled, settings
from models import gguf
index = Path(os.environ.get("DUOCTHU_BUNDLE_INDEX") or settings.data_dir() / bundled.INDEX)
try:
    pdf = json.loads((index / "pages.json").read_text(encoding="utf-8")).get("source_pdf") or ""
except (OSError, ValueError):
    pdf = ""
values = {"INDEX": index, "MODELS": os.environ.get("DUOCTHU_BUNDLE_MODELS") or settings.models_dir(),
          "PDF": os.environ.get("DUOCTHU_BUNDLE_PDF") or pdf,
          "GGUF": os.environ.get("DUOCTHU_BUNDLE_GGUF", gguf.DEFAULT.file_name)}
for key, value in values.items():
    print(f"B_{key}={shlex.quote(str(value))}")
EOF
)"
[ -f "$B_INDEX/manifest.json" ] || fail "no sample index at $B_INDEX: build it first (scripts/setup.sh does)"
[ -f "$B_PDF" ] || fail "the PDF the index was built from ($B_PDF) is not here: set DUOCTHU_BUNDLE_PDF"
export DUOCTHU_BUNDLE_INDEX="$B_INDEX" DUOCTHU_BUNDLE_MODELS="$B_MODELS" DUOCTHU_BUNDLE_PDF="$B_PDF"
export DUOCTHU_BUNDLE_GGUF="$B_GGUF"

mkdir -p "$CACHE/bundle"
# The key: every input's content. Model files are large, so their sha256 is remembered by (path, size, mtime).
KEY="$(cd "$ROOT" && "$PY" - "$CACHE/bundle/digests.json" <<'EOF'
import hashlib, json, os, sys
from pathlib import Path
import PyInstaller
memo_file = Path(sys.argv[1])
try:
    memo = json.loads(memo_file.read_text())
except (OSError, ValueError):
    memo = {}
def digest(path: Path, remember: bool = False) -> str:
    st = path.stat()
    stamp = f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}"
    if remember and stamp in memo:
        return memo[stamp]
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    if remember:
        memo[stamp] = h.hexdigest()
    return h.hexdigest()
def files(folder: Path):
    return sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
lines = [f"python {sys.version}", f"pyinstaller {PyInstaller.__version__}"]
for name in ("build.spec", "pyproject.toml"):
    lines.append(f"{name} {digest(Path(name))}")
for folder in ("duocthu_desktop", "ingestion", "models"):
    lines += [f"{p} {digest(p)}" for p in files(Path(folder))]
lines.append(f"launcher {digest(Path('scripts/bundle_launcher.py'))}")  # the one script the executables run
env = os.environ
index = Path(env["DUOCTHU_BUNDLE_INDEX"])
# the index by its artifacts and manifest (which names the collection by the digests of its chunks and model):
# Chroma rewrites its sqlite file whenever anyone opens the index, without changing what it holds
lines += [f"index/{p.relative_to(index)} {digest(p)}" for p in files(index) if "chroma" not in p.relative_to(index).parts]
lines.append(f"pdf {digest(Path(env['DUOCTHU_BUNDLE_PDF']), True)}")
models = Path(env["DUOCTHU_BUNDLE_MODELS"])
wanted = files(models / "embeddinggemma-300m") + ([models / "gguf" / env["DUOCTHU_BUNDLE_GGUF"]] if env["DUOCTHU_BUNDLE_GGUF"] else [])
lines += [f"models/{p.relative_to(models)} {digest(p, True)}" for p in wanted]
tmp = memo_file.with_suffix(".tmp")
tmp.write_text(json.dumps(memo))
os.replace(tmp, memo_file)
print(hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16])
EOF
)"
BUILT="$CACHE/bundle/$KEY"
OUT="$BUILT/duocthu"
exec 8>"$CACHE/bundle/build.lock"
flock 8  # one build at a time; a second caller waits, then reuses it
if [ -f "$BUILT/.complete" ]; then
  say "reusing the bundle built from these inputs (key $KEY)"
else
  say "building the bundle (key $KEY); about 10 minutes on 2 cores"
  started=$(date +%s)
  rm -rf "$BUILT.tmp"
  mkdir -p "$BUILT.tmp"
  # PyInstaller's work folder is kept across keys: a rebuild after a small change reuses its per-module work
  (cd "$ROOT" && nice "$PY" -m PyInstaller --noconfirm --log-level WARN --distpath "$BUILT.tmp/dist" \
      --workpath "$CACHE/bundle/work" build.spec) >"$BUILT.tmp/build.log" 2>&1 \
    || { tail -20 "$BUILT.tmp/build.log" >&2; fail "pyinstaller failed (log: $BUILT.tmp/build.log)"; }
  rm -rf "$BUILT"
  mkdir -p "$BUILT"
  mv "$BUILT.tmp/dist/duocthu" "$OUT"
  mv "$BUILT.tmp/build.log" "$BUILT/build.log"
  rm -rf "$BUILT.tmp"
  echo "$(( $(date +%s) - started ))" >"$BUILT/build_seconds"
  touch "$BUILT/.complete"
  for old in "$CACHE/bundle"/*/; do  # keep one bundle: each is several GB
    [ "${old%/}" = "$BUILT" ] || [ "${old%/}" = "$CACHE/bundle/work" ] || [ "${old%/}" = "$CACHE/bundle/last-check" ] \
      || rm -rf "${old%/}"
  done
  say "built in $(cat "$BUILT/build_seconds") s"
fi
flock -u 8
say "size: $(du -sh "$OUT" | cut -f1)"

if [ "$CHECK" = 1 ]; then
  # Everything runs from outside any virtual environment: env -i, a bare PATH, a fresh HOME (no settings, no
  # data folder: the bundled index and models are what it finds), off-screen.
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/duocthu-dist-check.XXXXXX")"
  trap 'rm -rf "$WORK"' EXIT
  QUESTION="Liều paracetamol cho bé 5 tuổi nặng 18 kg, đường uống?"
  SAMPLE_B="$ROOT/../shared/corpus/duocthu-2018-sample-b.pdf"
  [ -f "$SAMPLE_B" ] || SAMPLE_B="$B_PDF"
  bare() { env -i PATH=/usr/bin:/bin HOME="$WORK/home" LANG=C.UTF-8 QT_QPA_PLATFORM=offscreen "$@"; }
  step() { local t0; t0=$(date +%s%N); say "check: $1"; shift
    if "$@"; then say "  ok ($(( ($(date +%s%N) - t0) / 1000000000 )) s)"; else fail "$*"; fi; }
  shot_ok() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; }
  app_answers() {  # the window asks, opens the first citation, saves a PNG: exit 0 only if the answer cited
    bare "$OUT/duocthu" --screenshot "$1" --ask "$QUESTION" >"$1.log" 2>&1 || { tail -5 "$1.log" >&2; return 1; }
    shot_ok "$1" || { echo "no PNG at $1" >&2; return 1; }
  }
  ingest_ok() {
    bare "$OUT/duocthu-ingest" build --no-embed --pdf "$SAMPLE_B" --out "$WORK/ingest" >"$WORK/ingest.log" 2>&1 \
      && bare "$OUT/duocthu-ingest" check "$WORK/ingest" >>"$WORK/ingest.log" 2>&1 \
      || { tail -5 "$WORK/ingest.log" >&2; return 1; }
  }
  offline_answers() {
    # No network but loopback (unshare -n), and the build machine's venv, models, data, corpus and checkout
    # hidden under empty folders (unshare -m): only what the bundle carries can answer.
    command -v unshare >/dev/null || { echo "unshare not found" >&2; return 1; }
    unshare -n -m sh -c '
      work=$1 out=$2 question=$3; shift 3
      for d in "$@"; do [ -d "$d" ] && mount -t tmpfs tmpfs "$d"; done
      up=$(awk -F: "NR > 2 { gsub(/ /, \"\", \$1); if (\$1 != \"lo\") print \$1 }" /proc/net/dev)
      [ -z "$up" ] || { echo "network interfaces still there: $up" >&2; exit 1; }
      exec env -i PATH=/usr/bin:/bin HOME="$work/home-offline" LANG=C.UTF-8 QT_QPA_PLATFORM=offscreen \
        "$out/duocthu" --screenshot "$work/offline.png" --ask "$question"' \
      sh "$WORK" "$OUT" "$QUESTION" "$VIRTUAL_ENV" "$B_MODELS" "$(dirname "$B_INDEX")" "$(dirname "$B_PDF")" "$ROOT" \
      >"$WORK/offline.log" 2>&1 || { tail -5 "$WORK/offline.log" >&2; return 1; }
    shot_ok "$WORK/offline.png" || { echo "no PNG at $WORK/offline.png" >&2; return 1; }
  }
  model_loads() {  # the window usable, then the embedding model loaded in its worker process (torch, the model)
    bare "$OUT/duocthu" --launch-bench >"$WORK/launch.out" 2>"$WORK/launch.err" || { tail -3 "$WORK/launch.err" >&2; return 1; }
    grep -q "^ready " "$WORK/launch.out" && grep -q "^warm " "$WORK/launch.out" || { echo "never usable" >&2; return 1; }
    ! grep -E "embedding model not loaded|embedding worker unavailable" "$WORK/launch.err" >&2
  }
  step "the app answers with a citation, off-screen, outside any venv (screenshot)" app_answers "$WORK/answer.png"
  step "the ingest tool builds $(basename "$SAMPLE_B") (--no-embed) and checks it" ingest_ok
  step "the app answers with no network (unshare -n) and the build machine's files hidden" offline_answers
  step "the app loads the embedding model in its worker process" model_loads
  mkdir -p "$CACHE/bundle/last-check"
  cp "$WORK/answer.png" "$WORK/offline.png" "$CACHE/bundle/last-check/"
  say "check passed; screenshots in $CACHE/bundle/last-check/"
fi
echo "$OUT"

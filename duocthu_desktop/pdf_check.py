"""Is the PDF on this machine the one an index was built from? The viewer highlights quotes only on that one.

An index records its PDF's sha256 and file name (not a path on the build machine) in manifest.json; every build
also wrote the sha256 into pages.json, so an index built before the manifest recorded it is still checked.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from duocthu_desktop.artifacts import PAGES_FILE
from duocthu_desktop.retrieval.manifest import MANIFEST_FILE

MSG_PDF_DIFFERENT = "Tệp PDF này khác với tệp đã dùng để dựng chỉ mục; không thể tô sáng trích dẫn."
MSG_PDF_UNVERIFIED = (
    "Chỉ mục này không ghi lại tệp PDF đã dùng để dựng nó, nên không kiểm tra được tệp PDF đang mở; "
    "vị trí tô sáng có thể không đúng."
)
MSG_PDF_MISSING = "Không tìm thấy tệp PDF của Dược thư; hãy chọn tệp trong phần Cài đặt."

_SHA_CACHE: dict[tuple[str, int, int], str] = {}


def file_sha256(path: Path | str) -> str:
    """sha256 of a file, remembered per (path, size, mtime) so the viewer can ask again for free."""
    path = Path(path).resolve()
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _SHA_CACHE:
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        _SHA_CACHE[key] = digest.hexdigest()
    return _SHA_CACHE[key]


def recorded_pdf(index_dir: Path | str) -> tuple[str | None, str | None]:
    """(sha256, file name) of the PDF an index was built from: from its manifest, else its pages.json (which
    every build wrote); (None, None) when neither says."""
    index_dir = Path(index_dir)
    try:
        manifest = json.loads((index_dir / MANIFEST_FILE).read_text(encoding="utf-8"))
        if isinstance(manifest, dict) and isinstance(manifest.get("source_pdf_sha256"), str):
            return manifest["source_pdf_sha256"], manifest.get("source_pdf_name")
    except (OSError, ValueError):
        pass
    try:
        pages = json.loads((index_dir / PAGES_FILE).read_text(encoding="utf-8"))
        sha = pages.get("source_sha256") if isinstance(pages, dict) else None
        if isinstance(sha, str) and len(sha) == 64:
            name = pages.get("source_pdf")
            return sha, Path(name).name if isinstance(name, str) else None
    except (OSError, ValueError):
        pass
    return None, None


def check_pdf(index_dir: Path | str, pdf_path: Path | str) -> str | None:
    """None when `pdf_path` is the PDF the index was built from; else the Vietnamese line to show. Only
    MSG_PDF_DIFFERENT (or a missing file) forbids highlighting; MSG_PDF_UNVERIFIED (an index that does not
    record its PDF) is a warning, and the page still opens."""
    if not Path(pdf_path).is_file():
        return MSG_PDF_MISSING
    sha, _ = recorded_pdf(index_dir)
    if sha is None:
        return MSG_PDF_UNVERIFIED
    return None if file_sha256(pdf_path) == sha else MSG_PDF_DIFFERENT


def may_highlight(message: str | None) -> bool:
    """Whether the viewer may highlight after `check_pdf` returned `message`."""
    return message is None or message == MSG_PDF_UNVERIFIED

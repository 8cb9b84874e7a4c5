"""The catalog the build computed (catalog.json), read at open instead of computed again from every chunk.

Computing the catalog folds every word of the book: 1.5-4 s at full size, at every open. The build writes it
once (`write_catalog`, atomically) and records the digest of the code that computed it in manifest.json
(`code_sha256`); `open_catalog` reads it only while the running code has the same digest, and computes it as
before for an index built before the file existed, by other code, or whose file cannot be read.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from duocthu_desktop import atomic
from duocthu_desktop.artifacts import CATALOG_FILE, Chunk, Monograph
from duocthu_desktop.code_digest import code_sha256
from duocthu_desktop.qa.understanding.catalog import Catalog

log = logging.getLogger(__name__)
CATALOG_MODULE = __name__  # this module (the file format), the catalog and what they import
FORMAT = 1


def catalog_code_sha256() -> str | None:
    """The digest of the code that computes the catalog (the module and what it imports)."""
    return code_sha256(CATALOG_MODULE)


def write_catalog(index_dir: Path, monographs: list[Monograph], chunks: list[Chunk]) -> Catalog:
    """Compute the catalog and write it into `index_dir` (atomically); the catalog, for the caller."""
    catalog = Catalog(monographs, chunks)
    data = {"format": FORMAT, "catalog": catalog.to_data()}
    atomic.write_text(Path(index_dir) / CATALOG_FILE, json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    return catalog


def read_catalog(index_dir: Path, monographs: list[Monograph]) -> Catalog:
    """The stored catalog; ValueError if the file is not one (OSError if it cannot be read)."""
    data = json.loads((Path(index_dir) / CATALOG_FILE).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{CATALOG_FILE} is not a catalog of format {FORMAT}")
    try:
        return Catalog.from_data(monographs, data["catalog"])
    except (KeyError, TypeError, IndexError) as err:
        raise ValueError(f"{CATALOG_FILE} is malformed ({type(err).__name__})") from err


def open_catalog(service) -> Catalog:
    """The catalog of the service's index: stored when the build's code is the running code, else computed."""
    index_dir, manifest = getattr(service, "index_dir", None), getattr(service, "manifest", None)
    recorded = (getattr(manifest, "code_sha256", None) or {}).get(CATALOG_FILE)
    if index_dir is not None and recorded is not None:
        running = catalog_code_sha256()
        if running == recorded:
            try:
                return read_catalog(index_dir, service.monographs)
            except (OSError, ValueError) as err:
                log.warning("stored catalog of %s not read (%s): computed from the chunks", index_dir, err)
        else:
            log.info("catalog of %s was computed by other code (%s, running %s): computed again", index_dir,
                     recorded[:12], (running or "unknown")[:12])
    return Catalog(service.monographs, service.all_chunks())

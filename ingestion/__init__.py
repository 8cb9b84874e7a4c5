"""The ingest: the PDF read into monographs, chunks, dose rows and an index."""

import sys

# PyMuPDF imports its optional layout analyser (`pymupdf.layout`: onnxruntime and three ONNX sessions, ~0.5 s of
# CPU and ~56 MB per process, seconds of wall on a shared machine) whenever it is importable. The ingest never
# uses it (tables.find_tables asks `use_layout=False`), so a process whose first PyMuPDF import comes from here
# is spared it: PyMuPDF's own `try: import pymupdf.layout / except ImportError` then finds it absent. A process
# that had imported PyMuPDF already (the app's) keeps what it has.
if "pymupdf" not in sys.modules:
    sys.modules.setdefault("pymupdf.layout", None)

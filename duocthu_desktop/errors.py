"""One root error for the whole project; subclasses carry what a person needs to act.

    DuocthuError
     ├── InputRefused        bad input an admin can fix (not a PDF, encrypted, no text layer, ...): exit 2
     ├── ModelError          a model file missing, partial, tampered or not loadable
     ├── IndexError_         an index missing, corrupt, or built for another model
     │    └── ServerUnavailable   the Chroma server does not answer (the index itself may be fine)
     └── StoreError          the conversation/trace store failed (a turn goes on without memory)

`str(err)` is the one-line message shown to a person (Vietnamese for the app, English for admin tools is fine).
"""

from __future__ import annotations


class DuocthuError(Exception):
    """Root of every error this project raises on purpose."""


class InputRefused(DuocthuError):
    """Input the tool refuses, with a one-line reason that says what to do."""


class ModelError(DuocthuError):
    """A model file is missing, incomplete, tampered with or cannot be loaded."""


class IndexError_(DuocthuError):  # noqa: N801 - trailing underscore avoids shadowing the builtin
    """An index folder is missing, corrupt, or was built for a different embedding model."""


class ServerUnavailable(IndexError_):
    """The Chroma server (DUOCTHU_CHROMA_URL) does not answer: start it again; nothing to rebuild."""


class StoreError(DuocthuError):
    """The SQLite conversation or trace store failed."""

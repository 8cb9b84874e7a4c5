"""Dosage bands: a "Liều lượng và cách dùng" section cut into the pieces the book prints for each group, and the
choice of the pieces that fit one patient.

The book nests its dose labels (route > population > age or weight, with indications and renal bands in
between), always as printed words ending in ":" ("Người lớn:", "Uống:", "Trẻ em 4 - 6 tuổi:", "Trên 50 kg:",
"Đau, sốt:", "Suy thận:", "Clcr 10 - 50 ml/phút"). A section is read once, in order, into `Band`s: a verbatim span
of one chunk plus what it applies to, its own label and the labels it inherits. `choose_bands` keeps the bands
whose group matches the QueryFrame; a band with no stated group applies to every group of its context.

This module is the public face; the work lives in `band_labels` (reading one label), `band_context` (the
inherited headings), `band_pieces` and `band_parse` (cutting a section) and `band_match` (choosing for a patient).
"""

from __future__ import annotations

from duocthu_desktop.qa.band_context import Band, Level
from duocthu_desktop.qa.band_labels import (
    ADULT_AGE,
    NEONATE_AGE,
    ROUTE_NAMES,
    Attrs,
    Range,
    detect_attrs,
    detect_routes,
    mentioned_routes,
)
from duocthu_desktop.qa.band_match import (
    BandChoice,
    band_title,
    choose_bands,
    condition_score,
    fits,
    frame_populations,
    routes_compatible,
)
from duocthu_desktop.qa.band_parse import cut_bands

__all__ = [
    "ADULT_AGE",
    "NEONATE_AGE",
    "ROUTE_NAMES",
    "Attrs",
    "Band",
    "BandChoice",
    "Level",
    "Range",
    "band_title",
    "choose_bands",
    "condition_score",
    "cut_bands",
    "detect_attrs",
    "detect_routes",
    "fits",
    "frame_populations",
    "mentioned_routes",
    "routes_compatible",
]

"""`duocthu-ingest` in-process: build/check/inspect, and every bad input refused with exit 2, one line,
and an earlier output folder left byte for byte as it was."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pymupdf
import pytest

from ingestion.cli import main


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture()
def previous_out(tmp_path: Path, sample_build: Path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(sample_build, out)
    return out


def _text_pdf(path: Path, text: str) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), text)
    doc.save(path)
    return path


def _add_image_page(doc: pymupdf.Document, at: int) -> None:
    page = doc.new_page(pno=at)
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 60, 80), 0)
    pix.clear_with(200)
    page.insert_image(pymupdf.Rect(50, 50, 550, 800), pixmap=pix)


def _image_page_pdf(path: Path, sample_pdf: Path) -> Path:
    """A scanned page in the middle of a monograph (Abacavir's pages 3 and 4 of the sample)."""
    doc = pymupdf.open(sample_pdf)
    doc.select([0, 1, 2, 3, 4, 5])
    _add_image_page(doc, 3)
    doc.save(path)
    return path


def _scanned_book(path: Path, sample_pdf: Path) -> Path:
    doc = pymupdf.open()
    for i in range(3):
        _add_image_page(doc, i)
    doc.save(path)
    return path


def _encrypted(path: Path, sample_pdf: Path) -> Path:
    doc = pymupdf.open(sample_pdf)
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="user")
    return path


def _truncated(path: Path, sample_pdf: Path, frac: float) -> Path:
    data = sample_pdf.read_bytes()
    path.write_bytes(data[: int(len(data) * frac)])
    return path


BAD_INPUTS = {
    "not_a_pdf": (lambda p, s: (p.write_text("Paracetamol 500 mg\n", encoding="utf-8"), p)[1], "not a PDF"),
    "encrypted": (_encrypted, "encrypted"),
    "truncated_half": (lambda p, s: _truncated(p, s, 0.5), "damaged or truncated"),
    "truncated_tail": (lambda p, s: _truncated(p, s, 0.97), "damaged or truncated"),
    "no_monographs": (lambda p, s: _text_pdf(p, "Báo cáo năm 2018: doanh thu tăng."), "no monographs"),
    "scanned_page": (_image_page_pdf, "no text layer"),
    "scanned_book": (_scanned_book, "no text layer"),
}


@pytest.mark.parametrize("kind", sorted(BAD_INPUTS))
def test_bad_input_exit_2_one_line_and_previous_folder_untouched(
    kind, tmp_path, sample_pdf, previous_out, capsys
):
    make, phrase = BAD_INPUTS[kind]
    bad = make(tmp_path / f"{kind}.pdf", sample_pdf)
    before = snapshot(previous_out)
    code = main(["build", "--pdf", str(bad), "--out", str(previous_out), "--no-embed"])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and phrase in err, err
    assert snapshot(previous_out) == before
    assert not list(previous_out.parent.glob(".out.staging.*"))


def test_a_textless_cover_outside_the_monographs_is_allowed(tmp_path, sample_pdf):
    from ingestion.pipeline import run

    doc = pymupdf.open(sample_pdf)
    doc.select([0, 1, 2, 3])
    _add_image_page(doc, 0)
    path = tmp_path / "cover.pdf"
    doc.save(path)
    result = run(path)
    assert [m.drug_id for m in result.monographs] == ["abacavir"]
    assert result.pages.printed_for(1) is None and result.pages.printed_for(4) == 99


def test_missing_file_is_refused(tmp_path, capsys):
    assert (
        main(["build", "--pdf", str(tmp_path / "nope.pdf"), "--out", str(tmp_path / "o"), "--no-embed"]) == 2
    )
    assert "not found" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.integration
def test_build_writes_the_four_artifacts_and_check_passes(sample_build, capsys):
    for name in ("monographs.jsonl", "chunks.jsonl", "pages.json", "report.json"):
        assert (sample_build / name).is_file()
    header = json.loads((sample_build / "chunks.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert header["schema_version"] == 1
    report = json.loads((sample_build / "report.json").read_text(encoding="utf-8"))
    assert report["pages"] == 56 and report["monographs"] == 17 and report["pages_per_second"] > 0
    assert report["peak_memory_mb"] > 0
    assert main(["check", str(sample_build)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    names = [ln.split(":")[0] for ln in lines]
    for gate in (
        "monographs_without_sections",
        "sections_without_text",
        "chunks_over_token_ceiling",
        "chunks_without_pages",
        "monograph_pages_without_folio",
        "duplicate_chunk_ids",
        "replacement_characters",
        "reading_order_jumps",
        "artifact_mismatches",  # the artifacts against what the build recorded (tests/test_ingest_safety.py)
    ):
        assert gate in names
    assert all(ln.endswith(": 0") for ln in lines)


@pytest.mark.integration
def test_check_recomputes_from_the_artifacts(previous_out, capsys):
    chunks = previous_out / "chunks.jsonl"
    lines = chunks.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[1])
    row["text"] = row["text"] + " \ufffd"
    lines.append(json.dumps(row, ensure_ascii=False))  # a duplicate id with a replacement character
    chunks.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["check", str(previous_out)]) == 1
    out = capsys.readouterr().out
    assert "duplicate_chunk_ids: 1" in out and "replacement_characters: 1" in out


@pytest.mark.integration
def test_inspect_prints_one_monograph_or_section_in_book_order(sample_build, capsys):
    assert (
        main(["inspect", str(sample_build), "--drug", "paracetamol", "--section", "lieu_luong_cach_dung"])
        == 0
    )
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert rows and {r["section_key"] for r in rows} == {"lieu_luong_cach_dung"}
    assert [r["part_index"] for r in rows] == list(range(len(rows)))
    assert main(["inspect", str(sample_build), "--drug", "warfarin"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert rows[0]["section_key"] == "thong_tin_chung"
    assert main(["inspect", str(sample_build), "--drug", "no_such_drug"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "unknown drug" in err


@pytest.mark.integration
def test_rebuild_replaces_the_folder_and_embed_without_index_builder_fails_cleanly(
    tmp_path, sample_pdf, previous_out, monkeypatch, capsys
):
    import ingestion.pipeline as pipeline

    before = snapshot(previous_out)
    # simulate the index half failing: the earlier folder must stay as it was
    import sys
    import types

    fake = types.ModuleType("ingestion.index_build")

    def boom(*args, **kwargs):
        raise RuntimeError("index failed")

    fake.build_index = boom
    monkeypatch.setitem(sys.modules, "ingestion.index_build", fake)
    with pytest.raises(RuntimeError):
        pipeline.build(sample_pdf, previous_out, embed=True)
    assert snapshot(previous_out) == before

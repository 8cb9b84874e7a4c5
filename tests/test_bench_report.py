"""The benchmark's own arithmetic and report (bench/): growth, percentiles, goals, the app table it parses, and the
questions it makes from an index's monographs. No PDF, no model."""

from __future__ import annotations

import json

from bench import measure, questions, report
from duocthu_desktop.artifacts import MONOGRAPHS_FILE
from tests.retrieval_samples import sample_monographs


def test_percentile_and_summary():
    values = [float(v) for v in range(1, 101)]
    assert measure.percentile(values, 0.95) == 95.0
    assert measure.percentile([3.0], 0.95) == 3.0
    assert measure.summary([3.0, 1.0, 2.0]) == {"median": 2.0, "min": 1.0, "max": 3.0, "n": 3}


def test_growth_reads_the_exponent_of_cost_against_size():
    def fig(v):
        return {"median": v}

    assert "linear" in report.growth("ingest_s", fig(5.0), fig(200.0), 40.0)
    assert "sub-linear" in report.growth("open_imports_s", fig(1.0), fig(4.0), 40.0)
    assert "flat" in report.growth("dev_p95_ms", fig(30.0), fig(31.0), 40.0)
    assert "worse than linear" in report.growth("build_s", fig(10.0), fig(2000.0), 40.0)
    assert "flat" in report.growth("pages_per_s", fig(10.0), fig(9.5), 34.0)  # a rate: its cost per unit
    assert report.growth("ingest_s", None, fig(1.0), 40.0) == ""


def test_goals_are_read_at_full_size():
    assert "**met**" in report._goal("build_s", {"median": 300.0, "max": 300.0})
    assert "**missed**" in report._goal("build_s", {"median": 3785.0, "max": 3785.0})
    assert "not measured" in report._goal("launch_s", None)
    assert report._goal("index_mb", {"median": 1.0, "max": 1.0}) == ""


def test_app_bench_table_rows_are_parsed():
    line = "khởi động đến cửa sổ dùng được                 2.31      2.10      2.90  < 5 s"
    m = measure._ROW.match(line)
    assert m and m["label"].strip() == "khởi động đến cửa sổ dùng được"
    assert (float(m["median"]), float(m["min"]), float(m["max"])) == (2.31, 2.10, 2.90)
    assert measure._ROW.match("                                            median       min       max  goal") is None
    helper = measure._ROW.match("  các tiến trình phụ (mô hình, trích dẫn)     1369.6    1369.6    1369.6  MB")
    assert helper and helper["label"] == "các tiến trình phụ (mô hình, trích dẫn)"


def test_app_memory_is_the_app_and_its_helpers():
    rows = {"khởi động đến cửa sổ dùng được": {"median": 2.0, "min": 1.9, "max": 2.2},
            "bộ nhớ thường trú sau 10 lượt": {"median": 600.0, "min": 590.0, "max": 610.0},
            "các tiến trình phụ (mô hình, trích dẫn)": {"median": 1400.0, "min": 1300.0, "max": 1500.0}}
    figures = report.figures({"full": {"app": {"rows": rows, "load": 1.0}}}, "full")
    assert figures["launch_s"]["median"] == 2.0
    assert figures["app_rss_mb"]["median"] == 2000.0 and figures["app_rss_mb"]["max"] == 2110.0


def test_render_lists_each_figure_at_both_sizes():
    def ingest(seconds, pages, chunks):
        return {"runs": [{"seconds": seconds, "pages": pages, "chunks": chunks, "peak_rss_mb": 100.0, "load": 0.5}]}

    def turns(ms):
        return {"dev": [{"load": 0.4, "turns": [{"id": "a", "seconds": ms / 1000}]}], "book": []}

    results = {"sample": {"ingest": ingest(5.0, 56, 320), "turns": turns(20)},
               "full": {"ingest": ingest(60.0, 1922, 12800), "turns": turns(400),
                        "generative": {"skipped": "not configured (set DUOCTHU_GGUF to a GGUF file)"}}}
    text = report.render(results)
    assert "| Ingest without embeddings: time (s) | 5.0 (1 run) | 60.0 (1 run) |" in text
    assert "< 180 s: **met**" in text
    assert "Extractive turn, dev questions: 95th percentile" in text and "< 300 ms: **missed**" in text
    assert "not configured" in text


def test_book_questions_name_the_index_monographs(tmp_path):
    rows = [m.model_dump_json() for m in sample_monographs()]
    (tmp_path / MONOGRAPHS_FILE).write_text("\n".join(rows) + "\n", encoding="utf-8")
    cases = questions.book_cases(tmp_path, drugs=4)
    asked = " ".join(t for c in cases for t in c["turns"])
    assert "paracetamol" in asked and "(acetaminophen)" not in asked  # the title a person types
    conditions = [c for c in cases if c.get("condition")]
    assert [c["condition"] for c in conditions] == questions.CONDITIONS
    assert all(c["condition"] in c["turns"][0] for c in conditions)
    assert len({c["id"] for c in cases}) == len(cases)
    json.dumps(cases, ensure_ascii=False)  # what the probe reads

"""The embedding build's options side by side, on the sample book's chunks (a script, not a test).

The synthetic full-size book is the sample's 17 monographs 40 times over under other names, so its chunks are
the sample's 320 times 40: an option's cost on the sample, times 40, is its cost on the full-size book. Each
option embeds cold (straight through the model, no cache). Options over every chunk run on a quarter of them
(every 4th by length, so short and long chunks are both there) and are scaled up accordingly.

    python -m bench.embed_options [--index DIR] [--json OUT]

For each option: the tokens and chunks it embeds, seconds, and the projected full-size embedding time. For the
shorter cuts it also reports how close the `chi_dinh` vectors (the only ones a dense search ranks) stay to the
512-token ones, and whether the dense indication ranking of a set of conditions changes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

FULL_COPIES = 40
DENSE_CONDITIONS = ["huyết áp tăng cao", "cao huyết áp", "tiểu đường", "nhiễm virus HIV", "đông máu", "bệnh gout",
                    "đau nửa đầu", "nhiễm trùng đường tiểu", "co giật", "phù do suy tim", "đau thắt ngực",
                    "nhiễm khuẩn nặng", "sốt cao ở trẻ em", "rối loạn lo âu", "huyết khối"]


HEAD_WORDS = 24  # the "heads" option: title, heading and the first words of every chunk outside Chỉ định


def _texts(index: Path) -> tuple[list[str], list[str], list[str]]:
    """(every chunk's document text, the section key of each, the "heads" option's text of each)."""
    import re

    from duocthu_desktop.artifacts import CHUNKS_FILE, MONOGRAPHS_FILE, read_chunks, read_monographs
    from ingestion.index_build import DENSE_SECTIONS, document_text

    chunks = read_chunks(index / CHUNKS_FILE)
    titles = {m.drug_id: m.title for m in read_monographs(index / MONOGRAPHS_FILE)}
    heads = []
    for c in chunks:
        words = list(re.finditer(r"\S+", c.text))
        if c.section_key not in DENSE_SECTIONS and len(words) > HEAD_WORDS:
            c = c.model_copy(update={"text": c.text[: words[HEAD_WORDS - 1].end()]})
        heads.append(document_text(c, titles.get(c.drug_id)))
    return [document_text(c, titles.get(c.drug_id)) for c in chunks], [c.section_key for c in chunks], heads


def _run(model, torch, texts: list[str], cut: int, batch: int, threads: int) -> tuple[float, list]:
    model.max_seq_length = cut
    torch.set_num_threads(threads)
    ordered = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # as embed_cached does
    started = time.perf_counter()
    vectors = [None] * len(texts)
    for start in range(0, len(ordered), batch):
        part = ordered[start : start + batch]
        out = model.encode([texts[i] for i in part], prompt_name="document", batch_size=batch,
                           normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
        for i, vec in zip(part, out, strict=True):
            vectors[i] = vec
    return time.perf_counter() - started, vectors


def _tokens(tokenizer, texts: list[str], cut: int) -> int:
    return sum(min(cut, len(tokenizer(t)["input_ids"])) for t in texts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, help="an index folder of the sample book (default: the setup's)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from duocthu_desktop.settings import data_dir

    index = args.index or data_dir() / "sample-index"
    import numpy as np
    import torch

    from duocthu_desktop.retrieval.embedder import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder()
    model = embedder._model
    tokenizer = model.tokenizer
    texts, keys, head_texts = _texts(index)
    by_len = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    quarter = [texts[i] for i in by_len[::4]]
    chi = [t for t, k in zip(texts, keys, strict=True) if k == "chi_dinh"]
    scale_quarter = FULL_COPIES * len(texts) / len(quarter)
    cores = os.cpu_count() or 1
    options = [  # (name, texts, scale to the full book, cut, batch, threads)
        ("every chunk, cut 512, batch 8, all threads (before)", quarter, scale_quarter, 512, 8, cores),
        ("every chunk, cut 512, batch 32", quarter, scale_quarter, 512, 32, cores),
        ("every chunk, cut 512, batch 8, 1 thread", quarter, scale_quarter, 512, 8, 1),
        ("every chunk, cut 256, batch 16", quarter, scale_quarter, 256, 16, cores),
        ("every chunk, cut 128, batch 32", quarter, scale_quarter, 128, 32, cores),
        ("chi_dinh only, cut 512, batch 8 (chosen)", chi, FULL_COPIES, 512, 8, cores),
        ("chi_dinh only, cut 512, batch 32", chi, FULL_COPIES, 512, 32, cores),
        ("chi_dinh only, cut 512, batch 8, 1 thread", chi, FULL_COPIES, 512, 8, 1),
        (f"chi_dinh whole + the first {HEAD_WORDS} words of every other chunk, batch 32", head_texts, FULL_COPIES,
         512, 32, cores),
    ]
    rows = []
    print(f"load average before: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    for name, subset, scale, cut, batch, threads in options:
        seconds, _ = _run(model, torch, subset, cut, batch, threads)
        tokens = _tokens(tokenizer, subset, cut)
        row = {"option": name, "chunks": len(subset), "tokens": tokens, "seconds": round(seconds, 1),
               "tokens_per_s": round(tokens / seconds), "full_chunks": round(len(subset) * scale),
               "full_minutes": round(seconds * scale / 60, 1), "load": round(os.getloadavg()[0], 2)}
        rows.append(row)
        print(json.dumps(row, ensure_ascii=False), file=sys.stderr)

    # Quality of shorter cuts where it matters: the chi_dinh vectors and the dense indication ranking.
    _, full = _run(model, torch, chi, 512, 8, cores)
    full = np.array(full)
    quality = []
    model.max_seq_length = 512
    queries = np.array(model.encode(DENSE_CONDITIONS, prompt_name="query", normalize_embeddings=True))
    ranking_full = np.argsort(-(queries @ full.T), axis=1)[:, :5]
    for cut in (384, 256, 128):
        _, short = _run(model, torch, chi, cut, 8, cores)
        short = np.array(short)
        cos = (full * short).sum(axis=1)
        model.max_seq_length = 512
        ranking = np.argsort(-(queries @ short.T), axis=1)[:, :5]
        changed = int(sum(1 for a, b in zip(ranking_full, ranking, strict=True) if list(a) != list(b)))
        quality.append({"cut": cut, "chi_dinh_chunks_cut": sum(1 for t in chi if len(tokenizer(t)["input_ids"]) > cut),
                        "min_cosine_to_512": round(float(cos.min()), 4),
                        "median_cosine_to_512": round(float(statistics.median(cos)), 4),
                        "dense_top5_changed": f"{changed}/{len(DENSE_CONDITIONS)}"})
        print(json.dumps(quality[-1]), file=sys.stderr)
    model.max_seq_length = 512
    print(f"{'option':70} {'chunks':>7} {'tokens':>7} {'s':>6} {'tok/s':>6} {'full-size min':>13}")
    for r in rows:
        print(f"{r['option']:70} {r['chunks']:7} {r['tokens']:7} {r['seconds']:6} {r['tokens_per_s']:6} "
              f"{r['full_minutes']:13}")
    for q in quality:
        print(f"cut {q['cut']}: {q['chi_dinh_chunks_cut']} chi_dinh chunks cut, cosine to the 512 vectors min "
              f"{q['min_cosine_to_512']} median {q['median_cosine_to_512']}, dense top-5 changed for "
              f"{q['dense_top5_changed']} conditions")
    if args.json:
        args.json.write_text(json.dumps({"options": rows, "quality": quality}, ensure_ascii=False, indent=1),
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

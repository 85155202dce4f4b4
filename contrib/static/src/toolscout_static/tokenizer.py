"""A pure-Python tokenizer for SentencePiece BPE models saved as Hugging Face `tokenizer.json`
(Llama 2's kind), giving the ids that the `tokenizers` library gives with
`encode(text, add_special_tokens=False)`, without that library.

What such a file asks for, and what this module does the same way:

- Added tokens (`<unk>`, `<s>`, `</s>`) written in the text are matched first, on the raw
  text (leftmost, longest), and become their own ids; the text between them is read apart.
- The normalizer puts `▁` before each such piece of text and turns every space into `▁`.
- There is no pre-tokenizer: the BPE model merges over the whole piece, pair by pair, the
  pair of lowest merge rank first (the leftmost of equal ones), as `tokenizers` does.
- A character missing from the vocabulary becomes one `<0xXX>` token per byte of its UTF-8
  form (byte fallback; a lone surrogate, which has no UTF-8 form, is written as
  `surrogatepass` writes it), else `<unk>` (runs of them fused into one).

No merge of these vocabularies joins a `▁` to a character before it (checked on load), so
no token crosses the start of a word: a run of `▁` with the characters up to the next `▁`
is merged on its own, and its ids are cached (a bounded cache), which makes a word seen
before cost one dictionary look-up.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from itertools import chain, pairwise
from pathlib import Path
from typing import Any

from toolscout import ConfigError

__all__ = ["MAX_WORD_CHARS", "WHOLE_WORD_TOKENIZERS", "Tokenizer"]

_SPACE = "▁"
#: A word: a run of `▁` and the characters up to the next `▁`.
_WORD = re.compile(f"{_SPACE}+[^{_SPACE}]*")
#: Words of fewer symbols than this are merged pair by pair with a scan (quicker when short);
#: longer ones with a heap (the same result).
_SCAN_BELOW = 32
#: Words cached at most (then the cache starts again).
_CACHE_SIZE = 100_000
#: With a token limit (`Tokenizer.encode(limit=...)`), a word longer than this is read in
#: pieces of this many characters, so that a text with no spaces costs little. Only tokens
#: at the seams can differ from those of the whole word; no catalog has such words.
MAX_WORD_CHARS = 4096
# A character gives at most 4 ids (its UTF-8 bytes), and a piece of text between added
# tokens one `▁` more: a text of n characters has at most 8n + 4 ids.
_MOST_IDS_PER_CHAR = 8
#: Digests (`Tokenizer.digest`) of the tokenizer files in which merging any token of the
#: vocabulary gives that token back, checked token by token (the tests check it again):
#: there a word found in the vocabulary is taken whole (`Tokenizer.trust_whole_words`).
WHOLE_WORD_TOKENIZERS = frozenset(
    {
        # wordllama 0.4.0.post1's tokenizers/l2_supercat_tokenizer_config.json (Llama 2)
        "6ee8ea253f9f082348e9f5207c6c2b1d",
    }
)


def _bad_merge(vocab: Mapping[str, int], merges: Sequence[Sequence[str]]) -> str:
    """What is wrong with the first merge that is not a pair of tokens of `vocab`."""
    for rank, merge in enumerate(merges):
        if len(merge) != 2 or not all(isinstance(part, str) and part for part in merge):
            return f"merge {rank} ({' '.join(map(str, merge))!r}) is not a pair of tokens"
        for token in (merge[0], merge[1], merge[0] + merge[1]):
            if token not in vocab:
                return (
                    f"merge {rank} ({merge[0]!r} {merge[1]!r}) uses {token!r}, which is not "
                    "in the vocabulary"
                )
    return "its merges are not pairs of tokens"


class Tokenizer:
    """Encodes text into a SentencePiece BPE vocabulary's ids (see the module's text)."""

    def __init__(
        self,
        vocab: Mapping[str, int],
        merges: Sequence[Sequence[str]],
        *,
        unk: str | None = None,
        byte_fallback: bool = True,
        fuse_unk: bool = True,
        added: Mapping[str, int] | None = None,
    ) -> None:
        if not vocab:
            raise ValueError("the vocabulary is empty")
        self.vocab = dict(vocab)
        self.vocab_size = max(self.vocab.values()) + 1
        self._shift = max(self.vocab_size - 1, 1).bit_length()
        self._mask = (1 << self._shift) - 1
        # (left id << shift | right id) -> (rank << shift | merged id): the smallest value
        # is the pair of lowest rank. Of equal pairs the last counts, as in `tokenizers`.
        vocab, shift = self.vocab, self._shift
        try:
            self._merges = {
                vocab[left] << shift | vocab[right]: rank << shift | vocab[left + right]
                for rank, (left, right) in enumerate(merges)
            }
        except (KeyError, ValueError, TypeError):
            raise ValueError(_bad_merge(vocab, merges)) from None
        # Above every merge value: "no merge" in `_scan`.
        self._none = (len(merges) + 1) << shift
        for rank, (left, right) in enumerate(merges):
            if right[:1] == _SPACE and left[-1:] != _SPACE:
                raise ValueError(
                    f"merge {rank} ({left!r} {right!r}) joins a word to the next one; only "
                    "tokenizers whose tokens start words with ▁ are supported"
                )
        self._unk = None if unk is None else self.vocab.get(unk)
        self._fuse_unk = fuse_unk
        bytes_ = [self.vocab.get(f"<0x{b:02X}>") for b in range(256)]
        self._bytes: list[int | None] | None = bytes_ if byte_fallback else None
        self._added = dict(added or {})
        #: The ids of the added tokens (`<unk>`, `<s>`, `</s>`).
        self.special_ids = tuple(self._added.values())
        self._added_pattern = (
            re.compile("|".join(re.escape(t) for t in sorted(self._added, key=len, reverse=True)))
            if self._added
            else None
        )
        # The most characters one token stands for (an added token: its length).
        self.longest = max(len(t) for t in [*self.vocab, *self._added])
        self._cache: dict[str, tuple[int, ...]] = {}
        self._whole: dict[str, int] = {}
        #: A digest of the tokenizer.json read (`from_file`), else "".
        self.digest = ""

    # --- reading a tokenizer.json ------------------------------------------------------

    @classmethod
    def from_file(cls, path: Path) -> Tokenizer:
        """The tokenizer of a Hugging Face `tokenizer.json`; a `ConfigError` naming the file
        if it is not readable or not a SentencePiece BPE of the kind this module reads."""
        try:
            data = path.read_bytes()
            spec = json.loads(data)
        except (OSError, ValueError) as error:
            raise ConfigError(f"the tokenizer file {path} is not readable JSON: {error}") from None
        try:
            tokenizer = cls.from_spec(spec)
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            raise ConfigError(f"the tokenizer file {path} is not supported: {error}") from None
        tokenizer.digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        if tokenizer.digest in WHOLE_WORD_TOKENIZERS:
            tokenizer.trust_whole_words()
        return tokenizer

    @classmethod
    def from_spec(cls, spec: Any) -> Tokenizer:
        """The tokenizer of a parsed `tokenizer.json` (ValueError if not supported)."""
        if not isinstance(spec, dict):
            raise ValueError("not a JSON object")
        model = spec.get("model")
        if not isinstance(model, dict) or model.get("type") != "BPE":
            raise ValueError("its model is not BPE")
        for key in ("continuing_subword_prefix", "end_of_word_suffix", "dropout"):
            if model.get(key):
                raise ValueError(f"BPE option {key}={model[key]!r} is not supported")
        if model.get("ignore_merges"):
            raise ValueError("BPE option ignore_merges is not supported")
        if spec.get("pre_tokenizer") is not None:
            raise ValueError("a pre-tokenizer is not supported (SentencePiece BPE has none)")
        normalizer = spec.get("normalizer")
        steps = normalizer.get("normalizers") if isinstance(normalizer, dict) else None
        expected = [
            {"type": "Prepend", "prepend": _SPACE},
            {"type": "Replace", "pattern": {"String": " "}, "content": _SPACE},
        ]
        if steps != expected:
            raise ValueError(
                "its normalizer is not SentencePiece's (prepend ▁, replace spaces by ▁)"
            )
        vocab = model["vocab"]
        if not isinstance(vocab, dict) or set(map(type, vocab.values())) != {int}:
            raise ValueError("its vocabulary is not a map of tokens to ids")
        if min(vocab.values()) < 0:
            raise ValueError("its vocabulary has negative ids")
        merges = [
            tuple(merge.split(" ")) if isinstance(merge, str) else tuple(merge)
            for merge in model["merges"]
        ]
        added: dict[str, int] = {}
        for token in spec.get("added_tokens") or []:
            if any(token.get(k) for k in ("normalized", "lstrip", "rstrip", "single_word")):
                raise ValueError(
                    f"added token {token.get('content')!r} is normalized or strips spaces"
                )
            added[token["content"]] = token["id"]
        return cls(
            vocab,
            merges,
            unk=model.get("unk_token"),
            byte_fallback=bool(model.get("byte_fallback")),
            fuse_unk=bool(model.get("fuse_unk")),
            added=added,
        )

    # --- encoding --------------------------------------------------------------------

    def encode(self, text: str, limit: int | None = None) -> list[int]:
        """The ids of `text`: those of `tokenizers` with `add_special_tokens=False`.

        With `limit`, only the first `limit` ids, and the work bounded by it: the text is
        read up to the characters those ids can stand for, and a word longer than
        `MAX_WORD_CHARS` in pieces of that size.
        """
        if limit is not None:
            if limit <= 0:
                return []
            if _MOST_IDS_PER_CHAR * (len(text) + 1) <= limit:
                limit = None  # too short to reach it
            else:
                return self._encode_long(text[: limit * self.longest], limit)
        ids: list[int] = []
        cache = self._cache
        for piece, special in self._pieces(text):
            if special is not None:
                ids.append(special)
                continue
            words = _WORD.findall(_SPACE + piece.replace(" ", _SPACE))
            found = list(map(cache.get, words))
            if None in found:
                found = [
                    self.word(w) if f is None else f for w, f in zip(words, found, strict=True)
                ]
            ids.extend(chain.from_iterable(found))  # type: ignore[arg-type]
        return ids

    def _encode_long(self, text: str, limit: int) -> list[int]:
        """`encode` of a text that may have more than `limit` ids: word by word, up to it."""
        ids: list[int] = []
        cache = self._cache
        for piece, special in self._pieces(text):
            if special is not None:
                ids.append(special)
            else:
                for word in _WORD.findall(_SPACE + piece.replace(" ", _SPACE)):
                    found: Sequence[int] | None = cache.get(word)
                    if found is None:
                        if len(word) > MAX_WORD_CHARS:
                            found = self._pieces_of(word, limit - len(ids))
                        else:
                            found = self.word(word)
                    ids += found
                    if len(ids) >= limit:
                        break
            if len(ids) >= limit:
                return ids[:limit]
        return ids

    def _pieces_of(self, word: str, limit: int) -> list[int]:
        """The ids of a very long word read in pieces of `MAX_WORD_CHARS`, up to `limit`."""
        ids: list[int] = []
        for start in range(0, len(word), MAX_WORD_CHARS):
            ids += self.word(word[start : start + MAX_WORD_CHARS])
            if len(ids) >= limit:
                break
        return ids

    def _pieces(self, text: str) -> Iterator[tuple[str, int | None]]:
        """The text between added tokens, and the added tokens' ids (empty text left out)."""
        if self._added_pattern is None:
            if text:
                yield text, None
            return
        start = 0
        for match in self._added_pattern.finditer(text):
            if match.start() > start:
                yield text[start : match.start()], None
            yield "", self._added[match.group()]
            start = match.end()
        if start < len(text):
            yield text[start:], None

    def word(self, word: str) -> tuple[int, ...]:
        """The ids of one normalized word (`▁` and the characters after it), cached."""
        ids = self._cache.get(word)
        if ids is None:
            whole = self._whole.get(word)
            ids = (whole,) if whole is not None else self._merge(word)
            if len(self._cache) >= _CACHE_SIZE:
                self._cache.clear()
            self._cache[word] = ids
        return ids

    def _merge(self, word: str) -> tuple[int, ...]:
        """The ids of one word by BPE."""
        symbols = self._symbols(word)
        merged = self._scan(symbols) if len(symbols) < _SCAN_BELOW else self._heap(symbols)
        return tuple(merged)

    def trust_whole_words(self) -> None:
        """Take a word that is itself a token of the vocabulary to be that token, without
        merging it: only for a vocabulary where merging every such token was checked to
        give it back (Llama 2's: `WHOLE_WORD_TOKENIZERS`). A word in the vocabulary costs a
        look-up instead of about 10 µs of merges."""
        skip = {*self._added, *(f"<0x{b:02X}>" for b in range(256))}
        self._whole = {token: id_ for token, id_ in self.vocab.items() if token not in skip}
        self._cache.clear()

    def _symbols(self, word: str) -> list[int]:
        """One id per character; a character out of the vocabulary as its bytes, else unk."""
        vocab = self.vocab
        found_all = list(map(vocab.get, word))
        if None not in found_all:
            return found_all  # type: ignore[return-value]
        symbols: list[int] = []
        unk = 0  # characters of the pending unknown run
        for char in word:
            found = vocab.get(char)
            if found is not None:
                if unk:
                    symbols.append(self._unk)  # type: ignore[arg-type]
                    unk = 0
                symbols.append(found)
                continue
            if self._bytes is not None:
                codes = [self._bytes[b] for b in char.encode("utf-8", "surrogatepass")]
                if None not in codes:
                    symbols += codes  # type: ignore[arg-type]
                    continue
            if self._unk is not None:
                if unk and not self._fuse_unk:
                    symbols.append(self._unk)
                unk = 1
        if unk:
            symbols.append(self._unk)  # type: ignore[arg-type]
        return symbols

    def _scan(self, symbols: list[int]) -> list[int]:
        """Merge the pair of lowest rank (the leftmost of equal ones) until none is left.

        `ranks[i]` is the merge value of the pair `symbols[i], symbols[i + 1]`; `min` and
        `index` find the next merge, and only the two pairs beside a merge change.
        """
        merges, shift, mask, none = self._merges, self._shift, self._mask, self._none
        get = merges.get
        ranks = [get(a << shift | b, none) for a, b in pairwise(symbols)]
        while ranks:
            best = min(ranks)
            if best == none:
                break
            at = ranks.index(best)
            merged = symbols[at] = best & mask
            del symbols[at + 1], ranks[at]
            if at:
                ranks[at - 1] = get(symbols[at - 1] << shift | merged, none)
            if at < len(ranks):
                ranks[at] = get(merged << shift | symbols[at + 1], none)
        return symbols

    def _heap(self, symbols: list[int]) -> list[int]:
        """The same merges as `_scan`, with a heap of candidate pairs (for long words), as
        `tokenizers` does it: a popped pair that has since changed is skipped."""
        merges, shift, mask = self._merges, self._shift, self._mask
        count = len(symbols)
        nexts = list(range(1, count + 1))
        nexts[-1] = -1
        prevs = list(range(-1, count - 1))
        alive = [True] * count
        heap = []
        for i in range(count - 1):
            found = merges.get(symbols[i] << shift | symbols[i + 1])
            if found is not None:
                heap.append((found, i))
        heapq.heapify(heap)
        while heap:
            value, at = heapq.heappop(heap)
            after = nexts[at]
            if not alive[at] or after < 0:
                continue
            found = merges.get(symbols[at] << shift | symbols[after])
            if found != value:
                continue
            symbols[at] = value & mask
            alive[after] = False
            beyond = nexts[after]
            nexts[at] = beyond
            if beyond >= 0:
                prevs[beyond] = at
                found = merges.get(symbols[at] << shift | symbols[beyond])
                if found is not None:
                    heapq.heappush(heap, (found, at))
            before = prevs[at]
            if before >= 0:
                found = merges.get(symbols[before] << shift | symbols[at])
                if found is not None:
                    heapq.heappush(heap, (found, before))
        return [s for s, keep in zip(symbols, alive, strict=True) if keep]

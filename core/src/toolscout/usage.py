"""What agents did with the tools a search found: use records and the stores that keep them.

A `Use` says that, after a search for `query` in `session`, the model called `tool` and the
call succeeded or failed. Nothing else of the call is kept: no arguments, no results, and
the query only as `toolscout.redaction.redact_text` leaves it. Each use is keyed on the
tool's definition (`ToolReference.fingerprint`), so a tool whose definition changed starts
its evidence afresh. `toolscout.learning` turns a tenant's uses into ranking evidence.

Stores are bounded: at most `max_per_tool` uses of one tool and `max_per_tenant` uses of
one tenant, the oldest going first. `MemoryUsageStore` lives in the process;
`FileUsageStore` keeps the same record in a JSON-lines file (`toolscout usage show`).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from toolscout.errors import ToolscoutError
from toolscout.redaction import redact_text
from toolscout.types import ToolReference

__all__ = [
    "DEFAULT_TENANT",
    "FileUsageStore",
    "MemoryUsageStore",
    "UsageStore",
    "UsageStoreDamaged",
    "Use",
    "default_usage_path",
    "make_use",
]

log = logging.getLogger("toolscout")

#: The tenant of every session nobody assigned one (one process, one user).
DEFAULT_TENANT = "default"
#: A query longer than this is kept cut short: evidence needs the words, not an essay.
MAX_QUERY_CHARS = 500
#: Uses kept per tool and per tenant by default (oldest first out).
MAX_PER_TOOL = 200
MAX_PER_TENANT = 20_000


@dataclass(frozen=True)
class Use:
    """One call of a tool a search had found: the (redacted) query searched, the tool's name
    and definition fingerprint, whether the call succeeded, the session and its tenant, and
    when (seconds since the epoch)."""

    query: str
    tool: str
    definition: str
    success: bool
    session: str
    tenant: str = DEFAULT_TENANT
    time: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Use:
        """A use from its JSON form; a missing or mistyped field is a `ValueError`."""
        kinds = {"query": str, "tool": str, "definition": str, "session": str, "tenant": str}
        for key, kind in kinds.items():
            if not isinstance(data.get(key), kind):
                raise ValueError(f"{key!r} must be a string")
        if not isinstance(data.get("success"), bool):
            raise ValueError("'success' must be true or false")
        moment = data.get("time", 0.0)
        if not isinstance(moment, (int, float)) or isinstance(moment, bool):
            raise ValueError("'time' must be a number")
        return cls(
            data["query"],
            data["tool"],
            data["definition"],
            data["success"],
            data["session"],
            data["tenant"],
            float(moment),
        )


def make_use(
    query: str,
    tool: ToolReference,
    *,
    success: bool,
    session: str,
    tenant: str = DEFAULT_TENANT,
    clock: Callable[[], float] = time.time,
) -> Use | None:
    """The record of one call: the query redacted (secrets never reach the store) and cut
    to `MAX_QUERY_CHARS`, keyed on the tool's definition; None for a blank query, which
    teaches nothing."""
    text = " ".join(redact_text(query).split())[:MAX_QUERY_CHARS]
    if not text:
        return None
    return Use(text, tool.name, tool.fingerprint, bool(success), session, tenant, clock())


@runtime_checkable
class UsageStore(Protocol):
    """Where uses are kept, per tenant. `version(tenant)` changes whenever the tenant's
    uses do, so evidence built from them is rebuilt only then."""

    def record(self, use: Use) -> None: ...

    def uses(self, tenant: str) -> Sequence[Use]: ...

    def version(self, tenant: str) -> int: ...

    def tenants(self) -> list[str]: ...

    def clear(self, tenant: str | None = None) -> int: ...


class _TenantUses:
    """One tenant's uses, oldest first, with each tool's in the order they came."""

    def __init__(self) -> None:
        self.by_order: OrderedDict[int, Use] = OrderedDict()
        self.by_tool: dict[str, deque[int]] = {}
        self.version = 0


class MemoryUsageStore:
    """A bounded in-process `UsageStore` (see the module docstring). Thread-safe."""

    def __init__(self, max_per_tool: int = MAX_PER_TOOL, max_per_tenant: int = MAX_PER_TENANT):
        if max_per_tool < 1 or max_per_tenant < 1:
            raise ValueError("usage store bounds must be at least 1")
        self.max_per_tool = max_per_tool
        self.max_per_tenant = max_per_tenant
        self._tenants: dict[str, _TenantUses] = {}
        self._lock = threading.Lock()
        self._sequence = 0

    def record(self, use: Use) -> None:
        """Keep `use`; a tool recorded with another definition before loses those uses
        (its evidence starts afresh), and past a bound the oldest use goes."""
        with self._lock:
            kept = self._tenants.setdefault(use.tenant, _TenantUses())
            order = kept.by_tool.setdefault(use.tool, deque())
            if order and kept.by_order[order[-1]].definition != use.definition:
                for number in order:
                    del kept.by_order[number]
                order.clear()
            self._sequence += 1
            kept.by_order[self._sequence] = use
            order.append(self._sequence)
            if len(order) > self.max_per_tool:
                del kept.by_order[order.popleft()]
            if len(kept.by_order) > self.max_per_tenant:
                _number, oldest = kept.by_order.popitem(last=False)
                # The tenant's oldest use is also the oldest of its tool.
                kept.by_tool[oldest.tool].popleft()
            kept.version += 1

    def uses(self, tenant: str) -> tuple[Use, ...]:
        """The tenant's uses, oldest first."""
        with self._lock:
            kept = self._tenants.get(tenant)
            return tuple(kept.by_order.values()) if kept is not None else ()

    def version(self, tenant: str) -> int:
        with self._lock:
            kept = self._tenants.get(tenant)
            return kept.version if kept is not None else 0

    def tenants(self) -> list[str]:
        with self._lock:
            return sorted(name for name, kept in self._tenants.items() if kept.by_order)

    def clear(self, tenant: str | None = None) -> int:
        """Forget the tenant's uses (every tenant's with None); how many were forgotten."""
        with self._lock:
            names = list(self._tenants) if tenant is None else [tenant]
            forgotten = 0
            for name in names:
                kept = self._tenants.get(name)
                if kept is None:
                    continue
                forgotten += len(kept.by_order)
                kept.by_order.clear()
                kept.by_tool.clear()
                kept.version += 1
            return forgotten


class UsageStoreDamaged(ToolscoutError):
    """A usage store's file cannot be read; `toolscout usage clear` starts it afresh."""


def default_usage_path() -> Path:
    """Where `toolscout usage` and a `FileUsageStore` without a path keep uses:
    `TOOLSCOUT_USAGE_PATH`, else `<cache_root>/usage/uses.jsonl`."""
    value = os.environ.get("TOOLSCOUT_USAGE_PATH")
    if value:
        return Path(value).expanduser()
    from toolscout.embedders import cache_root

    return cache_root() / "usage" / "uses.jsonl"


def damaged_message(path: Path, detail: str) -> str:
    return (
        f"the usage store at {path} is damaged ({detail}); search goes on without it: "
        f"run `toolscout usage clear --path {path}` to start it afresh"
    )


class FileUsageStore(MemoryUsageStore):
    """A `MemoryUsageStore` whose uses are also appended to a JSON-lines file and read
    back by the next process. A damaged file is one warning naming `toolscout usage
    clear`; the store then keeps uses in memory only and leaves the file as it is."""

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        max_per_tool: int = MAX_PER_TOOL,
        max_per_tenant: int = MAX_PER_TENANT,
    ) -> None:
        super().__init__(max_per_tool, max_per_tenant)
        self.path = Path(path) if path is not None else default_usage_path()
        self.damaged: str | None = None
        self._file_lock = threading.Lock()
        self._lines = 0
        try:
            for use in read_uses(self.path):
                super().record(use)
                self._lines += 1
        except UsageStoreDamaged as error:
            self.damaged = str(error)
            log.warning("%s", error)

    def record(self, use: Use) -> None:
        super().record(use)
        if self.damaged is not None:
            return
        with self._file_lock:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with self.path.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(use.to_dict(), ensure_ascii=False) + "\n")
                self._lines += 1
                # Rewritten when the file holds twice what the bounds keep.
                if self._lines > 2 * self.max_per_tenant * max(1, len(self.tenants())):
                    self._rewrite()
            except OSError as error:
                self.damaged = f"{self.path}: {error.strerror or error}"
                log.warning("%s", damaged_message(self.path, self.damaged))

    def _rewrite(self) -> None:
        kept = [use for tenant in self.tenants() for use in self.uses(tenant)]
        kept.sort(key=lambda use: use.time)
        write_uses(self.path, kept)
        self._lines = len(kept)

    def clear(self, tenant: str | None = None) -> int:
        """Forget the tenant's uses (all with None), in the file too; a damaged file is
        removed when every tenant is cleared."""
        forgotten = super().clear(tenant)
        with self._file_lock:
            if tenant is None or self.damaged is not None:
                self.path.unlink(missing_ok=True)
                self._lines = 0
                self.damaged = None
                if tenant is not None:
                    self._rewrite()
            else:
                self._rewrite()
        return forgotten


def read_uses(path: Path) -> Iterable[Use]:
    """The uses of a JSON-lines file (none if it does not exist); a line that is not a use
    raises `UsageStoreDamaged` naming the file, the line and `toolscout usage clear`."""
    if not path.exists():
        return
    try:
        with path.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                try:
                    yield Use.from_dict(json.loads(line))
                except (ValueError, TypeError, AttributeError) as error:
                    message = damaged_message(path, f"line {number}: {error}")
                    raise UsageStoreDamaged(message) from None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageStoreDamaged(damaged_message(path, str(error))) from None


def write_uses(path: Path, uses: Iterable[Use]) -> None:
    """Write `uses` as the whole file, through a temporary file and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("w", encoding="utf-8") as out:
        for use in uses:
            out.write(json.dumps(use.to_dict(), ensure_ascii=False) + "\n")
    os.replace(temporary, path)

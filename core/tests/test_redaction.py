"""toolscout.redaction: no password, token, URL credential or secret argument survives."""

from __future__ import annotations

import io
import logging

import pytest
from toolscout.redaction import (
    RedactingFilter,
    is_secret_name,
    redact_argv,
    redact_text,
    redact_url,
    redact_value,
    url_secrets,
)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "http://user:userinfo-secret@127.0.0.1:1/mcp?api_key=query-secret",
            "http://***@127.0.0.1:1/mcp?api_key=***",
        ),
        ("https://ghp_token-secret@github.com/x.git", "https://***@github.com/x.git"),
        ("postgresql://u:pw-secret@[::1/db", "postgresql://***@[::1/db"),
        # A password holding '/' and '@' is covered whole (the last '@' before the query).
        ("postgresql://u:p/w@x-secret@db.example:5432/app", "postgresql://***@db.example:5432/app"),
        (
            "https://h/cb?code=abc-secret&state=x#access_token=frag-secret",
            "https://h/cb?code=***&state=***#access_token=***",
        ),
        ("https://h/path?bare-secret", "https://h/path?***"),
        ("https://example.com/mcp", "https://example.com/mcp"),
        ("not a url", "not a url"),
    ],
)
def test_redact_url_blanks_userinfo_query_and_fragment_values(url: str, expected: str) -> None:
    assert redact_url(url) == expected


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["npx", "-y", "server", "--token", "argv-secret-123", "--port", "80"],
            ["npx", "-y", "server", "--token", "***", "--port", "80"],
        ),
        (["srv", "--api-key=argv-secret"], ["srv", "--api-key=***"]),
        (["srv", "--password", "pw"], ["srv", "--password", "***"]),
        (
            ["srv", "--client-secret", "s", "--auth-token", "t"],
            ["srv", "--client-secret", "***", "--auth-token", "***"],
        ),
        (
            ["env", "GITHUB_TOKEN=ghp_secret", "LEVEL=info"],
            ["env", "GITHUB_TOKEN=***", "LEVEL=info"],
        ),
        (["srv", "http://u:p-secret@h/x?key=k-secret"], ["srv", "http://***@h/x?key=***"]),
        # Counts and keywords are not secrets.
        (
            ["srv", "--max-tokens", "50", "--keyword", "x"],
            ["srv", "--max-tokens", "50", "--keyword", "x"],
        ),
    ],
)
def test_redact_argv_blanks_secret_flags_pairs_and_urls(
    argv: list[str], expected: list[str]
) -> None:
    assert redact_argv(argv) == expected


def test_redact_text_blanks_every_form_a_secret_takes_in_a_message() -> None:
    text = (
        "failed to start (server --token argv-secret --api-key=flag-secret "
        "http://u:userinfo-secret@h:1/mcp?api_key=query-secret): "
        'host=db password=pw-secret user=u; {"client_secret": "json-secret"}; '
        "Authorization: Bearer bearer-secret; env value env-secret"
    )
    redacted = redact_text(text, secrets=["env-secret"])
    for secret in (
        "argv-secret",
        "flag-secret",
        "userinfo-secret",
        "query-secret",
        "pw-secret",
        "json-secret",
        "bearer-secret",
        "env-secret",
    ):
        assert secret not in redacted
    # What is not secret stays, so the message still says what and where.
    assert "failed to start (server --token *** --api-key=***" in redacted
    assert "http://***@h:1/mcp?api_key=***" in redacted
    assert "host=db password=*** user=u" in redacted


def test_redact_text_leaves_the_punctuation_after_a_url() -> None:
    text = "failed (http://u:p-secret@h/x?k=v-secret): refused; see https://h/doc."
    assert redact_text(text) == "failed (http://***@h/x?k=***): refused; see https://h/doc."


def test_redact_text_keeps_ordinary_messages_whole() -> None:
    text = (
        "unknown option 'dns' (did you mean 'dsn'?); allowed keys: name_weight, dsn; "
        "max_tokens=50, exited with status 1"
    )
    assert redact_text(text, secrets=["1", "on"]) == text  # too short to blank


def test_url_secrets_finds_credentials_as_written() -> None:
    assert url_secrets("postgresql://u:pw-secret%zz@localhost:1/db") == [
        "u:pw-secret%zz",
        "u",
        "pw-secret%zz",
    ]
    assert "pw-secret" in url_secrets("host=x password='pw-secret' user=u")
    assert url_secrets("https://h/x?token=t-secret") == ["t-secret"]


def test_redact_value_walks_tables_and_hides_secret_named_keys() -> None:
    value = {
        "postgres": {"dsn": "postgresql://u:pw-secret@h/db", "password": 12345, "schema": "s"},
        "urls": ["http://a:b-secret@h"],
    }
    assert redact_value(value) == {
        "postgres": {"dsn": "postgresql://***@h/db", "password": "***", "schema": "s"},
        "urls": ["http://***@h"],
    }


@pytest.mark.parametrize(
    "name", ["api_key", "--auth-token", "DB_PASSWORD", "client_secret", "passwd", "Authorization"]
)
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name", ["tokens", "max_tokens", "keys", "keyword", "author", "dsn", "oauth_scopes"]
)
def test_not_secret_names(name: str) -> None:
    assert not is_secret_name(name)


def test_the_logging_filter_redacts_messages_arguments_and_tracebacks() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactingFilter(secrets=["env-secret-value"]))
    logger = logging.getLogger("toolscout.test_redaction")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("connecting to %s with %s", "http://u:pw-secret@h/x", "env-secret-value")
        try:
            raise ValueError("bad --token tb-secret")
        except ValueError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
    out = stream.getvalue()
    assert "connecting to http://***@h/x with ***" in out
    assert "ValueError: bad --token ***" in out
    for secret in ("pw-secret", "env-secret-value", "tb-secret"):
        assert secret not in out

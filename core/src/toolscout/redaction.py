"""Secrets out of messages and logs: URLs' credentials, secret flags, secret-named values.

toolscout reports problems with the values a user configured (a DSN, an MCP server's URL,
command line and environment), and those values carry passwords and tokens. Everything
that can reach a model, a client, an error line or a log goes through these functions:

- `redact_url(url)`: the URL with its userinfo and every query and fragment value as `***`;
- `redact_argv(argv)`: a command line with the value of every secret flag (`--token X`,
  `--api-key=X`), every secret `NAME=VALUE` and every URL's credentials as `***`;
- `redact_text(text, secrets)`: free text (an exception's message) with the URLs, secret
  flags, `password=...` pairs, `Bearer ...` credentials and each of `secrets` blanked;
- `redact_value(value)`: the same through dicts and lists, hiding secret-named keys' values;
- `RedactingFilter`: a `logging.Filter` applying `redact_text` to every record it passes.

A name is secret-like when it contains key, token (not tokens: a count), secret, password,
passwd, pwd, credential or auth (`api_key`, `--auth-token`, `DB_PASSWORD`).
"""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = [
    "MASK",
    "RedactingFilter",
    "is_secret_name",
    "may_be_secret_name",
    "redact_argv",
    "redact_text",
    "redact_url",
    "redact_value",
    "url_secrets",
]

MASK = "***"

#: Literal secrets shorter than this are not blanked in text: masking every "1" or "on" a
#: message holds would make it unreadable, and a value that short protects nothing.
MIN_SECRET_LENGTH = 4

_SECRET_NAME = re.compile(
    r"key(?!s(?:\b|_)|word)|token(?!s(?:\b|_))|secret|passw|pwd|credential|(?<![a-z])auth(?!ors?\b)",
    re.IGNORECASE,
)
# scheme://rest, up to whitespace or a quote, and not the punctuation of the text after it
# ("failed (http://h/x?k=v): ..." ends at v).
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`]*[^\s'\"<>`.,:;!?)\]}]")
# --token VALUE, --api-key=VALUE, -password VALUE (in free text).
_FLAG = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)(=|\s+)('[^']*'|\"[^\"]*\"|[^\s'\"]+)")
# password=VALUE, api_key: VALUE, "token": "VALUE" (conninfo strings, headers, JSON).
_PAIR = re.compile(
    r"(?<![\w-])([\"']?)([A-Za-z_][\w.-]*)\1(\s*[=:]\s*)('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|[^\s,;&'\"}]+)"
)
_SCHEME_CREDENTIALS = re.compile(r"\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]+", re.IGNORECASE)


def is_secret_name(name: str) -> bool:
    """Whether a key, flag or variable named `name` holds a secret (`api_key`, `--token`)."""
    return bool(_SECRET_NAME.search(name))


# What a misspelt secret's name is close to (`pasword`, `tokn`, `secert`).
_SECRET_WORDS = ("password", "passwd", "secret", "token", "apikey", "credential", "credentials")


def may_be_secret_name(name: str) -> bool:
    """Whether `name` holds a secret or is a misspelling of such a name: an unknown key's
    value is hidden on this test, since the user may have meant `password`."""
    if is_secret_name(name):
        return True
    parts = [part for part in re.split(r"[^A-Za-z]+", name.lower()) if part]
    whole = "".join(parts)
    return any(
        difflib.SequenceMatcher(None, part, word).ratio() >= 0.8
        for part in [*parts, whole]
        for word in _SECRET_WORDS
    )


def _split_url(url: str) -> tuple[str, str, str, str] | None:
    """scheme://, userinfo (without '@', '' if none), the rest up to '?'/'#', and the tail."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return None
    cut = min((i for i in (rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
    head, tail = rest[:cut], rest[cut:]
    # The last '@' before the query: a password holding '/' or '@' is still covered.
    userinfo, at, location = head.rpartition("@")
    if not at:
        return scheme + sep, "", head, tail
    return scheme + sep, userinfo, location, tail


def _redact_pairs(part: str) -> str:
    """`a=1&b=2` as `a=***&b=***` (a bare value as `***`)."""
    pairs = []
    for item in part.split("&"):
        name, eq, _value = item.partition("=")
        pairs.append(f"{name}={MASK}" if eq else (MASK if name else name))
    return "&".join(pairs)


def redact_url(url: str) -> str:
    """`url` with its userinfo and its query and fragment values replaced by `***`.

    Scheme, host, port and path stay, so a message still says where: the userinfo may be a
    token by itself (`https://TOKEN@host`), so all of it goes, user name included.
    """
    parts = _split_url(url)
    if parts is None:
        return url
    scheme, userinfo, location, tail = parts
    shown = scheme + (f"{MASK}@" if userinfo else "") + location
    if tail:
        query, hash_, fragment = tail.partition("#")
        if query.startswith("?"):
            shown += "?" + _redact_pairs(query[1:])
        if hash_:
            shown += "#" + _redact_pairs(fragment)
    return shown


def url_secrets(text: str) -> list[str]:
    """The credentials written in the URLs and `password=...` pairs of `text`, as written.

    For blanking them where another program quotes a piece of the text back (libpq's
    `invalid percent-encoded token: "pw%zz"` quotes part of the password, undecoded).
    """
    found: list[str] = []
    for match in _URL.finditer(text):
        parts = _split_url(match.group())
        if parts is None:
            continue
        userinfo, tail = parts[1], parts[3]
        if userinfo:
            found.append(userinfo)
            found.extend(piece for piece in userinfo.split(":", 1) if piece)
        for item in re.split(r"[?#&]", tail):
            value = item.partition("=")[2]
            if value:
                found.append(value)
    for match in _PAIR.finditer(text):
        if is_secret_name(match.group(2)):
            found.append(match.group(4).strip("'\""))
    return [secret for secret in dict.fromkeys(found) if secret]


def redact_argv(argv: Sequence[str]) -> list[str]:
    """A command line with every secret it carries as `***`.

    Blanked: the argument after a secret flag (`--token X`, `-p X` is not: one letter says
    nothing), the value of `--secret-flag=X` and of `SECRET_NAME=X`, and each URL's
    credentials. The program and other arguments stay.
    """
    shown: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            shown.append(MASK)
            hide_next = False
            continue
        if arg.startswith("-") and len(arg) > 2:
            name, eq, _value = arg.partition("=")
            if is_secret_name(name):
                if eq:
                    shown.append(f"{name}={MASK}")
                else:
                    shown.append(arg)
                    hide_next = True
                continue
        name, eq, _value = arg.partition("=")
        if eq and re.fullmatch(r"[A-Za-z_][\w.-]*", name) and is_secret_name(name):
            shown.append(f"{name}={MASK}")
            continue
        shown.append(redact_text(arg))
    return shown


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with its secrets as `***`: each of `secrets` (at least `MIN_SECRET_LENGTH`
    characters long), URLs' credentials and query values, the values of secret flags
    (`--token X`, `--api-key=X`), of secret-named pairs (`password=X`, `"api_key": "X"`),
    and `Bearer`/`Basic` credentials."""
    for secret in sorted(
        {s for s in secrets if len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True
    ):
        text = text.replace(secret, MASK)
    text = _URL.sub(lambda m: redact_url(m.group()), text)
    text = _SCHEME_CREDENTIALS.sub(lambda m: f"{m.group(1)} {MASK}", text)

    def flag(match: re.Match[str]) -> str:
        if not is_secret_name(match.group(1)) or match.group(3) == MASK:
            return match.group()
        return f"{match.group(1)}{match.group(2)}{MASK}"

    def pair(match: re.Match[str]) -> str:
        if not is_secret_name(match.group(2)) or match.group(4).strip("'\"") == MASK:
            return match.group()
        quote = match.group(4)[0] if match.group(4)[0] in "'\"" else ""
        return (
            f"{match.group(1)}{match.group(2)}{match.group(1)}{match.group(3)}{quote}{MASK}{quote}"
        )

    text = _FLAG.sub(flag, text)
    return _PAIR.sub(pair, text)


def redact_value(value: Any, secrets: Iterable[str] = ()) -> Any:
    """`value` (text, or dicts and lists of them) with secrets as `***`; a secret-named
    key's value is hidden whole, whatever it is."""
    secrets = tuple(secrets)
    if isinstance(value, str):
        return redact_text(value, secrets)
    if isinstance(value, dict):
        return {
            key: MASK if is_secret_name(str(key)) else redact_value(item, secrets)
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        return type(value)(redact_value(item, secrets) for item in value)
    return value


class RedactingFilter(logging.Filter):
    """Rewrites each record's message (and traceback) with `redact_text`; drops nothing.

    Attach it to a handler (`handler.addFilter(RedactingFilter())`) so that whatever any
    logger writes there is redacted; `add(*secrets)` blanks known values too (a server's
    environment, a DSN's password).
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets: set[str] = set()
        self.add(*secrets)

    def add(self, *secrets: str) -> None:
        self.secrets.update(s for s in secrets if s)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: the logging module reports it itself
            return True
        redacted = redact_text(message, self.secrets)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_text(record.exc_text, self.secrets)
        return True

"""Ranking floors on the suite's sample catalog: the least any useful tool search must do.

They are floors, not benchmarks: an exact tool name ranks that tool first (so does its
name without a namespace), a name written with digits (`s3`, `oauth2`) finds its tool,
and a word found in one tool only (in its description, its parameters, or in non-ASCII
text) finds that tool near the top. Retrieval quality proper is measured with `toolscout eval`.
"""

from __future__ import annotations

from typing import Any

import pytest

from toolscout.testing.fixtures import ConformanceFixtures
from toolscout.testing.sample_catalog import (
    DESCRIPTION_WORDS,
    PARAMETER_WORDS,
    SAMPLE_TOOLS,
    sample_tools,
)
from toolscout.testing.support import names_of, search, unique_session
from toolscout.text import split_identifier
from toolscout.types import ToolReference

__all__ = ["DIGIT_NAMES", "DIGIT_TOOLS", "TOP_K", "RankingFloorTests"]

#: How near the top a distinctive word must put its tool.
TOP_K = 3

#: Tools whose names hold letters and digits, and the word that must find each.
DIGIT_TOOLS = (
    ToolReference("s3_upload_object", "Upload a local file to an S3 bucket under a key."),
    ToolReference("ec2_start_instances", "Start stopped EC2 virtual machines."),
    ToolReference("k8s_list_pods", "List the pods of a Kubernetes namespace."),
    ToolReference("o365_send_mail", "Send a mail from an Office 365 mailbox."),
    ToolReference("oauth2_refresh_token", "Exchange a refresh token for a new access token."),
    ToolReference("openai_complete", "Complete a prompt with gpt-4o or another model."),
    ToolReference("text_to_utf8", "Re-encode text from a legacy code page to UTF8."),
    ToolReference("hash_md5", "Compute the MD5 digest of a file."),
    ToolReference("hash_sha256", "Compute the SHA256 digest of a file."),
    ToolReference("x509_inspect", "Show the subject, issuer and expiry of a certificate."),
    ToolReference("base64_decode", "Decode a base64 string to bytes."),
    ToolReference("billing_api_v2_invoices", "List invoices through the billing API."),
)
DIGIT_NAMES = {
    "s3": "s3_upload_object",
    "ec2": "ec2_start_instances",
    "k8s": "k8s_list_pods",
    "o365": "o365_send_mail",
    "oauth2": "oauth2_refresh_token",
    "gpt-4o": "openai_complete",
    "utf8": "text_to_utf8",
    "md5": "hash_md5",
    "sha256": "hash_sha256",
    "x509": "x509_inspect",
    "base64": "base64_decode",
    "v2": "billing_api_v2_invoices",
}


class RankingFloorTests(ConformanceFixtures):
    """Exact names first; distinctive words in the top results."""

    def _catalog_session(self, index: Any, extra: tuple[ToolReference, ...] = ()) -> str:
        session = unique_session("catalog")
        index.index_tools(session, [*sample_tools(), *extra])
        return session

    def test_exact_name_ranks_that_tool_first(self, index: Any) -> None:
        """Failure: searching a tool's exact name (e.g. `github_create_issue`) did not rank
        that tool first; the message lists every name that failed and what came first."""
        session = self._catalog_session(index)
        misses = {}
        for tool in SAMPLE_TOOLS:
            names = names_of(search(index, session, tool.name, 5))
            if names[:1] != [tool.name]:
                misses[tool.name] = names[:3]
        assert not misses, f"exact names not ranked first (name: top 3): {misses}"

    @pytest.mark.parametrize(
        "text",
        ["send a message to the team", "create an issue, then post it in the channel", "send_.*"],
    )
    def test_the_keyword_hits_hybrid_ranking_reads_are_the_engines_hits(
        self, index: Any, text: str
    ) -> None:
        """Failure: the engine's `_keyword_hits` (what core's hybrid ranking reads) does not
        give the names, scores and count of its own `_search_set`: a search with vectors
        ranks other keyword hits than a search without."""
        from toolscout.index import IndexChores, Query

        if not isinstance(index, IndexChores):
            pytest.skip("not on core's bases: no hybrid ranking asks it")
        session = self._catalog_session(index)
        toolset = index._held(session, fresh=True)
        assert toolset is not None, "the session's tools were indexed just now"
        allowed = frozenset(sorted(toolset.tools)[::2])
        for only in (None, allowed):
            for limit in (1, 10, 50):

                def query(only: frozenset[str] | None = only, limit: int = limit) -> Query:
                    return Query(
                        text, limit, analyzer=index.analyzer, allowed=only, session_id=session
                    )

                hits, total = index._search_set(toolset, query())
                found = index._keyword_hits(toolset, query())
                assert found.names == [hit.name for hit in hits], (text, only, limit)
                assert found.scores == pytest.approx([hit.score for hit in hits], abs=1e-6)
                assert found.total == total

    def test_name_words_find_the_tool(self, index: Any) -> None:
        """Failure: searching the words of a tool's name (`create issue github` for
        `github_create_issue`) did not find it in the top 5: the engine ignores names."""
        session = self._catalog_session(index)
        misses = {}
        for tool in SAMPLE_TOOLS:
            query = " ".join(reversed(split_identifier(tool.name)))
            names = names_of(search(index, session, query, 5))
            if tool.name not in names:
                misses[query] = names[:3]
        assert len(misses) <= len(SAMPLE_TOOLS) // 10, f"name words missed (top 3): {misses}"

    def test_exact_name_with_dots_slashes_and_dashes_ranks_first(self, index: Any) -> None:
        """Failure: a tool whose name holds `.`, `/`, `-` or `:` (as in BFCL or MCP
        namespaced tools) was not ranked first by its exact name."""
        odd = (
            ToolReference("math.factorial", "Compute the factorial of an integer."),
            ToolReference("repos/list-branches", "List the branches of a repository."),
            ToolReference("files:read-text", "Read a text file and return its lines."),
            ToolReference("getUserProfile", "Fetch the profile of the signed-in user."),
        )
        session = self._catalog_session(index, odd)
        for tool in odd:
            names = names_of(search(index, session, tool.name, 5))
            assert names[:1] == [tool.name], f"{tool.name!r} ranked {names}"

    def test_name_without_its_namespace_ranks_that_tool_first(self, index: Any) -> None:
        """Failure: a tool's name typed without its namespace (`put_object` for
        `s3.put_object`, `ask_codex` for `mcp__codex__ask_codex`) did not rank it first;
        core's `ToolSet.named` resolves these (`toolscout.analysis.short_names`)."""
        namespaced = (
            ToolReference("s3.put_object", "Upload a local file to a bucket under a key."),
            ToolReference("mcp__codex__ask_codex", "Ask the coding agent a question."),
            ToolReference("github/create_pull_request", "Open a pull request on a repository."),
        )
        session = self._catalog_session(index, namespaced)
        for query, expected in (
            ("put_object", "s3.put_object"),
            ("ask_codex", "mcp__codex__ask_codex"),
            ("`create_pull_request`", "github/create_pull_request"),
            ("use ask_codex to review this", "mcp__codex__ask_codex"),
        ):
            names = names_of(search(index, session, query, 5))
            assert names[:1] == [expected], f"{query!r} should rank {expected} first: {names}"

    @pytest.mark.parametrize(("word", "tool"), sorted(DIGIT_NAMES.items()))
    def test_a_name_with_digits_finds_its_tool(self, index: Any, word: str, tool: str) -> None:
        """Failure: a name written with digits (`s3`, `ec2`, `k8s`, `oauth2`, `sha256`) did
        not find the one tool that has it: the analyzer split it into a letter and a number
        and dropped both (core's analyzer keeps such a word whole and split)."""
        session = self._catalog_session(index, DIGIT_TOOLS)
        names = names_of(search(index, session, word, TOP_K))
        assert tool in names, f"{word!r} should find {tool} in the top {TOP_K}, got {names}"

    def test_a_request_naming_a_service_with_digits_finds_its_tool(self, index: Any) -> None:
        """Failure: a request with a name holding digits ("upload a file to s3") did not
        find the tool of that service in the top results."""
        session = self._catalog_session(index, DIGIT_TOOLS)
        for query, expected in (
            ("upload a file to s3", "s3_upload_object"),
            ("sha256 checksum of a file", "hash_sha256"),
            ("list the k8s pods", "k8s_list_pods"),
        ):
            names = names_of(search(index, session, query, TOP_K))
            assert expected in names, f"{query!r} should find {expected}, got {names}"

    @pytest.mark.parametrize("word", sorted(DESCRIPTION_WORDS))
    def test_distinctive_description_word_finds_its_tool(self, index: Any, word: str) -> None:
        """Failure: a word that occurs only in one tool's description did not put that tool
        in the top results, so descriptions are not (or badly) searched."""
        session = self._catalog_session(index)
        names = names_of(search(index, session, word, TOP_K))
        assert DESCRIPTION_WORDS[word] in names, (
            f"{word!r} should find {DESCRIPTION_WORDS[word]} in the top {TOP_K}, got {names}"
        )

    @pytest.mark.parametrize("word", sorted(PARAMETER_WORDS))
    def test_distinctive_parameter_word_finds_its_tool(self, index: Any, word: str) -> None:
        """Failure: a word that occurs only in one tool's parameter names or parameter
        descriptions did not put that tool in the top results: the input schema is not
        searched (core's `ToolReference.text.parameters` holds it)."""
        session = self._catalog_session(index)
        names = names_of(search(index, session, word, TOP_K))
        assert PARAMETER_WORDS[word] in names, (
            f"{word!r} should find {PARAMETER_WORDS[word]} in the top {TOP_K}, got {names}"
        )

    def test_natural_language_query_finds_the_tool(self, index: Any) -> None:
        """Failure: a plain request naming a tool's words in another order did not put that
        tool in the top results."""
        session = self._catalog_session(index)
        for query, expected in (
            ("refund a payment", "stripe_refund_payment"),
            ("create an issue on github", "github_create_issue"),
            ("weather forecast for the week", "weather_daily_forecast"),
        ):
            names = names_of(search(index, session, query, TOP_K))
            assert expected in names, f"{query!r} should find {expected}, got {names}"

    def test_accented_word_finds_its_tool(self, index: Any) -> None:
        """Failure: a tool described in French was not found by an accented word of its
        description (`météo`): the analyzer mangles non-ASCII letters."""
        tool = ToolReference("previsions_locales", "Prévisions météo locales pour la semaine.")
        session = self._catalog_session(index, (tool,))
        names = names_of(search(index, session, "météo", TOP_K))
        assert tool.name in names, f"'météo' should find {tool.name}, got {names}"

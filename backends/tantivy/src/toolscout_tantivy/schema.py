"""The tantivy schema: one document per (session, tool)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolscout_tantivy.analysis import ANALYZER, EXACT_ANALYZER

if TYPE_CHECKING:
    import tantivy

__all__ = ["FORMAT_VERSION", "TEXT_FIELDS", "build_schema"]

#: Bumped whenever the schema or the analysis changes incompatibly.
FORMAT_VERSION = 1

#: The searched text fields, each from the `ToolText` field of the same name.
TEXT_FIELDS = ("name", "parameters", "description")

# Fields:
#   name, parameters, description  analyzed words; frequencies but no positions, since
#                                  queries are bags of words and positions cost memory
#   tool                           the tool's name: stored for results, and indexed whole
#                                  (lower-cased) so a query naming a tool finds it first
#   summary                        stored only: the hit's one-line summary
#   session                        raw: every query is filtered to one session by it
#   key                            raw JSON [session, name]: unique, for delete-then-add
#   meta                           raw hashed metadata terms, for metadata filters


def build_schema() -> tantivy.Schema:
    from tantivy import SchemaBuilder

    builder = SchemaBuilder()
    for field in TEXT_FIELDS:
        builder.add_text_field(field, tokenizer_name=ANALYZER, index_option="freq")
    builder.add_text_field("tool", stored=True, tokenizer_name=EXACT_ANALYZER, index_option="freq")
    builder.add_bytes_field("summary", stored=True, indexed=False)
    builder.add_text_field("session", tokenizer_name="raw", index_option="basic")
    builder.add_text_field("key", tokenizer_name="raw", index_option="basic")
    builder.add_text_field("meta", tokenizer_name="raw", index_option="basic")
    return builder.build()

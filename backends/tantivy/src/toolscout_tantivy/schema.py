"""The tantivy schema: one document per tool of a tool set, and the one tokenizer it uses."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tantivy

__all__ = ["FORMAT_VERSION", "TERMS_TOKENIZER", "TEXT_FIELDS", "build_schema", "terms_tokenizer"]

#: Bumped whenever the schema or the stored records change incompatibly. Format 1 indexed
#: one document per (session, tool), analysed by tantivy's own filters.
FORMAT_VERSION = 2

#: The searched text fields, each from the `ToolTerms` field of the same name.
TEXT_FIELDS = ("name", "parameters", "description")

#: Name under which the whitespace-only tokenizer is registered on the index.
TERMS_TOKENIZER = "toolscout_terms"

# Fields:
#   name, parameters, description  core's analysed terms joined by spaces, split on
#                                  whitespace only; frequencies but no positions, since
#                                  queries are bags of terms and positions cost memory
#   set                            raw set id: every query is filtered to one set by it,
#                                  and a dropped set is deleted by it
#   key                            raw "set id NUL tool name": unique, for in-place updates
#                                  and for the names a metadata filter lets through
#   num                            fast u64, unique in the index: a hit's name and summary
#                                  are looked up by it in memory, no stored field is read
#   record                         stored JSON [set id, num, tool] (directory indexes
#                                  only): what reopening rebuilds the tool sets from


def terms_tokenizer() -> tantivy.TextAnalyzer:
    """Whitespace splitting, no filters: core's analysis is the only one."""
    from tantivy import TextAnalyzerBuilder, Tokenizer

    return TextAnalyzerBuilder(Tokenizer.whitespace()).build()


def build_schema() -> tantivy.Schema:
    from tantivy import SchemaBuilder

    builder = SchemaBuilder()
    for field in TEXT_FIELDS:
        builder.add_text_field(field, tokenizer_name=TERMS_TOKENIZER, index_option="freq")
    builder.add_text_field("set", tokenizer_name="raw", index_option="basic")
    builder.add_text_field("key", tokenizer_name="raw", index_option="basic")
    builder.add_unsigned_field("num", fast=True)
    builder.add_bytes_field("record", stored=True)
    return builder.build()

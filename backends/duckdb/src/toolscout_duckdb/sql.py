"""The SQL of the backend: its tables, and BM25F as one query (`scoring = "sql"`).

Storage lives in schema `toolscout`, every row of a tool set tagged by the set's key:

- `meta`: the schema version and the analyzer signature the index was built with.
- `sets`: each tool set's key, its id (a random UUID) and its next free document number.
- `tools`: per set, one row per tool: its document number, name, definition as JSON (to
  restore the set) and its field lengths in terms.
- `postings`: per set, per (term, tool), the term's count in the name, the parameters and
  the description.
- `sessions`: which set each session holds (files only: an in-memory index keeps sessions
  in core's memory alone).

Tool text is analysed by core (`toolscout.analysis`), in Python; DuckDB stores and scores
the result. A write is one transaction, so a crash leaves whole sets only.
"""

from __future__ import annotations

__all__ = ["DDL", "SCHEMA_VERSION"]

SCHEMA_VERSION = "2"

# No PRIMARY KEY: DuckDB's ART indexes cost memory per row and work per insert (an
# INSERT OR REPLACE on a keyed table costs several times a DELETE and an INSERT); one
# writer keeps rows unique. Set keys only grow, so a set's rows are contiguous and DuckDB's
# zone maps skip other sets' row groups.
DDL = """
CREATE SCHEMA IF NOT EXISTS toolscout;
CREATE TABLE IF NOT EXISTS toolscout.meta (key VARCHAR NOT NULL, value VARCHAR NOT NULL);
CREATE TABLE IF NOT EXISTS toolscout.sets (
    set_key INTEGER NOT NULL,
    set_id UUID NOT NULL,
    next_doc INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS toolscout.tools (
    set_key INTEGER NOT NULL,
    doc INTEGER NOT NULL,
    name VARCHAR NOT NULL,
    tool VARCHAR NOT NULL,
    len_name UINTEGER NOT NULL,
    len_params UINTEGER NOT NULL,
    len_desc UINTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS toolscout.postings (
    set_key INTEGER NOT NULL,
    term VARCHAR NOT NULL,
    doc INTEGER NOT NULL,
    tf_name UINTEGER NOT NULL,
    tf_params UINTEGER NOT NULL,
    tf_desc UINTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS toolscout.sessions (
    session_id VARCHAR NOT NULL,
    set_key INTEGER NOT NULL
);
"""

TABLES = ("meta", "sets", "tools", "postings", "sessions")

# --- writes ---------------------------------------------------------------------------

INSERT_SET = "INSERT INTO toolscout.sets VALUES ($k, $id::UUID, $next)"
INSERT_TOOLS = "INSERT INTO toolscout.tools SELECT $k, * FROM ts_tools"
INSERT_POSTINGS = "INSERT INTO toolscout.postings SELECT $k, * FROM ts_postings"

#: The documents of the set's tools named in `$names`.
_NAMED_DOCS = (
    "SELECT doc FROM toolscout.tools WHERE set_key = $k AND list_contains($names::VARCHAR[], name)"
)
DELETE_NAMED_POSTINGS = (
    f"DELETE FROM toolscout.postings WHERE set_key = $k AND doc IN ({_NAMED_DOCS})"
)
DELETE_NAMED_TOOLS = (
    "DELETE FROM toolscout.tools WHERE set_key = $k AND list_contains($names::VARCHAR[], name)"
)
NEXT_DOC = "SELECT next_doc FROM toolscout.sets WHERE set_key = $k"
ADVANCE = "UPDATE toolscout.sets SET next_doc = $next WHERE set_key = $k"

DROP_SET = (
    "DELETE FROM toolscout.postings WHERE set_key = $k",
    "DELETE FROM toolscout.tools WHERE set_key = $k",
    "DELETE FROM toolscout.sets WHERE set_key = $k",
)

STORE_SESSION = "INSERT INTO toolscout.sessions VALUES ($s, $k)"
FORGET_SESSION = "DELETE FROM toolscout.sessions WHERE session_id = $s"

# --- reads ----------------------------------------------------------------------------

SETS = "SELECT set_key, set_id::VARCHAR FROM toolscout.sets"
SESSIONS = "SELECT session_id, set_key FROM toolscout.sessions"
ALL_TOOLS = "SELECT set_key, tool FROM toolscout.tools ORDER BY set_key, doc"

SET_TOOLS = """
SELECT doc, name, len_name, len_params, len_desc
FROM toolscout.tools WHERE set_key = $k ORDER BY doc
"""
SET_POSTINGS = """
SELECT term, doc, tf_name, tf_params, tf_desc FROM toolscout.postings WHERE set_key = $k
"""

#: BM25F over the set's tools (the formula of `toolscout_duckdb.cache.SetIndex`): field
#: counts and lengths scaled by the weights, Lucene's idf; each query term (`$queried`)
#: scores the best of its words (`$words`: itself, then its related words) times their
#: `$discounts`; ties broken by name.
SEARCH = """
WITH
t AS (
    SELECT doc, name, $wn * len_name + $wp * len_params + $wd * len_desc AS dl
    FROM toolscout.tools WHERE set_key = $k
),
s AS (SELECT count(*)::DOUBLE AS n, greatest(sum(dl) / count(*), 1e-9) AS avgdl FROM t),
w AS (
    SELECT unnest($queried::VARCHAR[]) AS q, unnest($words::VARCHAR[]) AS term,
           unnest($discounts::DOUBLE[]) AS discount
),
h AS (
    SELECT term, doc, ($wn * tf_name + $wp * tf_params + $wd * tf_desc)::DOUBLE AS tf
    FROM toolscout.postings
    WHERE set_key = $k AND list_contains($words::VARCHAR[], term)
),
df AS (SELECT term, count(*)::DOUBLE AS df FROM h GROUP BY term),
per AS (
    SELECT h.doc, w.q,
           max(w.discount * ln(1 + (s.n - df.df + 0.5) / (df.df + 0.5)) * h.tf * ($k1 + 1)
               / (h.tf + $k1 * (1 - $b + $b * t.dl / s.avgdl))) AS score
    FROM h JOIN w USING (term) JOIN df USING (term) JOIN t USING (doc) CROSS JOIN s
    WHERE h.tf > 0
    GROUP BY h.doc, w.q
),
sc AS (SELECT doc, sum(score) AS score FROM per GROUP BY doc)
SELECT t.name, sc.score, count(*) OVER () AS total
FROM sc JOIN t USING (doc)
WHERE $everything OR list_contains($allowed::VARCHAR[], t.name)
ORDER BY sc.score DESC, t.name
LIMIT $limit
"""

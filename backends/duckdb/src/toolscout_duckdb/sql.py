"""The SQL of the backend: its tables, the ingest pipeline and the BM25 query.

Storage lives in schema `toolscout`:

- `tools`: one row per distinct tool definition (name + description + schema, by
  `fingerprint`), with its field lengths in words. Shared by every session holding it.
- `terms`: the stemmed vocabulary; `postings`: per (term, tool) the term's count in the
  name, the parameters and the description.
- `sessions`: session ids with their tool count and summed field lengths (BM25's N and
  average length), kept current by every write; `members`: which tools each session holds.

A write changes all of them in one transaction, so a search (which reads one snapshot)
always sees exactly the current tools: there is no separate full-text index to rebuild.
"""

from __future__ import annotations

__all__ = ["DDL", "SCHEMA_VERSION"]

SCHEMA_VERSION = "1"

DDL = """
CREATE SCHEMA IF NOT EXISTS toolscout;
CREATE SEQUENCE IF NOT EXISTS toolscout.tool_ids START 1;
CREATE TABLE IF NOT EXISTS toolscout.meta (key VARCHAR NOT NULL, value VARCHAR NOT NULL);
CREATE TABLE IF NOT EXISTS toolscout.tools (
    tool_id INTEGER NOT NULL,
    fingerprint VARCHAR NOT NULL,
    name VARCHAR NOT NULL,
    description VARCHAR NOT NULL,
    input_schema VARCHAR,
    len_name INTEGER NOT NULL,
    len_params INTEGER NOT NULL,
    len_desc INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS toolscout.terms (term_id INTEGER NOT NULL, term VARCHAR NOT NULL);
CREATE TABLE IF NOT EXISTS toolscout.postings (
    term_id INTEGER NOT NULL,
    tool_id INTEGER NOT NULL,
    tf_name USMALLINT NOT NULL,
    tf_params USMALLINT NOT NULL,
    tf_desc USMALLINT NOT NULL
);
CREATE TABLE IF NOT EXISTS toolscout.sessions (
    session_key INTEGER NOT NULL,
    session_id VARCHAR NOT NULL,
    n INTEGER NOT NULL,
    sum_name BIGINT NOT NULL,
    sum_params BIGINT NOT NULL,
    sum_desc BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS toolscout.members (
    session_key INTEGER NOT NULL,
    tool_id INTEGER NOT NULL
);
"""

# Why no PRIMARY KEY / UNIQUE: DuckDB's ART indexes cost memory per row and add work to
# every insert; uniqueness is kept by the single writer (one lock) instead.

# --- ingest ---------------------------------------------------------------------------

#: First bad row of a batch, if any: a name that is missing or blank.
BAD_NAME = """
SELECT _ts_row FROM ts_batch
WHERE name IS NULL OR regexp_replace(name, '^\\s+|\\s+$', '', 'g') = '' OR contains(name, chr(0))
ORDER BY _ts_row LIMIT 1
"""

#: First row whose input schema is not a JSON object (`{schema}` is the column expression).
BAD_SCHEMA = """
SELECT _ts_row, {schema} FROM ts_batch
WHERE {schema} IS NOT NULL AND (NOT json_valid({schema}) OR json_type({schema}) <> 'OBJECT')
ORDER BY _ts_row LIMIT 1
"""

#: The batch, names unique (the last definition of a name wins), fingerprinted.
STAGE = """
CREATE OR REPLACE TEMP TABLE ts_staged AS
WITH b AS (
    SELECT
        _ts_row,
        regexp_replace(name, '^\\s+|\\s+$', '', 'g') AS name,
        replace(coalesce({description}, ''), chr(0), ' ') AS description,
        CASE WHEN {schema} IS NULL THEN NULL ELSE json({schema})::VARCHAR END AS input_schema
    FROM ts_batch
)
SELECT
    name, description, input_schema,
    md5(name || chr(1) || description || chr(1) || coalesce(input_schema, 'null')) AS fingerprint
FROM b
QUALIFY row_number() OVER (PARTITION BY name ORDER BY _ts_row DESC) = 1
"""

#: Definitions not stored yet get an id.
NEW_TOOLS = """
CREATE OR REPLACE TEMP TABLE ts_new AS
SELECT nextval('toolscout.tool_ids')::INTEGER AS tool_id, s.*
FROM (SELECT * FROM ts_staged ANTI JOIN toolscout.tools USING (fingerprint)) s
"""

#: Every word of every field of the new tools, stop words still in.
NEW_WORDS = """
CREATE OR REPLACE TEMP TABLE ts_words AS
WITH tree AS (
    SELECT n.tool_id, j.id, j.parent, j.key, j.type, j.value
    FROM ts_new n, json_tree(n.input_schema) j
    WHERE n.input_schema IS NOT NULL
),
-- A parameter is a member of a "properties" object, at any depth (items, anyOf, ...).
-- Null members are no parameters: Arrow structs give every row every key, absent as null.
params AS (
    SELECT c.tool_id, c.id, c.key
    FROM tree c JOIN tree p ON c.tool_id = p.tool_id AND c.parent = p.id
    WHERE p.key = 'properties' AND p.type = 'OBJECT' AND c.type <> 'NULL'
),
texts AS (
    SELECT tool_id, 0 AS field, name AS txt FROM ts_new
    UNION ALL SELECT tool_id, 2, description FROM ts_new
    UNION ALL SELECT tool_id, 1, key FROM params
    UNION ALL
    SELECT d.tool_id, 1, d.value ->> '$'
    FROM tree d JOIN params p ON d.tool_id = p.tool_id AND d.parent = p.id
    WHERE d.key = 'description' AND d.type = 'VARCHAR'
)
SELECT tool_id, field::UTINYINT AS field, unnest(ts_split(txt)) AS word FROM texts
"""

DROP_STOPWORDS = "DELETE FROM ts_words WHERE word IN (SELECT word FROM ts_stopwords)"

#: Each distinct word stemmed once.
STEMS = """
CREATE OR REPLACE TEMP TABLE ts_stems AS
SELECT word, stem(word, $stemmer) AS term FROM (SELECT DISTINCT word FROM ts_words)
"""

NEW_TERMS = """
INSERT INTO toolscout.terms
SELECT (SELECT coalesce(max(term_id), 0) FROM toolscout.terms) + row_number() OVER (ORDER BY term),
       term
FROM (SELECT DISTINCT term FROM ts_stems WHERE term <> '') t
ANTI JOIN toolscout.terms USING (term)
RETURNING term_id, term
"""

NEW_POSTINGS = """
INSERT INTO toolscout.postings
SELECT tm.term_id, w.tool_id,
       count(*) FILTER (WHERE w.field = 0),
       count(*) FILTER (WHERE w.field = 1),
       count(*) FILTER (WHERE w.field = 2)
FROM ts_words w JOIN ts_stems s USING (word) JOIN toolscout.terms tm USING (term)
GROUP BY tm.term_id, w.tool_id
"""

INSERT_TOOLS = """
INSERT INTO toolscout.tools
SELECT n.tool_id, n.fingerprint, n.name, n.description, n.input_schema,
       coalesce(l.len_name, 0), coalesce(l.len_params, 0), coalesce(l.len_desc, 0)
FROM ts_new n LEFT JOIN (
    SELECT w.tool_id,
           count(*) FILTER (WHERE w.field = 0) AS len_name,
           count(*) FILTER (WHERE w.field = 1) AS len_params,
           count(*) FILTER (WHERE w.field = 2) AS len_desc
    FROM ts_words w JOIN ts_stems s USING (word)
    WHERE s.term <> ''
    GROUP BY w.tool_id
) l USING (tool_id)
"""

# --- membership -----------------------------------------------------------------------

#: The session's current tools whose names the batch redefines.
REPLACED = """
CREATE OR REPLACE TEMP TABLE ts_dropped AS
SELECT m.tool_id
FROM toolscout.members m JOIN toolscout.tools t USING (tool_id)
WHERE m.session_key = $s AND t.name IN (SELECT name FROM ts_staged)
"""

#: The session's current tools with the given names (for `remove_tools`).
NAMED = """
CREATE OR REPLACE TEMP TABLE ts_dropped AS
SELECT m.tool_id
FROM toolscout.members m JOIN toolscout.tools t USING (tool_id)
WHERE m.session_key = $s AND list_contains($names::VARCHAR[], t.name)
"""

#: Every tool of the session (for `clear_index`).
ALL_OF_SESSION = """
CREATE OR REPLACE TEMP TABLE ts_dropped AS
SELECT tool_id FROM toolscout.members WHERE session_key = $s
"""

DROP_MEMBERS = """
DELETE FROM toolscout.members
WHERE session_key = $s AND tool_id IN (SELECT tool_id FROM ts_dropped)
"""

ADD_MEMBERS = """
INSERT INTO toolscout.members
SELECT $s, t.tool_id FROM ts_staged s JOIN toolscout.tools t USING (fingerprint)
"""

DELETE_SESSION = "DELETE FROM toolscout.sessions WHERE session_key = $s"

NEW_SESSION = "INSERT INTO toolscout.sessions VALUES ($s, $sid, 0, 0, 0, 0)"

# The session's BM25 statistics follow its membership changes (cost: the change, not the
# number of sessions or of their members).
_STATS_CHANGE = """
UPDATE toolscout.sessions SET
    n = sessions.n {op} d.c, sum_name = sessions.sum_name {op} d.a,
    sum_params = sessions.sum_params {op} d.p, sum_desc = sessions.sum_desc {op} d.l
FROM (
    SELECT count(*) AS c, coalesce(sum(t.len_name), 0) AS a,
           coalesce(sum(t.len_params), 0) AS p, coalesce(sum(t.len_desc), 0) AS l
    FROM {source}
) d
WHERE sessions.session_key = $s
"""
SUBTRACT_DROPPED = _STATS_CHANGE.format(
    op="-", source="ts_dropped JOIN toolscout.tools t USING (tool_id)"
)
ADD_STAGED = _STATS_CHANGE.format(
    op="+", source="ts_staged JOIN toolscout.tools t USING (fingerprint)"
)

#: Dropped definitions that no session holds any more are deleted with their postings.
ORPHANS = """
CREATE OR REPLACE TEMP TABLE ts_orphans AS
SELECT DISTINCT tool_id FROM ts_dropped ANTI JOIN toolscout.members USING (tool_id)
"""
ORPHAN_NAMES = """
SELECT t.tool_id, t.name FROM toolscout.tools t WHERE t.tool_id IN (SELECT tool_id FROM ts_orphans)
"""
TERMS_OF_ORPHANS = """
SELECT DISTINCT term_id FROM toolscout.postings WHERE tool_id IN (SELECT tool_id FROM ts_orphans)
"""
TERMS_OF_NEW = """
SELECT DISTINCT term_id FROM toolscout.postings WHERE tool_id IN (SELECT tool_id FROM ts_new)
"""
DELETE_ORPHAN_POSTINGS = (
    "DELETE FROM toolscout.postings WHERE tool_id IN (SELECT tool_id FROM ts_orphans)"
)
DELETE_ORPHAN_TOOLS = (
    "DELETE FROM toolscout.tools WHERE tool_id IN (SELECT tool_id FROM ts_orphans)"
)

# --- search ---------------------------------------------------------------------------

_SCORED = """
WITH
s AS (
    SELECT n::DOUBLE AS n,
           greatest(($wn * sum_name + $wp * sum_params + $wd * sum_desc) / n, 1e-9) AS avgdl
    FROM toolscout.sessions WHERE session_key = $s AND n > 0
),
m AS (SELECT tool_id FROM toolscout.members WHERE session_key = $s),
h AS (
    SELECT p.term_id, p.tool_id, $wn * p.tf_name + $wp * p.tf_params + $wd * p.tf_desc AS tf
    FROM toolscout.postings p
    WHERE list_contains($terms::INTEGER[], p.term_id) AND p.tool_id IN (SELECT tool_id FROM m)
),
df AS (SELECT term_id, count(*)::DOUBLE AS df FROM h GROUP BY term_id),
sc AS (
    SELECT h.tool_id,
           sum(ln(1 + (s.n - df.df + 0.5) / (df.df + 0.5)) * h.tf * ($k1 + 1)
               / (h.tf + $k1 * (1 - $b + $b * ($wn * t.len_name + $wp * t.len_params
                                              + $wd * t.len_desc) / s.avgdl))) AS score
    FROM h JOIN df USING (term_id) JOIN toolscout.tools t USING (tool_id) CROSS JOIN s
    WHERE h.tf > 0
    GROUP BY h.tool_id
)
"""

_RANKED = """
SELECT t.name, f.score, t.description, count(*) OVER () AS total
FROM f JOIN toolscout.tools t USING (tool_id)
ORDER BY f.score DESC, t.name
LIMIT $limit
"""

#: BM25 (BM25F over the three weighted fields) for the session's tools.
SEARCH = _SCORED + ", f AS (SELECT tool_id, score FROM sc WHERE score >= $min_score)" + _RANKED

#: The same, and a tool whose name is exactly the query ranks first.
SEARCH_EXACT = (
    _SCORED
    + """,
ex AS (
    SELECT t.tool_id FROM toolscout.tools t
    WHERE t.name = $name AND t.tool_id IN (SELECT tool_id FROM m)
),
top AS (SELECT coalesce(max(score), 0) AS best FROM sc),
boosted AS (
    SELECT coalesce(sc.tool_id, ex.tool_id) AS tool_id,
           coalesce(sc.score, 0) + CASE WHEN ex.tool_id IS NULL THEN 0 ELSE top.best + 1 END
               AS score
    FROM sc FULL OUTER JOIN ex USING (tool_id) CROSS JOIN top
),
f AS (SELECT tool_id, score FROM boosted WHERE score >= $min_score)
"""
    + _RANKED
)

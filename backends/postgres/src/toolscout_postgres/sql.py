"""The index's tables and statements, with `{s}` standing for the schema (quoted);
`compile_statements` fills in an index's schema (and pgvector's operator) once, when it
opens.

Tables (one schema per index):

- `meta`: key/value facts about the schema: `schema_version`, the text `analysis` it was
  built with, the `embedding_model` and `embedding_dimension` of its vectors (if any).
- `definitions`: each tool definition once, keyed by core's collision-free
  `definition_key` (a 128-bit digest, stored as `uuid`): the definition as JSON text,
  its field lengths in terms, and (when the schema holds vectors) its embedding.
- `postings`: per definition and term, the term's count in the name, the parameters and
  the description, with the definition's lengths (a search reads postings only).
- `sets`: tool sets, unique by fingerprint (a digest of their definitions), with a
  revision bumped by every change in place and the sums BM25 needs.
- `members`: which definitions a set holds.
- `sessions`: which set each session holds (a session holding nothing has no row).
- `usage_tenants` and `uses`: the uses learning from use reads (`toolscout_postgres.usage`):
  per tenant its version (bumped by every change of its uses), how many uses it keeps and
  the number of its newest; each use numbered in its tenant's order.

A session's search joins `sessions` → `sets` → `members` → `postings` in one statement,
so whatever any worker last committed is what a search sees.
"""

from __future__ import annotations

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "compile_statements"]

#: The version of the tables this code reads and writes (`meta.schema_version`).
SCHEMA_VERSION = 2

#: Statements that bring a schema from version N-1 to N, by N (1 creates it).
MIGRATIONS: dict[int, list[str]] = {
    1: [
        """CREATE TABLE {s}.meta (
            key text PRIMARY KEY,
            value text NOT NULL
        )""",
        """CREATE TABLE {s}.definitions (
            key uuid PRIMARY KEY,
            doc text NOT NULL,
            len_name integer NOT NULL,
            len_params integer NOT NULL,
            len_desc integer NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now()
        )""",
        """CREATE TABLE {s}.postings (
            def uuid NOT NULL REFERENCES {s}.definitions (key) ON DELETE CASCADE,
            term text NOT NULL,
            tf_name integer NOT NULL,
            tf_params integer NOT NULL,
            tf_desc integer NOT NULL,
            len_name integer NOT NULL,
            len_params integer NOT NULL,
            len_desc integer NOT NULL,
            name_terms integer NOT NULL,
            PRIMARY KEY (def, term)
        )""",
        # A search reads postings by term; the included columns let it skip the table.
        """CREATE INDEX postings_term ON {s}.postings (term)
            INCLUDE (def, tf_name, tf_params, tf_desc, len_name, len_params, len_desc,
                     name_terms)""",
        """CREATE TABLE {s}.sets (
            id uuid PRIMARY KEY,
            fingerprint uuid NOT NULL UNIQUE,
            revision bigint NOT NULL DEFAULT 1,
            size integer NOT NULL,
            len_name bigint NOT NULL,
            len_params bigint NOT NULL,
            len_desc bigint NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now(),
            updated_at timestamptz NOT NULL DEFAULT now()
        )""",
        """CREATE TABLE {s}.members (
            set_id uuid NOT NULL REFERENCES {s}.sets (id),
            def uuid NOT NULL REFERENCES {s}.definitions (key),
            PRIMARY KEY (set_id, def)
        )""",
        "CREATE INDEX members_def ON {s}.members (def)",
        """CREATE TABLE {s}.sessions (
            id text PRIMARY KEY,
            set_id uuid NOT NULL REFERENCES {s}.sets (id),
            updated_at timestamptz NOT NULL DEFAULT now()
        )""",
        "CREATE INDEX sessions_set ON {s}.sessions (set_id)",
    ],
    # The uses learning from use reads: every worker's, one store (`usage.py`).
    2: [
        """CREATE TABLE {s}.usage_tenants (
            tenant text PRIMARY KEY,
            version bigint NOT NULL,
            uses integer NOT NULL,
            last_use bigint NOT NULL
        )""",
        """CREATE TABLE {s}.uses (
            tenant text NOT NULL,
            number bigint NOT NULL,
            tool text NOT NULL,
            definition text NOT NULL,
            query text NOT NULL,
            success boolean NOT NULL,
            session text NOT NULL,
            at float8 NOT NULL,
            PRIMARY KEY (tenant, number)
        )""",
        "CREATE INDEX uses_tool ON {s}.uses (tenant, tool, number)",
    ],
}

#: Adds vectors to a schema (run once, when an index with an embedder first opens it).
#: Embeddings stay in the row (storage PLAIN: pgvector's default moves one out of any
#: row over 2 KB; a long description is moved instead): an exact search reads every
#: vector of a set, and reading one from the TOAST table costs more than its distance.
#: HNSW takes at most 2,000 dimensions, which fit a row.
ADD_VECTORS = [
    "ALTER TABLE {s}.definitions ADD COLUMN embedding {vector}({dimension})",
    "ALTER TABLE {s}.definitions ALTER COLUMN embedding SET STORAGE PLAIN",
    "CREATE INDEX definitions_embedding ON {s}.definitions "
    "USING hnsw (embedding {ops}) WITH (m = 16, ef_construction = 64)",
]

#: A schema whose vectors were stored out of row (made before they were kept in it): the
#: storage, then each stored vector written again (an unchanged value would keep its
#: out-of-row copy; a float4[] round trip is exact).
EMBEDDING_STORAGE = (
    "SELECT attstorage FROM pg_attribute WHERE attrelid = to_regclass(%s) AND attname = 'embedding'"
)
INLINE_VECTORS = [
    "ALTER TABLE {s}.definitions ALTER COLUMN embedding SET STORAGE PLAIN",
    "UPDATE {s}.definitions SET embedding = embedding::real[]::{vector} "
    "WHERE embedding IS NOT NULL",
]

META = "SELECT key, value FROM {s}.meta"
SET_META = (
    "INSERT INTO {s}.meta (key, value) VALUES (%s, %s) "
    "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"
)

# --- uses (`toolscout_postgres.usage`) ----------------------------------------------------

#: A use's number, the tenant's row made or locked: writers of one tenant take turns until
#: commit. Also the tenant's new version and how many uses it kept before.
NUMBER_USE = """
INSERT INTO {s}.usage_tenants AS t (tenant, version, uses, last_use)
VALUES (%(tenant)s, 1, 0, 1)
ON CONFLICT (tenant) DO UPDATE SET version = t.version + 1, last_use = t.last_use + 1
RETURNING t.last_use, t.version, t.uses
"""
#: A tool recorded with another definition loses its older uses.
DROP_OTHER_DEFINITION = """
DELETE FROM {s}.uses
WHERE tenant = %(tenant)s AND tool = %(tool)s AND definition <> %(definition)s
"""
ADD_USE = """
INSERT INTO {s}.uses (tenant, number, tool, definition, query, success, session, at)
VALUES (%(tenant)s, %(number)s, %(tool)s, %(definition)s, %(query)s, %(success)s,
        %(session)s, %(at)s)
"""
#: The tool's uses past its newest `keep`.
TRIM_TOOL = """
DELETE FROM {s}.uses
WHERE tenant = %(tenant)s AND tool = %(tool)s AND number <= (
    SELECT number FROM {s}.uses WHERE tenant = %(tenant)s AND tool = %(tool)s
    ORDER BY number DESC OFFSET %(keep)s LIMIT 1
)
"""
#: The tenant's oldest `excess` uses.
TRIM_TENANT = """
DELETE FROM {s}.uses
WHERE tenant = %(tenant)s AND number IN (
    SELECT number FROM {s}.uses WHERE tenant = %(tenant)s ORDER BY number LIMIT %(excess)s
)
"""
COUNT_USES = "UPDATE {s}.usage_tenants SET uses = %(uses)s WHERE tenant = %(tenant)s"
USES = """
SELECT query, tool, definition, success, session, tenant, at
FROM {s}.uses WHERE tenant = %(tenant)s ORDER BY number
"""
USAGE_VERSION = "SELECT version FROM {s}.usage_tenants WHERE tenant = %(tenant)s"
USAGE_TENANTS = "SELECT tenant FROM {s}.usage_tenants WHERE uses > 0"
#: The tenants to clear (`tenant` NULL: every one), locked in one order (two clears of
#: every tenant do not deadlock), their versions bumped.
CLEAR_TENANTS = """
WITH chosen AS (
    SELECT tenant FROM {s}.usage_tenants
    WHERE %(tenant)s::text IS NULL OR tenant = %(tenant)s
    ORDER BY tenant FOR UPDATE
)
UPDATE {s}.usage_tenants t SET version = t.version + 1, uses = 0
FROM chosen WHERE t.tenant = chosen.tenant
RETURNING t.tenant
"""
CLEAR_USES = "DELETE FROM {s}.uses WHERE tenant = ANY(%(tenants)s::text[])"

# --- writes ---------------------------------------------------------------------------

EXISTING = "SELECT key FROM {s}.definitions WHERE key = ANY(%s)"
EXISTING_WITH_VECTORS = (
    "SELECT key FROM {s}.definitions WHERE key = ANY(%s) AND embedding IS NOT NULL"
)
COPY_DEFINITIONS = "COPY {s}.definitions (key, doc, len_name, len_params, len_desc) FROM STDIN"
COPY_DEFINITIONS_VECTORS = (
    "COPY {s}.definitions (key, doc, len_name, len_params, len_desc, embedding) "
    "FROM STDIN (FORMAT BINARY)"
)
COPY_POSTINGS = (
    "COPY {s}.postings (def, term, tf_name, tf_params, tf_desc, len_name, len_params, "
    "len_desc, name_terms) FROM STDIN"
)
#: Vectors of definitions written before the schema held vectors (a backfill).
MISSING_VECTORS = "SELECT key, doc FROM {s}.definitions WHERE embedding IS NULL LIMIT %s"
SET_VECTOR = "UPDATE {s}.definitions SET embedding = %s WHERE key = %s"

CURRENT = """
SELECT st.id, st.revision, st.fingerprint
FROM {s}.sessions se JOIN {s}.sets st ON st.id = se.set_id
WHERE se.id = %(session)s
"""
#: Under the session's lock: its set, locked against every other writer that would
#: change it in place, drop it, or bind a session to it (they wait for this commit).
CURRENT_LOCKED = """
SELECT st.id, st.revision, st.fingerprint
FROM {s}.sessions se JOIN {s}.sets st ON st.id = se.set_id
WHERE se.id = %(session)s
FOR UPDATE OF st
"""
WITH_FINGERPRINT = "SELECT id, revision FROM {s}.sets WHERE fingerprint = %(fingerprint)s"
#: A set with the wanted fingerprint, kept from being changed in place or dropped until
#: the session bound to it commits.
SHARE_FINGERPRINT = (
    "SELECT id, revision FROM {s}.sets WHERE fingerprint = %(fingerprint)s FOR SHARE"
)
OTHER_HOLDERS = (
    "SELECT EXISTS (SELECT 1 FROM {s}.sessions WHERE set_id = %(set)s AND id <> %(session)s)"
)
BIND = """
INSERT INTO {s}.sessions AS se (id, set_id) VALUES (%(session)s, %(set)s)
ON CONFLICT (id) DO UPDATE SET set_id = EXCLUDED.set_id, updated_at = now()
"""
UNBIND = "DELETE FROM {s}.sessions WHERE id = %(session)s"
HELD = "SELECT EXISTS (SELECT 1 FROM {s}.sessions WHERE set_id = %(set)s)"
DROP_MEMBERS = "DELETE FROM {s}.members WHERE set_id = %(set)s RETURNING def"
DROP_SET = "DELETE FROM {s}.sets WHERE id = %(set)s"
CREATE_SET = """
INSERT INTO {s}.sets (id, fingerprint, revision, size, len_name, len_params, len_desc)
VALUES (%(set)s, %(fingerprint)s, 1, 0, 0, 0, 0)
"""
COPY_MEMBERS = "COPY {s}.members (set_id, def) FROM STDIN"
ADD_MEMBERS = """
INSERT INTO {s}.members (set_id, def)
SELECT %(set)s, key FROM unnest(%(keys)s::uuid[]) AS key ORDER BY key
"""
REMOVE_MEMBERS = "DELETE FROM {s}.members WHERE set_id = %(set)s AND def = ANY(%(keys)s)"
#: A set's statistics, from its members (after they changed).
RESTAT = """
UPDATE {s}.sets st SET
    fingerprint = %(fingerprint)s,
    revision = st.revision + %(bump)s,
    size = agg.size, len_name = agg.len_name, len_params = agg.len_params,
    len_desc = agg.len_desc, updated_at = now()
FROM (
    SELECT count(*) AS size, coalesce(sum(d.len_name), 0) AS len_name,
           coalesce(sum(d.len_params), 0) AS len_params,
           coalesce(sum(d.len_desc), 0) AS len_desc
    FROM {s}.members m JOIN {s}.definitions d ON d.key = m.def
    WHERE m.set_id = %(set)s
) agg
WHERE st.id = %(set)s
RETURNING st.revision
"""
# The field lengths of the definitions a change adds to a set and takes from it.
_DELTA = """
WITH a AS (
    SELECT count(*) AS n, coalesce(sum(len_name), 0) AS ln,
           coalesce(sum(len_params), 0) AS lp, coalesce(sum(len_desc), 0) AS ld
    FROM {s}.definitions WHERE key = ANY(%(added)s::uuid[])
), g AS (
    SELECT count(*) AS n, coalesce(sum(len_name), 0) AS ln,
           coalesce(sum(len_params), 0) AS lp, coalesce(sum(len_desc), 0) AS ld
    FROM {s}.definitions WHERE key = ANY(%(gone)s::uuid[])
)"""
#: A set changed in place: its statistics adjusted by what came and went.
ADJUST = (
    _DELTA
    + """
UPDATE {s}.sets st SET
    fingerprint = %(fingerprint)s, revision = st.revision + 1,
    size = st.size + a.n - g.n, len_name = st.len_name + a.ln - g.ln,
    len_params = st.len_params + a.lp - g.lp, len_desc = st.len_desc + a.ld - g.ld,
    updated_at = now()
FROM a, g
WHERE st.id = %(set)s
RETURNING st.revision
"""
)
#: A set changed in place, in one statement: members removed and added, statistics
#: adjusted, revision bumped.
IN_PLACE = """
WITH removed AS (
    DELETE FROM {s}.members WHERE set_id = %(set)s AND def = ANY(%(gone)s::uuid[])
), inserted AS (
    INSERT INTO {s}.members (set_id, def)
    SELECT %(set)s, key FROM unnest(%(added)s::uuid[]) AS key ORDER BY key
), a AS (
    SELECT count(*) AS n, coalesce(sum(len_name), 0) AS ln,
           coalesce(sum(len_params), 0) AS lp, coalesce(sum(len_desc), 0) AS ld
    FROM {s}.definitions WHERE key = ANY(%(added)s::uuid[])
), g AS (
    SELECT count(*) AS n, coalesce(sum(len_name), 0) AS ln,
           coalesce(sum(len_params), 0) AS lp, coalesce(sum(len_desc), 0) AS ld
    FROM {s}.definitions WHERE key = ANY(%(gone)s::uuid[])
)
UPDATE {s}.sets st SET
    fingerprint = %(fingerprint)s, revision = st.revision + 1,
    size = st.size + a.n - g.n, len_name = st.len_name + a.ln - g.ln,
    len_params = st.len_params + a.lp - g.lp, len_desc = st.len_desc + a.ld - g.ld,
    updated_at = now()
FROM a, g
WHERE st.id = %(set)s
RETURNING st.revision
"""
#: Under the lock: a set with the wanted fingerprint (id, revision), and whether another
#: session holds the session's current set.
LOOKUP = """
SELECT sh.id, sh.revision,
       EXISTS (SELECT 1 FROM {s}.sessions WHERE set_id = %(set)s AND id <> %(session)s)
FROM (SELECT 1) one
LEFT JOIN {s}.sets sh ON sh.fingerprint = %(fingerprint)s
"""
#: A copy of a set (copy-on-write), its statistics adjusted by what came and went.
COPY_SET = (
    _DELTA
    + """
INSERT INTO {s}.sets (id, fingerprint, revision, size, len_name, len_params, len_desc)
SELECT %(set)s, %(fingerprint)s, 1, st.size + a.n - g.n, st.len_name + a.ln - g.ln,
       st.len_params + a.lp - g.lp, st.len_desc + a.ld - g.ld
FROM {s}.sets st, a, g
WHERE st.id = %(old)s
"""
)
COPY_MEMBERS_FROM = """
INSERT INTO {s}.members (set_id, def)
SELECT %(set)s, def FROM {s}.members
WHERE set_id = %(old)s AND NOT (def = ANY(%(gone)s::uuid[]))
ORDER BY def
"""

#: Definitions no set holds any more, among `keys` (their postings go with them).
COLLECT = """
DELETE FROM {s}.definitions d
WHERE d.key IN (SELECT key FROM unnest(%(keys)s::uuid[]) AS key ORDER BY key)
  AND NOT EXISTS (SELECT 1 FROM {s}.members m WHERE m.def = d.key)
"""
#: Every definition no set holds (the periodic sweep).
SWEEP = """
DELETE FROM {s}.definitions d
WHERE NOT EXISTS (SELECT 1 FROM {s}.members m WHERE m.def = d.key)
"""

#: Members and definitions: rows the planner's statistics know of (-1: never analysed),
#: and rows changed since (as counted so far: a backend reports its counts within a
#: second or so).
ROW_ESTIMATES = (
    "SELECT relname::text, reltuples::float8, pg_stat_get_mod_since_analyze(oid)::float8 "
    "FROM pg_class WHERE oid IN (to_regclass('{s}.members'), to_regclass('{s}.definitions'))"
)
#: After a bulk write (outside a transaction, as VACUUM must run).
MAINTAIN = "VACUUM (ANALYZE, SKIP_LOCKED) {s}.postings, {s}.members, {s}.definitions"

# --- reads ----------------------------------------------------------------------------

SET_HEAD = "SELECT revision, fingerprint FROM {s}.sets WHERE id = %(set)s"
#: A set's revision and members, in one snapshot.
SET_READ = """
SELECT st.revision, st.fingerprint,
       (SELECT array_agg(m.def) FROM {s}.members m WHERE m.set_id = st.id) AS keys
FROM {s}.sets st WHERE st.id = %(set)s
"""
DOCS = "SELECT key, doc FROM {s}.definitions WHERE key = ANY(%(keys)s)"
#: The stored embeddings of a set's definitions (those that have one).
SET_VECTORS = (
    "SELECT key, embedding FROM {s}.definitions WHERE key = ANY(%(keys)s) AND embedding IS NOT NULL"
)
#: Sampled definitions' nearest others of the set, through the HNSW index (the density of
#: a set above `exact_limit`; `toolscout.vectors.density_of_neighbours`).
SET_NEIGHBOURS = """
SELECT s.key, n.key, 1.0 - n.distance
FROM {s}.definitions s
CROSS JOIN LATERAL (
    SELECT d.key, d.embedding <=> s.embedding AS distance
    FROM {s}.definitions d
    WHERE EXISTS (SELECT 1 FROM {s}.members m WHERE m.set_id = %(set)s AND m.def = d.key)
      AND d.key <> s.key
    ORDER BY d.embedding <=> s.embedding
    LIMIT %(neighbours)s
) n
WHERE s.key = ANY(%(sample)s) AND s.embedding IS NOT NULL
ORDER BY 1, 3 DESC
"""
SESSIONS = "SELECT id FROM {s}.sessions"
SET_COUNT = "SELECT count(*) FROM {s}.sets"
DEFINITION_COUNT = "SELECT count(*) FROM {s}.definitions"

# The session's set, resolved in the statement that searches it.
_TARGET = """
target AS (
    SELECT st.id, st.revision, st.fingerprint, st.size,
           greatest((st.len_name * %(wn)s + st.len_params * %(wp)s + st.len_desc * %(wd)s)
                    / greatest(st.size, 1), 1e-9) AS avgdl
    FROM {s}.sessions se JOIN {s}.sets st ON st.id = se.set_id
    WHERE se.id = %(session)s
)"""

# Postings of the query's terms in the session's set, with field-weighted term counts
# and lengths: read by term (a query's terms have hundreds of postings where a set has
# thousands of members), each kept if the set holds its definition.
_MATCHED = """
matched AS (
    SELECT p.def, p.term,
           p.tf_name * %(wn)s + p.tf_params * %(wp)s + p.tf_desc * %(wd)s AS tf,
           p.len_name * %(wn)s + p.len_params * %(wp)s + p.len_desc * %(wd)s AS dl
    FROM {s}.postings p
    WHERE p.term = ANY(%(terms)s::text[])
      AND EXISTS (
          SELECT 1 FROM {s}.members m
          WHERE m.set_id = (SELECT id FROM target) AND m.def = p.def
      )
)"""


# BM25F per matched tool. A term's document frequency counts the set's tools holding it
# in any field; the names a metadata filter lets through (`allowed`) are kept afterwards,
# so the filter does not change the statistics. The arithmetic is float8 throughout: the
# same in numeric costs more than the rest of the statement.
_SCORED = """
idf AS (
    SELECT term,
           ln(1.0 + ((SELECT size FROM target) - count(*)::float8 + 0.5)
                    / (count(*)::float8 + 0.5)) AS idf
    FROM matched GROUP BY term
),
scored AS (
    SELECT m.def,
           sum(i.idf * m.tf * (%(k1)s + 1.0)
               / (m.tf + %(k1)s * (1.0 - %(b)s + %(b)s * m.dl / (SELECT avgdl FROM target))))
               AS score
    FROM matched m JOIN idf i USING (term)
    WHERE m.tf > 0
      AND (%(allowed)s::uuid[] IS NULL OR m.def = ANY(%(allowed)s::uuid[]))
    GROUP BY m.def
)"""


def _nearest_exact(distance: str) -> str:
    """The set's nearest tools by `distance` (an SQL expression over `d.embedding`),
    exactly (`+ 0` keeps the planner off the HNSW index, which would return the nearest of
    every set and filter them afterwards)."""
    return (
        """
nearest AS (
    SELECT m.def, """
        + distance
        + """ + 0 AS distance
    FROM target t
    JOIN {s}.members m ON m.set_id = t.id
    JOIN {s}.definitions d ON d.key = m.def
    WHERE d.embedding IS NOT NULL
      AND (%(allowed)s::uuid[] IS NULL OR m.def = ANY(%(allowed)s::uuid[]))
    ORDER BY 2, 1
    LIMIT %(candidates)s
)"""
    )


# The set's nearest tools to the query vector, exactly.
_NEAREST_EXACT = _nearest_exact("(d.embedding <=> %(vector)s)")

# Through the HNSW index, scanning on (pgvector's iterative scan) until enough of the
# set's tools came up; for sets above `exact_limit`.
_NEAREST_INDEXED = """
nearest AS MATERIALIZED (
    SELECT d.key AS def, d.embedding <=> %(vector)s AS distance
    FROM {s}.definitions d
    WHERE EXISTS (
        SELECT 1 FROM target t JOIN {s}.members m ON m.set_id = t.id AND m.def = d.key
    )
      AND (%(allowed)s::uuid[] IS NULL OR d.key = ANY(%(allowed)s::uuid[]))
    ORDER BY d.embedding <=> %(vector)s
    LIMIT %(candidates)s
)"""


def vector_search(indexed: bool, split: bool = False) -> str:
    """Vector mode: the set's head, then its nearest tools (def, cosine similarity). With
    `split`, as `hybrid_search`'s: each tool's least distance to the query's vectors."""
    if split:
        nearest = _NEAREST_SPLIT_INDEXED if indexed else _NEAREST_SPLIT_EXACT
    else:
        nearest = _NEAREST_INDEXED if indexed else _NEAREST_EXACT
    return (
        "WITH"
        + _TARGET
        + ","
        + nearest
        + """
SELECT t.id, t.revision, t.fingerprint, t.size, NULL::bigint AS total, n.def,
       1.0 - n.distance AS score
FROM target t
LEFT JOIN nearest n ON true
ORDER BY n.distance NULLS LAST, n.def
"""
    )


# A stored embedding's least distance to the query's vectors (`split_query`).
_SPLIT_DISTANCE = "(SELECT min(d.embedding <=> q.v) FROM unnest(%(vectors)b) q(v))"

# `_NEAREST_EXACT` for several query vectors: each tool's least distance to any.
_NEAREST_SPLIT_EXACT = _nearest_exact(_SPLIT_DISTANCE)

# `_NEAREST_INDEXED` for several query vectors: the nearest of each through the HNSW
# index, each tool once with its least distance.
_NEAREST_SPLIT_INDEXED = """
nearest AS MATERIALIZED (
    SELECT n.def, min(n.distance) AS distance
    FROM unnest(%(vectors)b) q(v)
    CROSS JOIN LATERAL (
        SELECT d.key AS def, d.embedding <=> q.v AS distance
        FROM {s}.definitions d
        WHERE EXISTS (
            SELECT 1 FROM target t JOIN {s}.members m ON m.set_id = t.id AND m.def = d.key
        )
          AND (%(allowed)s::uuid[] IS NULL OR d.key = ANY(%(allowed)s::uuid[]))
        ORDER BY d.embedding <=> q.v
        LIMIT %(candidates)s
    ) n
    GROUP BY n.def
    ORDER BY 2, 1
    LIMIT %(candidates)s
)"""


def hybrid_search(indexed: bool, split: bool = False) -> str:
    """Hybrid mode: the set's head, then the candidates core fuses
    (`toolscout.vectors.fuse`): the best `candidates` BM25F hits and the `candidates`
    nearest tools, each once with its raw BM25F score (NULL: not a keyword candidate), its
    cosine similarity (a keyword hit the vector list missed is compared with the query
    here, from its stored embedding) and whether it is a vector candidate.

    With `split`, the query comes as several vectors (`vectors`: the whole query's, then
    its clauses'), and a tool's distance is its least to any of them.
    """
    if split:
        nearest = _NEAREST_SPLIT_INDEXED if indexed else _NEAREST_SPLIT_EXACT
        distance = _SPLIT_DISTANCE
    else:
        nearest = _NEAREST_INDEXED if indexed else _NEAREST_EXACT
        distance = "(d.embedding <=> %(vector)s)"
    candidates = """,
by_text AS (
    SELECT def, score FROM scored ORDER BY score DESC, def LIMIT %(candidates)s
),
found AS (
    SELECT coalesce(x.def, v.def) AS def, x.score AS bm25, v.distance,
           v.def IS NOT NULL AS near
    FROM by_text x FULL JOIN nearest v ON v.def = x.def
)
SELECT t.id, t.revision, t.fingerprint, t.size, NULL::bigint AS total, f.def, f.bm25,
       1.0 - coalesce(f.distance, {distance}) AS similarity, f.near
FROM target t
LEFT JOIN found f ON true
LEFT JOIN {s}.definitions d ON d.key = f.def AND f.distance IS NULL
""".replace("{distance}", distance)
    return ("WITH" + _TARGET + "," + _MATCHED + "," + _SCORED + "," + nearest) + candidates


# The statements an index runs as they are, once the schema is filled in.
_PLAIN = (
    "EXISTING",
    "EXISTING_WITH_VECTORS",
    "COPY_DEFINITIONS",
    "COPY_DEFINITIONS_VECTORS",
    "COPY_POSTINGS",
    "MISSING_VECTORS",
    "CURRENT",
    "CURRENT_LOCKED",
    "WITH_FINGERPRINT",
    "SHARE_FINGERPRINT",
    "OTHER_HOLDERS",
    "BIND",
    "UNBIND",
    "HELD",
    "DROP_MEMBERS",
    "DROP_SET",
    "CREATE_SET",
    "COPY_MEMBERS",
    "ADD_MEMBERS",
    "REMOVE_MEMBERS",
    "RESTAT",
    "ADJUST",
    "IN_PLACE",
    "LOOKUP",
    "COPY_SET",
    "COPY_MEMBERS_FROM",
    "COLLECT",
    "SWEEP",
    "SET_HEAD",
    "SET_READ",
    "DOCS",
    "SET_VECTORS",
    "SESSIONS",
    "SET_COUNT",
    "DEFINITION_COUNT",
    "ROW_ESTIMATES",
    "MAINTAIN",
)


def compile_statements(schema_quoted: str, operator: str) -> dict[str, str]:
    """The statements with the schema (`schema_quoted`) and pgvector's operator (as
    `schema.SchemaVectors.operator` has it; `<=>` when the schema holds no vectors)
    filled in, by name: the constants above, and `VECTOR`, `VECTOR_SPLIT`, `HYBRID` and
    `HYBRID_SPLIT`, each also `_INDEXED`."""
    s = schema_quoted
    plain: dict[str, str] = {name: globals()[name].format(s=s) for name in _PLAIN}
    plain["SET_VECTOR"] = SET_VECTOR.format(s=s)
    plain["SET_NEIGHBOURS"] = SET_NEIGHBOURS.format(s=s).replace("<=>", operator)
    for indexed in (False, True):
        suffix = "_INDEXED" if indexed else ""
        for split in (False, True):
            name = ("_SPLIT" if split else "") + suffix
            plain["VECTOR" + name] = (
                vector_search(indexed, split).format(s=s).replace("<=>", operator)
            )
            plain["HYBRID" + name] = (
                hybrid_search(indexed, split).format(s=s).replace("<=>", operator)
            )
    return plain

"""Run a DuckDB query from a test: its relation, never ``None``.

``duckdb.sql`` returns ``None`` for a statement that yields no relation (``CREATE``, ``SET``), so
its type is optional; every query a test runs yields one, and this says so once.
"""

from __future__ import annotations

import duckdb

__all__ = ["HIVE", "relation"]

#: How docs/reference/fleet.md tells DuckDB to read a table of a dataset: DuckDB infers a partition's
#: type from its values (``profile=8`` would be a BIGINT), so the label is read as the string it is.
HIVE = "hive_partitioning = true, hive_types = {'profile': VARCHAR}"


def relation(sql: str) -> duckdb.DuckDBPyRelation:
    """The relation of the query `sql` (on DuckDB's default in-memory connection).

    >>> relation("SELECT 1 AS one, 'a' AS two").fetchall()
    [(1, 'a')]
    """
    result = duckdb.sql(sql)
    assert result is not None, f"not a query: {sql}"
    return result

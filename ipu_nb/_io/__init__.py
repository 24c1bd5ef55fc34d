"""Writing profiles to files: the runtime's Cap'n Proto format (`capnp_writer`, `ipu_nb.write_columns`), a
Parquet dataset (`parquet`, `ipu_nb.scan_parquet` reads it back; `labels` the label values it holds,
`errors` what it refuses) and a Chrome/Perfetto trace (`trace`).

Beside the loader (`ipu_nb._load`), below the query core: a writer takes `ProfileData` or
`Columns` and the rows to write, never a query (`ipu_nb._profile.exports` applies one). The
package imports nothing itself, so reaching one writer loads no other.
"""

"""Tables in: pyarrow, pandas and Polars tables with the native trace's column names, as
:func:`~motionfusion.replay`'s keyword arguments."""
from __future__ import annotations

from typing import Any

import numpy as np

#: The sensors and the columns each is read from: one column of 3-value lists, or three columns.
SENSORS = ("gyr", "acc", "mag")
AXES = ("x", "y", "z")


def _kind(table: Any) -> str:
    module = type(table).__module__.split(".")[0]
    if module == "pyarrow" and hasattr(table, "column_names"):
        return "arrow"
    if module == "pandas" and hasattr(table, "columns"):
        return "pandas"
    if module == "polars" and hasattr(table, "to_arrow"):
        return "polars"
    if hasattr(table, "__arrow_c_stream__"):
        return "stream"
    raise TypeError(f"from_table takes a pyarrow Table or RecordBatch, a pandas or Polars DataFrame (or any object "
                    f"with __arrow_c_stream__); got {type(table).__name__}")


def _arrow_column(table: Any, name: str) -> np.ndarray:
    """A float64 column as numpy: a view of Arrow's buffer when it is one chunk of float64 without
    nulls, else converted (nulls become NaN: no value)."""
    import pyarrow as pa

    column = table.column(name)
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    if len(chunks) == 1 and chunks[0].type == pa.float64() and chunks[0].null_count == 0:
        return chunks[0].to_numpy(zero_copy_only=True)
    return np.asarray(column.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)


def _arrow_vectors(table: Any, name: str) -> np.ndarray | None:
    """A sensor's (N, 3) values: a fixed-size-list<double>[3] column ``name`` (a view of its values
    buffer when it is one chunk without nulls), or the columns ``name_x``, ``name_y``, ``name_z``
    (stacked: one copy, Arrow keeps each column apart)."""
    import pyarrow as pa

    names = table.column_names
    if name in names:
        column = table.column(name)
        chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
        t = column.type
        if not (pa.types.is_fixed_size_list(t) and t.list_size == 3):
            raise ValueError(f"column {name!r} must hold 3 values per row (fixed_size_list<double>[3]); got {t}")
        if (len(chunks) == 1 and t.value_type == pa.float64() and chunks[0].null_count == 0
                and chunks[0].values.null_count == 0 and chunks[0].offset == 0):
            return chunks[0].values.to_numpy(zero_copy_only=True).reshape(-1, 3)
        rows = column.to_pylist()
        return np.array([[np.nan] * 3 if r is None else [np.nan if v is None else v for v in r] for r in rows],
                        dtype=np.float64).reshape(-1, 3)
    wanted = [f"{name}_{a}" for a in AXES]
    present = [w for w in wanted if w in names]
    if not present:
        return None
    if len(present) < 3:
        raise ValueError(f"{name}: columns {', '.join(sorted(set(wanted) - set(present)))} missing beside "
                         f"{', '.join(present)}")
    return np.column_stack([_arrow_column(table, w) for w in wanted])


def _pandas_column(series: Any) -> np.ndarray:
    """A pandas column as float64 numpy: its own array (no copy) when it is float64 already."""
    if series.dtype == np.float64:
        return series.to_numpy()
    return series.to_numpy(dtype=np.float64, na_value=np.nan)


def from_table(table: Any) -> dict[str, np.ndarray | None]:
    """:func:`~motionfusion.replay`'s (and :func:`~motionfusion.reconstruct`'s) keyword arguments
    ``t``, ``gyr``, ``acc``, ``mag`` from a table with the native trace's column names: ``t``
    (seconds), ``gyr_x``, ``gyr_y``, ``gyr_z`` (rad/s), ``acc_x``... (m/s²), ``mag_x``... (µT), or for a
    sensor one column of 3-value lists named ``gyr``, ``acc``, ``mag`` (Arrow's
    fixed_size_list<double>[3]). A sensor without columns is None. Nulls are NaN (no value).

    ``table`` is a pyarrow Table or RecordBatch, a pandas DataFrame, a Polars DataFrame, or any
    object with ``__arrow_c_stream__``. Zero-copy where the data allow it: ``t`` and a sensor in a
    3-value-list column are views of the table's buffers when they are float64 without nulls in
    one chunk; three separate x, y, z columns are stacked into one (N, 3) array (one copy).

    ``mf.replay(**mf.from_table(table), filter="ekf")``.
    """
    kind = _kind(table)
    if kind == "pandas":
        columns = [str(c) for c in table.columns]
        if "t" not in columns:
            raise ValueError(f"the table has no 't' column (time, s); its columns: {', '.join(columns)}")
        out: dict[str, np.ndarray | None] = {"t": _pandas_column(table["t"])}
        for s in SENSORS:
            wanted = [f"{s}_{a}" for a in AXES]
            present = [w for w in wanted if w in columns]
            if present and len(present) < 3:
                raise ValueError(f"{s}: columns {', '.join(sorted(set(wanted) - set(present)))} missing beside "
                                 f"{', '.join(present)}")
            out[s] = table[wanted].to_numpy(dtype=np.float64, na_value=np.nan) if present else None
        return out
    if kind == "polars":
        table = table.to_arrow()
    elif kind == "stream":
        import pyarrow as pa

        table = pa.table(table)
    if "t" not in table.column_names:
        raise ValueError(f"the table has no 't' column (time, s); its columns: {', '.join(table.column_names)}")
    out = {"t": _arrow_column(table, "t")}
    for s in SENSORS:
        out[s] = _arrow_vectors(table, s)
    return out

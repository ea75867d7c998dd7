"""Turning the C++ core's columns ({name: numpy array or list}) into pandas DataFrames."""

import numpy as np
import pandas as pd

# Columns the core hands over as milliseconds since the epoch (UTC), NaN for "no time".
_TIME_COLUMNS = ("created", "started", "ended")
# Parameter columns: None where a run's algorithm has no such parameter.
_PARAM_PREFIXES = ("param.", "setting.")


def _nullable(values):
    """A column of Python values with None where absent: integers as Int64 and booleans as
    "boolean" (pandas would make them float or object), anything else as pandas infers it."""
    present = [v for v in values if v is not None]
    if len(present) == len(values) or not present:
        return values
    if all(isinstance(v, bool) for v in present):
        return pd.array(values, dtype="boolean")
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pd.array(values, dtype="Int64")
    return values


def frame(columns, optional_ids=()):
    """A DataFrame of ``columns`` (a dict from the core), with times as tz-aware UTC datetimes,
    the id columns named in ``optional_ids`` as nullable Int64 (``<NA>`` where the core says -1:
    no experiment, not stored), and integer or boolean
    parameters that some runs lack as nullable Int64 / boolean (``<NA>`` where absent)."""
    columns = {name: _nullable(v) if name.startswith(_PARAM_PREFIXES) and isinstance(v, list) else v
               for name, v in columns.items()}
    df = pd.DataFrame(columns)
    for name in _TIME_COLUMNS:
        if name in df.columns:
            df[name] = pd.to_datetime(np.asarray(columns[name], dtype="float64"), unit="ms", utc=True)
    for name in optional_ids:
        if name in df.columns and df[name].dtype.kind == "i":
            values = np.asarray(columns[name], dtype="int64")
            df[name] = pd.arrays.IntegerArray(values, mask=values < 0)
    return df

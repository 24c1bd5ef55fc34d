"""The public `Profile` and `open_profile`, one layer above the query core and the writers they reach.

`profile` is the façade class (the loader's `ProfileData` plus ``query``, ``filter``,
``to_trace``, ``to_parquet`` and the HTML repr), `opening` the public reader, `exports` the
trace and Parquet writes of a profile, `repr_html` its notebook repr. The analyses above
(compare, supersteps, fleets) take and return these.
"""

from .opening import open_profile
from .profile import Profile

__all__ = ["Profile", "open_profile"]

"""The spill store: durable records of pruned inputs, addressed by checked ids ``P<n>-<check>``.

One module per job:

- ``store``: ``SpillStore``, which opens and checks the directory, writes records (the next free
  id, under the lock) and reads them back checked against the id;
- ``format``: the record file format, its damage checks, and the ids;
- ``files``: the directory's files, reached through its descriptor, and the lock;
- ``gc``: removing records past the age or size limit and leftover temporary files, and ``.gone``;
- ``omitted``: the dropped units of a range, as ``toolprune omitted`` returns them.
"""

from __future__ import annotations

from toolprune.core.record import Record
from toolprune.spill.files import LOCK_WAIT
from toolprune.spill.format import MAGIC, MAGIC_V1, MAX_NUMBER, validate_id
from toolprune.spill.gc import GC_AGE, GC_BYTES, GC_EVERY, GC_GRACE, TEMP_AGE
from toolprune.spill.omitted import Omitted, select_dropped
from toolprune.spill.store import SpillStore

__all__ = [
    "GC_AGE", "GC_BYTES", "GC_EVERY", "GC_GRACE", "LOCK_WAIT", "MAGIC", "MAGIC_V1", "MAX_NUMBER", "TEMP_AGE",
    "Omitted", "Record", "SpillStore", "select_dropped", "validate_id",
]

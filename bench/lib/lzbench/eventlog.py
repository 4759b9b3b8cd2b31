"""Counting the events of an event log in GHC's format (what `lzprof eventlog X.lzr -o
X.eventlog` writes from a replay log), for the runner's bytes-per-event column.

The format (GHC's rts/include/rts/EventLogFormat.h): "hdrb" "hetb", one declaration
per event type ("etb\\0", u16 type, i16 payload size or -1 for variable, u32 + the
description, u32 + extra info, "ete\\0"), "hete" "hdre" "datb", then events: u16 type,
u64 time, the payload (fixed size, or u16 size + that many bytes), until type 0xffff.
All numbers big-endian. Block markers (type 18: one per buffer block a capability
flushed) are framing, not events, and are counted apart.

Pure Python: about a microsecond per event, so a few seconds for millions.
"""

import struct
from dataclasses import dataclass, field
from typing import Dict

BLOCK_MARKER = 18
DATA_END = 0xFFFF


class EventLogError(Exception):
    pass


@dataclass
class EventCount:
    events: int = 0                  # every event but block markers
    block_markers: int = 0
    data_bytes: int = 0              # bytes of the event stream (header excluded)
    by_type: Dict[int, int] = field(default_factory=dict)


def _expect(buf: bytes, off: int, magic: bytes) -> int:
    if buf[off:off + len(magic)] != magic:
        raise EventLogError("offset %d: expected %r, found %r"
                            % (off, magic, bytes(buf[off:off + len(magic)])))
    return off + len(magic)


def count_events(buf: bytes) -> EventCount:
    """Count the events of an event log held in buf (raises EventLogError when it is
    not one, or is cut short inside an event; a log that stops between events without
    the end marker, as a killed program's does, is counted as far as it goes)."""
    off = _expect(buf, 0, b"hdrb")
    off = _expect(buf, off, b"hetb")
    sizes: Dict[int, int] = {}
    while buf[off:off + 4] == b"etb\0":
        if off + 12 > len(buf):
            raise EventLogError("offset %d: event type declaration cut short" % off)
        num, size, dl = struct.unpack_from(">HhI", buf, off + 4)
        off += 12 + dl
        if off + 4 > len(buf):
            raise EventLogError("offset %d: event type declaration cut short" % off)
        (xl,) = struct.unpack_from(">I", buf, off)
        off = _expect(buf, off + 4 + xl, b"ete\0")
        sizes[num] = size
    off = _expect(buf, off, b"hete")
    off = _expect(buf, off, b"hdre")
    off = _expect(buf, off, b"datb")
    start = off
    res = EventCount()
    by = res.by_type
    unpack16 = struct.Struct(">H").unpack_from
    n = len(buf)
    while off + 2 <= n:
        (t,) = unpack16(buf, off)
        if t == DATA_END:
            break
        size = sizes.get(t)
        if size is None:
            raise EventLogError("offset %d: event of undeclared type %d" % (off, t))
        off += 10                                   # type, time
        if size < 0:
            if off + 2 > n:
                raise EventLogError("offset %d: event cut short" % off)
            (size,) = unpack16(buf, off)
            off += 2
        off += size
        if off > n:
            raise EventLogError("offset %d: event of type %d cut short" % (off - size, t))
        by[t] = by.get(t, 0) + 1
    res.block_markers = by.pop(BLOCK_MARKER, 0)
    res.events = sum(by.values())
    res.data_bytes = off - start
    return res


def count_events_file(path: str) -> EventCount:
    with open(path, "rb") as f:
        return count_events(f.read())

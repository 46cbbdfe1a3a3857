"""btsnoop v1 writer and reader (datalink 1002, HCI UART / H4).

File header: b"btsnoop\\0", version u32 BE = 1, datalink u32 BE.
Record header, all big-endian: original length u32, included length u32, flags u32,
cumulative drops u32, timestamp i64 in microseconds since 0000-01-01 00:00.
Flags: bit 0 direction (0 host->controller, 1 controller->host), bit 1 command/event.
"""

from __future__ import annotations

import datetime
import struct
from typing import BinaryIO, Iterator

MAGIC = b"btsnoop\0"
DATALINK_H4 = 1002
EPOCH_OFFSET_US = 0x00DCDDB30F2F8000  # 0000-01-01 -> 1970-01-01, microseconds

_HEADER = struct.Struct(">8sII")
_RECORD = struct.Struct(">IIIIq")

H4_COMMAND, H4_ACL, H4_SCO, H4_EVENT, H4_ISO = 0x01, 0x02, 0x03, 0x04, 0x05


def unix_us(iso: str) -> int:
    """'2026-03-01T10:00:00Z' -> microseconds since the Unix epoch."""
    dt = datetime.datetime.fromisoformat(iso.replace("Z", "+00:00"))
    return int(dt.timestamp()) * 1_000_000 + dt.microsecond


def flags_for(h4: bytes) -> int:
    """btsnoop flags of an H4 packet: commands are sent, events received; ACL by `received`."""
    kind = h4[0]
    if kind == H4_COMMAND:
        return 0b10
    if kind == H4_EVENT:
        return 0b11
    raise ValueError("direction of a data packet is not implied by its type")


class BtsnoopWriter:
    """Writes records as they come; the caller keeps timestamps non-decreasing."""

    def __init__(self, out: BinaryIO, datalink: int = DATALINK_H4):
        self.out = out
        self.records = 0
        self.last_ts = None
        out.write(_HEADER.pack(MAGIC, 1, datalink))

    def write(self, ts_unix_us: int, h4: bytes, received: bool | None = None) -> None:
        if self.last_ts is not None and ts_unix_us < self.last_ts:
            raise ValueError(f"timestamp goes back: {ts_unix_us} < {self.last_ts}")
        self.last_ts = ts_unix_us
        if h4[0] in (H4_COMMAND, H4_EVENT):
            flags = flags_for(h4)
        else:
            if received is None:
                raise ValueError("data packets need a direction")
            flags = 1 if received else 0
        n = len(h4)
        self.out.write(_RECORD.pack(n, n, flags, 0, ts_unix_us + EPOCH_OFFSET_US))
        self.out.write(h4)
        self.records += 1


def read_records(path: str) -> Iterator[tuple[int, int, bytes]]:
    """(unix microseconds, flags, packet bytes) for each record of a btsnoop file."""
    with open(path, "rb") as f:
        magic, version, _datalink = _HEADER.unpack(f.read(_HEADER.size))
        if magic != MAGIC or version != 1:
            raise ValueError(f"{path}: not a btsnoop v1 file")
        while True:
            head = f.read(_RECORD.size)
            if not head:
                return
            orig, incl, flags, _drops, ts = _RECORD.unpack(head)
            yield ts - EPOCH_OFFSET_US, flags, f.read(incl)

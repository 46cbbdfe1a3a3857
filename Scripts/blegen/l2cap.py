"""L2CAP basic frames and LE signalling (Core v5.4 Vol 3 Part A 3.1, 4)."""

from __future__ import annotations

import struct

CID_ATT = 0x0004
CID_LE_SIGNALING = 0x0005
CID_SMP = 0x0006

CONNECTION_PARAMETER_UPDATE_REQUEST = 0x12
CONNECTION_PARAMETER_UPDATE_RESPONSE = 0x13


def frame(cid: int, payload: bytes) -> bytes:
    """Basic information frame: length(2) CID(2) payload."""
    return struct.pack("<HH", len(payload), cid) + payload


def signaling(code: int, identifier: int, data: bytes) -> bytes:
    """A signalling command (code, identifier, length, data), to be carried on CID 0x0005."""
    return struct.pack("<BBH", code, identifier, len(data)) + data


def connection_parameter_update_request(identifier: int, interval_min: int, interval_max: int,
                                        latency: int, timeout: int) -> bytes:
    """Vol 3 Part A 4.20; intervals in 1.25 ms, timeout in 10 ms."""
    return signaling(CONNECTION_PARAMETER_UPDATE_REQUEST, identifier,
                     struct.pack("<HHHH", interval_min, interval_max, latency, timeout))


def connection_parameter_update_response(identifier: int, result: int = 0) -> bytes:
    """Vol 3 Part A 4.21; result 0 accepted, 1 rejected."""
    return signaling(CONNECTION_PARAMETER_UPDATE_RESPONSE, identifier, struct.pack("<H", result))

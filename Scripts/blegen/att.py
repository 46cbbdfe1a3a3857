"""ATT PDU builders (Core v5.4 Vol 3 Part F 3.4). Values are little-endian; UUIDs are given as
ints (16-bit) or 16 bytes little-endian (128-bit)."""

from __future__ import annotations

import struct

ERROR_RSP = 0x01
EXCHANGE_MTU_REQ = 0x02
EXCHANGE_MTU_RSP = 0x03
FIND_INFORMATION_REQ = 0x04
FIND_INFORMATION_RSP = 0x05
READ_BY_TYPE_REQ = 0x08
READ_BY_TYPE_RSP = 0x09
READ_REQ = 0x0A
READ_RSP = 0x0B
READ_BLOB_REQ = 0x0C
READ_BLOB_RSP = 0x0D
READ_BY_GROUP_TYPE_REQ = 0x10
READ_BY_GROUP_TYPE_RSP = 0x11
WRITE_REQ = 0x12
WRITE_RSP = 0x13
HANDLE_VALUE_NTF = 0x1B
HANDLE_VALUE_IND = 0x1D
HANDLE_VALUE_CFM = 0x1E
WRITE_CMD = 0x52

# Error codes (Vol 3 Part F 3.4.1.1)
INVALID_HANDLE = 0x01
READ_NOT_PERMITTED = 0x02
WRITE_NOT_PERMITTED = 0x03
INSUFFICIENT_AUTHENTICATION = 0x05
REQUEST_NOT_SUPPORTED = 0x06
INSUFFICIENT_AUTHORIZATION = 0x08
ATTRIBUTE_NOT_FOUND = 0x0A
INVALID_ATTRIBUTE_VALUE_LENGTH = 0x0D
UNLIKELY_ERROR = 0x0E
INSUFFICIENT_ENCRYPTION = 0x0F

PRIMARY_SERVICE = 0x2800
SECONDARY_SERVICE = 0x2801
INCLUDE = 0x2802
CHARACTERISTIC = 0x2803

# requests that expect a response, and the response opcode
RESPONSE_FOR = {
    EXCHANGE_MTU_REQ: EXCHANGE_MTU_RSP, FIND_INFORMATION_REQ: FIND_INFORMATION_RSP,
    READ_BY_TYPE_REQ: READ_BY_TYPE_RSP, READ_REQ: READ_RSP, READ_BLOB_REQ: READ_BLOB_RSP,
    READ_BY_GROUP_TYPE_REQ: READ_BY_GROUP_TYPE_RSP, WRITE_REQ: WRITE_RSP,
}


def uuid_bytes(uuid: int | bytes) -> bytes:
    return struct.pack("<H", uuid) if isinstance(uuid, int) else bytes(uuid)


def error_rsp(request_opcode: int, handle: int, code: int) -> bytes:
    return struct.pack("<BBHB", ERROR_RSP, request_opcode, handle, code)


def exchange_mtu_req(mtu: int) -> bytes:
    return struct.pack("<BH", EXCHANGE_MTU_REQ, mtu)


def exchange_mtu_rsp(mtu: int) -> bytes:
    return struct.pack("<BH", EXCHANGE_MTU_RSP, mtu)


def find_information_req(start: int, end: int) -> bytes:
    return struct.pack("<BHH", FIND_INFORMATION_REQ, start, end)


def find_information_rsp(entries: list[tuple[int, int | bytes]]) -> bytes:
    """All UUIDs of one size: format 1 (16-bit) or 2 (128-bit)."""
    fmt = 1 if isinstance(entries[0][1], int) else 2
    return bytes([FIND_INFORMATION_RSP, fmt]) + b"".join(struct.pack("<H", h) + uuid_bytes(u) for h, u in entries)


def read_by_type_req(start: int, end: int, uuid: int | bytes) -> bytes:
    return struct.pack("<BHH", READ_BY_TYPE_REQ, start, end) + uuid_bytes(uuid)


def read_by_type_rsp(entries: list[tuple[int, bytes]]) -> bytes:
    length = 2 + len(entries[0][1])
    return bytes([READ_BY_TYPE_RSP, length]) + b"".join(struct.pack("<H", h) + v for h, v in entries)


def read_by_group_type_req(start: int, end: int, uuid: int | bytes = PRIMARY_SERVICE) -> bytes:
    return struct.pack("<BHH", READ_BY_GROUP_TYPE_REQ, start, end) + uuid_bytes(uuid)


def read_by_group_type_rsp(entries: list[tuple[int, int, bytes]]) -> bytes:
    length = 4 + len(entries[0][2])
    return bytes([READ_BY_GROUP_TYPE_RSP, length]) + b"".join(
        struct.pack("<HH", h, e) + v for h, e, v in entries)


def read_req(handle: int) -> bytes:
    return struct.pack("<BH", READ_REQ, handle)


def read_rsp(value: bytes) -> bytes:
    return bytes([READ_RSP]) + value


def write_req(handle: int, value: bytes) -> bytes:
    return struct.pack("<BH", WRITE_REQ, handle) + value


def write_rsp() -> bytes:
    return bytes([WRITE_RSP])


def write_cmd(handle: int, value: bytes) -> bytes:
    return struct.pack("<BH", WRITE_CMD, handle) + value


def notification(handle: int, value: bytes) -> bytes:
    return struct.pack("<BH", HANDLE_VALUE_NTF, handle) + value


def indication(handle: int, value: bytes) -> bytes:
    return struct.pack("<BH", HANDLE_VALUE_IND, handle) + value


def confirmation() -> bytes:
    return bytes([HANDLE_VALUE_CFM])

"""SMP PDU builders (Core v5.4 Vol 3 Part H 3.5-3.6). Values little-endian, as on the wire."""

from __future__ import annotations

import struct

PAIRING_REQUEST = 0x01
PAIRING_RESPONSE = 0x02
PAIRING_CONFIRM = 0x03
PAIRING_RANDOM = 0x04
PAIRING_FAILED = 0x05
ENCRYPTION_INFORMATION = 0x06
CENTRAL_IDENTIFICATION = 0x07
IDENTITY_INFORMATION = 0x08
IDENTITY_ADDRESS_INFORMATION = 0x09
SIGNING_INFORMATION = 0x0A
SECURITY_REQUEST = 0x0B
PAIRING_PUBLIC_KEY = 0x0C
PAIRING_DHKEY_CHECK = 0x0D

# IO capabilities (3.5.1)
DISPLAY_ONLY, DISPLAY_YES_NO, KEYBOARD_ONLY, NO_INPUT_NO_OUTPUT, KEYBOARD_DISPLAY = 0, 1, 2, 3, 4
# AuthReq bits
BONDING, MITM, SC, KEYPRESS, CT2 = 0x01, 0x04, 0x08, 0x10, 0x20
# Key distribution bits
ENC_KEY, ID_KEY, SIGN_KEY, LINK_KEY = 0x01, 0x02, 0x04, 0x08

# Pairing Failed reasons (3.5.5)
PASSKEY_ENTRY_FAILED = 0x01
CONFIRM_VALUE_FAILED = 0x04
PAIRING_NOT_SUPPORTED = 0x05
UNSPECIFIED_REASON = 0x08


def pairing_request(io: int, oob: int, auth_req: int, max_key_size: int, init_keys: int, resp_keys: int) -> bytes:
    return bytes([PAIRING_REQUEST, io, oob, auth_req, max_key_size, init_keys, resp_keys])


def pairing_response(io: int, oob: int, auth_req: int, max_key_size: int, init_keys: int, resp_keys: int) -> bytes:
    return bytes([PAIRING_RESPONSE, io, oob, auth_req, max_key_size, init_keys, resp_keys])


def pairing_confirm(value: bytes) -> bytes:
    return bytes([PAIRING_CONFIRM]) + value


def pairing_random(value: bytes) -> bytes:
    return bytes([PAIRING_RANDOM]) + value


def pairing_failed(reason: int) -> bytes:
    return bytes([PAIRING_FAILED, reason])


def pairing_public_key(x: bytes, y: bytes) -> bytes:
    return bytes([PAIRING_PUBLIC_KEY]) + x + y


def pairing_dhkey_check(value: bytes) -> bytes:
    return bytes([PAIRING_DHKEY_CHECK]) + value


def encryption_information(ltk: bytes) -> bytes:
    return bytes([ENCRYPTION_INFORMATION]) + ltk


def central_identification(ediv: int, rand: bytes) -> bytes:
    return struct.pack("<BH", CENTRAL_IDENTIFICATION, ediv) + rand


def identity_information(irk: bytes) -> bytes:
    return bytes([IDENTITY_INFORMATION]) + irk


def identity_address_information(addr_type: int, addr_le: bytes) -> bytes:
    return bytes([IDENTITY_ADDRESS_INFORMATION, addr_type]) + addr_le


def signing_information(csrk: bytes) -> bytes:
    return bytes([SIGNING_INFORMATION]) + csrk


def security_request(auth_req: int) -> bytes:
    return bytes([SECURITY_REQUEST, auth_req])

"""HCI packet builders, H4 framed (Core v5.4 Vol 4 Part E 5.4 and 7; Part A for H4).

Commands are `01 opcode(2) length(1) params`, events `04 code(1) length(1) params`,
ACL `02 handle|PB|BC (2) length(2) data`, all little-endian.
"""

from __future__ import annotations

import struct

# --- opcodes (OGF << 10 | OCF) ---------------------------------------------------------------
DISCONNECT = 0x0406
SET_EVENT_MASK = 0x0C01
RESET = 0x0C03
READ_LOCAL_VERSION = 0x1001
READ_BD_ADDR = 0x1009
LE_SET_EVENT_MASK = 0x2001
LE_READ_BUFFER_SIZE = 0x2002
LE_READ_LOCAL_FEATURES = 0x2003
LE_SET_RANDOM_ADDRESS = 0x2005
LE_SET_SCAN_PARAMETERS = 0x200B
LE_SET_SCAN_ENABLE = 0x200C
LE_SET_ADVERTISING_PARAMETERS = 0x2006
LE_SET_ADVERTISING_ENABLE = 0x200A
LE_CREATE_CONNECTION = 0x200D
LE_CREATE_CONNECTION_CANCEL = 0x200E
LE_CONNECTION_UPDATE = 0x2013
LE_READ_REMOTE_FEATURES = 0x2016
LE_START_ENCRYPTION = 0x2019
LE_SET_DATA_LENGTH = 0x2022

# --- event codes -----------------------------------------------------------------------------
EVT_DISCONNECTION_COMPLETE = 0x05
EVT_ENCRYPTION_CHANGE = 0x08
EVT_COMMAND_COMPLETE = 0x0E
EVT_COMMAND_STATUS = 0x0F
EVT_NUMBER_OF_COMPLETED_PACKETS = 0x13
EVT_LE_META = 0x3E

LE_CONNECTION_COMPLETE = 0x01
LE_ADVERTISING_REPORT = 0x02
LE_CONNECTION_UPDATE_COMPLETE = 0x03
LE_READ_REMOTE_FEATURES_COMPLETE = 0x04
LE_DATA_LENGTH_CHANGE = 0x07
LE_ENHANCED_CONNECTION_COMPLETE = 0x0A

# Advertising report event types (legacy, Vol 4 Part E 7.7.65.2)
ADV_IND, ADV_DIRECT_IND, ADV_SCAN_IND, ADV_NONCONN_IND, SCAN_RSP = 0, 1, 2, 3, 4

# ACL packet boundary flags (Vol 4 Part E 5.4.2)
PB_FIRST_NON_FLUSHABLE = 0b00   # host -> controller, first fragment on LE-U
PB_CONTINUING = 0b01
PB_FIRST_FLUSHABLE = 0b10       # controller -> host, first fragment


def addr_bytes(addr: str) -> bytes:
    """'C0:11:22:33:44:55' (most significant first) -> 6 bytes little-endian as HCI carries it."""
    return bytes.fromhex(addr.replace(":", ""))[::-1]


# --- commands --------------------------------------------------------------------------------

def command(opcode: int, params: bytes = b"") -> bytes:
    return struct.pack("<BHB", 0x01, opcode, len(params)) + params


def reset() -> bytes:
    return command(RESET)


def read_local_version() -> bytes:
    return command(READ_LOCAL_VERSION)


def read_bd_addr() -> bytes:
    return command(READ_BD_ADDR)


def set_event_mask(mask: int) -> bytes:
    return command(SET_EVENT_MASK, struct.pack("<Q", mask))


def le_set_event_mask(mask: int) -> bytes:
    return command(LE_SET_EVENT_MASK, struct.pack("<Q", mask))


def le_read_buffer_size() -> bytes:
    return command(LE_READ_BUFFER_SIZE)


def le_read_local_features() -> bytes:
    return command(LE_READ_LOCAL_FEATURES)


def le_set_random_address(addr: str) -> bytes:
    return command(LE_SET_RANDOM_ADDRESS, addr_bytes(addr))


def le_set_scan_parameters(active: bool, interval: int, window: int, own_addr_type: int,
                           filter_policy: int = 0) -> bytes:
    """Interval and window in units of 0.625 ms."""
    return command(LE_SET_SCAN_PARAMETERS,
                   struct.pack("<BHHBB", 1 if active else 0, interval, window, own_addr_type, filter_policy))


def le_set_scan_enable(enable: bool, filter_duplicates: bool = False) -> bytes:
    return command(LE_SET_SCAN_ENABLE, bytes([1 if enable else 0, 1 if filter_duplicates else 0]))


def le_create_connection(peer_addr_type: int, peer_addr: str, own_addr_type: int,
                         interval_min: int, interval_max: int, latency: int, timeout: int,
                         scan_interval: int = 0x0060, scan_window: int = 0x0060,
                         min_ce: int = 0, max_ce: int = 0) -> bytes:
    """Intervals in 1.25 ms, timeout in 10 ms, scan timing in 0.625 ms (Vol 4 Part E 7.8.12)."""
    return command(LE_CREATE_CONNECTION,
                   struct.pack("<HHBB6sBHHHHHH", scan_interval, scan_window, 0, peer_addr_type,
                               addr_bytes(peer_addr), own_addr_type, interval_min, interval_max,
                               latency, timeout, min_ce, max_ce))


def le_set_advertising_parameters(interval: int, adv_type: int, own_addr_type: int, peer_addr_type: int,
                                  peer_addr: str) -> bytes:
    """Core v5.4 Vol 4 Part E 7.8.5 (adv_type 0x01: ADV_DIRECT_IND, high duty cycle)."""
    return command(LE_SET_ADVERTISING_PARAMETERS, struct.pack("<HHBBB", interval, interval, adv_type, own_addr_type, peer_addr_type)
                   + addr_bytes(peer_addr) + bytes([0x07, 0x00]))


def le_set_advertising_enable(enable: bool) -> bytes:
    """Core v5.4 Vol 4 Part E 7.8.9."""
    return command(LE_SET_ADVERTISING_ENABLE, bytes([1 if enable else 0]))


def le_create_connection_cancel() -> bytes:
    return command(LE_CREATE_CONNECTION_CANCEL)


def le_connection_update(handle: int, interval_min: int, interval_max: int, latency: int,
                         timeout: int, min_ce: int = 0, max_ce: int = 0) -> bytes:
    return command(LE_CONNECTION_UPDATE,
                   struct.pack("<HHHHHHH", handle, interval_min, interval_max, latency, timeout, min_ce, max_ce))


def le_read_remote_features(handle: int) -> bytes:
    return command(LE_READ_REMOTE_FEATURES, struct.pack("<H", handle))


def le_start_encryption(handle: int, rand: bytes, ediv: int, ltk: bytes) -> bytes:
    """rand 8 bytes and ltk 16 bytes, little-endian as SMP carries them (Vol 4 Part E 7.8.24)."""
    assert len(rand) == 8 and len(ltk) == 16
    return command(LE_START_ENCRYPTION, struct.pack("<H8sH16s", handle, rand, ediv, ltk))


def le_set_data_length(handle: int, tx_octets: int, tx_time: int) -> bytes:
    return command(LE_SET_DATA_LENGTH, struct.pack("<HHH", handle, tx_octets, tx_time))


def disconnect(handle: int, reason: int) -> bytes:
    return command(DISCONNECT, struct.pack("<HB", handle, reason))


# --- events ----------------------------------------------------------------------------------

def event(code: int, params: bytes) -> bytes:
    return struct.pack("<BBB", 0x04, code, len(params)) + params


def command_complete(opcode: int, return_params: bytes, num_packets: int = 1) -> bytes:
    return event(EVT_COMMAND_COMPLETE, struct.pack("<BH", num_packets, opcode) + return_params)


def command_status(opcode: int, status: int = 0, num_packets: int = 1) -> bytes:
    return event(EVT_COMMAND_STATUS, struct.pack("<BBH", status, num_packets, opcode))


def disconnection_complete(handle: int, reason: int, status: int = 0) -> bytes:
    return event(EVT_DISCONNECTION_COMPLETE, struct.pack("<BHB", status, handle, reason))


def encryption_change(handle: int, enabled: int = 1, status: int = 0) -> bytes:
    return event(EVT_ENCRYPTION_CHANGE, struct.pack("<BHB", status, handle, enabled))


def number_of_completed_packets(counts: list[tuple[int, int]]) -> bytes:
    params = bytes([len(counts)])
    for handle, n in counts:
        params += struct.pack("<HH", handle, n)
    return event(EVT_NUMBER_OF_COMPLETED_PACKETS, params)


def le_meta(subevent: int, params: bytes) -> bytes:
    return event(EVT_LE_META, bytes([subevent]) + params)


def le_advertising_report(event_type: int, addr_type: int, addr: str, data: bytes, rssi: int) -> bytes:
    """One report per event (Num_Reports = 1), as most controllers send them."""
    assert len(data) <= 31
    return le_meta(LE_ADVERTISING_REPORT,
                   struct.pack("<BBB6sB", 1, event_type, addr_type, addr_bytes(addr), len(data))
                   + data + struct.pack("<b", rssi))


def le_connection_complete(status: int, handle: int, role: int, peer_addr_type: int, peer_addr: str,
                           interval: int, latency: int, timeout: int, clock_accuracy: int = 0) -> bytes:
    return le_meta(LE_CONNECTION_COMPLETE,
                   struct.pack("<BHBB6sHHHB", status, handle, role, peer_addr_type, addr_bytes(peer_addr),
                               interval, latency, timeout, clock_accuracy))


def le_enhanced_connection_complete(status: int, handle: int, role: int, peer_addr_type: int,
                                    peer_addr: str, local_rpa: str, peer_rpa: str, interval: int,
                                    latency: int, timeout: int, clock_accuracy: int = 0) -> bytes:
    return le_meta(LE_ENHANCED_CONNECTION_COMPLETE,
                   struct.pack("<BHBB6s6s6sHHHB", status, handle, role, peer_addr_type, addr_bytes(peer_addr),
                               addr_bytes(local_rpa), addr_bytes(peer_rpa), interval, latency, timeout,
                               clock_accuracy))


def le_connection_update_complete(handle: int, interval: int, latency: int, timeout: int,
                                  status: int = 0) -> bytes:
    return le_meta(LE_CONNECTION_UPDATE_COMPLETE, struct.pack("<BHHHH", status, handle, interval, latency, timeout))


def le_read_remote_features_complete(handle: int, features: bytes, status: int = 0) -> bytes:
    assert len(features) == 8
    return le_meta(LE_READ_REMOTE_FEATURES_COMPLETE, struct.pack("<BH", status, handle) + features)


def le_data_length_change(handle: int, max_tx_octets: int, max_tx_time: int,
                          max_rx_octets: int, max_rx_time: int) -> bytes:
    return le_meta(LE_DATA_LENGTH_CHANGE,
                   struct.pack("<HHHHH", handle, max_tx_octets, max_tx_time, max_rx_octets, max_rx_time))


# --- ACL -------------------------------------------------------------------------------------

def acl(handle: int, pb: int, data: bytes) -> bytes:
    return struct.pack("<BHH", 0x02, (handle & 0x0FFF) | (pb << 12), len(data)) + data


def acl_fragments(handle: int, l2cap_frame: bytes, max_len: int, outgoing: bool) -> list[bytes]:
    """An L2CAP frame as ACL packets of at most `max_len` data bytes (Vol 4 Part E 5.4.2)."""
    first_pb = PB_FIRST_NON_FLUSHABLE if outgoing else PB_FIRST_FLUSHABLE
    out = []
    for i in range(0, max(1, len(l2cap_frame)), max_len):
        out.append(acl(handle, first_pb if i == 0 else PB_CONTINUING, l2cap_frame[i:i + max_len]))
    return out


# --- advertising data (Core Specification Supplement Part A) ---------------------------------

def ad(ad_type: int, value: bytes) -> bytes:
    return bytes([len(value) + 1, ad_type]) + value


def ad_flags(flags: int = 0x06) -> bytes:
    return ad(0x01, bytes([flags]))


def ad_uuid16_list(uuids: list[int], complete: bool = True) -> bytes:
    return ad(0x03 if complete else 0x02, b"".join(struct.pack("<H", u) for u in uuids))


def ad_uuid128_list(uuids: list[bytes], complete: bool = True) -> bytes:
    """uuids as 16 bytes little-endian (wire order)."""
    return ad(0x07 if complete else 0x06, b"".join(uuids))


def ad_name(name: str, complete: bool = True) -> bytes:
    return ad(0x09 if complete else 0x08, name.encode())


def ad_tx_power(dbm: int) -> bytes:
    return ad(0x0A, struct.pack("<b", dbm))


def ad_appearance(value: int) -> bytes:
    return ad(0x19, struct.pack("<H", value))


def ad_manufacturer(company_id: int, data: bytes) -> bytes:
    return ad(0xFF, struct.pack("<H", company_id) + data)

"""Edge shapes a real phone's HCI log holds and the other generators do not, for checking every
command's answer against tshark and against each other (times explicit, in milliseconds, like
blegen.scenarios; each file written as btsnoop H4 and as an iPhone's PacketLogger).

    python3 -m blegen.edges OUTDIR        (run from Scripts/)

  mid-link.{btsnoop,pklg}      a link begun before the capture whose first packet is an Error
                               Response (0x05) to a Read Request the capture never saw; a
                               notification before discovery; discovery; Exchange MTU late (185,
                               server 100: ATT_MTU 100); a Read of 99 bytes and Read Blob at offset
                               99; a Signed Write Command; a long write (two Prepare Writes, Execute
                               Write 0x01); a Read refused 0x02; the peer ends it 0x13
  failed-disconnect.{btsnoop,pklg}
                               the peer's Exchange MTU (the phone is its server); the host's
                               Disconnect accepted, then Disconnection Complete status 0x0C (Core
                               v5.4 Vol 4 Part E 7.7.5: the link stays up); a Write Request answered
                               by an Error Response naming a Read Request, then its Write Response;
                               an indication never confirmed; a Disconnect of an unknown handle
                               refused (Command Status 0x02); the link lost 0x08
  handle-reused.{btsnoop,pklg} a Read Request unanswered on handle 0x0040, then 60 s later a new
                               LE Connection Complete on 0x0040: the first link's Disconnection
                               Complete is not in the capture; the second ends 0x13
  extended.{btsnoop,pklg}      LE Extended Create Connection (7.8.66), LE Enhanced Connection
                               Complete [v2] (7.7.65.10, subevent 0x29) as central, a PHY update to
                               2M, 0x3B; the phone as peripheral from extended advertising (v2 with
                               an advertising handle), 0x13; an attempt failing with status 0x3E
  write-queues.{btsnoop,pklg}  a long write cancelled (Execute Write flags 0x00), a Prepare Write
                               refused 0x09 Prepare Queue Full and its Execute Write refused 0x0D;
                               Read By Type of 2A00; Read Multiple Variable; Multiple Handle Value
                               Notification; no Exchange MTU (the Read By Type Response is larger
                               than the default ATT_MTU 23)

Frame numbers in the comments are 1-based, as Wireshark counts them.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

from . import att, hci
from .scenarios import SENSOR_CHARS, SENSOR_SERVICES, Log, _rbgt_rsp, _rbt_rsp, connect, power_on

PEER = "C4:7A:3B:12:9E:51"
OTHER = "D1:22:33:44:55:66"
CENTRAL = "11:22:33:44:55:66"

# ATT opcodes (Vol 3 Part F 3.4.8) the att module does not name
READ_MULTIPLE_VARIABLE_REQ = 0x20
READ_MULTIPLE_VARIABLE_RSP = 0x21
MULTIPLE_HANDLE_VALUE_NTF = 0x23
PREPARE_WRITE_REQ = 0x16
PREPARE_WRITE_RSP = 0x17
EXECUTE_WRITE_REQ = 0x18
EXECUTE_WRITE_RSP = 0x19
SIGNED_WRITE_CMD = 0xD2


def prepare_write(handle: int, offset: int, value: bytes, response: bool = False) -> bytes:
    """Prepare Write Request/Response: opcode, handle u16, offset u16, part value (3.4.6.1-2)."""
    return bytes([PREPARE_WRITE_RSP if response else PREPARE_WRITE_REQ]) + struct.pack("<HH", handle, offset) + value


def read_blob_req(handle: int, offset: int) -> bytes:
    return bytes([att.READ_BLOB_REQ]) + struct.pack("<HH", handle, offset)


def mid_link() -> Log:
    log = Log()
    h = 0x0040
    log.att_rx(0, h, att.error_rsp(att.READ_REQ, 0x0010, att.INSUFFICIENT_AUTHENTICATION))  # 1
    log.att_rx(100, h, att.notification(0x000F, b"\x06\x48"))                                # 2
    t = 200.0

    def rr(req: bytes, rsp: bytes) -> None:
        nonlocal t
        log.att_tx(t, h, req)
        log.att_rx(t + 20, h, rsp)
        t += 50

    rr(att.read_by_group_type_req(0x0001, 0xFFFF), _rbgt_rsp(SENSOR_SERVICES))             # 3-4
    rr(att.read_by_type_req(0x0001, 0xFFFF, att.CHARACTERISTIC), _rbt_rsp(SENSOR_CHARS))     # 5-6
    rr(att.exchange_mtu_req(185), att.exchange_mtu_rsp(100))                                  # 7-8
    rr(att.read_req(0x0003), att.read_rsp(b"A" * 99))                                         # 9-10: ATT_MTU - 1
    rr(read_blob_req(0x0003, 99), bytes([att.READ_BLOB_RSP]) + b"B" * 10)                     # 11-12
    # Signed Write Command: opcode, handle, value, 12-byte Authentication Signature (3.4.5.4)
    log.att_tx(t, h, bytes([SIGNED_WRITE_CMD]) + struct.pack("<H", 0x0012) + b"\x01" + bytes(12))  # 13
    t += 50
    rr(prepare_write(0x0012, 0, b"\x01\x02"), prepare_write(0x0012, 0, b"\x01\x02", response=True))  # 14-15
    rr(prepare_write(0x0012, 2, b"\x03"), prepare_write(0x0012, 2, b"\x03", response=True))   # 16-17
    rr(bytes([EXECUTE_WRITE_REQ, 0x01]), bytes([EXECUTE_WRITE_RSP]))                          # 18-19
    rr(att.read_req(0x0012), att.error_rsp(att.READ_REQ, 0x0012, att.READ_NOT_PERMITTED))    # 20-21
    log.evt(t + 100, hci.disconnection_complete(h, 0x13))                                     # 22
    return log


def failed_disconnect() -> Log:
    log = Log()
    power_on(log)                                                                            # 1-4
    connect(log, 100, 0x0040, PEER)                                                          # 5-7
    log.att_rx(150, 0x0040, att.exchange_mtu_req(247))                                       # 8
    log.att_tx(170, 0x0040, att.exchange_mtu_rsp(185))                                       # 9
    log.cmd(200, hci.disconnect(0x0040, 0x13))                                               # 10
    log.evt(201, hci.command_status(hci.DISCONNECT))                                         # 11
    log.evt(260, hci.disconnection_complete(0x0040, 0x13, status=0x0C))                      # 12
    log.att_tx(300, 0x0040, att.write_req(0x0012, b"\x01"))                                  # 13
    log.att_rx(320, 0x0040, att.error_rsp(att.READ_REQ, 0x0012, att.UNLIKELY_ERROR))         # 14
    log.att_rx(330, 0x0040, att.write_rsp())                                                 # 15
    log.att_rx(400, 0x0040, att.indication(0x000F, b"\x01"))                                 # 16
    log.cmd(500, hci.disconnect(0x0042, 0x13))                                               # 17
    log.evt(501, hci.command_status(hci.DISCONNECT, status=0x02))                            # 18
    log.evt(5000, hci.disconnection_complete(0x0040, 0x08))                                  # 19
    return log


def handle_reused() -> Log:
    log = Log()
    power_on(log)                                                                            # 1-4
    connect(log, 100, 0x0040, PEER)                                                          # 5-7
    log.att_tx(200, 0x0040, att.read_req(0x0003))                                            # 8
    connect(log, 60000, 0x0040, OTHER)                                                       # 9-11
    log.att_tx(60100, 0x0040, att.read_req(0x0005))                                          # 12
    log.att_rx(60120, 0x0040, att.read_rsp(b"x"))                                            # 13
    log.evt(61000, hci.disconnection_complete(0x0040, 0x13))                                 # 14
    return log


def enhanced_v2(status: int, handle: int, role: int, peer_type: int, peer: str, adv_handle: int) -> bytes:
    """LE Enhanced Connection Complete [v2] (Vol 4 Part E 7.7.65.10): status, handle, role, peer
    address type and address, local and peer RPA, interval, latency, timeout, clock accuracy,
    Advertising_Handle (0xFF: none), Sync_Handle (0xFFFF: none)."""
    return hci.le_meta(0x29, struct.pack("<BHBB6s6s6sHHHBBH", status, handle, role, peer_type, hci.addr_bytes(peer),
                                         bytes(6), bytes(6), 24, 0, 400, 0, adv_handle, 0xFFFF))


def extended() -> Log:
    log = Log()
    power_on(log)                                                                            # 1-4
    # LE Extended Create Connection [v1] (7.8.66): filter policy, own address type, peer address
    # type, peer address, initiating PHYs (LE 1M), then for that PHY scan interval, scan window,
    # interval min/max, latency, supervision timeout, min/max CE length
    create = hci.command(0x2043, struct.pack("<BBB6sB", 0, 1, 1, hci.addr_bytes(OTHER), 0x01)
                         + struct.pack("<HHHHHHHH", 0x60, 0x60, 24, 24, 0, 400, 0, 0))
    log.cmd(50, create)                                                                      # 5
    log.evt(51, hci.command_status(0x2043))                                                  # 6
    log.evt(100, enhanced_v2(0, 0x0040, 0, 1, OTHER, 0xFF))                                  # 7
    log.att_tx(150, 0x0040, att.read_req(0x0003))                                            # 8
    log.att_rx(170, 0x0040, att.error_rsp(att.READ_REQ, 0x0003, att.INSUFFICIENT_ENCRYPTION))  # 9
    # LE PHY Update Complete (7.7.65.12): status, handle, TX_PHY, RX_PHY (2: LE 2M)
    log.evt(300, hci.le_meta(0x0C, struct.pack("<BHBB", 0, 0x0040, 2, 2)))                  # 10
    log.evt(900, hci.disconnection_complete(0x0040, 0x3B))                                   # 11
    log.evt(1000, enhanced_v2(0, 0x0041, 1, 0, CENTRAL, 0x00))                               # 12
    log.att_rx(1050, 0x0041, att.read_req(0x0003))                                           # 13
    log.att_tx(1060, 0x0041, att.read_rsp(b"hi"))                                            # 14
    log.evt(2000, hci.disconnection_complete(0x0041, 0x13))                                  # 15
    log.cmd(2050, create)                                                                    # 16
    log.evt(2051, hci.command_status(0x2043))                                                # 17
    log.evt(2500, enhanced_v2(0x3E, 0x0042, 0, 1, OTHER, 0xFF))                              # 18
    return log


def write_queues() -> Log:
    log = Log()
    power_on(log)                                                                            # 1-4
    h = 0x0040
    connect(log, 100, h, PEER)                                                               # 5-7
    t = 200.0

    def rr(req: bytes, rsp: bytes) -> None:
        nonlocal t
        log.att_tx(t, h, req)
        log.att_rx(t + 20, h, rsp)
        t += 50

    rr(att.read_by_group_type_req(0x0001, 0xFFFF), _rbgt_rsp(SENSOR_SERVICES))             # 8-9
    rr(att.read_by_type_req(0x0001, 0xFFFF, att.CHARACTERISTIC), _rbt_rsp(SENSOR_CHARS))     # 10-11
    rr(prepare_write(0x0012, 0, b"\xAA\xBB"), prepare_write(0x0012, 0, b"\xAA\xBB", response=True))  # 12-13
    rr(bytes([EXECUTE_WRITE_REQ, 0x00]), bytes([EXECUTE_WRITE_RSP]))                         # 14-15 cancel
    rr(prepare_write(0x0012, 0, b"\x01"), prepare_write(0x0012, 0, b"\x01", response=True))  # 16-17
    rr(prepare_write(0x0012, 1, b"\x02"), att.error_rsp(PREPARE_WRITE_REQ, 0x0012, 0x09))    # 18-19
    rr(bytes([EXECUTE_WRITE_REQ, 0x01]), att.error_rsp(EXECUTE_WRITE_REQ, 0x0000, att.INVALID_ATTRIBUTE_VALUE_LENGTH))  # 20-21
    rr(att.write_req(0x0010, b"\x01\x00"), att.write_rsp())                                  # 22-23
    # Read By Type Response (3.4.4.2): length 5 (handle + 3 value bytes), one pair
    rr(att.read_by_type_req(0x0001, 0xFFFF, 0x2A00), bytes([att.READ_BY_TYPE_RSP, 5]) + struct.pack("<H", 0x0003) + b"Hal")  # 24-25
    # Read Multiple Variable Request: handles; Response: (length u16, value) per handle (3.4.4.11-12)
    rr(bytes([READ_MULTIPLE_VARIABLE_REQ]) + struct.pack("<HH", 0x0003, 0x000A),
       bytes([READ_MULTIPLE_VARIABLE_RSP]) + struct.pack("<H", 3) + b"Hal" + struct.pack("<H", 2) + b"fw")  # 26-27
    # Multiple Handle Value Notification: (handle u16, length u16, value) tuples (3.4.7.4)
    log.att_rx(t, h, bytes([MULTIPLE_HANDLE_VALUE_NTF]) + struct.pack("<HH", 0x000F, 2) + b"\x06\x50"
               + struct.pack("<HH", 0x000F, 2) + b"\x06\x51")                                # 28
    log.evt(t + 550, hci.disconnection_complete(h, 0x13))                                    # 29
    return log


SHAPES = {
    "mid-link": mid_link,
    "failed-disconnect": failed_disconnect,
    "handle-reused": handle_reused,
    "extended": extended,
    "write-queues": write_queues,
}


def main(argv: list[str]) -> int:
    out = Path(argv[1] if len(argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    for name, make in SHAPES.items():
        log = make()
        (out / f"{name}.btsnoop").write_bytes(log.btsnoop())
        (out / f"{name}.pklg").write_bytes(log.packetlogger())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

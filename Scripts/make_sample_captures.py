#!/usr/bin/env python3
"""Write the sample captures in Captures/: btsnoop v1, datalink 1002 (H4), as an Android phone's
HCI snoop log would record them (the central's host <-> its controller).

Deterministic: a fixed seed per file and a fixed start time (2026-03-01T10:00:00Z, each file
one hour after the previous one), so re-running gives byte-identical files.

    Scripts/make_sample_captures.py [--out Captures] [--check]

--check validates the files with blegen.verify (host-stack invariants) and tshark (no malformed
packets, no expert errors), prints the counts and rewrites the table in Captures/README.md.

The scenarios (one function each below):
  heart-rate-healthy               scan, connect, discover, subscribe, 60 s of 1 Hz notifications, disconnect
  heart-rate-supervision-timeout   20 s of notifications, peripheral goes silent -> 0x08, rescan, reconnect
  att-timeout                      Write Request never answered; host disconnects after the 30 s ATT timeout
  failed-to-establish              two attempts fail (0x3E), a third is cancelled (0x02), the fourth works
  pairing-failed                   Insufficient Authentication -> LE SC passkey pairing -> Confirm Value Failed
  auth-errors                      ATT errors 0x05, 0x0F, 0x03, 0x80; legacy Just Works pairing; read works
  heart-rate-peripheral            the phone is the heart-rate sensor (GATT server, role 0x01): a remote
                                   central connects, discovers, reads 2A38, subscribes to 2A37, writes
                                   2A39; the link is lost (0x08); the central reconnects and resubscribes
"""

from __future__ import annotations

import argparse
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from blegen import att, crypto, gatt, hci, l2cap, smp  # noqa: E402
from blegen.btsnoop import unix_us  # noqa: E402
from blegen.gatt import Characteristic, Database, Descriptor, Service, uuid128  # noqa: E402
from blegen.session import (MS, SILENT, Capture, Central, Peripheral, bring_up, discover,  # noqa: E402
                            find_characteristic, read_device_information, subscribe)

START = unix_us("2026-03-01T10:00:00Z")
S = 1_000_000
PHONE_RPA = "6B:3F:02:91:C4:E8"          # Android's resolvable private address (top bits 01)
PHONE_IDENTITY = "00:1A:7D:DA:71:13"     # its public identity address (Read BD_ADDR)
HR_ADDR = "C4:7A:3B:12:9E:51"            # random static (top bits 11)


# --- devices -------------------------------------------------------------------------------

def background_advertisers() -> list[Peripheral]:
    """Other devices the phone hears while scanning."""
    beacon_uuid = bytes.fromhex("E2C56DB5DFFB48D2B060D0F5A71096E0")
    beacon = Peripheral(
        "beacon", "DE:AD:10:42:77:01", Database([]),
        adv_data=hci.ad_flags(0x06) + hci.ad_manufacturer(0x004C, b"\x02\x15" + beacon_uuid
                                                           + struct.pack(">HHb", 1, 7, -59)),
        scan_rsp=None, adv_interval_ms=350, rssi=-78, connectable=False)
    band = Peripheral(
        "band", "5D:21:C8:0A:93:3E", Database([]),
        adv_data=hci.ad_flags(0x1A) + hci.ad_uuid16_list([0xFE9F]),
        scan_rsp=hci.ad_name("Fit Band 4"), adv_interval_ms=211, rssi=-84)
    return [beacon, band]


def heart_rate_sensor() -> Peripheral:
    db = Database([
        gatt.generic_access("Pulse HRM", 0x0341),
        gatt.generic_attribute(),
        Service(0x180D, [
            Characteristic(0x2A37, gatt.NOTIFY, b"\x06\x48"),
            Characteristic(0x2A38, gatt.READ, b"\x01"),                       # Chest
        ]),
        Service(0x180F, [Characteristic(0x2A19, gatt.READ | gatt.NOTIFY, b"\x5C")]),  # 92 %
        gatt.device_information("Acme Sensors", "HRM-200", "2.1.0", hardware="rev B"),
    ])
    return Peripheral(
        "Pulse HRM", HR_ADDR, db,
        adv_data=hci.ad_flags(0x06) + hci.ad_uuid16_list([0x180D, 0x180F, 0x180A])
        + hci.ad_manufacturer(0x0059, b"\x01\x02\xC8\x00"),
        scan_rsp=hci.ad_name("Pulse HRM") + hci.ad_tx_power(4) + hci.ad_appearance(0x0341),
        adv_interval_ms=100, rssi=-58)


CUSTOM_SERVICE = uuid128("7A3E0001-52C1-4B8E-9E4A-2F6C3B1D0E55")
CUSTOM_CONTROL = uuid128("7A3E0002-52C1-4B8E-9E4A-2F6C3B1D0E55")
CUSTOM_STATUS = uuid128("7A3E0003-52C1-4B8E-9E4A-2F6C3B1D0E55")
CUSTOM_DATA = uuid128("7A3E0004-52C1-4B8E-9E4A-2F6C3B1D0E55")
CUSTOM_CONFIG = uuid128("7A3E0005-52C1-4B8E-9E4A-2F6C3B1D0E55")


def custom_device(name: str, address: str, model: str, firmware: str, extra: list[Characteristic] = (),
                  manufacturer: str = "Acme Devices", company: int = 0xFFFF) -> Peripheral:
    """A device with one vendor service of 128-bit UUIDs plus Device Information."""
    db = Database([
        gatt.generic_access(name, 0x0000),
        gatt.generic_attribute(),
        Service(CUSTOM_SERVICE, [
            Characteristic(CUSTOM_CONTROL, gatt.WRITE | gatt.INDICATE, b"",
                           [Descriptor(gatt.USER_DESCRIPTION, b"Control Point")]),
            Characteristic(CUSTOM_STATUS, gatt.READ | gatt.NOTIFY, b"\x00\x01\x00\x00"),
            *extra,
        ]),
        gatt.device_information(manufacturer, model, firmware),
    ])
    return Peripheral(
        name, address, db,
        adv_data=hci.ad_flags(0x06) + hci.ad_uuid128_list([CUSTOM_SERVICE]),
        scan_rsp=hci.ad_name(name) + hci.ad_tx_power(0) + hci.ad_manufacturer(company, b"\x10\x02"),
        adv_interval_ms=152.5, rssi=-64)


def new_capture(path: Path, index: int, seed: int) -> tuple[Capture, Central, object]:
    f = open(path, "wb")
    cap = Capture(f, START + index * 3600 * S, seed)
    central = Central(cap, PHONE_RPA, own_addr_type=1, enhanced=index % 2 == 1)
    central.power_on(PHONE_IDENTITY)
    cap.advance(cap.uniform_us(150 * MS, 400 * MS))
    return cap, central, f


def hr_value(cap: Capture, bpm: int) -> tuple[bytes, int]:
    """Heart Rate Measurement: flags 0x06 (contact supported, detected; u8 bpm) + bpm."""
    bpm = max(55, min(150, bpm + cap.rng.choice((-2, -1, -1, 0, 0, 0, 1, 1, 2))))
    return bytes([0x06, bpm]), bpm


def stream_heart_rate(conn, handle: int, seconds: int, bpm: int = 72, first_at: float | None = None) -> int:
    cap = conn.cap
    t = first_at if first_at is not None else cap.now + cap.uniform_us(400 * MS, 900 * MS)
    last = t
    for _ in range(seconds):
        value, bpm = hr_value(cap, bpm)
        last = conn.notify(handle, value, t)
        cap.advance_to(last)
        t += S + cap.uniform_us(-3 * MS, 3 * MS)  # the sensor's 1 Hz timer drifts a little
    return last


# --- scenarios -------------------------------------------------------------------------------

def heart_rate_healthy(path: Path, index: int) -> None:
    cap, central, f = new_capture(path, index, seed=101)
    hr = heart_rate_sensor()
    central.scan(hr, background_advertisers(), 1200 * MS)
    conn = central.create_connection(hr, interval=24, latency=0, timeout=400)
    bring_up(conn)
    services = discover(conn)
    read_device_information(conn, services)
    conn.request(att.read_req(find_characteristic(services, 0x2A38).value))
    conn.request(att.read_req(find_characteristic(services, 0x2A19).value))
    measurement = find_characteristic(services, 0x2A37)
    subscribe(conn, measurement)
    cap.advance(cap.uniform_us(300 * MS, 600 * MS))
    # The sensor asks for a slower interval once it is set up (L2CAP LE signalling).
    conn.peer_requests_connection_update(interval=40, latency=0, timeout=400)
    stream_heart_rate(conn, measurement.value, 60)
    cap.advance(cap.uniform_us(200 * MS, 500 * MS))
    conn.disconnect(0x13)
    cap.close()
    f.close()


def heart_rate_supervision_timeout(path: Path, index: int) -> None:
    cap, central, f = new_capture(path, index, seed=202)
    hr = heart_rate_sensor()
    others = background_advertisers()
    central.scan(hr, others, 900 * MS)
    conn = central.create_connection(hr, interval=24, latency=0, timeout=400)
    bring_up(conn)
    services = discover(conn)
    read_device_information(conn, services)
    measurement = find_characteristic(services, 0x2A37)
    subscribe(conn, measurement)
    last = stream_heart_rate(conn, measurement.value, 20)
    # The sensor goes silent (out of range) half a second after its 20th notification.
    conn.supervision_timeout(silent_from=last + 500 * MS)
    # The app waits 1 s, scans again, and reconnects when the sensor is back.
    cap.advance(1 * S)
    central.scan(hr, others, 1500 * MS)
    conn = central.create_connection(hr, interval=24, latency=0, timeout=400)
    bring_up(conn)
    services = discover(conn)
    measurement = find_characteristic(services, 0x2A37)
    subscribe(conn, measurement)
    stream_heart_rate(conn, measurement.value, 10, bpm=80)
    cap.advance(cap.uniform_us(200 * MS, 500 * MS))
    conn.disconnect(0x13)
    cap.close()
    f.close()


def att_timeout(path: Path, index: int) -> None:
    cap, central, f = new_capture(path, index, seed=303)
    dev = custom_device("Acme Logger", "D2:19:77:4B:0C:A0", "LG-10", "0.9.7")
    central.scan(dev, background_advertisers(), 1000 * MS)
    conn = central.create_connection(dev, interval=36, latency=0, timeout=500)
    bring_up(conn)
    services = discover(conn)
    read_device_information(conn, services)
    status = find_characteristic(services, CUSTOM_STATUS)
    control = find_characteristic(services, CUSTOM_CONTROL)
    conn.request(att.read_req(status.value))
    subscribe(conn, status)
    subscribe(conn, control, indications=True)
    conn.request(att.write_req(control.value, b"\x01"))          # start logging: answered
    t = conn.notify(status.value, b"\x01\x01\x00\x00", cap.now + 40 * MS)
    cap.advance_to(t + 300 * MS)
    conn.request(att.write_req(control.value, b"\x07\x00\x10"), SILENT)  # fetch log: never answered
    sent = cap.now
    # Core Vol 3 Part F 3.3.3: 30 s without a response ends the ATT bearer; the host disconnects.
    cap.advance_to(sent + 30 * S + cap.uniform_us(1 * MS, 20 * MS))
    conn.disconnect(0x13)
    cap.close()
    f.close()


def failed_to_establish(path: Path, index: int) -> None:
    cap, central, f = new_capture(path, index, seed=404)
    dev = custom_device("Acme Scale", "E8:3C:51:07:D4:2F", "SC-3", "1.2.0")
    central.scan(dev, background_advertisers(), 900 * MS)
    # Two attempts: CONNECT_IND sent, the scale never answers -> Disconnection Complete 0x3E.
    central.create_connection(dev, interval=24, latency=0, timeout=500, outcome="fail")
    cap.advance(1 * S)
    central.create_connection(dev, interval=24, latency=0, timeout=500, outcome="fail")
    cap.advance(2 * S)
    # Third attempt: the scale has stopped advertising; the app gives up after 5 s and cancels.
    central.create_connection(dev, interval=24, latency=0, timeout=500, outcome="cancel",
                              cancel_after_us=5 * S)
    cap.advance(4 * S)
    central.scan(dev, background_advertisers(), 1200 * MS)
    conn = central.create_connection(dev, interval=24, latency=0, timeout=500)
    bring_up(conn)
    services = discover(conn)
    read_device_information(conn, services)
    conn.request(att.read_req(find_characteristic(services, CUSTOM_STATUS).value))
    cap.advance(cap.uniform_us(1 * S, 2 * S))
    conn.disconnect(0x13)
    cap.close()
    f.close()


LOCK_STATE = uuid128("7A3E0010-52C1-4B8E-9E4A-2F6C3B1D0E55")


def pairing_failed(path: Path, index: int) -> None:
    cap, central, f = new_capture(path, index, seed=505)
    dev = custom_device("Acme Lock", "F1:0B:6E:33:58:C2", "LK-7", "3.4.1",
                        extra=[Characteristic(LOCK_STATE, gatt.READ | gatt.WRITE, b"\x01")])
    central.scan(dev, background_advertisers(), 1000 * MS)
    conn = central.create_connection(dev, interval=24, latency=0, timeout=500)
    bring_up(conn)
    services = discover(conn)
    read_device_information(conn, services)
    lock = find_characteristic(services, LOCK_STATE)
    conn.request(att.read_req(lock.value), att.error_rsp(att.READ_REQ, lock.value, att.INSUFFICIENT_AUTHENTICATION))

    # LE Secure Connections, passkey entry: the lock displays 123456, the user types 123465.
    preq = smp.pairing_request(smp.KEYBOARD_DISPLAY, 0, smp.BONDING | smp.MITM | smp.SC | smp.CT2, 16,
                               smp.ENC_KEY | smp.ID_KEY | smp.SIGN_KEY | smp.LINK_KEY,
                               smp.ENC_KEY | smp.ID_KEY | smp.SIGN_KEY | smp.LINK_KEY)
    pres = smp.pairing_response(smp.DISPLAY_ONLY, 0, smp.BONDING | smp.MITM | smp.SC, 16,
                                smp.ID_KEY, smp.ENC_KEY | smp.ID_KEY)
    smp_exchange(conn, preq, pres)
    pka = crypto.p256_public_key(0x5A17_0C0F_FEE0_0001 * 0x9E3779B97F4A7C15)
    pkb = crypto.p256_public_key(0x10C4_0000_0000_0007 * 0xC2B2AE3D27D4EB4F)
    smp_exchange(conn, smp.pairing_public_key(*pka), smp.pairing_public_key(*pkb))
    cap.advance(cap.uniform_us(7 * S, 9 * S))  # the user reads the lock's display and types
    typed, shown = 123465, 123456
    na1 = bytes(cap.rng.getrandbits(8) for _ in range(16))
    nb1 = bytes(cap.rng.getrandbits(8) for _ in range(16))
    ca1 = crypto.f4(pka[0], pkb[0], na1, 0x80 | (typed & 1))
    cb1 = crypto.f4(pkb[0], pka[0], nb1, 0x80 | (shown & 1))
    smp_exchange(conn, smp.pairing_confirm(ca1), smp.pairing_confirm(cb1))
    # The lock checks Ca1 against Na1 with its own passkey bit: it does not match.
    assert crypto.f4(pka[0], pkb[0], na1, 0x80 | (shown & 1)) != ca1
    smp_exchange(conn, smp.pairing_random(na1), smp.pairing_failed(smp.CONFIRM_VALUE_FAILED))
    conn.peer_disconnects(0x13, at=cap.now + cap.uniform_us(1 * S, 2 * S))
    cap.close()
    f.close()


def smp_exchange(conn, out_pdu: bytes, in_pdu: bytes | None, events: int | None = None) -> None:
    """Central sends an SMP PDU; the peripheral answers 1-3 connection events later."""
    cap = conn.cap
    e = conn.host_send(l2cap.CID_SMP, out_pdu)
    if in_pdu is not None:
        k = events if events is not None else cap.rng.choice((1, 2, 2, 3))
        t = conn.peer_send(l2cap.CID_SMP, in_pdu, e + k * conn.interval_us)
        cap.advance_to(t + cap.uniform_us(300, 2500))


METER_PROTECTED = uuid128("7A3E0020-52C1-4B8E-9E4A-2F6C3B1D0E55")
METER_SECRET = uuid128("7A3E0021-52C1-4B8E-9E4A-2F6C3B1D0E55")
METER_SERIAL = uuid128("7A3E0022-52C1-4B8E-9E4A-2F6C3B1D0E55")
METER_COMMAND = uuid128("7A3E0023-52C1-4B8E-9E4A-2F6C3B1D0E55")


def auth_errors(path: Path, index: int) -> None:
    cap, central, f = new_capture(path, index, seed=606)
    dev = custom_device("Acme Meter", "C9:44:2D:E0:71:8B", "MT-2", "5.0.3", extra=[
        Characteristic(METER_PROTECTED, gatt.READ, b"\x2A\x00\x00\x00"),
        Characteristic(METER_SECRET, gatt.READ, b"\x11\x22\x33\x44\x55\x66\x77\x88"),
        Characteristic(METER_SERIAL, gatt.READ | gatt.WRITE, b"MT2-004417"),
        Characteristic(METER_COMMAND, gatt.WRITE, b""),
    ])
    central.scan(dev, background_advertisers(), 1000 * MS)
    conn = central.create_connection(dev, interval=24, latency=0, timeout=500)
    bring_up(conn)
    services = discover(conn)
    read_device_information(conn, services)
    protected = find_characteristic(services, METER_PROTECTED).value
    secret = find_characteristic(services, METER_SECRET).value
    serial = find_characteristic(services, METER_SERIAL).value
    command = find_characteristic(services, METER_COMMAND).value
    conn.request(att.read_req(protected), att.error_rsp(att.READ_REQ, protected, att.INSUFFICIENT_AUTHENTICATION))
    conn.request(att.read_req(secret), att.error_rsp(att.READ_REQ, secret, att.INSUFFICIENT_ENCRYPTION))
    conn.request(att.write_req(serial, b"MT2-000000"), att.error_rsp(att.WRITE_REQ, serial, att.WRITE_NOT_PERMITTED))
    conn.request(att.write_req(command, b"\x05\x01"), att.error_rsp(att.WRITE_REQ, command, 0x80))

    # LE legacy pairing, Just Works (the meter has no SC support and no I/O): TK = 0.
    preq = smp.pairing_request(smp.KEYBOARD_DISPLAY, 0, smp.BONDING | smp.MITM | smp.SC | smp.CT2, 16,
                               smp.ENC_KEY | smp.ID_KEY | smp.SIGN_KEY, smp.ENC_KEY | smp.ID_KEY | smp.SIGN_KEY)
    pres = smp.pairing_response(smp.NO_INPUT_NO_OUTPUT, 0, smp.BONDING, 16, smp.ID_KEY, smp.ENC_KEY | smp.ID_KEY)
    smp_exchange(conn, preq, pres)
    cap.advance(cap.uniform_us(2 * S, 4 * S))  # Android asks the user to accept the pairing
    tk = bytes(16)
    mrand = bytes(cap.rng.getrandbits(8) for _ in range(16))
    srand = bytes(cap.rng.getrandbits(8) for _ in range(16))
    ia, ra = hci.addr_bytes(PHONE_RPA), hci.addr_bytes(dev.address)
    mconfirm = crypto.c1(tk, mrand, preq, pres, 1, 1, ia, ra)
    sconfirm = crypto.c1(tk, srand, preq, pres, 1, 1, ia, ra)
    smp_exchange(conn, smp.pairing_confirm(mconfirm), smp.pairing_confirm(sconfirm))
    smp_exchange(conn, smp.pairing_random(mrand), smp.pairing_random(srand))
    stk = crypto.s1(tk, srand, mrand)
    conn.start_encryption(bytes(8), 0, stk)  # legacy: STK with Rand = 0, EDIV = 0
    # Key distribution over the encrypted link: the responder's keys first, then the initiator's.
    ltk = bytes(cap.rng.getrandbits(8) for _ in range(16))
    rand = bytes(cap.rng.getrandbits(8) for _ in range(8))
    t = cap.now + cap.uniform_us(5 * MS, 15 * MS)
    for pdu in (smp.encryption_information(ltk), smp.central_identification(0x3A91, rand),
                smp.identity_information(bytes(cap.rng.getrandbits(8) for _ in range(16))),
                smp.identity_address_information(1, ra)):
        t = conn.peer_send(l2cap.CID_SMP, pdu, t) + 100
    cap.advance_to(t + cap.uniform_us(1 * MS, 3 * MS))
    conn.host_send(l2cap.CID_SMP, smp.identity_information(bytes(cap.rng.getrandbits(8) for _ in range(16))))
    cap.advance(cap.uniform_us(200, 600))
    conn.host_send(l2cap.CID_SMP, smp.identity_address_information(0, hci.addr_bytes(PHONE_IDENTITY)))
    cap.advance(cap.uniform_us(20 * MS, 60 * MS))
    # The same requests again, now on an encrypted, authenticated-enough (bonded) link.
    conn.request(att.read_req(protected))
    conn.request(att.read_req(secret))
    conn.request(att.write_req(command, b"\x05\x01"))
    cap.advance(cap.uniform_us(1 * S, 2 * S))
    conn.disconnect(0x13)
    cap.close()
    f.close()


# --- the phone as peripheral --------------------------------------------------------------------
#
# An iPhone running Examples/HeartRatePeripheral: iOS's own GAP (0x0001-0x0005) and GATT
# (0x0006-0x0009, Service Changed with its CCCD) services, then the app's Heart Rate service
# (CoreBluetoothReplay/CBLocalDatabase.swift lays handles out the same way):
#   0x000A 180D; 0x000B decl, 0x000C 2A37 Heart Rate Measurement (notify), 0x000D its CCCD;
#   0x000E decl, 0x000F 2A38 Body Sensor Location (read); 0x0010 decl, 0x0011 2A39 Heart Rate
#   Control Point (write).

PHONE_CENTRAL = "5E:11:9A:3C:77:D2"     # the collector (another phone) as central, an RPA
HRP_SERVICES = [(0x0001, 0x0005, 0x1800), (0x0006, 0x0009, 0x1801), (0x000A, 0x0011, 0x180D)]
HRP_CHARS = [(0x000B, 0x10, 0x000C, 0x2A37), (0x000E, 0x02, 0x000F, 0x2A38), (0x0010, 0x08, 0x0011, 0x2A39)]
HRP_MEASUREMENT, HRP_CCCD, HRP_LOCATION, HRP_CONTROL = 0x000C, 0x000D, 0x000F, 0x0011


def heart_rate_peripheral(path: Path, index: int) -> None:
    """The local device is the peripheral (LE Connection Complete role 0x01, Core v5.4 Vol 4 Part
    E 7.7.65.1): requests arrive (rx) and the phone's GATT server answers (tx); its notifications
    are acknowledged by Number Of Completed Packets one connection event later while the link
    holds, never once the collector goes out of range. The collector discovers, reads the Body
    Sensor Location, subscribes, writes the control point; 20 s in it goes silent and the phone's
    controller reports 0x08 one supervision timeout (4 s) later; 1.5 s after that it reconnects,
    rediscovers, resubscribes, and ends the link itself (0x13) 10 s later."""
    from blegen import scenarios as sc
    log = sc.Log(START + index * 3600 * S)
    rng_state = [72]

    def bpm() -> bytes:
        rng_state[0] = max(60, min(140, rng_state[0] + (1, -1, 0, 2, -2, 0, 1)[len(log.items) % 7]))
        return bytes([0x06, rng_state[0]])

    t = sc.power_on(log)
    adv = hci.ad_flags(0x06) + hci.ad_uuid16_list([0x180D]) + hci.ad_name("Pulse HR")
    # iOS's advertising for startAdvertising([LocalName: "Pulse HR", ServiceUUIDs: [180D]]).
    log.cmd(t, hci.command(sc.LE_SET_ADVERTISING_PARAMETERS, struct.pack("<HHBBB6sBB", 0x00A0, 0x00A0, 0, 0, 0, bytes(6), 7, 0)))
    log.evt(t + 1, hci.command_complete(sc.LE_SET_ADVERTISING_PARAMETERS, b"\x00"))
    log.cmd(t + 2, hci.command(sc.LE_SET_ADVERTISING_DATA, bytes([len(adv)]) + adv + bytes(31 - len(adv))))
    log.evt(t + 3, hci.command_complete(sc.LE_SET_ADVERTISING_DATA, b"\x00"))
    log.cmd(t + 4, hci.command(0x2009, bytes(32)))                     # LE Set Scan Response Data: empty
    log.evt(t + 5, hci.command_complete(0x2009, b"\x00"))
    log.cmd(t + 6, hci.command(sc.LE_SET_ADVERTISE_ENABLE, b"\x01"))
    log.evt(t + 7, hci.command_complete(sc.LE_SET_ADVERTISE_ENABLE, b"\x00"))

    interval_ms = 30.0   # 24 x 1.25 ms

    def link(h: int, at: float, first: bool, seconds: int, lose: bool) -> None:
        t = at
        sc.connect(log, t, h, PHONE_CENTRAL, role=1, interval=24, timeout=400)
        # The controller stopped advertising on connection (Vol 6 Part B 4.4.2); iOS resumes it.
        log.cmd(t + 3, hci.command(sc.LE_SET_ADVERTISE_ENABLE, b"\x01"))
        log.evt(t + 4, hci.command_complete(sc.LE_SET_ADVERTISE_ENABLE, b"\x00"))
        t += 60

        def served(req: bytes, rsp: bytes, gap: float = 2 * interval_ms) -> None:
            nonlocal t
            log.att_rx(t, h, req)
            log.att_tx(t + interval_ms / 2, h, rsp)
            log.evt(t + interval_ms, hci.number_of_completed_packets([(h, 1)]))
            t += gap

        served(att.exchange_mtu_req(517), att.exchange_mtu_rsp(185))
        served(att.read_by_group_type_req(0x0001, 0xFFFF),
               bytes([att.READ_BY_GROUP_TYPE_RSP, 6]) + b"".join(struct.pack("<HHH", *e) for e in HRP_SERVICES))
        served(att.read_by_group_type_req(0x0012, 0xFFFF), att.error_rsp(att.READ_BY_GROUP_TYPE_REQ, 0x0012, att.ATTRIBUTE_NOT_FOUND))
        served(att.read_by_type_req(0x000A, 0x0011, att.CHARACTERISTIC),
               bytes([att.READ_BY_TYPE_RSP, 7]) + b"".join(struct.pack("<HBHH", *e) for e in HRP_CHARS))
        served(att.read_by_type_req(0x0011, 0x0011, att.CHARACTERISTIC), att.error_rsp(att.READ_BY_TYPE_REQ, 0x0011, att.ATTRIBUTE_NOT_FOUND))
        served(att.find_information_req(0x000D, 0x000D), bytes([att.FIND_INFORMATION_RSP, 1]) + struct.pack("<HH", 0x000D, 0x2902))
        if first:
            served(att.read_req(HRP_LOCATION), att.read_rsp(b"\x01"))                    # Chest
        served(att.write_req(HRP_CCCD, b"\x01\x00"), att.write_rsp())
        # 1 Hz notifications; each acknowledged one connection event later while the link holds.
        n = t + 400
        silent_from = at + 60 + seconds * 1000 if lose else None
        wrote = False
        while n < at + 60 + (seconds + (4 if lose else 0)) * 1000:
            if first and not wrote and n > at + 5000:
                served_at = n - 500
                log.att_rx(served_at, h, att.write_req(HRP_CONTROL, b"\x01"))           # reset Energy Expended
                log.att_tx(served_at + interval_ms / 2, h, att.write_rsp())
                log.evt(served_at + interval_ms, hci.number_of_completed_packets([(h, 1)]))
                wrote = True
            log.att_tx(n, h, att.notification(HRP_MEASUREMENT, bpm()))
            if silent_from is None or n + interval_ms < silent_from:
                log.evt(n + interval_ms, hci.number_of_completed_packets([(h, 1)]))
            n += 1000
        end = at + 60 + (seconds + 4) * 1000 if lose else n
        log.evt(end, hci.disconnection_complete(h, 0x08 if lose else 0x13))
        return end

    end = link(0x0041, 1000.0, True, 20, lose=True)
    link(0x0042, end + 1500, False, 10, lose=False)
    path.write_bytes(log.btsnoop())


SCENARIOS = [
    ("heart-rate-healthy.btsnoop", heart_rate_healthy,
     "Heart-rate sensor: scan, connect, MTU, full discovery, DIS reads, CCCD subscribe, "
     "connection parameter update, 60 s of 1 Hz notifications, central disconnects (0x13 -> 0x16)"),
    ("heart-rate-supervision-timeout.btsnoop", heart_rate_supervision_timeout,
     "Same sensor: 20 s of notifications, the sensor goes silent, supervision timeout (0x08) 4 s later; "
     "1 s backoff, rescan, reconnect, rediscover, resubscribe, 10 s of notifications, normal disconnect"),
    ("att-timeout.btsnoop", att_timeout,
     "Custom 128-bit service: a Write Request to the control point is never answered; "
     "after the 30 s ATT timeout the host disconnects (0x13 -> 0x16)"),
    ("failed-to-establish.btsnoop", failed_to_establish,
     "Two connection attempts fail to establish (LE Connection Complete, then Disconnection Complete 0x3E), "
     "a third is cancelled (LE Create Connection Cancel -> LE Connection Complete status 0x02), the fourth works"),
    ("pairing-failed.btsnoop", pairing_failed,
     "Read -> ATT 0x05 Insufficient Authentication; LE Secure Connections passkey pairing; the lock answers "
     "Pairing Failed 0x04 Confirm Value Failed and disconnects (0x13)"),
    ("auth-errors.btsnoop", auth_errors,
     "ATT errors 0x05, 0x0F, 0x03 and application error 0x80; LE legacy Just Works pairing, "
     "LE Start Encryption, Encryption Change, key distribution; the same reads then succeed"),
    ("heart-rate-peripheral.btsnoop", heart_rate_peripheral,
     "The phone is the heart-rate sensor (GATT server, LE role 0x01): a collector connects, exchanges the MTU, "
     "discovers, reads 2A38, subscribes to 2A37, writes 2A39; the link is lost (0x08); it reconnects, "
     "resubscribes and disconnects (0x13)"),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "Captures")
    ap.add_argument("--check", action="store_true", help="validate with tshark and rewrite the README table")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    paths = []
    for index, (name, build, _) in enumerate(SCENARIOS):
        path = args.out / name
        build(path, index)
        paths.append(path)
        print(f"wrote {path} ({path.stat().st_size} bytes)")
    if args.check:
        from blegen.verify import verify
        from tshark_counts import check_files, write_readme_table
        problems = [msg for p in paths for msg in verify(str(p))]
        print("\n".join(problems) if problems else "host-stack invariants hold in every file (blegen.verify)")
        ok, rows = check_files(paths)
        ok = ok and not problems
        write_readme_table(args.out / "README.md", [(n, d) for n, _, d in SCENARIOS], rows)
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

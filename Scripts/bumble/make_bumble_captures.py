#!/usr/bin/env python3
"""Make btsnoop captures with Google's Bumble: two virtual devices (a central and a peripheral,
each a Bumble host over a Bumble software controller) on one in-process LocalLink, each host's
HCI written to its own btsnoop file. No hardware. See README.md beside this file.

    make_bumble_captures.py OUTDIR [SCENARIO...]

Each scenario writes OUTDIR/SCENARIO/central.btsnoop, OUTDIR/SCENARIO/peripheral.btsnoop and
OUTDIR/SCENARIO/truth.json (what the script did, to check the analysis against).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from bumble import att, gatt, hci, l2cap, pairing
from bumble.controller import Controller
from bumble.core import UUID
from bumble.device import Device, DeviceConfiguration, Peer
from bumble.host import Host
from bumble.link import LocalLink
from bumble.snoop import BtSnooper
from bumble.transport.common import AsyncPipeSink

CENTRAL = "C0:11:11:11:11:11"
PERIPHERAL = "C0:22:22:22:22:22"

SVC_A = "12345678-0000-1000-8000-00805f9b34fb"
CH_RW = "12345678-0001-1000-8000-00805f9b34fb"
CH_LONG = "12345678-0002-1000-8000-00805f9b34fb"
CH_NOTIFY = "12345678-0003-1000-8000-00805f9b34fb"
CH_INDICATE = "12345678-0004-1000-8000-00805f9b34fb"
CH_NOREAD = "12345678-0005-1000-8000-00805f9b34fb"
CH_AUTH = "12345678-0006-1000-8000-00805f9b34fb"
CH_WNR = "12345678-0007-1000-8000-00805f9b34fb"

LONG_VALUE = bytes(range(200))


class Pair:
    def __init__(self, outdir: Path, name: str, eatt: bool = False) -> None:
        self.dir = outdir / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.link = LocalLink()
        self.files = []
        self.devices = []
        for role, address in (("central", CENTRAL), ("peripheral", PERIPHERAL)):
            controller = Controller(role, link=self.link, public_address=address)
            host = Host(controller, AsyncPipeSink(controller))
            f = open(self.dir / f"{role}.btsnoop", "wb")
            self.files.append(f)
            host.snooper = BtSnooper(f)
            config = DeviceConfiguration(name=f"bumble-{role}", address=hci.Address(address))
            config.eatt_enabled = eatt
            device = Device(config=config, host=host)
            self.devices.append(device)
        self.central, self.peripheral = self.devices
        self.truth: dict = {"scenario": name, "events": []}

    def note(self, what: str, **kw) -> None:
        self.truth["events"].append({"what": what, **kw})

    def close(self) -> None:
        for f in self.files:
            f.close()
        (self.dir / "truth.json").write_text(json.dumps(self.truth, indent=1, default=str))


def build_gatt(device: Device) -> dict:
    def read_noread(connection):
        return b""

    rw = gatt.Characteristic(
        CH_RW,
        gatt.Characteristic.Properties.READ | gatt.Characteristic.Properties.WRITE,
        gatt.Characteristic.READABLE | gatt.Characteristic.WRITEABLE,
        b"hello",
        descriptors=[gatt.Descriptor(gatt.GATT_CHARACTERISTIC_USER_DESCRIPTION_DESCRIPTOR,
                                     gatt.Descriptor.READABLE, b"rw char")],
    )
    long = gatt.Characteristic(
        CH_LONG,
        gatt.Characteristic.Properties.READ | gatt.Characteristic.Properties.WRITE,
        gatt.Characteristic.READABLE | gatt.Characteristic.WRITEABLE,
        LONG_VALUE,
    )
    notify = gatt.Characteristic(
        CH_NOTIFY,
        gatt.Characteristic.Properties.READ | gatt.Characteristic.Properties.NOTIFY,
        gatt.Characteristic.READABLE,
        b"\x01",
    )
    indicate = gatt.Characteristic(
        CH_INDICATE,
        gatt.Characteristic.Properties.INDICATE,
        gatt.Characteristic.READABLE,
        b"\x02",
    )
    noread = gatt.Characteristic(
        CH_NOREAD,
        gatt.Characteristic.Properties.WRITE,
        gatt.Characteristic.WRITEABLE,
        b"x",
    )
    auth = gatt.Characteristic(
        CH_AUTH,
        gatt.Characteristic.Properties.READ,
        gatt.Characteristic.READ_REQUIRES_AUTHENTICATION,
        b"secret",
    )
    wnr = gatt.Characteristic(
        CH_WNR,
        gatt.Characteristic.Properties.WRITE_WITHOUT_RESPONSE,
        gatt.Characteristic.WRITEABLE,
        b"",
    )
    battery = gatt.Characteristic(
        gatt.GATT_BATTERY_LEVEL_CHARACTERISTIC,
        gatt.Characteristic.Properties.READ | gatt.Characteristic.Properties.NOTIFY,
        gatt.Characteristic.READABLE,
        bytes([87]),
    )
    device.add_services([
        gatt.Service(SVC_A, [rw, long, notify, indicate, noread, auth, wnr]),
        gatt.Service(gatt.GATT_BATTERY_SERVICE, [battery]),
    ])
    return {"rw": rw, "long": long, "notify": notify, "indicate": indicate,
            "noread": noread, "auth": auth, "wnr": wnr, "battery": battery}


async def power_and_connect(p: Pair, own_address_type=None) -> tuple:
    for d in p.devices:
        await d.power_on()
    fut = asyncio.get_running_loop().create_future()
    p.peripheral.once("connection", fut.set_result)
    await p.peripheral.start_advertising(advertising_interval_min=100.0)
    central_conn = await p.central.connect(p.peripheral.random_address)
    peripheral_conn = await fut
    p.note("connected", central_handle=central_conn.handle, peripheral_handle=peripheral_conn.handle)
    return central_conn, peripheral_conn


async def scenario_gatt(outdir: Path) -> None:
    """MTU exchange, discovery, reads, long read, long write, notify, indicate, errors, pair on
    insufficient authentication and retry, the central disconnects (0x13)."""
    p = Pair(outdir, "gatt")
    chars = build_gatt(p.peripheral)
    p.peripheral.pairing_config_factory = lambda c: pairing.PairingConfig(sc=True, mitm=False, bonding=True)
    p.central.pairing_config_factory = lambda c: pairing.PairingConfig(sc=True, mitm=False, bonding=True)
    cc, pc = await power_and_connect(p)
    peer = Peer(cc)
    mtu = await peer.request_mtu(64)
    p.note("mtu", mtu=mtu)
    await peer.discover_services()
    for s in peer.services:
        await s.discover_characteristics()
        for c in s.characteristics:
            await c.discover_descriptors()
    p.note("discovered", services=[(str(s.uuid), s.handle, s.end_group_handle) for s in peer.services],
           characteristics=[(str(c.uuid), c.handle, int(c.properties)) for s in peer.services for c in s.characteristics])
    byuuid = {str(c.uuid).upper(): c for s in peer.services for c in s.characteristics}

    def ch(u):
        return next(c for s in peer.services for c in s.characteristics if c.uuid == UUID(u))

    v = await ch(CH_RW).read_value()
    p.note("read", uuid=CH_RW, value=v.hex())
    v = await ch(CH_LONG).read_value()
    p.note("long read", uuid=CH_LONG, length=len(v))
    await ch(CH_LONG).write_value(bytes(reversed(LONG_VALUE)), with_response=True)
    p.note("long write", uuid=CH_LONG, length=len(LONG_VALUE))
    await ch(CH_RW).write_value(b"world", with_response=True)
    await ch(CH_WNR).write_value(b"\x05\x06", with_response=False)
    try:
        await peer.gatt_client.read_value(ch(CH_NOREAD).handle)
    except Exception as e:
        p.note("read error", uuid=CH_NOREAD, error=str(e))
    try:
        await ch(CH_AUTH).read_value()
    except Exception as e:
        p.note("read error", uuid=CH_AUTH, error=str(e))
    # read of a handle that does not exist
    try:
        await peer.gatt_client.read_value(0x0100)
    except Exception as e:
        p.note("read error", handle=0x100, error=str(e))
    notified = []
    await ch(CH_NOTIFY).subscribe(lambda v: notified.append(v))
    await ch(CH_INDICATE).subscribe(lambda v: notified.append(v), prefer_notify=False)
    await asyncio.sleep(0.05)
    for i in range(3):
        await p.peripheral.notify_subscribers(chars["notify"], bytes([i]))
    await p.peripheral.indicate_subscribers(chars["indicate"], b"\x10\x11")
    await asyncio.sleep(0.1)
    p.note("notified", count=len(notified))
    await cc.pair()
    p.note("paired", sc=True, mitm=False)
    await asyncio.sleep(0.1)
    v = await ch(CH_AUTH).read_value()
    p.note("read after pairing", uuid=CH_AUTH, value=v.hex())
    await cc.disconnect(hci.HCI_REMOTE_USER_TERMINATED_CONNECTION_ERROR)
    p.note("central disconnects", reason=0x13)
    await asyncio.sleep(0.1)
    p.close()


class PasskeyDelegate(pairing.PairingDelegate):
    def __init__(self, io, passkey, key_dist=None):
        kw = {}
        if key_dist is not None:
            kw = dict(local_initiator_key_distribution=key_dist, local_responder_key_distribution=key_dist)
        super().__init__(io_capability=io, **kw)
        self.passkey = passkey

    async def generate_passkey(self) -> int:
        return self.passkey

    async def get_number(self):
        return self.passkey

    async def display_number(self, number, digits):
        pass


async def scenario_pairing(outdir: Path, name: str, sc: bool, passkey: int | None, wrong: bool = False) -> None:
    p = Pair(outdir, name)
    build_gatt(p.peripheral)
    dist = (pairing.PairingDelegate.KeyDistribution.DISTRIBUTE_ENCRYPTION_KEY
            | pairing.PairingDelegate.KeyDistribution.DISTRIBUTE_IDENTITY_KEY
            | pairing.PairingDelegate.KeyDistribution.DISTRIBUTE_SIGNING_KEY)
    if passkey is None:
        pd = PasskeyDelegate(pairing.PairingDelegate.NO_OUTPUT_NO_INPUT, 0, dist)
        cd = PasskeyDelegate(pairing.PairingDelegate.NO_OUTPUT_NO_INPUT, 0, dist)
    else:
        pd = PasskeyDelegate(pairing.PairingDelegate.DISPLAY_OUTPUT_ONLY, passkey, dist)
        cd = PasskeyDelegate(pairing.PairingDelegate.KEYBOARD_INPUT_ONLY, passkey + (1 if wrong else 0), dist)
    p.peripheral.pairing_config_factory = lambda c: pairing.PairingConfig(sc=sc, mitm=passkey is not None, bonding=True, delegate=pd)
    p.central.pairing_config_factory = lambda c: pairing.PairingConfig(sc=sc, mitm=passkey is not None, bonding=True, delegate=cd)
    cc, pc = await power_and_connect(p)
    try:
        await cc.pair()
        p.note("paired", sc=sc, passkey=passkey, keys="LTK IRK CSRK both ways")
    except Exception as e:
        p.note("pairing failed", error=str(e))
    await asyncio.sleep(0.1)
    peer = Peer(cc)
    await peer.discover_services()
    try:
        for s in peer.services:
            await s.discover_characteristics()
        c = next(c for s in peer.services for c in s.characteristics if c.uuid == UUID(CH_AUTH))
        v = await c.read_value()
        p.note("read", uuid=CH_AUTH, value=v.hex())
    except Exception as e:
        p.note("read error", uuid=CH_AUTH, error=str(e))
    # the peripheral ends this one: the central sees 0x13 from the remote
    await pc.disconnect(hci.HCI_REMOTE_USER_TERMINATED_CONNECTION_ERROR)
    p.note("peripheral disconnects", reason=0x13)
    await asyncio.sleep(0.1)
    p.close()


async def scenario_reject_pairing(outdir: Path) -> None:
    """The peripheral refuses pairing (Pairing Not Supported): pairing failure, then the central
    disconnects with Authentication Failure 0x05."""
    p = Pair(outdir, "pairing-rejected")
    build_gatt(p.peripheral)

    class Refuse(pairing.PairingDelegate):
        async def accept(self):
            return False

    p.peripheral.pairing_config_factory = lambda c: pairing.PairingConfig(sc=True, mitm=True, bonding=True, delegate=Refuse())
    cc, pc = await power_and_connect(p)
    try:
        await cc.pair()
    except Exception as e:
        p.note("pairing failed", error=str(e))
    await cc.disconnect(hci.HCI_AUTHENTICATION_FAILURE_ERROR)
    p.note("central disconnects", reason=0x05)
    await asyncio.sleep(0.1)
    p.close()


async def scenario_no_answer(outdir: Path) -> None:
    """The central tries to connect to an address nobody advertises: the connection attempt
    times out (the host cancels it)."""
    p = Pair(outdir, "no-answer")
    for d in p.devices:
        await d.power_on()
    try:
        # Bumble's controller sends no LE Connection Complete (0x02) after the cancel, so its host
        # waits for ever: the capture ends after LE Create Connection Cancel's Command Complete.
        await asyncio.wait_for(p.central.connect("C0:33:33:33:33:33", timeout=0.5), 2.0)
    except BaseException as e:
        p.note("connect failed", error=repr(e))
    await asyncio.sleep(0.1)
    p.close()


async def scenario_coc(outdir: Path) -> None:
    """An LE credit-based channel (SPSM 0x0080) carrying SDUs larger than its MPS, and EATT."""
    p = Pair(outdir, "coc-eatt", eatt=True)
    build_gatt(p.peripheral)
    received = []
    server = p.peripheral.create_l2cap_server(
        spec=l2cap.LeCreditBasedChannelSpec(psm=0x80, mtu=512, mps=64, max_credits=8),
        handler=lambda ch: setattr(ch, "sink", received.append))
    cc, pc = await power_and_connect(p)
    ch = await cc.create_l2cap_channel(spec=l2cap.LeCreditBasedChannelSpec(psm=0x80, mtu=512, mps=64, max_credits=8))
    for i in range(4):
        ch.write(bytes([i]) * 150)
    await ch.drain()
    await asyncio.sleep(0.1)
    p.note("coc", psm=0x80, sdus_sent=4, sdus_received=len(received))
    await ch.disconnect()
    p.note("coc closed")
    peer = Peer(cc)
    try:
        await peer.discover_services()
        from bumble import gatt_client
        clients = await gatt_client.Client.connect_eatt(cc, count=2)
        p.note("eatt", bearers=len(clients))
        cl = clients[0]
        await cl.discover_services()
        for s in cl.services:
            await s.discover_characteristics()
        c = next(c for s in cl.services for c in s.characteristics if c.uuid == UUID(CH_RW))
        v = await c.read_value()
        p.note("eatt read", uuid=CH_RW, value=v.hex())
    except Exception as e:
        p.note("eatt failed", error=repr(e))
    await cc.disconnect()
    p.note("central disconnects", reason=0x13)
    await asyncio.sleep(0.1)
    p.close()


async def scenario_ext_adv(outdir: Path) -> None:
    """Extended advertising with a long advertising data, scanned by the central, then a
    connection from it; the central disconnects with 0x13."""
    from bumble.device import AdvertisingParameters, AdvertisingEventProperties
    from bumble.core import AdvertisingData
    p = Pair(outdir, "ext-adv")
    build_gatt(p.peripheral)
    for d in p.devices:
        await d.power_on()
    ad = AdvertisingData([(AdvertisingData.COMPLETE_LOCAL_NAME, b"bumble-ext-adv"),
                          (AdvertisingData.MANUFACTURER_SPECIFIC_DATA, b"\xe0\x00" + bytes(range(100)))])
    reports = []
    p.central.on("advertisement", lambda a: reports.append(a))
    fut = asyncio.get_running_loop().create_future()
    p.peripheral.once("connection", fut.set_result)
    aset = await p.peripheral.create_advertising_set(
        advertising_parameters=AdvertisingParameters(
            advertising_event_properties=AdvertisingEventProperties(is_connectable=True, is_legacy=False)),
        advertising_data=bytes(ad))
    await p.central.start_scanning(legacy=False)
    await asyncio.sleep(0.3)
    await p.central.stop_scanning()
    p.note("scanned", reports=len(reports))
    cc = await p.central.connect(PERIPHERAL, own_address_type=hci.OwnAddressType.PUBLIC)
    pc = await fut
    p.note("connected", central_handle=cc.handle)
    await cc.disconnect()
    p.note("central disconnects", reason=0x13)
    await asyncio.sleep(0.1)
    p.close()


SCENARIOS = {
    "gatt": scenario_gatt,
    "sc-justworks": lambda o: scenario_pairing(o, "sc-justworks", sc=True, passkey=None),
    "sc-passkey": lambda o: scenario_pairing(o, "sc-passkey", sc=True, passkey=123456),
    "legacy-justworks": lambda o: scenario_pairing(o, "legacy-justworks", sc=False, passkey=None),
    "legacy-passkey": lambda o: scenario_pairing(o, "legacy-passkey", sc=False, passkey=123456),
    "sc-passkey-wrong": lambda o: scenario_pairing(o, "sc-passkey-wrong", sc=True, passkey=123456, wrong=True),
    "pairing-rejected": scenario_reject_pairing,
    "no-answer": scenario_no_answer,
    "coc-eatt": scenario_coc,
    "ext-adv": scenario_ext_adv,
}


async def main() -> None:
    outdir = Path(sys.argv[1])
    names = sys.argv[2:] or list(SCENARIOS)
    for name in names:
        try:
            await asyncio.wait_for(SCENARIOS[name](outdir), 30)
            print(f"{name}: ok")
        except Exception as e:  # keep going: one scenario failing should not hide the others
            import traceback
            traceback.print_exc()
            print(f"{name}: FAILED {e!r}")


if __name__ == "__main__":
    asyncio.run(main())

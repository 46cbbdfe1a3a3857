"""A GATT server database that answers ATT discovery and read requests the way a real
server lays them out (Core v5.4 Vol 3 Part G 3, 4.4-4.7; Part F 3.4)."""

from __future__ import annotations

import struct
import uuid as uuidlib

from . import att

# Characteristic properties (Vol 3 Part G 3.3.1.1)
BROADCAST, READ, WRITE_WITHOUT_RESPONSE, WRITE, NOTIFY, INDICATE = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20

CCCD = 0x2902
USER_DESCRIPTION = 0x2901


def uuid128(text: str) -> bytes:
    """'6E400001-B5A3-F393-E0A9-E50E24DCCA9E' -> 16 bytes little-endian (wire order)."""
    return uuidlib.UUID(text).bytes[::-1]


class Descriptor:
    def __init__(self, uuid: int | bytes, value: bytes = b""):
        self.uuid, self.value, self.handle = uuid, value, 0


class Characteristic:
    def __init__(self, uuid: int | bytes, properties: int, value: bytes = b"",
                 descriptors: list[Descriptor] | None = None):
        self.uuid, self.properties, self.value = uuid, properties, value
        self.descriptors = list(descriptors or [])
        if properties & (NOTIFY | INDICATE) and not any(d.uuid == CCCD for d in self.descriptors):
            self.descriptors.insert(0, Descriptor(CCCD, b"\x00\x00"))
        self.decl_handle = self.value_handle = 0

    def descriptor(self, uuid: int | bytes) -> Descriptor:
        return next(d for d in self.descriptors if d.uuid == uuid)

    @property
    def cccd(self) -> Descriptor:
        return self.descriptor(CCCD)


class Service:
    """A primary service; `handle` pins its declaration handle (servers often leave gaps)."""

    def __init__(self, uuid: int | bytes, characteristics: list[Characteristic], handle: int | None = None):
        self.uuid, self.characteristics, self.handle = uuid, characteristics, handle
        self.start = self.end = 0


class Database:
    """Services laid out from handle `first_handle` (Generic Access is usually first)."""

    def __init__(self, services: list[Service], first_handle: int = 1, gap: int = 0):
        self.services = services
        self.attributes: dict[int, tuple[int | bytes, object]] = {}  # handle -> (type, owner)
        h = first_handle
        for s in services:
            if s.handle is not None:
                if s.handle < h:
                    raise ValueError(f"service pinned at 0x{s.handle:04X} overlaps the one before")
                h = s.handle
            s.start = h
            self.attributes[h] = (att.PRIMARY_SERVICE, s)
            h += 1
            for c in s.characteristics:
                c.decl_handle, c.value_handle = h, h + 1
                self.attributes[h] = (att.CHARACTERISTIC, c)
                self.attributes[h + 1] = (c.uuid, c)
                h += 2
                for d in c.descriptors:
                    d.handle = h
                    self.attributes[h] = (d.uuid, d)
                    h += 1
            s.end = h - 1
            h += gap

    # --- lookups -----------------------------------------------------------------------------
    def characteristic(self, uuid: int | bytes) -> Characteristic:
        for s in self.services:
            for c in s.characteristics:
                if c.uuid == uuid:
                    return c
        raise KeyError(uuid)

    def service(self, uuid: int | bytes) -> Service:
        return next(s for s in self.services if s.uuid == uuid)

    def characteristic_of(self, handle: int) -> Characteristic | None:
        owner = self.attributes.get(handle, (None, None))[1]
        return owner if isinstance(owner, Characteristic) else None

    # --- server responses --------------------------------------------------------------------
    def read_by_group_type(self, start: int, end: int, mtu: int) -> bytes:
        found = [s for s in self.services if start <= s.start <= end]
        if not found:
            return att.error_rsp(att.READ_BY_GROUP_TYPE_REQ, start, att.ATTRIBUTE_NOT_FOUND)
        size = len(att.uuid_bytes(found[0].uuid))
        entries = []
        for s in found:
            if len(att.uuid_bytes(s.uuid)) != size or 2 + (len(entries) + 1) * (4 + size) > mtu:
                break
            entries.append((s.start, s.end, att.uuid_bytes(s.uuid)))
        return att.read_by_group_type_rsp(entries)

    def read_by_type_characteristics(self, start: int, end: int, mtu: int) -> bytes:
        found = [c for s in self.services for c in s.characteristics if start <= c.decl_handle <= end]
        if not found:
            return att.error_rsp(att.READ_BY_TYPE_REQ, start, att.ATTRIBUTE_NOT_FOUND)
        size = len(att.uuid_bytes(found[0].uuid))
        entries = []
        for c in found:
            if len(att.uuid_bytes(c.uuid)) != size or 2 + (len(entries) + 1) * (5 + size) > mtu:
                break
            entries.append((c.decl_handle, struct.pack("<BH", c.properties, c.value_handle) + att.uuid_bytes(c.uuid)))
        return att.read_by_type_rsp(entries)

    def find_information(self, start: int, end: int, mtu: int) -> bytes:
        found = [(h, t) for h, (t, _) in sorted(self.attributes.items()) if start <= h <= end]
        if not found:
            return att.error_rsp(att.FIND_INFORMATION_REQ, start, att.ATTRIBUTE_NOT_FOUND)
        size = len(att.uuid_bytes(found[0][1]))
        entries = []
        for h, t in found:
            if len(att.uuid_bytes(t)) != size or 2 + (len(entries) + 1) * (2 + size) > mtu:
                break
            entries.append((h, t))
        return att.find_information_rsp(entries)

    def value(self, handle: int) -> bytes:
        t, owner = self.attributes[handle]
        if isinstance(owner, Service):
            return att.uuid_bytes(owner.uuid)
        if isinstance(owner, Characteristic):
            if handle == owner.decl_handle:
                return struct.pack("<BH", owner.properties, owner.value_handle) + att.uuid_bytes(owner.uuid)
            return owner.value
        return owner.value

    def read(self, handle: int, mtu: int) -> bytes:
        if handle not in self.attributes:
            return att.error_rsp(att.READ_REQ, handle, att.INVALID_HANDLE)
        return att.read_rsp(self.value(handle)[:mtu - 1])

    def write(self, handle: int, value: bytes) -> bytes:
        if handle not in self.attributes:
            return att.error_rsp(att.WRITE_REQ, handle, att.INVALID_HANDLE)
        owner = self.attributes[handle][1]
        if isinstance(owner, (Characteristic, Descriptor)):
            owner.value = value
        return att.write_rsp()


def generic_access(device_name: str, appearance: int) -> Service:
    return Service(0x1800, [
        Characteristic(0x2A00, READ, device_name.encode()),
        Characteristic(0x2A01, READ, struct.pack("<H", appearance)),
        # Peripheral Preferred Connection Parameters: min, max (1.25 ms), latency, timeout (10 ms)
        Characteristic(0x2A04, READ, struct.pack("<HHHH", 24, 40, 0, 400)),
    ])


def generic_attribute() -> Service:
    return Service(0x1801, [Characteristic(0x2A05, INDICATE, b"")])


def device_information(manufacturer: str, model: str, firmware: str, hardware: str | None = None,
                       serial: str | None = None, handle: int | None = None) -> Service:
    chars = [Characteristic(0x2A29, READ, manufacturer.encode()),
             Characteristic(0x2A24, READ, model.encode())]
    if serial:
        chars.append(Characteristic(0x2A25, READ, serial.encode()))
    if hardware:
        chars.append(Characteristic(0x2A27, READ, hardware.encode()))
    chars.append(Characteristic(0x2A26, READ, firmware.encode()))
    return Service(0x180A, chars, handle)

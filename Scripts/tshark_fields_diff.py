#!/usr/bin/env python3
"""Compare the field values blereplay decodes with tshark's, frame by frame.

    tshark_fields_diff.py [--blereplay PATH] [--examples N] [--all] [--generated] [FILE|DIR ...]

Where `compare_info_with_tshark.py` compares the one-line summary with tshark's Info column,
this compares *values*: for every frame of a capture, what blereplay stored (the timeline of
`blereplay import`, read through `timeline --json`, which carries the `-v` fields, and the
`att_pdus` table) against tshark's `-T fields` for the same frame number. With no FILE it runs
over every HCI capture in ../shared/captures, the project's Captures/*.btsnoop and, with
--generated (default when no FILE), the generator's outputs (blegen.shapes, sessions, linkloss,
android, scenarios, dualrole, ios, edges) written to a temporary directory. Air captures (LINKTYPE 251/256/272) are skipped: they
go through the link-layer decoder, which this script does not cover.

Checks (each counts one comparison per value; a disagreement is listed with example frames):

    time          frame.time_epoch vs ts_us (microseconds)
    direction     hci_h4.direction vs tx/rx (captures with a direction)
    hci.*         LE (Enhanced) Connection Complete, Connection Update Complete: handle, role,
                  peer address and type, interval, latency, supervision timeout, clock accuracy;
                  Disconnection Complete handle and reason; PHY Update Complete tx/rx PHY;
                  Data Length Change octets and times; Encryption Change enable; Number Of
                  Completed Packets handles and counts; Command Status/Complete status
    adv.*         advertising reports (legacy, extended, direct): address, address type, RSSI,
                  TX power, primary/secondary PHY, SID; AD structures: local name, 16-bit UUIDs,
                  company id, TX power level, appearance, flags
    l2cap.*       LE signalling: Connection Parameter Update Request (interval min/max, latency,
                  timeout) and Response (result); LE/Enhanced credit-based connection request
                  and response (SPSM, MTU, MPS, initial credits, result); Flow Control Credit
    att.*         opcode, handle(s), error code, request opcode in error, value, MTU, UUIDs,
                  starting/ending handle, offset
    smp.*         opcode, IO capability, OOB flag, AuthReq, key size, key distribution, Pairing
                  Failed reason, keypress notification type

Frames and fields compared are printed per capture (stderr) and per check; exit status 1 when
there is a disagreement. What is deliberately not compared is counted by reason at the end:

    * a malformed packet (tshark's `_ws.malformed`, or ours): its fields are not compared;
    * LINKTYPE 187 records no direction; we take it from the packet type and the ATT opcode;
    * tshark 4.0 does not know Encryption Change [v2] (Core v5.4 Vol 4 Part E 7.7.8.a) nor the
      L2CAP Credit Based Connection Request/Response 0x17/0x18 (Vol 3 Part A 4.25, 4.26);
    * tshark reads an attribute value through the GATT database it rebuilt, keyed by handle and
      kept across connections: a notification of handle 0x0017 on one link is decoded as the
      Characteristic declaration 0x0017 was on another (its `Value` then lacks the first bytes);
    * an extended advertisement the controller split over several reports (data status 01,
      7.7.65.13): we join the fragments into the last report, tshark dissects each alone.

Other presentation differences are normalised, not counted: RSSI/TX_Power 127 ("not
available") is NULL with us; tshark prints a 128-bit UUID in either byte order; it adds to
Read By Group Type / Find Information responses UUIDs that are not in the PDU (the request's
type, types from its GATT database), so there every UUID we read must be among tshark's; its
16-bit UUID list of an advertisement includes Service Data UUIDs.

Needs tshark (4.0) and capinfos on PATH; run after `swift build` (or pass --blereplay).
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_info_with_tshark import CAPTURES, ROOT, is_air  # noqa: E402

AGG = "\x1f"

FIELDS = [
    "frame.number", "frame.time_epoch", "_ws.malformed", "hci_h4.direction", "hci_h4.type",
    "bthci_cmd.opcode", "bthci_cmd.connection_handle", "bthci_cmd.reason", "bthci_cmd.le_con_interval_min", "bthci_cmd.le_con_interval_max", "bthci_cmd.le_con_latency", "bthci_cmd.le_supv_timeout", "bthci_cmd.le_scan_interval", "bthci_cmd.le_scan_window", "bthci_cmd.le_own_address_type", "bthci_cmd.le_peer_address_type", "bthci_cmd.le_direct_address_type", "bthci_cmd.le_advts_interval_min", "bthci_cmd.le_advts_interval_max", "bthci_cmd.le_scan_type", "bthci_cmd.le_scan_enable", "bthci_cmd.le_filter_duplicates",
    "bthci_evt.code", "bthci_evt.opcode", "bthci_evt.le_meta_subevent", "bthci_evt.status",
    "bthci_evt.reason", "bthci_evt.connection_handle", "bthci_evt.role", "bthci_evt.le_peer_address_type",
    "bthci_evt.bd_addr", "bthci_evt.le_con_interval", "bthci_evt.le_con_latency", "bthci_evt.le_supv_timeout",
    "bthci_evt.le_master_clock_accuracy", "bthci_evt.link_type", "bthci_evt.encryption_mode", "bthci_evt.lmp_vers_nr", "bthci_evt.comp_id", "bthci_evt.lmp_sub_vers_nr", "bthci_evt.le_local_rpa", "bthci_evt.le_peer_rpa", "bthci_evt.le_acl_data_pkt_len", "bthci_evt.le_total_num_acl_data_pkts", "bthci_evt.max_data_length_acl", "bthci_evt.max_data_num_acl", "bthci_evt.max_data_length_sco", "bthci_evt.max_data_num_sco", "btcommon.eir_ad.entry.flags.le_limited_discoverable_mode", "bthci_evt.le_tx_phy", "bthci_evt.le_rx_phy", "bthci_evt.max_tx_octets",
    "bthci_evt.max_tx_time", "bthci_evt.max_rx_octets", "bthci_evt.max_rx_time", "bthci_evt.encryption_enable",
    "bthci_evt.num_handles", "bthci_evt.num_compl_packets", "bthci_evt.le_num_reports", "bthci_evt.le_address_type",
    "bthci_evt.rssi", "bthci_evt.le_rssi", "bthci_evt.tx_power", "bthci_evt.primary_phy", "bthci_evt.secondary_phy",
    "bthci_evt.advertising_sid", "bthci_evt.le_advts_event_type", "bthci_evt.le_ext_advts_event_type",
    "btcommon.eir_ad.entry.device_name", "btcommon.eir_ad.entry.uuid_16", "btcommon.eir_ad.entry.company_id",
    "btcommon.eir_ad.entry.power_level", "btcommon.eir_ad.entry.appearance", "btcommon.eir_ad.entry.type",
    "btl2cap.cid", "btl2cap.cmd_code", "btl2cap.min_interval", "btl2cap.max_interval", "btl2cap.slave_latency",
    "btl2cap.timeout_multiplier", "btl2cap.move_result", "btl2cap.le_result", "btl2cap.result", "btl2cap.le_psm",
    "btl2cap.psm", "btl2cap.sig_mtu", "btl2cap.option_mtu", "btl2cap.mps", "btl2cap.initial_credits",
    "btl2cap.credits", "btl2cap.scid", "btl2cap.dcid", "btl2cap.rej_reason",
    "btatt.opcode", "btatt.handle", "btatt.error_code", "btatt.req_opcode_in_error", "btatt.value",
    "btatt.client_rx_mtu", "btatt.server_rx_mtu", "btatt.uuid16", "btatt.uuid128", "btatt.starting_handle",
    "btatt.ending_handle", "btatt.group_end_handle", "btatt.characteristic_properties", "btatt.offset", "btatt.flags",
    "btsmp.opcode", "btsmp.io_capability", "btsmp.oob_data_flags", "btsmp.authreq", "btsmp.max_enc_key_size",
    "btsmp.initiator_key_distribution", "btsmp.responder_key_distribution", "btsmp.reason",
    "btsmp.notification_type",
]

def tshark_rows(path: Path) -> dict[int, dict[str, list[str]]]:
    args = ["tshark", "-r", str(path), "-T", "fields", "-E", "occurrence=a", "-E", f"aggregator={AGG}"]
    for f in FIELDS:
        args += ["-e", f]
    out = subprocess.run(args, capture_output=True, text=True, errors="replace").stdout
    rows = {}
    for line in out.split("\n"):
        if not line:
            continue
        parts = line.split("\t")
        parts += [""] * (len(FIELDS) - len(parts))
        row = {f: (v.split(AGG) if v else []) for f, v in zip(FIELDS, parts)}
        rows[int(row["frame.number"][0])] = row
    return rows


def ours(blereplay: str, path: Path, work: Path) -> tuple[dict[int, dict], dict[int, list[tuple]]] | None:
    db = work / f"{len(list(work.glob('*.db')))}.db"
    p = subprocess.run([blereplay, "import", str(path), "--db", str(db)], capture_output=True, text=True)
    if p.returncode not in (0,):
        return None
    p = subprocess.run([blereplay, "timeline", str(db), "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        return None
    rows = {o["id"]: o for o in map(json.loads, p.stdout.splitlines())}
    att: dict[int, list[tuple]] = collections.defaultdict(list)
    con = sqlite3.connect(db)
    for r in con.execute("SELECT packet_id, opcode, handle, error_code, value FROM att_pdus ORDER BY rowid"):
        att[r[0]].append(r[1:])
    chars = {}
    for r in con.execute("SELECT connection_id, server, declaration_handle, value_handle, properties, uuid FROM gatt_characteristics"):
        chars[(r[0], r[1], r[2])] = (r[3], r[4], uuid_key(r[5]))
    for o in rows.values():
        o["_chars"] = chars
    for r in con.execute("SELECT packet_id, tx_power FROM adv_reports ORDER BY rowid"):
        if r[0] in rows:
            rows[r[0]].setdefault("_tx_power", []).append(r[1])
    con.close()
    return rows, att


# --- value helpers -------------------------------------------------------------------------

def ints(vals: list[str]) -> list[int]:
    out = []
    for v in vals:
        try:
            out.append(int(v, 0))
        except ValueError:
            pass
    return out


def kv(detail: str | None) -> dict[str, str]:
    """`k=v k=v` of a link event's detail; a value may hold spaces (`role=0x00 central`)."""
    if not detail:
        return {}
    parts = re.split(r"(?:^| )([a-z_0-9]+)=", detail)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def lead_int(s: str | None) -> int | None:
    if s is None:
        return None
    m = re.match(r"\s*(-?(?:0x[0-9a-fA-F]+|\d+))", s)
    return int(m.group(1), 0) if m else None


PHY = {"1M": 1, "2M": 2, "Coded": 3}


def phy(s: str | None) -> int | None:
    return None if s is None else PHY.get(s, lead_int(s))


CLOCK_ACCURACY = {0: "251-500 ppm", 1: "151-250 ppm", 2: "101-150 ppm", 3: "76-100 ppm", 4: "51-75 ppm",
                  5: "31-50 ppm", 6: "21-30 ppm", 7: "0-20 ppm"}

ADDRESS_TYPES = {"public": 0, "random": 1, "public-identity": 2, "random-identity": 3, "rpa-or-public": 2,
                 "rpa-or-random": 3, "anonymous": 0xFF}


class Frame:
    """One frame's comparisons: `eq(check, tshark, ours)` counts and records."""

    def __init__(self, name: str, number: int, stats: "Stats"):
        self.name, self.number, self.stats = name, number, stats

    def known(self, check: str, why: str) -> None:
        """A value not compared for a reason listed in the report (a tshark limitation or a
        presentation difference), counted per reason."""
        self.stats.known[(check, why)] += 1

    def eq(self, check: str, t, o, note: str = "") -> None:
        self.stats.compared[check] += 1
        self.stats.per_file[self.name] += 1
        if t != o:
            self.stats.bad[check].append(f"{self.name}#{self.number}: tshark {t!r}, ours {o!r}{note}")


class Stats:
    def __init__(self):
        self.compared: collections.Counter = collections.Counter()
        self.per_file: collections.Counter = collections.Counter()
        self.frames: collections.Counter = collections.Counter()
        self.bad: dict[str, list[str]] = collections.defaultdict(list)
        self.known: collections.Counter = collections.Counter()
        self.ours_malformed: list[str] = []
        # per capture: (address, SID-less) of extended reports whose data is still incomplete
        self.fragments: set = set()


# --- checks --------------------------------------------------------------------------------

def check_frame(f: Frame, t: dict[str, list[str]], o: dict, att_rows: list[tuple]) -> None:
    # Time: tshark prints seconds with nanoseconds; we store microseconds.
    if t["frame.time_epoch"]:
        s, _, frac = t["frame.time_epoch"][0].partition(".")
        f.eq("time", int(s) * 1_000_000 + int((frac + "000000")[:6]), o["ts_us"])
    if t["hci_h4.direction"]:
        tdir = {"0x00": "tx", "0x01": "rx"}.get(t["hci_h4.direction"][0], "?")
        if tdir == "?" and o["direction"] != "?":
            f.known("direction", "LINKTYPE 187 records no direction: we take it from the packet type / ATT opcode")
        else:
            f.eq("direction", tdir, o["direction"])
    if t["_ws.malformed"] or o.get("malformed"):
        if t["_ws.malformed"] and o.get("malformed"):
            f.known("fields", "malformed for tshark and for us: fields not compared")
        elif t["_ws.malformed"]:
            f.known("fields", "malformed for tshark only (it stops there): fields not compared")
        else:
            f.known("fields", "malformed for us only: fields not compared")
            f.stats.ours_malformed.append(f"{f.name}#{f.number}: {o['summary']}")
        track_fragments(f, (o.get("decoded") or {}).get("adv_reports", []), (t["bthci_evt.le_meta_subevent"] or [""])[0])
        return
    if re.search(r"ACL fragment|\((controller|vendor) diagnostics\)", o["summary"]):
        return  # an ACL fragment we did not join, vendor diagnostics on an ACL handle
    dec = o.get("decoded") or {}
    code = (t["bthci_evt.code"] or [""])[0]
    sub = (t["bthci_evt.le_meta_subevent"] or [""])[0]
    if code:
        check_event(f, t, o, dec, code, sub)
    elif t["bthci_cmd.opcode"] and dec.get("hci"):
        check_command(f, t, dec["hci"][0])
    if t["btl2cap.cmd_code"]:
        check_signalling(f, t, o)
    if t["btatt.opcode"]:
        check_att(f, t, o, dec, att_rows)
    if t["btsmp.opcode"]:
        check_smp(f, t, o, dec)


def handles(t) -> list[int]:
    """tshark's connection handles, 12 bits: the upper 4 bits of the u16 are not the handle
    (Core v5.4 Vol 4 Part E 5.4.2, 7.7); we show the 12 bits (a failed Connection Complete's 0xFFFF
    is 0x0FFF with us)."""
    return [h & 0x0FFF for h in ints(t["bthci_evt.connection_handle"])]


def link(dec: dict, *names: str) -> dict | None:
    for l in dec.get("hci", []):
        if any(l["name"].startswith(n) for n in names):
            return l
    return None


def check_event(f: Frame, t, o, dec, code: str, sub: str) -> None:
    summary = o["summary"]
    if code == "0x3e" and sub in ("0x01", "0x0a"):
        l = link(dec, "LE Connection Complete", "LE Enhanced Connection Complete")
        d = kv(l and l.get("detail"))
        f.eq("hci.conn.status", lead_int(t["bthci_evt.status"][0]) if t["bthci_evt.status"] else None,
             l.get("status") if l else None)
        if d:
            f.eq("hci.conn.handle", handles(t)[:1], [lead_int(d.get("handle"))])
            f.eq("hci.conn.role", ints(t["bthci_evt.role"])[:1], [lead_int(d.get("role"))])
            f.eq("hci.conn.peer_address", t["bthci_evt.bd_addr"][:1], [d.get("peer_address", "").lower()])
            f.eq("hci.conn.peer_address_type", ints(t["bthci_evt.le_peer_address_type"])[:1],
                 [ADDRESS_TYPES.get(d.get("peer_address_type", ""), d.get("peer_address_type"))])
            f.eq("hci.conn.interval", ints(t["bthci_evt.le_con_interval"])[:1], [lead_int(d.get("interval"))])
            f.eq("hci.conn.latency", ints(t["bthci_evt.le_con_latency"])[:1], [lead_int(d.get("latency"))])
            f.eq("hci.conn.timeout", ints(t["bthci_evt.le_supv_timeout"])[:1], [lead_int(d.get("timeout"))])
            accuracy = [k for k, v in CLOCK_ACCURACY.items() if v == d.get("central_clock_accuracy")]
            f.eq("hci.conn.clock_accuracy", ints(t["bthci_evt.le_master_clock_accuracy"])[:1], accuracy)
            if sub == "0x0a":
                f.eq("hci.conn.local_rpa", t["bthci_evt.le_local_rpa"][:1], [d.get("local_rpa", "").lower()])
                f.eq("hci.conn.peer_rpa", t["bthci_evt.le_peer_rpa"][:1], [d.get("peer_rpa", "").lower()])
    elif code == "0x3e" and sub == "0x03":
        l = link(dec, "LE Connection Update Complete")
        d = kv(l and l.get("detail"))
        if d:
            f.eq("hci.update.handle", handles(t)[:1], [lead_int(d.get("handle"))])
            f.eq("hci.update.interval", ints(t["bthci_evt.le_con_interval"])[:1], [lead_int(d.get("interval"))])
            f.eq("hci.update.latency", ints(t["bthci_evt.le_con_latency"])[:1], [lead_int(d.get("latency"))])
            f.eq("hci.update.timeout", ints(t["bthci_evt.le_supv_timeout"])[:1], [lead_int(d.get("timeout"))])
    elif code == "0x3e" and sub == "0x0c":
        l = link(dec, "LE PHY Update Complete")
        d = kv(l and l.get("detail"))
        f.eq("hci.phy.tx", ints(t["bthci_evt.le_tx_phy"])[:1], [phy(d.get("tx_phy"))] if d else [])
        f.eq("hci.phy.rx", ints(t["bthci_evt.le_rx_phy"])[:1], [phy(d.get("rx_phy"))] if d else [])
    elif code == "0x3e" and sub == "0x07":
        l = link(dec, "LE Data Length Change")
        d = kv(l and l.get("detail"))
        for k in ("max_tx_octets", "max_tx_time", "max_rx_octets", "max_rx_time"):
            f.eq(f"hci.dle.{k}", ints(t[f"bthci_evt.{k}"])[:1], [lead_int(d.get(k))] if d else [])
    elif code == "0x3e" and sub in ("0x02", "0x0d", "0x0b"):
        check_reports(f, t, o, dec, sub)
    elif code == "0x03":
        # Connection Complete (BR/EDR, 7.7.3)
        d = kv((link(dec, "Connect Complete", "Connection Complete") or {}).get("detail"))
        if d:
            f.eq("hci.bredr.handle", handles(t)[:1], [lead_int(d.get("handle"))])
            f.eq("hci.bredr.bd_addr", t["bthci_evt.bd_addr"][:1], [d.get("bd_addr", "").lower()])
            f.eq("hci.bredr.link_type", ints(t["bthci_evt.link_type"])[:1], [lead_int(d.get("link_type"))])
            if "encryption_enabled" in d:
                f.eq("hci.bredr.encryption", ints(t["bthci_evt.encryption_mode"])[:1], [lead_int(d["encryption_enabled"])])
    elif code == "0x0c":
        # Read Remote Version Information Complete (7.7.12)
        d = kv((link(dec, "Read Remote Version Information Complete") or {}).get("detail"))
        if d:
            f.eq("hci.version.version", ints(t["bthci_evt.lmp_vers_nr"])[:1], [lead_int(d.get("version"))])
            f.eq("hci.version.company", ints(t["bthci_evt.comp_id"])[:1], [lead_int(d.get("company"))])
            f.eq("hci.version.subversion", ints(t["bthci_evt.lmp_sub_vers_nr"])[:1], [lead_int(d.get("subversion"))])
    elif code == "0x05":
        d = kv((link(dec, "Disconnect Complete") or {}).get("detail"))
        m = re.search(r"\bhandle (0x[0-9A-Fa-f]{4})", summary)  # a CIS's has no link event
        handle = lead_int(d["handle"]) if "handle" in d else int(m.group(1), 16) if m else None
        f.eq("hci.disc.handle", handles(t)[:1], [handle] if handle is not None else [])
        m = re.search(r"\breason (0x[0-9A-Fa-f]{2})", summary)
        f.eq("hci.disc.reason", ints(t["bthci_evt.reason"])[:1], [int(m.group(1), 16)] if m else [])
    elif code in ("0x08", "0x59"):
        m = re.search(r"\bhandle 0x[0-9A-Fa-f]{4} (on|off)\b", summary)
        te = ints(t["bthci_evt.encryption_enable"])[:1]
        if code == "0x59" and not te:
            f.known("hci.encryption.enabled", "tshark 4.0 does not know Encryption Change [v2] (Core v5.4 Vol 4 Part E 7.7.8.a)")
            return
        f.eq("hci.encryption.enabled", [1 if te[0] else 0] if te else [], [1 if m.group(1) == "on" else 0] if m else [])
    elif code == "0x13":
        completed = handles(t)
        counts = ints(t["bthci_evt.num_compl_packets"])
        pairs = re.findall(r"(0x[0-9A-Fa-f]{4}): (\d+)", summary)
        n = min(len(completed), 4)
        f.eq("hci.nocp.handles", completed[:n], [int(h, 16) for h, _ in pairs][:n])
        f.eq("hci.nocp.counts", counts[:n], [int(c) for _, c in pairs][:n])
    elif code == "0x0e" and (l := link(dec, "Command Complete (Read Buffer Size)", "Command Complete (LE Read Buffer Size")):
        d = kv(l.get("detail"))
        for field, key in (("bthci_evt.max_data_length_acl", "acl_data_packet_length"),
                           ("bthci_evt.max_data_num_acl", "total_num_acl_data_packets"),
                           ("bthci_evt.max_data_length_sco", "synchronous_data_packet_length"),
                           ("bthci_evt.max_data_num_sco", "total_num_synchronous_data_packets"),
                           ("bthci_evt.le_acl_data_pkt_len", "le_acl_data_packet_length"),
                           ("bthci_evt.le_total_num_acl_data_pkts", "total_num_le_acl_data_packets")):
            if t[field] or key in d:
                f.eq("hci.buffers." + key, ints(t[field])[:1], [lead_int(d[key])] if key in d else [])
    if code in ("0x0e", "0x0f") and t["bthci_evt.status"]:
        m = re.search(r"\bstatus (0x[0-9A-Fa-f]{2})", summary)
        ts = ints(t["bthci_evt.status"])[:1]
        if ts and ts[0] != 0 or m:
            f.eq("hci.cmd.status", ts, [int(m.group(1), 16)] if m else [0])


def track_fragments(f: Frame, reports: list[dict], sub: str) -> bool:
    """Whether a report continues an extended advertisement the controller split (data status 01,
    Core v5.4 Vol 4 Part E 7.7.65.13); remembers the ones still incomplete."""
    joined = False
    for r in reports:
        key = r["address"]
        joined |= key in f.stats.fragments
        if sub == "0x0d" and (r["event_type"] >> 5) & 3 == 1:
            f.stats.fragments.add(key)
        else:
            f.stats.fragments.discard(key)
    return joined


# tshark's command field -> the suffix of our `-v` keys holding the same value (in wire order;
# LE Extended Create Connection repeats them per PHY: `1m_interval_min`, `coded_interval_min`)
COMMAND_KEYS = [("bthci_cmd.connection_handle", "handle"), ("bthci_cmd.reason", "reason"),
                ("bthci_cmd.le_con_interval_min", "interval_min"), ("bthci_cmd.le_con_interval_max", "interval_max"),
                ("bthci_cmd.le_con_latency", "latency"), ("bthci_cmd.le_supv_timeout", "timeout"),
                ("bthci_cmd.le_scan_interval", "scan_interval"), ("bthci_cmd.le_scan_window", "scan_window"),
                ("bthci_cmd.le_own_address_type", "own_address_type"), ("bthci_cmd.le_peer_address_type", "peer_address_type"),
                ("bthci_cmd.le_advts_interval_min", "(?:advertising|primary)_interval_min"),
                ("bthci_cmd.le_advts_interval_max", "(?:advertising|primary)_interval_max"),
                ("bthci_cmd.le_scan_type", "scan_type"), ("bthci_cmd.le_scan_enable", "(?:scan_)?enable"),
                ("bthci_cmd.le_filter_duplicates", "filter_duplicates")]


def check_command(f: Frame, t, l: dict) -> None:
    """The parameters of the commands `-v` decodes (Core v5.4 Vol 4 Part E 7.1.6, 7.8)."""
    d = kv(l.get("detail"))
    if not d:
        return
    if not any(t[field] for field, _ in COMMAND_KEYS):
        f.known("hci.cmd", "tshark 4.0 does not decode the parameters of LE Extended Create Connection [v2] "
                "and LE Set Extended Advertising Parameters [v2] (Core v5.4 Vol 4 Part E 7.8.66, 7.8.53)")
        return
    for field, name in COMMAND_KEYS:
        keys = [k for k in d if re.fullmatch(rf"(?:(?:1m|2m|coded)_)?{name}", k)]
        ours_v = [ADDRESS_TYPES.get(d[k], lead_int(d[k])) if "address_type" in name else lead_int(d[k]) for k in keys]
        theirs = ints(t[field])
        if name == "peer_address_type" and not theirs:  # tshark's name in LE Set Advertising Parameters
            theirs = ints(t["bthci_cmd.le_direct_address_type"])
        if field == "bthci_cmd.connection_handle":
            theirs = [x & 0x0FFF for x in theirs]
        if theirs or ours_v:
            f.eq("hci.cmd." + field.removeprefix("bthci_cmd."), theirs, ours_v, f"  ({l['name']})")


def check_reports(f: Frame, t, o, dec, sub: str) -> None:
    reports = dec.get("adv_reports", [])
    n = len(t["bthci_evt.bd_addr"])
    f.eq("adv.count", n, len(reports))
    f.eq("adv.address", t["bthci_evt.bd_addr"], [r["address"].lower() for r in reports])
    # RSSI 127 is "not available" (Core v5.4 Vol 4 Part E 7.7.65.2, 7.7.65.13): stored as NULL
    rssi = [None if x == 127 else x for x in ints(t["bthci_evt.rssi"] or t["bthci_evt.le_rssi"])]
    if rssi:
        f.eq("adv.rssi", rssi, [r["rssi"] for r in reports])
    if sub == "0x0d":
        # TX_Power 127 is "not available" (Core v5.4 Vol 4 Part E 7.7.65.13): the column then holds
        # the AD TX Power Level, if any, so only reports with a TX_Power are compared
        tx, otx = ints(t["bthci_evt.tx_power"]), o.get("_tx_power", [])
        if len(tx) == len(otx):
            pairs = [(a, b) for a, b in zip(tx, otx) if a != 127]
            if pairs:
                f.eq("adv.tx_power", [a for a, _ in pairs], [b for _, b in pairs])
        else:
            f.eq("adv.tx_power", tx, otx)
    if sub == "0x02" and t["bthci_evt.le_address_type"]:
        f.eq("adv.address_type", ints(t["bthci_evt.le_address_type"]),
             [ADDRESS_TYPES.get(r["address_type"], r["address_type"]) for r in reports])
    if sub == "0x0d":
        f.eq("adv.event_type", ints(t["bthci_evt.le_ext_advts_event_type"]), [r["event_type"] for r in reports])
    elif sub == "0x02":
        f.eq("adv.event_type", ints(t["bthci_evt.le_advts_event_type"]), [r["event_type"] for r in reports])
    data = [r.get("data") or {} for r in reports]
    joined = track_fragments(f, reports, sub)
    if joined or any((r["event_type"] >> 5) & 3 == 1 for r in reports if sub == "0x0d"):
        f.known("adv.ad", "extended report split by the controller: we join the fragments into the last one (README, adv_reports)")
        return
    names = [re.sub(r'^"(.*)"( \(\d+ NUL byte\(s\) of padding\))?$', r"\1", v) for d in data for k, v in d.items() if "Local Name" in k and isinstance(v, str)]
    if t["btcommon.eir_ad.entry.device_name"] or names:
        f.eq("adv.ad.name", t["btcommon.eir_ad.entry.device_name"], names)
    uuids = []
    for d in data:
        for k, v in d.items():
            for v in (v if isinstance(v, list) else [v]):
                if "16-bit Service" in k and "Solicit" not in k and "Data" not in k:
                    uuids += [u.strip().lower() for u in v.split(",") if u.strip()]
                elif k.startswith("Service Data - 16-bit"):
                    uuids.append(v.split(":")[0].strip().lower())  # tshark's uuid_16 holds service data's too
    if t["btcommon.eir_ad.entry.uuid_16"] or uuids:
        f.eq("adv.ad.uuid16", sorted(f"{x:04x}" for x in ints(t["btcommon.eir_ad.entry.uuid_16"])), sorted(uuids))
    companies = [int(v.split()[0].rstrip(":"), 16) for d in data for k, v in d.items()
                 if "Manufacturer" in k for v in (v if isinstance(v, list) else [v])]
    if t["btcommon.eir_ad.entry.company_id"] or companies:
        f.eq("adv.ad.company_id", ints(t["btcommon.eir_ad.entry.company_id"]), companies)
    tx = [lead_int(v) for d in data for k, v in d.items() if k.lower().startswith("tx power")]
    if t["btcommon.eir_ad.entry.power_level"] or tx:
        f.eq("adv.ad.tx_power_level", ints(t["btcommon.eir_ad.entry.power_level"]), tx)
    flags = [lead_int(v) for d in data for k, v in d.items() if k == "Flags"]
    if t["btcommon.eir_ad.entry.flags.le_limited_discoverable_mode"] or flags:
        f.eq("adv.ad.flags.limited", ints(t["btcommon.eir_ad.entry.flags.le_limited_discoverable_mode"]),
             [x & 1 for x in flags if x is not None])
    app = [lead_int(v) for d in data for k, v in d.items() if k.startswith("Appearance")]
    if t["btcommon.eir_ad.entry.appearance"] or app:
        f.eq("adv.ad.appearance", ints(t["btcommon.eir_ad.entry.appearance"]), app)


def check_signalling(f: Frame, t, o) -> None:
    s = o["summary"]
    codes = ints(t["btl2cap.cmd_code"])
    if len(codes) != 1:
        return
    code = codes[0]
    nums = lambda label: [int(x, 0) for x in re.findall(rf"\b{label}[ =:]+(0x[0-9A-Fa-f]+|\d+)", s, re.I)]
    if code == 0x12 and t["btl2cap.min_interval"]:
        # the summary gives milliseconds: `interval 7.5-15 ms latency 0 timeout 2000 ms`
        m = re.search(r"interval ([\d.]+)(?:-([\d.]+))? ms", s)
        ours_iv = [float(m.group(1)), float(m.group(2) or m.group(1))] if m else None
        f.eq("l2cap.update.interval_ms", [x * 1.25 for x in ints(t["btl2cap.min_interval"] + t["btl2cap.max_interval"])],
             ours_iv, f"  ({s})")
        f.eq("l2cap.update.latency", ints(t["btl2cap.slave_latency"]), nums("latency"), f"  ({s})")
        m = re.search(r"timeout (\d+) ms", s)
        f.eq("l2cap.update.timeout_ms", [x * 10 for x in ints(t["btl2cap.timeout_multiplier"])],
             [int(m.group(1))] if m else None, f"  ({s})")
    elif code == 0x13 and t["btl2cap.move_result"]:
        f.eq("l2cap.update.result", ints(t["btl2cap.move_result"]),
             [0] if re.search(r"accepted", s, re.I) else [1] if re.search(r"rejected", s, re.I) else None, f"  ({s})")
    elif code in (0x14, 0x17):
        if not t["btl2cap.le_psm"]:
            f.known("l2cap.credit", "tshark 4.0 does not decode Credit Based Connection Request/Response "
                    "0x17/0x18 (Core v5.4 Vol 3 Part A 4.25, 4.26)")
            return
        f.eq("l2cap.credit.spsm", ints(t["btl2cap.le_psm"]), nums("spsm")[:1] or nums("psm")[:1], f"  ({s})")
        for fld, label in (("btl2cap.sig_mtu", "mtu"), ("btl2cap.mps", "mps"), ("btl2cap.initial_credits", "credits")):
            if t[fld]:
                f.eq(f"l2cap.credit.{label}", ints(t[fld])[:1], nums(label)[:1], f"  ({s})")
    elif code in (0x15, 0x18):
        for fld, label in (("btl2cap.sig_mtu", "mtu"), ("btl2cap.mps", "mps"), ("btl2cap.initial_credits", "credits")):
            if t[fld]:
                f.eq(f"l2cap.credit.{label}", ints(t[fld])[:1], nums(label)[:1], f"  ({s})")
        if t["btl2cap.le_result"]:
            m = re.search(r"result (0x[0-9A-Fa-f]{4})", s)
            ok = re.search(r"\b(success|accepted)\b", s, re.I)
            f.eq("l2cap.credit.result", ints(t["btl2cap.le_result"])[:1],
                 [int(m.group(1), 16)] if m else [0] if ok else None, f"  ({s})")
    elif code == 0x01 and t["btl2cap.rej_reason"]:
        m = re.search(r"reason (0x[0-9A-Fa-f]{4})", s)
        f.eq("l2cap.reject.reason", ints(t["btl2cap.rej_reason"])[:1], [int(m.group(1), 16)] if m else [], f"  ({s})")
    elif code in (0x06, 0x07):
        # Disconnection Request/Response: `DCID 0x0040 SCID 0x0041` (Core v5.4 Vol 3 Part A 4.6, 4.7)
        for fld, label in (("btl2cap.dcid", "DCID"), ("btl2cap.scid", "SCID")):
            m = re.search(rf"{label} (0x[0-9A-Fa-f]{{4}})", s)
            f.eq(f"l2cap.disconnect.{label.lower()}", ints(t[fld])[:1], [int(m.group(1), 16)] if m else [], f"  ({s})")
    elif code == 0x16 and t["btl2cap.credits"]:
        f.eq("l2cap.credit.credits", ints(t["btl2cap.credits"])[:1], nums("credits")[:1], f"  ({s})")


BASE_SUFFIX = "00001000800000805f9b34fb"


def uuid_key(u: str) -> str:
    """A UUID as hex without punctuation, in whichever byte order sorts first: tshark 4.0 prints a
    128-bit btatt.uuid128 in wire (little-endian) order in some PDUs and reversed in others."""
    h = re.sub(r"[^0-9a-f]", "", re.sub(r"^0x", "", u.strip().lower()))
    r = "".join(reversed([h[i:i + 2] for i in range(0, len(h), 2)]))
    if len(h) == 32:
        for x in (h, r):  # on the Bluetooth Base UUID: its 16/32-bit alias, as we print it
            if x.endswith(BASE_SUFFIX):
                return x[:8].lstrip("0").rjust(4, "0")
    return h if len(h) <= 8 else min(h, r)


def tshark_uuids(t) -> list[str]:
    return [uuid_key(x) for x in t["btatt.uuid16"] + t["btatt.uuid128"]]


def field_values(att: dict, prefix: str) -> list[str]:
    out = []
    for k, v in (att.get("fields") or {}).items():
        if k.startswith(prefix):
            out += v if isinstance(v, list) else [v]
    return out


def check_att(f: Frame, t, o, dec, att_rows: list[tuple]) -> None:
    ops = ints(t["btatt.opcode"])
    if len(ops) != 1:
        return  # several PDUs in one frame (Multiple Handle Value Notification is one opcode)
    op = ops[0]
    f.eq("att.pdu", 1, len(att_rows))
    if not att_rows:
        return
    opcode, handle, err, value = att_rows[0]
    f.eq("att.opcode", op, opcode)
    att = dec.get("att") or {}
    if att.get("malformed"):
        return
    th = ints(t["btatt.handle"])
    if op == 0x01:
        f.eq("att.error.code", ints(t["btatt.error_code"])[:1], [err])
        f.eq("att.error.request", ints(t["btatt.req_opcode_in_error"])[:1],
             [lead_int(x) for x in field_values(att, "Request Opcode")])
        f.eq("att.error.handle", th[:1], [handle])
    elif op in (0x0A, 0x0C, 0x12, 0x16, 0x17, 0x1B, 0x1D, 0x52, 0xD2):
        f.eq("att.handle", th[:1], [handle])
    if op in (0x0B, 0x0D, 0x12, 0x16, 0x17, 0x1B, 0x1D, 0x52) and t["btatt.characteristic_properties"]:
        f.known("att.value", "tshark 4.0 reads a value as a Characteristic declaration where its GATT "
                "database (kept across connections) says the handle is one; the PDU carries a value")
    elif op in (0x0B, 0x0D, 0x12, 0x16, 0x17, 0x1B, 0x1D, 0x52) and t["btatt.value"]:
        got = value.hex() if isinstance(value, bytes) else value
        f.eq("att.value", t["btatt.value"][0].replace(":", ""), got)
    if op in (0x0C, 0x16, 0x17) and t["btatt.offset"]:
        f.eq("att.offset", ints(t["btatt.offset"])[:1], [lead_int(x) for x in field_values(att, "Value Offset")][:1])
    if op == 0x09 and t["btatt.characteristic_properties"]:
        # Characteristic declarations read (Core v5.4 Vol 3 Part G 3.3.1): what the connection's
        # GATT table (gatt_characteristics) holds for each declaration handle tshark lists: value
        # handle and properties. Not the UUID: in -T fields tshark's btatt.uuid16 mixes the
        # declaration's UUID with `[UUID: …]` it generates from its GATT database.
        pairs = list(zip(th[0::2], th[1::2]))
        props = ints(t["btatt.characteristic_properties"])
        server = "remote" if o["direction"] == "rx" else "local"
        for (decl, value_handle), p in zip(pairs, props):
            row = o["_chars"].get((o.get("connection_id"), server, decl))
            f.eq("att.declaration", (value_handle, p), row[:2] if row else None, f"  (declaration 0x{decl:04X})")
    if op == 0x07:
        # Handles Information List: `0x0001..0x0005` per entry (Core v5.4 Vol 3 Part F 3.4.3.4)
        rng = [x.split("..") for x in field_values(att, "Handles Information")]
        f.eq("att.found.handles", th + ints(t["btatt.group_end_handle"]),
             [int(a, 16) for a, _ in rng] + [int(b, 16) for _, b in rng])
    if op == 0x18 and t["btatt.flags"]:
        f.eq("att.flags", ints(t["btatt.flags"])[:1], [lead_int(x) for x in field_values(att, "Flags")][:1])
    if op == 0x20 and not th:
        f.known("att.handles", "tshark 4.0 does not decode Read Multiple Variable Request (Core v5.4 Vol 3 Part F 3.4.4.11)")
    elif op in (0x0E, 0x20):
        f.eq("att.handles", th, [lead_int(x) for x in field_values(att, "Set Of Handles") + field_values(att, "Handle")])
    if op == 0x02:
        f.eq("att.mtu", ints(t["btatt.client_rx_mtu"]), [lead_int(x) for x in field_values(att, "Client Rx MTU")])
    if op == 0x03:
        f.eq("att.mtu", ints(t["btatt.server_rx_mtu"]), [lead_int(x) for x in field_values(att, "Server Rx MTU")])
    if op in (0x04, 0x06, 0x08, 0x10):
        f.eq("att.range", ints(t["btatt.starting_handle"] + t["btatt.ending_handle"]),
             [lead_int(x) for x in field_values(att, "Starting Handle") + field_values(att, "Ending Handle")])
    if op in (0x06, 0x08, 0x10):
        ou = [uuid_key(x.split()[0]) for x in field_values(att, "Attribute Type") + field_values(att, "Attribute Group Type")]
        f.eq("att.uuid", tshark_uuids(t)[:1], ou[:1])
    if op == 0x11:
        keys = [k for k in (att.get("fields") or {}) if k.startswith("Handles ")]
        f.eq("att.group.handles", th + ints(t["btatt.group_end_handle"]),
             [int(x, 16) for k in keys for x in k.split()[1].split("..")[:1]]
             + [int(k.split()[1].split("..")[1], 16) for k in keys])
        # tshark adds UUIDs that are not in the PDU (the request's group type, `[UUID: …]` of handles
        # from the GATT database it rebuilt): every UUID we read must be among tshark's
        ou = [uuid_key(x.split()[0]) for x in field_values(att, "Handles ")]
        tu = set(tshark_uuids(t))
        f.eq("att.group.uuids", sorted(u for u in ou if u in tu), sorted(ou))
    if op == 0x05:
        th_ = [lead_int(k.split()[1]) for k in (att.get("fields") or {}) if k.startswith("Handle ")]
        f.eq("att.info.handles", th, th_)
        ou = [uuid_key(x.split()[0]) for x in field_values(att, "Handle ")]
        # as above, tshark adds types from its GATT database: every UUID we read must be among tshark's
        tu = set(tshark_uuids(t))
        f.eq("att.info.uuids", sorted(u for u in ou if u in tu), sorted(ou))


IO_CAPABILITIES = {"Display Only": 0, "Display Yes/No": 1, "Keyboard Only": 2, "No Input, No Output": 3,
                   "Keyboard, Display": 4}
AUTH_BITS = {"Bonding": 0x01, "MITM": 0x04, "SecureConnection": 0x08, "Keypress": 0x10, "CT2": 0x20}
KEYPRESS = {"Passkey Entry Started": 0, "Passkey Digit Entered": 1, "Passkey Digit Erased": 2, "Passkey Cleared": 3,
            "Passkey Entry Completed": 4}
KEY_BITS = {"LTK": 0x01, "IRK": 0x02, "CSRK": 0x04, "Linkkey": 0x08}


def named_bits(text: str, bits: dict[str, int]) -> int | None:
    """The bit field behind a `Bonding, MITM, CT2` list (with `Reserved (0xC0)` parts)."""
    v = 0
    for part in (p.strip() for p in text.split(",")):
        if part in bits:
            v |= bits[part]
        elif m := re.match(r"(?:Reserved|Bonding Flags) \((0x[0-9A-Fa-f]+)\)$|Bonding Flags (0x[0-9A-Fa-f]+)$", part):
            v |= int(m.group(1) or m.group(2), 16)
        elif part not in ("No Bonding", "None", ""):
            return None
    return v


def check_smp(f: Frame, t, o, dec) -> None:
    smp = dec.get("smp") or []
    ops = ints(t["btsmp.opcode"])
    if len(ops) != 1:
        return
    f.eq("smp.pdu", 1, len(smp))
    if not smp:
        return
    op = ops[0]
    detail = smp[0].get("detail") or ""
    if op in (0x01, 0x02):
        # `Pairing Request: IO Capability: Keyboard, Display | OOB | AuthReq: Bonding, MITM | Initiator
        # Key(s): LTK, IRK | Responder Key(s): LTK` (Core v5.4 Vol 3 Part H 3.5.1, 3.5.2)
        parts = dict(p.split(": ", 1) for p in re.sub(r"^[^:]*: ", "", detail).split(" | ") if ": " in p)
        oob = " | OOB" in detail
        f.eq("smp.io_capability", ints(t["btsmp.io_capability"])[:1],
             [IO_CAPABILITIES.get(parts.get("IO Capability", ""))], f"  ({detail})")
        f.eq("smp.oob_data_flag", ints(t["btsmp.oob_data_flags"])[:1], [1 if oob else 0], f"  ({detail})")
        f.eq("smp.authreq", ints(t["btsmp.authreq"])[:1], [named_bits(parts.get("AuthReq", ""), AUTH_BITS)], f"  ({detail})")
        m = re.search(r"[Kk]ey [Ss]ize:? (\d+)", detail)
        f.eq("smp.max_key_size", ints(t["btsmp.max_enc_key_size"])[:1], [int(m.group(1))] if m else [], f"  ({detail})")
        f.eq("smp.initiator_keys", ints(t["btsmp.initiator_key_distribution"])[:1],
             [named_bits(parts.get("Initiator Key(s)", ""), KEY_BITS)], f"  ({detail})")
        f.eq("smp.responder_keys", ints(t["btsmp.responder_key_distribution"])[:1],
             [named_bits(parts.get("Responder Key(s)", ""), KEY_BITS)], f"  ({detail})")
    elif op == 0x05:
        # the reason code is the `errors` row of the packet (layer smp)
        f.eq("smp.reason", ints(t["btsmp.reason"])[:1], [e["code"] for e in dec.get("errors", []) if e["layer"] == "smp"][:1])
    elif op == 0x0E:
        m = re.search(r": (.*)$", detail)
        f.eq("smp.keypress", ints(t["btsmp.notification_type"])[:1], [KEYPRESS.get(m.group(1) if m else "", detail)])


# --- driver --------------------------------------------------------------------------------

def generated(work: Path) -> list[Path]:
    out = work / "generated"
    out.mkdir()
    for module, *extra in (("shapes",), ("sessions", "--count", "30"), ("linkloss",), ("android",), ("scenarios",),
                           ("dualrole",), ("ios",), ("edges",)):
        d = out / module
        d.mkdir()
        p = subprocess.run([sys.executable, "-m", f"blegen.{module}", str(d), *extra], cwd=ROOT / "Scripts",
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(f"blegen.{module}: {p.stderr.strip().splitlines()[-1:] }", file=sys.stderr)
    return sorted(p for p in out.rglob("*") if p.is_file() and p.suffix in (".btsnoop", ".pcap", ".pcapng", ".pklg", ".log"))


def inputs(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        if not p.exists():
            sys.exit(f"tshark_fields_diff: no such file or directory: {p}")
        files += sorted(f for f in p.iterdir() if f.is_file() and f.suffix != ".md") if p.is_dir() else [p]
    return files


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--blereplay", default=str(ROOT / ".build" / "release" / "blereplay"))
    ap.add_argument("--examples", type=int, default=3)
    ap.add_argument("--all", action="store_true", help="print every disagreement")
    ap.add_argument("--generated", action="store_true", help="add the generator's captures")
    a = ap.parse_args()
    stats = Stats()
    with tempfile.TemporaryDirectory(prefix="blereplay-fields-") as tmp:
        work = Path(tmp)
        files = inputs(a.files) if a.files else inputs([str(CAPTURES)]) + sorted((ROOT / "Captures").glob("*.btsnoop"))
        if a.generated or not a.files:
            files += generated(work)
        names = collections.Counter(p.name for p in files)
        for path in files:
            if is_air(path):
                continue
            label = path.name if names[path.name] == 1 else f"{path.parent.name}/{path.name}"
            got = ours(a.blereplay, path, work)
            if got is None:
                print(f"skipped {path.name}: blereplay refused it", file=sys.stderr)
                continue
            rows, att = got
            stats.fragments.clear()
            before = sum(stats.compared.values())
            for number, trow in tshark_rows(path).items():
                if number not in rows:
                    continue
                stats.frames[label] += 1
                check_frame(Frame(label, number, stats), trow, rows[number], att.get(number, []))
            print(f"{label}: {stats.frames[label]} frames, {sum(stats.compared.values()) - before} fields",
                  file=sys.stderr)
    total = sum(len(v) for v in stats.bad.values())
    print(f"{sum(stats.frames.values())} frames of {len(stats.frames)} captures, "
          f"{sum(stats.compared.values())} fields compared; {total} disagreement(s) in {len(stats.bad)} check(s)\n")
    print(f"{'check':<34} {'compared':>9} {'differ':>7}")
    for check in sorted(stats.compared):
        bad = stats.bad.get(check, [])
        print(f"{check:<34} {stats.compared[check]:>9} {len(bad):>7}")
        for e in bad if a.all else bad[:a.examples]:
            print("    " + e)
    if stats.known:
        print(f"\nnot compared, by reason ({sum(stats.known.values())} values):")
        for (check, why), n in sorted(stats.known.items()):
            print(f"  {check:<24} {n:>7}  {why}")
    for e in stats.ours_malformed if a.all else stats.ours_malformed[:a.examples * 4]:
        print("    malformed for us only: " + e)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())

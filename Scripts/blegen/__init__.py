"""Building blocks for synthetic BLE HCI captures (btsnoop, HCI, L2CAP, ATT/GATT, SMP, sessions).

Used by Scripts/make_sample_captures.py and Scripts/make_bench_capture.py. Every builder
returns the exact bytes of a packet as the Core spec (v5.4) lays it out; H4 packets include
their type byte.
"""

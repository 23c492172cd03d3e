"""Print the ICRC scapy computes for every RoCEv2 frame of a pcap file.

Usage: /usr/bin/python3 scapy_icrc.py FILE.pcap

One line per frame: "NUMBER,COMPUTED,STORED", the frame's number from 1
and, as hex in wire order, the ICRC that scapy.contrib.roce's
BTH.compute_icrc gives (the masked pseudo-header it builds for IPv4, packed
least significant byte first) and the four trailer bytes the frame holds;
"NUMBER,none" for a frame scapy does not see a BTH in. wire's tools_test.go
runs it.
"""
import struct
import sys

from scapy.contrib.roce import BTH
from scapy.utils import rdpcap

for number, pkt in enumerate(rdpcap(sys.argv[1]), 1):
    if BTH not in pkt:
        print("%d,none" % number)
        continue
    bth = pkt[BTH]
    # compute_icrc ignores its argument: it rebuilds the pseudo-header from
    # the underlying IP and UDP layers and the BTH's payload.
    computed = bth.compute_icrc(b"")
    stored = struct.pack("!I", bth.icrc)
    print("%d,%s,%s" % (number, computed.hex(), stored.hex()))

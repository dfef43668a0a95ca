# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The attacker of the hostile-frame suite, run inside its network
namespace (ip netns exec NS /usr/bin/python3 hostile_peer.py IFACE MAC):
one scapy layer-2 socket on IFACE. Each request on stdin is a JSON line

    {"frames": [hex, ...], "repeat": N, "listen_ms": T}

it sends the frames (the list N times over, as fast as the socket takes
them), then listens T ms for what the target (Ethernet source MAC) sends
back to UDP port 4791, and answers one JSON line

    {"sent": n, "seconds": s, "replies": [hex, ...], "nreplies": m}

(at most 2000 replies are returned, all are counted). EOF ends it."""

import json
import select
import sys
import time

from scapy.arch.linux import L2Socket

MAX_REPLIES = 2000


def from_target(frame, mac):
    """An IPv4 UDP 4791 frame from `mac`."""
    return (len(frame) >= 42 and frame[6:12] == mac and frame[12:14] == b"\x08\x00"
            and frame[23] == 17 and frame[36:38] == b"\x12\xb7")


def drain(sock):
    while select.select([sock], [], [], 0)[0]:
        sock.recv_raw()


def main():
    iface, mac = sys.argv[1], bytes.fromhex(sys.argv[2].replace(":", ""))
    sock = L2Socket(iface=iface)
    print(json.dumps({"ready": iface}), flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        frames = [bytes.fromhex(h) for h in req.get("frames", [])]
        drain(sock)
        t0 = time.monotonic()
        sent = 0
        for _ in range(req.get("repeat", 1)):
            for f in frames:
                sock.send(f)
                sent += 1
        seconds = time.monotonic() - t0
        replies, n = [], 0
        end = time.monotonic() + req.get("listen_ms", 300) / 1000.0
        while True:
            left = end - time.monotonic()
            if left <= 0:
                break
            if not select.select([sock], [], [], left)[0]:
                continue
            _, pkt, _ = sock.recv_raw()
            if pkt and from_target(pkt, mac):
                n += 1
                if len(replies) < MAX_REPLIES:
                    replies.append(pkt.hex())
        print(json.dumps({"sent": sent, "seconds": seconds, "replies": replies, "nreplies": n}),
              flush=True)
    sock.close()


if __name__ == "__main__":
    main()

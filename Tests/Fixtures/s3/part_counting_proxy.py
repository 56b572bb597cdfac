"""A loopback HTTP proxy in front of moto that counts multipart part uploads in flight.

  part_counting_proxy.py UPSTREAM_PORT STATS.json PORT_FILE [SPOOL_PARENT]

Listens on a free 127.0.0.1 port (written to PORT_FILE), forwards every request unchanged
(the Host header included, so SigV4 signatures still verify) to 127.0.0.1:UPSTREAM_PORT, and
holds each `UploadPart` (a request whose query has partNumber=) for half a second first, so
parts a client sends at once overlap here. STATS.json gets {"now", "max", "parts"} after
each change: parts in flight now, the most at once, and how many were sent.

With SPOOL_PARENT (the client's TMPDIR), each whole-object PUT is held 0.3 s, and "spool_max"
records the most finished shards (`*_stats.json` files) seen at once in the client's
`webimage-s3-spool-*` folders when a PUT arrives.
"""
import http.client
import http.server
import glob
import json
import os
import sys
import threading
import time

upstream_port, stats_path, port_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
spool_parent = sys.argv[4] if len(sys.argv) > 4 else None
lock = threading.Lock()
state = {"now": 0, "max": 0, "parts": 0, "spool_max": 0}


def save():
    with open(stats_path, "w") as f:
        json.dump(state, f)


class Forward(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        is_part = "partNumber=" in self.path
        if is_part:
            with lock:
                state["now"] += 1
                state["parts"] += 1
                state["max"] = max(state["max"], state["now"])
                save()
            time.sleep(0.5)
        elif spool_parent and self.command == "PUT":
            finished = len(glob.glob(os.path.join(spool_parent, "webimage-s3-spool-*", "*_stats.json")))
            with lock:
                state["spool_max"] = max(state["spool_max"], finished)
                save()
            time.sleep(0.3)
        try:
            upstream = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=120)
            upstream.request(self.command, self.path, body=body, headers=dict(self.headers.items()))
            answer = upstream.getresponse()
            data = answer.read()
            self.send_response(answer.status)
            for name, value in answer.getheaders():
                if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
        finally:
            if is_part:
                with lock:
                    state["now"] -= 1
                    save()

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = forward


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Forward)
with open(port_path, "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()

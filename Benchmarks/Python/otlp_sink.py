"""A loopback OTLP/HTTP receiver for the serve bench's OpenTelemetry row: it takes every
export POST (`/v1/traces`, `/v1/metrics`, `/v1/logs`), answers 200 with an empty
protobuf body (an empty Export*ServiceResponse, which is what a collector sends when it
accepts everything), and counts requests and bytes per path, so the row can say the spans
did arrive. It does not decode them: the test suite (OpenTelemetryTests) checks what they
hold; here only their cost to the proxy is measured."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class OTLPSink:
    def __init__(self):
        self.counts, self.bytes = {}, {}
        self.lock = threading.Lock()
        sink = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with sink.lock:
                    sink.counts[self.path] = sink.counts.get(self.path, 0) + 1
                    sink.bytes[self.path] = sink.bytes.get(self.path, 0) + len(body)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()

    def received(self, path="/v1/traces"):
        """(export requests, bytes) that arrived at `path`."""
        with self.lock:
            return self.counts.get(path, 0), self.bytes.get(path, 0)

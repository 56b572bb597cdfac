"""An OTLP/HTTP receiver on loopback for OpenTelemetryTests, decoding with the official
`opentelemetry-proto` messages (PyPI), as a collector would.

  otlp_receiver.py PORT_FILE OUT.jsonl            answer every export with 200
  otlp_receiver.py PORT_FILE OUT.jsonl --silent   accept connections, never answer

Listens on a free 127.0.0.1 port (written to PORT_FILE once listening). Each POST to
/v1/traces, /v1/logs or /v1/metrics (application/x-protobuf, gzip or not) is parsed as
ExportTraceServiceRequest, ExportLogsServiceRequest or ExportMetricsServiceRequest, and one
JSON line per span, log record or metric is appended to OUT.jsonl:
  {"signal": "span", "service", "name", "kind", "trace_id", "span_id", "parent_span_id", "attributes"}
  {"signal": "log", "service", "body", "severity", "trace_id", "span_id", "attributes"}
  {"signal": "metric", "service", "name"}
Ids are lower-case hex ("" when empty). A body that does not parse gets 400 and a line
{"signal": "error", "path", "error"}.
"""
import gzip
import http.server
import json
import os
import socket
import sys
import threading

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest, ExportLogsServiceResponse
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest, ExportMetricsServiceResponse)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest, ExportTraceServiceResponse

port_path, out_path = sys.argv[1], sys.argv[2]
silent = "--silent" in sys.argv[3:]
lock = threading.Lock()


def write(lines):
    with lock, open(out_path, "a") as out:
        for line in lines:
            out.write(json.dumps(line) + "\n")


def value(any_value):
    d = MessageToDict(any_value, preserving_proto_field_name=True)
    if not d:
        return None
    (kind, v), = d.items()
    if kind == "int_value":
        return int(v)
    return v


def attributes(kvs):
    return {kv.key: value(kv.value) for kv in kvs}


def service(resource):
    return attributes(resource.attributes).get("service.name")


def spans(body):
    request = ExportTraceServiceRequest.FromString(body)
    for rs in request.resource_spans:
        for ss in rs.scope_spans:
            for s in ss.spans:
                yield {"signal": "span", "service": service(rs.resource), "name": s.name, "kind": s.kind,
                       "trace_id": s.trace_id.hex(), "span_id": s.span_id.hex(),
                       "parent_span_id": s.parent_span_id.hex(), "attributes": attributes(s.attributes)}


def logs(body):
    request = ExportLogsServiceRequest.FromString(body)
    for rl in request.resource_logs:
        for sl in rl.scope_logs:
            for r in sl.log_records:
                yield {"signal": "log", "service": service(rl.resource), "body": value(r.body),
                       "severity": r.severity_text, "trace_id": r.trace_id.hex(), "span_id": r.span_id.hex(),
                       "attributes": attributes(r.attributes)}


def metrics(body):
    request = ExportMetricsServiceRequest.FromString(body)
    for rm in request.resource_metrics:
        for sm in rm.scope_metrics:
            for m in sm.metrics:
                yield {"signal": "metric", "service": service(rm.resource), "name": m.name}


ROUTES = {
    "/v1/traces": (spans, ExportTraceServiceResponse),
    "/v1/logs": (logs, ExportLogsServiceResponse),
    "/v1/metrics": (metrics, ExportMetricsServiceResponse),
}


class Receiver(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        route = ROUTES.get(self.path)
        if route is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        parse, response = route
        try:
            write(list(parse(body)))
        except Exception as error:  # a malformed export is the exporter's bug: record it
            write([{"signal": "error", "path": self.path, "error": repr(error)}])
            self.send_response(400)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        answer = response().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


def hold_forever(listener):
    """Accepts connections and never answers (nor closes) them."""
    held = []
    while True:
        connection, _ = listener.accept()
        held.append(connection)


if silent:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    port = listener.getsockname()[1]
else:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    port = server.server_address[1]
with open(port_path + ".tmp", "w") as f:
    f.write(str(port))
os.rename(port_path + ".tmp", port_path)
if silent:
    hold_forever(listener)
else:
    server.serve_forever()

"""A throw-away nginx on 127.0.0.1 serving the bench corpus, for the network rows.

The config is generated under a private prefix (pid, logs, temp paths), the server
runs in the foreground as our child, and `stop()` ends exactly that process.
The access log has one `URI STATUS` line per request, so rows can count requests.
"""

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

CONFIG = """\
worker_processes 1;
daemon off;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
{user}
events {{ worker_connections 1024; }}
http {{
    log_format bench '$request_uri $status';
    access_log {prefix}/access.log bench;
    client_body_temp_path {prefix}/tmp/body;
    proxy_temp_path {prefix}/tmp/proxy;
    fastcgi_temp_path {prefix}/tmp/fastcgi;
    uwsgi_temp_path {prefix}/tmp/uwsgi;
    scgi_temp_path {prefix}/tmp/scgi;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    keepalive_timeout 65;
    types {{ image/jpeg jpg jpeg; image/png png; image/gif gif; image/webp webp; }}
    default_type application/octet-stream;
    server {{
        listen 127.0.0.1:{port};
        root {root};
        location / {{ }}
    }}
}}
"""


def find_nginx():
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx")
                                          if os.access(p, os.X_OK)), None)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class NginxOrigin:
    def __init__(self, root, prefix):
        self.root = Path(root).resolve()
        self.prefix = Path(prefix).resolve()
        self.port = None
        self.process = None

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def access_log(self):
        return self.prefix / "access.log"

    def start(self):
        binary = find_nginx()
        if binary is None:
            raise RuntimeError("nginx not installed")
        (self.prefix / "tmp").mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        # Workers run as `nobody` by default when started as root; the corpus may
        # not be readable by it, and this server only ever listens on loopback.
        user = "user root;" if os.geteuid() == 0 else ""
        conf = self.prefix / "nginx.conf"
        conf.write_text(CONFIG.format(prefix=self.prefix, port=self.port, root=self.root, user=user))
        self.process = subprocess.Popen([binary, "-p", str(self.prefix), "-c", str(conf), "-e",
                                         str(self.prefix / "error.log")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("nginx exited: " + self.process.stderr.read().decode(errors="replace").strip())
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("nginx did not start listening within 10 s")

    def request_count(self, path):
        """How many requests for `path` the access log holds so far."""
        if not self.access_log.exists():
            return 0
        with open(self.access_log) as log:
            return sum(1 for line in log if line.split(" ", 1)[0] == path)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

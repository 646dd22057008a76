"""``kumo-gym serve`` on a free loopback port for the tests, and a TCP proxy that drops connections."""
from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from ..conftest import REPO


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A running ``kumo-gym serve``; its output goes to a file (``log()``), so it never blocks."""

    def __init__(self, proc: subprocess.Popen, url: str, log_path: Path):
        self.proc, self.url, self.log_path = proc, url, log_path
        self.port = int(url.rsplit(":", 1)[1])
        self.ws_url = f"ws://127.0.0.1:{self.port}/ws"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> str:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        text = self.log()
        self.log_path.unlink(missing_ok=True)
        return text


def start_server(*args: str) -> Server:
    """Start ``kumo-gym serve ARGS`` on a free loopback port and wait until it answers ``/health``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    for _ in range(3):  # a port taken between the probe and the bind: try another
        port = free_port()
        fd, name = tempfile.mkstemp(prefix="kumo-serve-", suffix=".log")
        log_path = Path(name)
        with os.fdopen(fd, "w") as out:
            proc = subprocess.Popen([sys.executable, "-m", "kumo_gym.cli", "serve", *args, "--port", str(port)],
                                    env=env, stdout=out, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 180  # a loaded machine
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(url + "/health", timeout=2) as r:
                    if r.status == 200:
                        return Server(proc, url, log_path)
            except OSError:
                time.sleep(0.2)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        out = log_path.read_text(errors="replace")
        log_path.unlink(missing_ok=True)
        if "address already in use" not in out.lower():
            raise AssertionError(f"kumo-gym serve did not start: {out[-2000:]}")
    raise AssertionError("no free port for kumo-gym serve")


class Proxy:
    """A TCP forwarder on loopback in front of a server, that can cut connections like a network:
    ``drop()`` aborts every forwarded connection (no close frame: the WebSocket sees 1006),
    ``drop_on_next_upload()`` cuts right after forwarding the client's next bytes (a request in
    flight), ``refuse(n)`` aborts the next ``n`` connections at once. ``accepted`` counts them."""

    def __init__(self, target_port: int):
        self.target_port = target_port
        self.accepted = 0
        self._refuse = 0
        self._cut_after_upload = False
        self._pairs: set[tuple] = set()
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self._server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._handle, "127.0.0.1", 0), self.loop).result(10)
        self.port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"

    async def _handle(self, reader, writer) -> None:
        self.accepted += 1
        if self._refuse:
            self._refuse -= 1
            writer.transport.abort()
            return
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        pair = (writer, up_writer)
        self._pairs.add(pair)

        async def pipe(src, dst, upload: bool) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
                    if upload and self._cut_after_upload:
                        self._cut_after_upload = False
                        self._abort(pair)  # the request went up; no reply can come back
                        return
            except (ConnectionError, OSError):
                pass
            self._abort(pair)

        await asyncio.gather(pipe(reader, up_writer, True), pipe(up_reader, writer, False))

    def _abort(self, pair) -> None:
        for w in pair:
            w.transport.abort()
        self._pairs.discard(pair)

    def _call(self, fn) -> None:
        done = threading.Event()

        def run():
            fn()
            done.set()

        self.loop.call_soon_threadsafe(run)
        done.wait(10)

    def drop(self) -> None:
        self._call(lambda: [self._abort(p) for p in list(self._pairs)])

    def drop_on_next_upload(self) -> None:
        self._call(lambda: setattr(self, "_cut_after_upload", True))

    def refuse(self, n: int) -> None:
        self._call(lambda: setattr(self, "_refuse", n))

    def close(self) -> None:
        self.drop()
        self.loop.call_soon_threadsafe(self._server.close)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)

"""A real redis-server per test, on a free loopback port, killed at the end; and a process
that meets file permissions even when the tests run as root (tests/conftest.py: unprivileged)."""
import shutil
import socket
import subprocess
import time

import pytest
import redis

from tuner.cache import reset_cache


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    def __init__(self, workdir, *extra: str):
        self.port = _free_port()
        self.password = extra[extra.index("--requirepass") + 1] if "--requirepass" in extra else None
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(workdir), *extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:  # poll until it answers PING
            try:
                if self.client().ping():
                    break
            except redis.ConnectionError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not start on port {self.port}")
                time.sleep(0.01)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, password=self.password, socket_timeout=5)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def start_redis(tmp_path):
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not installed: run `bash scripts/setup.sh`")
    servers = []

    def start(*extra: str) -> RedisServer:
        d = tmp_path / f"redis{len(servers)}"
        d.mkdir()
        servers.append(RedisServer(d, *extra))
        return servers[-1]

    yield start
    for s in servers:
        s.kill()


@pytest.fixture
def redis_server(start_redis):
    return start_redis()


@pytest.fixture
def remote(redis_server, monkeypatch):
    """The process-wide cache pointed at a fresh Redis (plus the per-test local folder)."""
    monkeypatch.setenv("TUNER_REMOTE_CACHE", redis_server.url)
    yield redis_server


@pytest.fixture(autouse=True)
def _fresh_cache():
    reset_cache()
    yield
    reset_cache()

"""HTTP calls of the test scripts: `request` builds one as the service
takes it, and `Calls` (the fault scripts, tests/faults and tests/failover)
records every answer with its timing, status, error code and Retry-After,
counts every request left without an answer, and repeats a request (the
same request, so the same Idempotency-Key) until the service answers it."""
import http.client
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from typing import NamedTuple, Optional


def request(url, method, token=None, body=None, headers=None):
    """A request to `url`: `body` sent as JSON, `token` as its bearer
    token, and `headers` besides."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    for name, value in (headers or {}).items():
        req.add_header(name, value)
    return req


class Answer(NamedTuple):
    start: float             # when the request was sent, on the Calls' clock
    seconds: float           # how long the answer took
    method: str
    path: str                # without its query
    status: int
    code: Optional[str]      # the problem's `code`, if any
    retry_after: Optional[str]


class NoAnswer(NamedTuple):
    start: float
    method: str
    path: str
    error: str


class Calls:
    """Requests to the service at `base`, recorded under one lock; `clock`
    gives the times recorded (the caller compares them with its own)."""

    def __init__(self, base, clock=time.monotonic):
        self.base = base
        self.clock = clock
        self.lock = threading.Lock()
        self.answers = []
        self.no_answer = []

    def call(self, method, path, token=None, body=None, headers=None, timeout=10):
        """(status, parsed JSON body) of one request; (None, None) when the
        connection was lost or timed out."""
        req = request(self.base + path, method, token, body, headers)
        start = self.clock()
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                status, head, raw = resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as err:
            status, head, raw = err.code, err.headers, err.read()
        except (urllib.error.URLError, ConnectionError, http.client.HTTPException, socket.timeout,
                OSError) as err:
            with self.lock:
                self.no_answer.append(NoAnswer(start, method, path, repr(err)))
            return None, None
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw
        code = parsed.get("code") if isinstance(parsed, dict) else None
        with self.lock:
            self.answers.append(Answer(start, self.clock() - start, method, path.split("?")[0], status,
                                       code, head.get("Retry-After")))
        return status, parsed

    def until_answered(self, method, path, token=None, body=None, headers=None, pause=0.25,
                       give_up_after=150.0, timeout=10):
        """The same request until an answer that is not a 503 or a lost
        connection; raises after `give_up_after` seconds."""
        deadline = time.monotonic() + give_up_after
        while time.monotonic() < deadline:
            status, parsed = self.call(method, path, token, body, headers, timeout)
            if status is not None and status != 503:
                return status, parsed
            time.sleep(pause)
        raise RuntimeError(f"{method} {path}: no answer for {give_up_after:.0f} s")

    def recorded(self):
        """A copy of the answers so far."""
        with self.lock:
            return list(self.answers)

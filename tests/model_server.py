"""A tiny OpenAI-compatible HTTP server on a free loopback port, for driving the real
LangChain/openai/httpx stack into each way a model server fails (no mock of our code).

``behaviour`` decides each answer from the request's last user message: ``answer`` (a valid
chat completion with an empty extraction), ``status`` (an OpenAI-style error with that HTTP
status), ``hang`` (never answer) or ``malformed`` (a completion that is not JSON).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Behaviour = Callable[[str], tuple[str, int]]
EMPTY = json.dumps({"entities": [], "relationships": []})


@dataclass
class ModelServer:
    """Where the server listens and what it was asked."""

    base_url: str
    requests: list[str] = field(default_factory=list)


def refused_url() -> str:
    """A loopback URL where nothing listens (the port was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _completion(content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "test-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


@contextmanager
def model_server(behaviour: Behaviour) -> Iterator[ModelServer]:
    """Serve ``behaviour`` until the block ends."""
    stop = threading.Event()
    served = ModelServer(base_url="")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            messages = body.get("messages", [])
            text = str(messages[-1].get("content", "")) if messages else ""
            served.requests.append(text)
            kind, status = behaviour(text)
            if kind == "hang":
                stop.wait(30)
                return
            if kind == "status":
                payload: dict[str, Any] = {
                    "error": {"message": f"test server says {status}", "type": "test"}
                }
            elif kind == "malformed":
                payload = _completion("this is not JSON at all")
            else:
                payload = _completion(EMPTY)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    served.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        stop.set()
        server.shutdown()
        server.server_close()

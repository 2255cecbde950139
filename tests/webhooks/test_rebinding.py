"""A receiver's host that resolved to a public address when its webhook was made, and
later to an IPv6 form of a private one (DNS rebinding): each try checks again and is
refused without a connection."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import Any

from sqlalchemy import select

from service.storage.db import db
from service.webhooks.dispatcher import Dispatcher
from service.webhooks.models import WebhookAttempt
from tests.conftest import make_app
from tests.webhooks.test_webhooks import Receiver, key_of, subscribe

TRANSITION = [
    "::ffff:127.0.0.1",  # IPv4-mapped
    "64:ff9b::7f00:1",  # NAT64, the well-known prefix
    "2002:7f00:1::",  # 6to4
    "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo, its client 127.0.0.1
    "::ffff:0:7f00:1",  # IPv4-translated
    "64:ff9b:1::a9fe:a9fe",  # local-use NAT64 (RFC 8215)
]


def test_a_host_rebound_to_an_ipv6_form_of_a_private_address_is_refused_at_each_try(
    backend: str, tmp_path: Path, receiver: Receiver, monkeypatch: Any
) -> None:
    """hooks.example resolves to a public address at the webhook's making; then, try by
    try, to each IPv6 form that carries 127.0.0.1 (or the metadata address): every try
    ends refused, naming the address, and the receiver on 127.0.0.1 hears nothing."""
    port = int(receiver.url.split(":")[2].split("/")[0])
    answer = ["93.184.216.34"]
    real = socket.getaddrinfo

    def resolver(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "hooks.example":
            return real(host, *args, **kwargs)
        family = socket.AF_INET6 if ":" in answer[0] else socket.AF_INET
        where = (answer[0], port, 0, 0) if family == socket.AF_INET6 else (answer[0], port)
        return [(family, socket.SOCK_STREAM, 6, "", where)]

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    app = make_app(backend, tmp_path, BASRA_KEY_CACHE_SECONDS=0,
                   BASRA_WEBHOOK_RETRY_SECONDS=600)
    client = app.test_client()
    key = key_of(app)
    subscribe(client, key, f"http://hooks.example:{port}/hooks", ["match.started"])
    dispatcher = Dispatcher(app)
    try:
        for n, address in enumerate(TRANSITION, start=1):
            answer[0] = address
            client.post("/v1/matches", headers=key,
                        json={"players": [{"name": "a"}, {"name": "b"}]})
            deadline = time.monotonic() + 10
            with app.app_context():
                while True:
                    dispatcher.pass_once()  # records the tries that ended, claims more
                    errors = db.session.scalars(select(WebhookAttempt.error)
                                                .order_by(WebhookAttempt.pk)).all()
                    db.session.remove()
                    if len(errors) == n:
                        break
                    assert time.monotonic() < deadline, (address, errors)
                    time.sleep(0.05)
            assert f"resolves to {address}, which is not a public address" in errors[-1]
    finally:
        dispatcher.wait()
    assert receiver.got == []

"""firebase-messaging 0.4.5, a real FCM receiving client (Home Assistant's Ring integration
uses it), unmodified, against pushmock: it checks in, registers, gets its FCM token and keeps
an MCS connection, all to Google's host names, which in_namespace.sh maps to pushmock. The
official firebase-admin (unmodified, same namespace) sends to that token. Then the client
stops, a message is sent with a TTL, and a new client started with the stored credentials
receives it (checking in again, nothing more).

Usage (inside in_namespace.sh): fcm_receiver.py [register FILE | resume FILE]
With `register`, the client registers, gets one push and saves its credentials to FILE; with
`resume` (after pushmock restarted on the same --data-dir), a client with those credentials
checks in, reconnects and gets a push sent to its old token.
Prints one JSON object with what happened; exits non-zero on any surprise.
"""
import asyncio
import json
import logging
import sys
import tempfile
import urllib.request

import firebase_admin
from firebase_admin import credentials, messaging
from firebase_messaging import FcmPushClient, FcmPushClientConfig, FcmRegisterConfig

PROJECT = "demo-pushmock"
CONTROL = f"http://127.0.0.1/emulator/v1/projects/{PROJECT}"
logging.basicConfig(level=logging.WARNING)


def control(path):
    with urllib.request.urlopen(CONTROL + path, timeout=10) as r:
        return json.load(r)


def delivered(device, count):
    """The device's MESSAGE_DELIVERED events once there are `count` (waiting up to 10 s)."""
    events = control(f"/events?device={device}&event=MESSAGE_DELIVERED&min={count}&wait=10")["events"]
    assert len(events) >= count, events
    return events


async def receive(queue):
    return await asyncio.wait_for(queue.get(), 20)


async def main(mode, path):
    out = {}
    number = control("")["number"]
    account = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump(control("/serviceAccount"), account)
    account.close()
    firebase_admin.initialize_app(credentials.Certificate(account.name))

    queue = asyncio.Queue()
    config = FcmRegisterConfig(
        project_id=PROJECT, app_id=f"1:{number}:web:0123456789abcdef", api_key="AIzaSyA-pushmock-test-key-0123456789abc",
        messaging_sender_id=number)
    saved = {}
    quick = FcmPushClientConfig(connection_retry_count=2, abort_on_sequential_error_count=None)

    def on_push(obj, persistent_id, _context):
        queue.put_nowait((obj, persistent_id))

    if mode == "resume":
        saved = json.load(open(path))
        client = FcmPushClient(on_push, config, saved, saved.update, config=quick)
        assert await client.checkin_or_register() == saved["fcm"]["registration"]["token"]
        await client.start()
        name = await asyncio.get_running_loop().run_in_executor(None, messaging.send, messaging.Message(
            token=saved["fcm"]["registration"]["token"], data={"after": "restart"}))
        obj, _ = await receive(queue)
        assert obj["data"] == {"after": "restart"}, obj
        out["resumed"] = {"send": name, "data": obj["data"]}
        await client.stop()
        print(json.dumps(out))
        return

    client = FcmPushClient(on_push, config, None, saved.update, config=quick)
    token = await client.checkin_or_register()
    assert token and token == saved["fcm"]["registration"]["token"], saved
    out["token"] = token
    out["gcm_token"] = saved["gcm"]["token"]
    await client.start()

    loop = asyncio.get_running_loop()
    send = lambda m: loop.run_in_executor(None, messaging.send, m)
    name = await send(messaging.Message(
        token=token, notification=messaging.Notification(title="Hello", body="World"), data={"k1": "v1", "n": "42"}))
    out["send"] = name
    obj, persistent_id = await receive(queue)
    assert persistent_id.startswith("0:"), persistent_id
    expected = {"data": {"k1": "v1", "n": "42"}, "from": number, "priority": "normal",
                "notification": {"title": "Hello", "body": "World"}, "fcmMessageId": obj.get("fcmMessageId")}
    assert obj == expected, obj
    out["received"] = obj

    # The client's selective ack is logged as the push's delivery to the browser it registered.
    devices = [d for d in control("/devices")["devices"] if (d.get("real_client") or {}).get("kind") == "mcs"]
    assert len(devices) == 1, devices
    browser = devices[0]["id"]
    out["acknowledged"] = len(delivered(browser, 1))
    out["client"] = devices[0]["real_client"]
    if mode == "register":
        await client.stop()
        json.dump(saved, open(path, "w"))
        print(json.dumps(out))
        return

    # Stopped, it misses a push that waits for it within its TTL; started again with its
    # stored credentials, it only checks in, logs in and gets it.
    await client.stop()
    await asyncio.sleep(0.5)
    await send(messaging.Message(
        token=token, data={"while": "away"}, webpush=messaging.WebpushConfig(headers={"TTL": "600"})))
    again = FcmPushClient(on_push, config, saved, saved.update, config=quick)
    assert await again.checkin_or_register() == token
    await again.start()
    obj, _ = await receive(queue)
    assert obj["data"] == {"while": "away"}, obj
    out["after_restart"] = obj["data"]
    out["acknowledged_after_restart"] = len(delivered(browser, 2))
    await again.stop()
    print(json.dumps(out))


asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "all", sys.argv[2] if len(sys.argv) > 2 else None))

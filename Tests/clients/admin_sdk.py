"""Drives pushmock with the official Python Admin SDK (firebase-admin 7.7.0), unmodified but
for the URLs its messaging service holds (FCM has no emulator variable, clients.md).

Usage: admin_sdk.py BASE_URL SERVICE_ACCOUNT_JSON ANDROID_TOKEN IOS_TOKEN GONE_TOKEN ANDROID_FID
Prints one JSON object with what each call returned; exits non-zero on any surprise.

The SDK's HTTP/2 path (send_each_async, on httpx) reaches the plain port as h2c: its transport
for http:// URLs is told the server speaks HTTP/2 (prior knowledge), as TLS's ALPN would.
"""
import asyncio
import json
import sys
import urllib.request
import warnings

import firebase_admin
import httpx
from firebase_admin import credentials, exceptions, messaging

warnings.simplefilter("ignore", DeprecationWarning)
base, account, android, ios, gone, fid = sys.argv[1:7]
out = {}

# The service-account OAuth flow: google-auth signs an RS256 JWT and posts it to token_uri.
cred = credentials.Certificate(account)
out["access_token_prefix"] = cred.get_access_token().access_token[:7]
assert out["access_token_prefix"] == "ya29.c.", out
app = firebase_admin.initialize_app(cred)
service = messaging._get_messaging_service(app)
project = json.load(open(account))["project_id"]
service._fcm_url = f"{base}/v1/projects/{project}/messages:send"
service._fcm_topic_url = f"{base}/v1/projects/{project}/registrations"
messaging._MessagingService.IID_URL = base
service._async_client._mounts["http://"]._wrapped_transport = httpx.AsyncHTTPTransport(retries=0, http1=False, http2=True)

name = messaging.send(messaging.Message(
    token=android, notification=messaging.Notification(title="Sale", body="Today only"),
    data={"order": "42"}, android=messaging.AndroidConfig(ttl=3600, priority="high"),
    fcm_options=messaging.FCMOptions(analytics_label="sale")))
assert name.startswith(f"projects/{project}/messages/0:"), name
out["send"] = name

silent = messaging.send(messaging.Message(
    token=ios, data={"sync": "1"},
    apns=messaging.APNSConfig(headers={"apns-priority": "5"},
                              payload=messaging.APNSPayload(aps=messaging.Aps(content_available=True)))))
out["silent"] = silent

out["fid"] = messaging.send(messaging.Message(fid=fid, data={"via": "fid"}))
assert out["fid"].startswith(f"projects/{project}/messages/0:"), out

out["dry_run"] = messaging.send(messaging.Message(token=android, data={"a": "b"}), dry_run=True)
assert out["dry_run"] == f"projects/{project}/messages/fake_message_id", out

over_h2c = asyncio.run(messaging.send_each_async([messaging.Message(token=android, data={"h2c": str(i)}) for i in range(5)]))
assert over_h2c.success_count == 5, [r.exception for r in over_h2c.responses]
out["send_each_async"] = over_h2c.success_count

batch = messaging.send_each([messaging.Message(token=android, data={"i": str(i)}) for i in range(50)])
assert batch.success_count == 50, batch.failure_count
out["send_each"] = batch.success_count

multi = messaging.send_each_for_multicast(messaging.MulticastMessage(tokens=[android, ios, gone], data={"x": "y"}))
assert multi.success_count == 2, [r.exception for r in multi.responses]
assert isinstance(multi.responses[2].exception, messaging.UnregisteredError), multi.responses[2].exception
out["multicast"] = [r.success for r in multi.responses]

assert messaging.subscribe_to_topic([android, ios], "news").success_count == 2
assert messaging.subscribe_to_topic([android], "news").success_count == 1  # already subscribed: 409 counts as success
out["topic"] = messaging.send(messaging.Message(topic="news", notification=messaging.Notification(title="Headline")))
out["condition"] = messaging.send(messaging.Message(condition="'news' in topics && !('sport' in topics)", data={"k": "v"}))
assert messaging.unsubscribe_from_topic([ios], "news").success_count == 1
legacy = messaging.subscribe_to_topic_legacy([android, gone], "legacy")
assert legacy.success_count == 1 and legacy.failure_count == 1, legacy.errors
assert messaging.unsubscribe_from_topic_legacy([android], "legacy").success_count == 1

try:
    messaging.send(messaging.Message(token=gone, data={"a": "b"}))
    raise SystemExit("an uninstalled app's token must raise UnregisteredError")
except messaging.UnregisteredError as e:
    out["unregistered"] = str(e)

try:
    messaging.send(messaging.Message(token="not-a-token", data={"a": "b"}))
    raise SystemExit("a malformed token must raise InvalidArgumentError")
except exceptions.InvalidArgumentError as e:
    out["invalid_argument"] = str(e)

try:
    messaging.send(messaging.Message(token=ios, data={"a": "b"}, apns=messaging.APNSConfig(headers={"apns-priority": "10"})))
    raise SystemExit("a high-priority data message to iOS must be rejected")
except exceptions.InvalidArgumentError as e:
    out["ios_priority"] = str(e)

# A browser: the SDK's WebpushConfig reaches the service worker merged as FCM merges it
# (docs/rendering.md, "Web").
control = f"{base}/emulator/v1/projects/{project}/devices"
register = urllib.request.Request(control, data=json.dumps({"platform": "web", "app": "https://app.example.com"}).encode(),
                                  headers={"Content-Type": "application/json"}, method="POST")
browser = json.load(urllib.request.urlopen(register))
messaging.send(messaging.Message(
    token=browser["token"], notification=messaging.Notification(title="T", body="B"),
    webpush=messaging.WebpushConfig(
        headers={"TTL": "300", "Topic": "news"}, data={"w": "1"},
        notification=messaging.WebpushNotification(
            title="Web T", icon="/i.png", require_interaction=True,
            actions=[messaging.WebpushNotificationAction("yes", "Yes")]),
        fcm_options=messaging.WebpushFCMOptions(link="https://app.example.com/n/1"))))
inbox = json.load(urllib.request.urlopen(f"{control}/{browser['id']}/notifications"))
out["web"] = inbox["notifications"][-1]["web"]

print(json.dumps(out))

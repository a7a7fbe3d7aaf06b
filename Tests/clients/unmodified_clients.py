"""The official Admin SDK and aioapns, unmodified, against pushmock as Google and Apple.

Run by in_namespace.sh, where fcm.googleapis.com, oauth2.googleapis.com and the APNs hosts
resolve to pushmock and its CA is trusted. Nothing here names pushmock: the SDKs use their
own hard-coded hosts. Prints one JSON object with what each call returned and what pushmock
logged.
"""
import asyncio
import json
import sys
import tempfile

import requests
import firebase_admin
from firebase_admin import credentials, messaging
from aioapns import APNs, NotificationRequest

CONTROL = "https://fcm.googleapis.com/emulator/v1/projects/demo-pushmock"
out = {}


def control(method, path, body=None):
    r = requests.request(method, CONTROL + path, json=body, timeout=10)
    r.raise_for_status()
    return r.json()


android = control("POST", "/devices", {"platform": "android", "app": "com.example.app"})
iphone = control("POST", "/devices", {"platform": "ios", "app": "com.example.app"})
control("POST", "/apps", {"platform": "ios", "app": "com.example.app", "apns_environments": ["sandbox"]})

# The service account pushmock issues, fetched as Google's host: its token_uri is
# https://oauth2.googleapis.com/token, the SDK's default.
account = requests.get(CONTROL + "/serviceAccount", timeout=10).json()
out["token_uri"] = account["token_uri"]
app = firebase_admin.initialize_app(credentials.Certificate(account))

out["send"] = messaging.send(messaging.Message(
    token=android["token"], notification=messaging.Notification(title="Hello", body="from send")))


async def send_async():
    msgs = [messaging.Message(token=t, data={"n": str(i)})
            for i, t in enumerate([android["token"], iphone["token"], "not-a-token"])]
    batch = await messaging.send_each_async(msgs)
    return [r.success for r in batch.responses], [r.exception.code if r.exception else None for r in batch.responses]


out["send_each_async"], out["send_each_async_errors"] = asyncio.run(send_async())
sub = messaging.subscribe_to_topic([android["token"], iphone["token"]], "news")
out["subscribe"] = [sub.success_count, sub.failure_count]
out["topic_send"] = messaging.send(messaging.Message(topic="news", data={"k": "v"}))

# aioapns with a provider key (JWT) and with a client certificate, to the sandbox host.
key = control("POST", "/apnsKeys", {})
cert = control("POST", "/apnsCertificates", {"bundle_id": "com.example.app", "environment": "sandbox"})
pem = tempfile.NamedTemporaryFile("w", suffix=".pem", delete=False)
pem.write(cert["certificate"] + cert["private_key"])
pem.close()


async def apns_pushes():
    results = {}
    jwt_client = APNs(key=key["private_key"], key_id=key["key_id"], team_id=key["team_id"],
                      topic="com.example.app", use_sandbox=True)
    ok = await jwt_client.send_notification(NotificationRequest(
        device_token=iphone["apns_token"], message={"aps": {"alert": {"title": "Hi", "body": "aioapns JWT"}}}))
    bad = await jwt_client.send_notification(NotificationRequest(
        device_token="ab" * 32, message={"aps": {"alert": "nobody"}}))
    results["jwt"] = [ok.is_successful, ok.notification_id, bad.is_successful, bad.description]
    cert_client = APNs(client_cert=pem.name, use_sandbox=True)
    ok = await cert_client.send_notification(NotificationRequest(
        device_token=iphone["apns_token"], message={"aps": {"alert": "aioapns certificate"}}))
    results["certificate"] = [ok.is_successful, ok.notification_id]
    return results


out["aioapns"] = asyncio.run(apns_pushes())

messages = control("GET", "/messages?limit=100")["messages"]
out["messages"] = [[m["api"], m["http_version"], m["tls"], m["accepted"]] for m in messages]
events = control("GET", "/events?limit=1000")["events"]
out["events"] = [[e["event"], e["message_id"], e["reason"]] for e in events]
json.dump(out, sys.stdout)

"""Drives pushmock's Web Push endpoints with real senders: pywebpush 2.5.0 and py-vapid 1.9.6,
and requests with headers made by hand where a case needs what those libraries will not send.

Usage: web_push.py BASE_URL [TLS_BASE_URL CA_FILE]
Every success and error case of docs/web-push.md for each browser's push service; exits
non-zero (an assertion) on any surprise and prints what it checked.
"""
import base64
import json
import os
import sys
import time
import urllib.parse

import http_ece
import requests
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from py_vapid import Vapid, Vapid01
from pywebpush import WebPusher, webpush

base = sys.argv[1].rstrip("/")
control = base + "/emulator/v1/projects/web-push-test"
checked = []


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def call(method, path, body=None):
    r = requests.request(method, control + path, json=body)
    assert r.status_code < 300, (method, path, r.status_code, r.text)
    return r.json()


def device(browser="chrome", key=None, **more):
    spec = {"platform": "web", "app": "https://shop.example", "browser": browser, **more}
    if key is not None:
        spec["application_server_key"] = b64(raw_public(key))
    return call("POST", "/devices", spec)


def raw_public(vapid):
    return vapid.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def new_key(cls=Vapid):
    v = cls()
    v.generate_keys()
    return v


def jwt(vapid, claims):
    """An ES256 JWT with any claims (py-vapid refuses some), signed as RFC 8292 says: raw r || s."""
    head = b64(json.dumps({"typ": "JWT", "alg": "ES256"}).encode())
    body = b64(json.dumps(claims).encode())
    der = vapid.private_key.sign(f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256()))
    r, s = decode_dss_signature(der)
    return f"{head}.{body}.{b64(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


def origin(endpoint):
    u = urllib.parse.urlparse(endpoint)
    return f"{u.scheme}://{u.netloc}"


def post(dev, data=b"hello", headers=None, vapid=None, claims=None, encoding="aes128gcm", ttl="60"):
    """A push made by hand: the body encrypted by pywebpush for the subscription, then exactly
    these headers (None leaves a header out)."""
    sub = dev["push_subscription"]
    h = {"TTL": ttl, "Content-Encoding": encoding}
    body = b""
    if data:
        encoded = WebPusher(sub).encode(data, encoding if encoding == "aesgcm" else "aes128gcm")
        body = encoded["body"]
        if encoding == "aesgcm":
            h["Encryption"] = "salt=" + encoded["salt"].decode()
            h["Crypto-Key"] = "dh=" + encoded["crypto_key"].decode()
    if vapid is not None:
        c = {"aud": origin(sub["endpoint"]), "exp": int(time.time()) + 3600, "sub": "mailto:ops@example.com"}
        c.update(claims or {})
        h["Authorization"] = f"vapid t={jwt(vapid, c)}, k={b64(raw_public(vapid))}"
    h.update(headers or {})
    return requests.post(sub["endpoint"], data=body, headers={k: v for k, v in h.items() if v is not None})


def send(dev, data, vapid=None, **kw):
    """pywebpush as an app server calls it."""
    claims = {"sub": "mailto:ops@example.com"} if vapid is not None else None
    return webpush(dev["push_subscription"], data, vapid_private_key=vapid, vapid_claims=claims, **kw)


def messages():
    return call("GET", "/messages")["messages"]


def detail(message_id):
    return call("GET", "/messages/" + urllib.parse.quote(message_id, safe=""))


def events(device_id):
    return [(e["event"], e.get("reason")) for e in call("GET", f"/events?device={device_id}")["events"]]


def error(service, r, status, text):
    """The refusal in each service's own shape (docs/web-push.md, "Answers")."""
    assert r.status_code == status, (service, r.status_code, r.text)
    if service == "chrome":
        assert r.headers["Content-Type"].startswith("text/plain"), r.headers
        assert r.text == text + "\n", (r.text, text)
    elif service == "firefox":
        body = r.json()
        assert body["code"] == status and body["errno"] == text, body
        assert body["more_info"] == "http://autopush.readthedocs.io/en/latest/http.html#error-codes", body
    else:
        assert r.json()["reason"] == text, r.text
    checked.append(f"{service} {status} {text}")


key = new_key()
other = new_key()

# 1. Each browser's subscription: pasted into pywebpush as it is, sent to with VAPID, decrypted
#    by the fake browser, shown by its service worker.
for browser, prefix in [("chrome", "/wp/"), ("firefox", "/wpush/v2/"), ("safari", "/")]:
    d = device(browser, key)
    sub = d["push_subscription"]
    assert sub["expirationTime"] is None and len(unb64(sub["keys"]["p256dh"])) == 65, sub
    assert len(unb64(sub["keys"]["auth"])) == 16, sub
    assert urllib.parse.urlparse(sub["endpoint"]).path.startswith(prefix), (browser, sub["endpoint"])
    r = send(d, json.dumps({"title": "Sale", "body": f"for {browser}"}), vapid=key, ttl=120)
    assert r.status_code == 201 and r.text == "", (browser, r.status_code, r.text)
    assert r.headers["TTL"] == "120", r.headers
    loc = r.headers["Location"]
    assert loc.startswith(origin(sub["endpoint"]) + ("/" if browser == "chrome" else "/m/")), loc
    assert ("MESSAGE_DISPLAYED", None) in events(d["id"]), events(d["id"])
    rows = call("GET", f"/events?device={d['id']}")["events"]
    assert {e["message_type"] for e in rows} == {"WEB_PUSH"}, rows  # a push only the browser reads
    m = [x for x in messages() if x["message_id"] in loc]
    assert m and m[0]["api"] == "webpush" and m[0]["summary"] == f"Sale — for {browser}", m
    det = detail(m[0]["message_id"])
    assert det["details"]["data"] == json.dumps({"title": "Sale", "body": f"for {browser}"}), det["details"]
    assert det["details"]["vapid_subject"] == "mailto:ops@example.com", det["details"]
    assert det["details"]["push_service"] == {"chrome": "fcm", "firefox": "autopush", "safari": "apple"}[browser]
    shown = det["devices"][0]["web"]["notification"]
    assert shown == {"title": "Sale", "options": {"title": "Sale", "body": f"for {browser}"}}, shown
    checked.append(f"{browser}: 201, decrypted, displayed")

# 2. Without an application server key: Chrome's GCM-style and autopush's v1 endpoints, no VAPID needed.
plain_chrome = device("chrome")
assert "/fcm/send/" in plain_chrome["push_subscription"]["endpoint"]
plain_firefox = device("firefox")
assert "/wpush/v1/" in plain_firefox["push_subscription"]["endpoint"]
assert send(plain_chrome, "no vapid", ttl=0).status_code == 201
assert send(plain_firefox, "no vapid", ttl=30).status_code == 201

# 3. The older aesgcm coding with the draft's `WebPush` scheme and Crypto-Key p256ecdsa (pywebpush + Vapid01).
old = new_key(Vapid01)
r = webpush(plain_chrome["push_subscription"], "legacy coding", vapid_private_key=old,
            vapid_claims={"sub": "mailto:ops@example.com"}, content_encoding="aesgcm", ttl=60)
assert r.status_code == 201, r.text
last = detail(r.headers["Location"].rsplit("/", 1)[1])
assert last["details"]["data"] == "legacy coding" and last["details"]["content_encoding"] == "aesgcm", last["details"]
assert any(h["name"].lower() == "authorization" and h["value"].startswith("WebPush ") for h in last["request"]["headers"])
checked.append("aesgcm with WebPush + Crypto-Key p256ecdsa: 201, decrypted")

# 4. VAPID refusals in each service's words.
chrome, firefox, safari = device("chrome", key), device("firefox", key), device("safari", key)
mismatch = ("the VAPID credentials in the authorization header do not correspond to the credentials "
            "used to create the subscriptions.")
error("chrome", post(chrome, vapid=other), 403, mismatch)
error("firefox", post(firefox, vapid=other), 401, 109)
error("safari", post(safari, vapid=other), 403, "BadJwtToken")
error("chrome", post(chrome), 401, "authorization header must be specified.")
error("firefox", post(firefox), 401, 109)
error("safari", post(safari), 403, "BadJwtToken")
for claims, why in [({"aud": "https://other.example"}, "Invalid VAPID audience"),
                    ({"exp": int(time.time()) + 25 * 3600}, "The VAPID token expiration is too long"),
                    ({"exp": int(time.time()) - 10}, "Invalid VAPID: the token has expired")]:
    r = post(firefox, vapid=key, claims=claims)
    error("firefox", r, 401, 109)
    assert r.json()["message"] == why, r.text
    error("safari", post(safari, vapid=key, claims=claims), 403, "BadJwtToken")
    assert post(chrome, vapid=key, claims=claims).status_code == 403
error("safari", post(safari, vapid=key, claims={"sub": "mailto:admin@localhost"}), 403, "BadJwtToken")
bad_sig = post(firefox, headers={"Authorization": f"vapid t={jwt(other, {'aud': origin(firefox['push_subscription']['endpoint']), 'exp': int(time.time()) + 60})}, k={b64(raw_public(key))}"})
error("firefox", bad_sig, 401, 109)
assert bad_sig.json()["message"] == "Invalid VAPID signature", bad_sig.text
error("firefox", post(firefox, headers={"Authorization": "vapid t=not-a-jwt, k=" + b64(raw_public(key))}), 401, 109)
error("firefox", post(firefox, headers={"Authorization": "vapid t=a.b.c, k=AAAA"}), 401, 109)
error("firefox", post(firefox, headers={"Authorization": "WebPush " + jwt(key, {"aud": "x", "exp": 1})}), 400, 110)
# Right key, wrong signer on an unrestricted subscription: still checked when given.
error("firefox", post(plain_firefox, vapid=key, claims={"aud": "https://other.example"}), 401, 109)

# 5. Header refusals.
error("chrome", post(chrome, vapid=key, ttl=None), 400, "TTL header must be specified.")
error("firefox", post(firefox, vapid=key, ttl=None), 400, 111)
error("firefox", post(firefox, vapid=key, ttl="soon"), 400, 111)
error("firefox", post(firefox, vapid=key, ttl="-5"), 400, 114)
error("safari", post(safari, vapid=key, ttl=None), 400, "BadExpirationDate")
error("firefox", post(firefox, vapid=key, headers={"Topic": "a" * 33}), 400, 113)
error("firefox", post(firefox, vapid=key, headers={"Topic": "no spaces"}), 400, 113)
error("chrome", post(chrome, vapid=key, headers={"Urgency": "urgent"}), 400,
      "Urgency header must be very-low, low, normal or high.")
assert post(firefox, vapid=key, headers={"Urgency": "urgent"}).status_code == 201  # autopush ignores Urgency
error("firefox", post(firefox, vapid=key, encoding=None), 400, 110)
error("firefox", post(firefox, vapid=key, encoding="gzip"), 400, 110)
error("firefox", post(firefox, vapid=key, headers={"Encryption": "salt=AAAAAAAAAAAAAAAAAAAAAA"}), 400, 110)
r = post(firefox, vapid=key, ttl="99999999999")
assert r.status_code == 201 and r.headers["TTL"] == "2592000", r.headers  # autopush caps at 30 days
r = post(chrome, vapid=key, ttl="99999999999")
assert r.status_code == 201 and r.headers["TTL"] == "2419200", r.headers  # FCM at four weeks

# 6. Size: FCM and Apple take 4096 bytes of body, autopush 5630.
big = post(chrome, vapid=key, data=b"x" * 4000)
assert big.status_code == 413, big.text
error("chrome", big, 413, "Payload is larger than 4096 bytes.")
assert post(firefox, vapid=key, data=b"x" * 5000).status_code == 201
error("firefox", post(firefox, vapid=key, data=b"x" * 5600), 413, 104)
error("safari", post(safari, vapid=key, data=b"x" * 4000), 413, "PayloadTooLarge")
assert post(chrome, vapid=key, data=b"x" * 3900).status_code == 201  # 3900 + 103 bytes of coding

# 7. A body that does not decrypt: the service answers 201, the browser drops it, the log says why.
r = post(chrome, vapid=key, headers={"Content-Encoding": "aes128gcm"}, data=b"")
assert r.status_code == 201
junk = requests.post(chrome["push_subscription"]["endpoint"], data=b"\x00" * 16 + b"\x00\x00\x10\x00\x41" + b"\x04" * 80,
                     headers={"TTL": "60", "Content-Encoding": "aes128gcm",
                              "Authorization": f"vapid t={jwt(key, {'aud': origin(chrome['push_subscription']['endpoint']), 'exp': int(time.time()) + 60})}, k={b64(raw_public(key))}"})
assert junk.status_code == 201, junk.text
assert ("MESSAGE_DROPPED", "decryption_failed") in events(chrome["id"]), events(chrome["id"])
why = detail(junk.headers["Location"].rsplit("/", 1)[1])["details"]["decryption_error"]
assert why == "sender_key_not_on_curve", why
checked.append("undecryptable: 201, MESSAGE_DROPPED(decryption_failed)")

# 8. A push that shows nothing: Chrome shows its own notice; Firefox shows nothing.
assert send(chrome, "sync-now", vapid=key, ttl=60).status_code == 201
assert ("MESSAGE_DISPLAYED", "site_updated_in_background") in events(chrome["id"])
before = events(firefox["id"]).count(("MESSAGE_DISPLAYED", "site_updated_in_background"))
assert send(firefox, "sync-now", vapid=key, ttl=60).status_code == 201
assert events(firefox["id"]).count(("MESSAGE_DISPLAYED", "site_updated_in_background")) == before == 0

# 9. A closed browser: stored for the TTL, a newer push with the same Topic replaces it, TTL 0 is dropped.
closed = device("firefox", key)
call("PATCH", f"/devices/{closed['id']}", {"online": False})
assert post(closed, vapid=key, data=b'{"title":"one"}', headers={"Topic": "score"}).status_code == 201
assert post(closed, vapid=key, data=b'{"title":"two"}', headers={"Topic": "score"}).status_code == 201
assert post(closed, vapid=key, data=b'{"title":"now or never"}', ttl="0").status_code == 201
call("PATCH", f"/devices/{closed['id']}", {"online": True})
inbox = call("GET", f"/devices/{closed['id']}/notifications")["notifications"]
assert [n["web"]["notification"]["title"] for n in inbox] == ["two"], inbox
kinds = [k for k, _ in events(closed["id"])]
assert "MESSAGE_COLLAPSED" in kinds and "MESSAGE_STORED" in kinds, kinds
assert ("MESSAGE_DROPPED", "ttl_expired") in events(closed["id"]), events(closed["id"])
checked.append("closed browser: stored, collapsed by Topic, TTL 0 not kept")

# 10. Ended subscriptions: unsubscribed, permission withdrawn; unknown endpoints.
for browser in ["chrome", "firefox", "safari"]:
    d = device(browser, key)
    call("POST", f"/devices/{d['id']}:unsubscribe")
    r = post(d, vapid=key)
    error(browser, r, 410, {"chrome": "push subscription has unsubscribed or expired.", "firefox": 106,
                            "safari": "Unregistered"}[browser])
    if browser == "chrome":
        assert len(r.content) == 47, r.content
    if browser == "firefox":
        assert r.headers["Cache-Control"] == "max-age=86400", r.headers
    if browser == "safari":
        assert isinstance(r.json()["timestamp"], int), r.text
    again = call("POST", f"/devices/{d['id']}:subscribe")
    assert again["push_subscription"]["endpoint"] != d["push_subscription"]["endpoint"]
    assert send(again, json.dumps({"title": "back"}), vapid=key, ttl=60).status_code == 201
revoked = device("chrome", key)
call("PATCH", f"/devices/{revoked['id']}", {"notifications": "denied"})
assert call("GET", f"/devices/{revoked['id']}")["push_subscription"] is None
error("chrome", post(revoked, vapid=key), 410, "push subscription has unsubscribed or expired.")
gone = {**chrome, "push_subscription": {**chrome["push_subscription"],
                                        "endpoint": chrome["push_subscription"]["endpoint"][:-4] + "AAAA"}}
r = post(gone, vapid=key)
assert r.status_code == 404 and r.text.startswith("A valid push subscription endpoint should be specified"), r.text
ff_gone = {**firefox, "push_subscription": {**firefox["push_subscription"],
                                            "endpoint": firefox["push_subscription"]["endpoint"][:-4] + "AAAA"}}
error("firefox", post(ff_gone, vapid=key), 404, 102)
r = requests.post(base + "/not-a-subscription-token", data=b"x", headers={"TTL": "0"})
assert r.status_code == 404 and "<title>Error 404 (Not Found)!!1</title>" in r.text, r.text  # Google's page, as before
r = requests.post(base + "/not-a-subscription-token", data=b"x", headers={"TTL": "0", "Host": "web.push.apple.com"})
assert r.status_code == 400 and r.json() == {"reason": "BadDeviceToken"}, r.text

# 11. RFC 8291's example (§5, Appendix A): its receiver keys and auth secret given to a device,
#     its message posted as it stands, decrypted by the fake browser to the RFC's plaintext.
rfc = call("POST", "/devices", {
    "platform": "web", "app": "https://shop.example", "browser": "firefox",
    "push_token": "gAAAAABrfc8291exampleTokenForTheTestVector",
    "push_private_key": "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94",
    "push_auth": "BTBZMqHH6r4Tts7J_aSIgg"})
assert rfc["push_subscription"]["keys"]["p256dh"] == \
    "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4", rfc
body = unb64("DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wE"
             "qKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN")
r = requests.post(rfc["push_subscription"]["endpoint"], data=body, headers={"TTL": "10", "Content-Encoding": "aes128gcm"})
assert r.status_code == 201, r.text
data = detail(r.headers["Location"].rsplit("/", 1)[1])["details"]["data"]
assert data == "When I grow up, I want to be a watermelon", data
checked.append("RFC 8291 test vector decrypted")

# 12. FCM to a Web token goes through the subscription: the JS SDK's payload, encrypted for the
#     subscription's keys and signed with the project's VAPID key, delivered by the push service.
vapid_pair = call("GET", "/webPushKey")
assert len(unb64(vapid_pair["public_key"])) == 65 and len(unb64(vapid_pair["private_key"])) == 32, vapid_pair
fcm_key = {"Authorization": "key=" + call("GET", "")["server_keys"][0]}
for browser in ["chrome", "firefox", "safari"]:
    project_key = Vapid.from_raw(vapid_pair["private_key"].encode())
    d = device(browser, project_key)  # subscribed with the project's vapidKey, as getToken does
    r = requests.post(base + "/fcm/send", headers=fcm_key, json={
        "to": d["token"], "notification": {"title": "Order", "body": "shipped", "click_action": "https://shop.example/o"},
        "data": {"order": "42"}, "collapse_key": "orders", "time_to_live": 600})
    assert r.status_code == 200 and r.json()["success"] == 1, r.text
    fcm_id = r.json()["results"][0]["message_id"]
    carrier = [m for m in messages() if m.get("forwarding") == fcm_id]
    assert len(carrier) == 1 and carrier[0]["api"] == "webpush", carrier
    det = detail(carrier[0]["message_id"])
    payload = json.loads(det["details"]["data"])
    assert payload["notification"]["title"] == "Order" and payload["data"] == {"order": "42"}, payload
    assert payload["fcmMessageId"] == fcm_id and payload["collapse_key"] == "orders" and payload["from"], payload
    assert det["details"]["ttl"] == 600 and det["details"]["topic"] == "orders", det["details"]
    # The test decrypts FCM's request itself with the subscription's private key, as the browser would.
    private = ec.derive_private_key(int.from_bytes(unb64(d["push_private_key"]), "big"), ec.SECP256R1())
    plain = http_ece.decrypt(unb64(det["details"]["body_base64url"]), private_key=private,
                             auth_secret=unb64(d["push_subscription"]["keys"]["auth"]), version="aes128gcm")
    assert json.loads(plain) == payload, plain
    auth = next(h["value"] for h in det["request"]["headers"] if h["name"].lower() == "authorization")
    assert auth.endswith("k=" + vapid_pair["public_key"]), auth
    # The FCM send's own view tells what became of it through the push that carried it.
    timeline = [e["event"] for e in detail(fcm_id)["devices"][0]["timeline"]]
    assert timeline == ["MESSAGE_ACCEPTED", "MESSAGE_DELIVERED", "MESSAGE_DISPLAYED"], timeline
    inbox = call("GET", f"/devices/{d['id']}/notifications")["notifications"][-1]["web"]
    assert inbox["payload"]["messageId"] == fcm_id and inbox["payload"]["fcmOptions"]["link"] == "https://shop.example/o", inbox
checked.append("FCM legacy to Web tokens: carried by each push service, decrypted, displayed")
# HTTP v1 too, with an OAuth token for a service account pushmock issued (google-auth).
from google.auth.transport.requests import Request as AuthRequest
from google.oauth2 import service_account
account = service_account.Credentials.from_service_account_info(
    call("GET", "/serviceAccount"), scopes=["https://www.googleapis.com/auth/firebase.messaging"])
account.refresh(AuthRequest())
web = device("chrome", Vapid.from_raw(vapid_pair["private_key"].encode()))
r = requests.post(base + "/v1/projects/web-push-test/messages:send", headers={"Authorization": "Bearer " + account.token},
                  json={"message": {"token": web["token"], "data": {"k": "v"},
                                    "webpush": {"headers": {"TTL": "90", "Urgency": "high"},
                                                "notification": {"title": "From v1", "body": "b"}}}})
assert r.status_code == 200, r.text
v1_id = r.json()["name"].rsplit("/", 1)[1]
carrier = [m for m in messages() if m.get("forwarding") and m["forwarding"].endswith(v1_id)]
assert len(carrier) == 1, (v1_id, messages()[:3])
det = detail(carrier[0]["message_id"])
private = ec.derive_private_key(int.from_bytes(unb64(web["push_private_key"]), "big"), ec.SECP256R1())
payload = json.loads(http_ece.decrypt(unb64(det["details"]["body_base64url"]), private_key=private,
                                      auth_secret=unb64(web["push_subscription"]["keys"]["auth"]), version="aes128gcm"))
assert payload["notification"]["title"] == "From v1" and payload["data"] == {"k": "v"}, payload
assert det["details"]["ttl"] == 90 and det["details"]["urgency"] == "high", det["details"]
checked.append("FCM v1 to a Web token: decrypted by the test as the JS SDK's payload")
# A subscription made with another key than the project's: the push service would refuse FCM.
stranger = device("chrome", other)
r = requests.post(base + "/fcm/send", headers=fcm_key, json={"to": stranger["token"], "data": {"a": "b"}})
assert r.json()["results"][0] == {"error": "MismatchSenderId"}, r.text
assert ("MISMATCH_SENDER_ID", "MismatchSenderId") in events(stranger["id"]), events(stranger["id"])
# The project's key can be imported, as the console's "Import existing key pair".
imported = new_key()
raw_private = imported.private_key.private_numbers().private_value.to_bytes(32, "big")
assert call("PUT", "/webPushKey", {"private_key": b64(raw_private)})["public_key"] == b64(raw_public(imported))
r = requests.put(control + "/webPushKey", json={"private_key": "AAAA"})
assert r.status_code == 400, r.text

# 13. Over TLS (Node's web-push always speaks it): a subscription made on the TLS port has an https
#     endpoint there, and pywebpush (requests, HTTP/1.1) trusts pushmock's CA.
if len(sys.argv) > 3:
    tls, ca = sys.argv[2].rstrip("/"), sys.argv[3]
    r = requests.post(tls + "/emulator/v1/projects/web-push-test/devices", verify=ca,
                      json={"platform": "web", "app": "https://shop.example", "browser": "firefox"})
    assert r.status_code == 201, r.text
    d = r.json()
    assert d["push_subscription"]["endpoint"].startswith(tls + "/wpush/v1/"), d
    os.environ["REQUESTS_CA_BUNDLE"] = ca  # as the README says for any requests-based sender
    r = webpush(d["push_subscription"], "over tls", vapid_private_key=key, vapid_claims={"sub": "mailto:ops@example.com"},
                ttl=60)
    assert r.status_code == 201, r.text
    assert detail(r.headers["Location"].rsplit("/", 1)[1])["details"]["data"] == "over tls"
    checked.append("TLS: 201, decrypted")

print(json.dumps({"checked": len(checked), "cases": checked}, ensure_ascii=False))

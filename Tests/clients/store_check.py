"""The durable log against a live pushmock (--data-dir), driven by StoreTests.

usage: store_check.py load PORT PID OUT    sends for a second, then kill -9s the server while
                                          sending; writes what was answered, and when, to OUT
       store_check.py verify DB OUT [BOUND] which answered sends the store holds, counting those
                                          answered BOUND seconds (default 0.25) before the kill;
                                          the example queries from Firebase's BigQuery docs
"""
import json
import os
import signal
import sqlite3
import sys
import time
import http.client


def load(port, pid, out):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("POST", "/emulator/v1/projects/demo-pushmock/devices", json.dumps({"platform": "android", "app": "com.example.store"}),
              {"Content-Type": "application/json"})
    token = json.loads(c.getresponse().read())["token"]
    answered = []
    start = time.monotonic()
    killed_at = None
    body = json.dumps({"to": token, "notification": {"title": "durable"}, "data": {"k": "v"}})
    headers = {"Authorization": "key=pushmock-dev-server-key", "Content-Type": "application/json"}
    while True:
        if killed_at is None and time.monotonic() - start > 1.0:
            os.kill(pid, signal.SIGKILL)
            killed_at = time.monotonic()
        try:
            c.request("POST", "/fcm/send", body, headers)
            r = json.loads(c.getresponse().read())
            answered.append([r["results"][0]["message_id"], time.monotonic()])
        except Exception:
            break
    json.dump({"answered": answered, "killed_at": killed_at}, open(out, "w"))


def verify(db, out, bound):
    run = json.load(open(out))
    con = sqlite3.connect(db)
    stored = {row[0] for row in con.execute("SELECT message_id FROM data WHERE event = 'MESSAGE_ACCEPTED'")}
    due = [m for m, t in run["answered"] if t < run["killed_at"] - bound]
    missing = [m for m in due if m not in stored]
    # Three queries from Firebase's "export FCM data to BigQuery" docs, with the table renamed
    # from `firebase_messaging.data` to `data`.
    by_type = con.execute("SELECT message_type, COUNT(*) AS count FROM data WHERE event = 'MESSAGE_ACCEPTED' "
                          "GROUP BY message_type").fetchall()
    per_day = con.execute("SELECT DATE(event_timestamp) AS date, COUNT(DISTINCT instance_id) AS instances FROM data "
                          "WHERE event = 'MESSAGE_ACCEPTED' GROUP BY 1").fetchall()
    fates = con.execute("SELECT event, COUNT(*) FROM data WHERE message_id = ? GROUP BY event ORDER BY event",
                        (due[0],)).fetchall() if due else []
    print(json.dumps({"answered": len(run["answered"]), "due": len(due), "missing": missing[:5], "stored": len(stored),
                      "by_type": by_type, "per_day": per_day, "fates": fates,
                      "integrity": con.execute("PRAGMA integrity_check").fetchone()[0],
                      "max_seq": con.execute("SELECT max(seq) FROM data").fetchone()[0]}))


if __name__ == "__main__":
    if sys.argv[1] == "load":
        load(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    else:
        # Default: the 50 ms group commit, with room for the commit itself on a busy machine.
        verify(sys.argv[2], sys.argv[3], float(sys.argv[4]) if len(sys.argv) > 4 else 0.25)

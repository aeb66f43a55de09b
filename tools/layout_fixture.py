#!/usr/bin/env python3
"""Records what a release of the service answers for every stored game of a
database it filled, for tests/api/layout.rs: the views of every seat and the
event log, as JSON. Run it against the release binary serving a COPY of the
fixture database with the fixture's JWT_SECRET:

  cp tests/data/layout-release.db /tmp/f.db
  PORT=18555 DATABASE_URL=sqlite:/tmp/f.db METRICS_ADDR=off RATE_LIMITS=off JWT_SECRET=$SECRET RELEASE_BINARY &
  tools/layout_fixture.py /tmp/f.db http://127.0.0.1:18555 $SECRET > tests/data/layout-release.json
"""
import base64, hashlib, hmac, json, sqlite3, sys, time, urllib.request

db, url, secret = sys.argv[1], sys.argv[2].rstrip("/"), sys.argv[3]

def b64(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

def token(player, generation):
    now = int(time.time())
    head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = b64(json.dumps({"sub": player, "iat": now, "exp": now + 3600,
                           "iss": "kaarttafel", "generation": generation}).encode())
    sig = hmac.new(secret.encode(), f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{b64(sig)}"

def get(path, tok):
    req = urllib.request.Request(url + path, headers={"Authorization": f"Bearer {tok}"})
    with urllib.request.urlopen(req) as answer:
        return json.load(answer)

conn = sqlite3.connect(db)
out = {}
for (gid,) in conn.execute("SELECT id FROM games ORDER BY id"):
    seats = conn.execute(
        "SELECT s.seat, p.id, p.token_generation FROM game_seats s JOIN players p ON p.id = s.player_id "
        "WHERE s.game_id = ? ORDER BY s.seat", (gid,)).fetchall()
    views = {str(seat): get(f"/v1/games/{gid}", token(pid, gen)) for seat, pid, gen in seats}
    events = get(f"/v1/games/{gid}/events", token(seats[0][1], seats[0][2]))
    out[gid] = {"views": views, "events": events}
json.dump(out, sys.stdout, sort_keys=True, separators=(",", ":"))
print()

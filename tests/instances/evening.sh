#!/usr/bin/env bash
# Club evenings' rounds start exactly once across instances (docs/events.md,
# "Rounds that run themselves"): two instances of the release binary on one
# Postgres (a fresh database on the server in TEST_DATABASE_URL) run an
# individual evening of computer players; the second instance is killed
# with SIGKILL once the evening is under way. The evening must finish, and
# every round must have been started once: its tables recorded once, and no
# other game made. Called by .ci/run after tests/instances/run.sh, reusing
# its release build. ROUNDS, PLAYERS and KILL_ROUND tune it.
set -euo pipefail
cd "$(dirname "$0")/../.."

source tests/support/instances.sh
fresh_database kt_evening
port_a=$(free_port); port_b=$(free_port)
for port in "$port_a" "$port_b"; do BOT_MOVE_MS=0 start_instance "$port"; done
wait_ready "$port_a" "$port_b"

URL_A="http://127.0.0.1:$port_a" URL_B="http://127.0.0.1:$port_b" KILL_PID="${pids[1]}" \
ROUNDS="${ROUNDS:-6}" PLAYERS="${PLAYERS:-16}" KILL_ROUND="${KILL_ROUND:-3}" python3 - <<'PY' || { tail -n 20 "$work"/instance-*.log; exit 1; }
import json, os, signal, sys, time, urllib.request

a, b = os.environ["URL_A"], os.environ["URL_B"]
rounds, players, kill_round = int(os.environ["ROUNDS"]), int(os.environ["PLAYERS"]), int(os.environ["KILL_ROUND"])

def call(base, method, path, token=None, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)

token = call(b, "POST", "/v1/players", body={"name": "Organizer"})["token"]
event = call(b, "POST", "/v1/events", token, {"name": "Two instances", "game": "klaverjassen",
             "format": "individual", "rounds": rounds, "deals": 1, "options": {"bot_delay_ms": 0}})
eid = event["id"]
call(b, "POST", f"/v1/events/{eid}/bots", token, {"count": players, "level": "basic"})
call(b, "POST", f"/v1/events/{eid}/start", token, {})
killed = False
deadline = time.time() + 600
while time.time() < deadline:
    event = call(a, "GET", f"/v1/events/{eid}", token)
    if not killed and event["round"] >= kill_round:
        os.kill(int(os.environ["KILL_PID"]), signal.SIGKILL)
        killed = True
        print(f"killed the second instance in round {event['round']}")
    if event["status"] == "finished":
        break
    time.sleep(0.05)
else:
    sys.exit(f"the evening did not finish: round {event['round']}, status {event['status']}")
if not killed:
    sys.exit("the second instance was never killed")
tables = [len(r["tables"]) for r in event["schedule"]]
if tables != [players // 4] * rounds:
    sys.exit(f"tables per round {tables}")
print(f"the evening finished: {rounds} rounds of {players // 4} tables")
with open(os.environ.get("EVENT_FILE", "/dev/null"), "w") as f:
    json.dump(event, f)
PY

# Every round started once: its tables recorded once, and no other table made.
counts=$(psql "$db_url" -tAc "SELECT count(*) || ' ' || count(DISTINCT (round, table_no)) || ' ' || (SELECT count(*) FROM games) FROM club_event_tables")
read -r recorded distinct games <<<"$counts"
expected=$(( ${ROUNDS:-6} * ${PLAYERS:-16} / 4 ))
if [ "$recorded" != "$expected" ] || [ "$distinct" != "$expected" ] || [ "$games" != "$expected" ]; then
    echo "tables recorded $recorded, distinct $distinct, games $games; expected $expected each"
    exit 1
fi
if kill -0 "${pids[1]}" 2>/dev/null; then echo "the second instance outlived SIGKILL"; exit 1; fi
echo "tests/instances/evening: passed"

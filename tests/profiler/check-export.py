#!/usr/bin/env python3
"""check-export.py — validates `lzprof export` output (run-programs.sh).

  check-export.py CHROME.json SPEEDSCOPE.json NCAPS RUNNING_NS [MARKS]

Chrome trace-event JSON: parses; a thread_name track per capability 0..NCAPS-1 and no
event on any other track; complete events have ts/dur >= 0; the running intervals' total
duration equals RUNNING_NS (lzprof threads' capability_running_ns, to the nanosecond);
MARKS (optional) instant events of the traceEvent/traceMarker categories.
speedscope: the file-format schema's required fields ($schema, shared.frames[].name,
profiles[].type/name/unit/startValue/endValue/events), one evented profile per
capability, events in time order inside [startValue, endValue], every close matching the
innermost open frame, all frames closed at the end.
"""
import json
import sys

chrome_path, ss_path, ncaps, running_ns = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
want_marks = int(sys.argv[5]) if len(sys.argv) > 5 else None
errors = []

c = json.load(open(chrome_path, encoding="utf-8"))
evs = c["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "thread_name"}
if sorted(names) != list(range(ncaps)):
    errors.append(f"chrome: tracks {sorted(names)}, want one per capability 0..{ncaps - 1}")
tids = {e["tid"] for e in evs if e["ph"] != "M"}
if not tids <= set(range(ncaps)):
    errors.append(f"chrome: events on tracks {sorted(tids - set(range(ncaps)))}, not capabilities")
run_ns = 0
for e in evs:
    if e["ph"] == "X":
        if e["ts"] < 0 or e["dur"] < 0:
            errors.append(f"chrome: negative time in {e}")
        if e["cat"] == "running":
            run_ns += round(e["dur"] * 1000)
if run_ns != running_ns:
    errors.append(f"chrome: running intervals total {run_ns} ns, lzprof threads says {running_ns}")
marks = [e for e in evs if e["ph"] == "i" and e["cat"] in ("traceEvent", "traceMarker")]
if want_marks is not None and len(marks) != want_marks:
    errors.append(f"chrome: {len(marks)} user checkpoints, want {want_marks}")

s = json.load(open(ss_path, encoding="utf-8"))
for k in ("$schema", "shared", "profiles"):
    if k not in s:
        errors.append(f"speedscope: no {k}")
if s.get("$schema") != "https://www.speedscope.app/file-format-schema.json":
    errors.append("speedscope: wrong $schema")
frames = s["shared"]["frames"]
if not all(isinstance(f.get("name"), str) for f in frames):
    errors.append("speedscope: a frame without a name")
profiles = s["profiles"]
if len(profiles) != ncaps:
    errors.append(f"speedscope: {len(profiles)} profiles, want {ncaps}")
opened = 0
for p in profiles:
    for k in ("type", "name", "unit", "startValue", "endValue", "events"):
        if k not in p:
            errors.append(f"speedscope: profile without {k}")
    if p["type"] != "evented" or p["unit"] != "nanoseconds":
        errors.append(f"speedscope: profile {p['name']}: type {p['type']}, unit {p['unit']}")
    stack, last = [], p["startValue"]
    for e in p["events"]:
        if e["at"] < last or e["at"] > p["endValue"] or not 0 <= e["frame"] < len(frames):
            errors.append(f"speedscope: {p['name']}: event out of order or range: {e}")
            break
        last = e["at"]
        if e["type"] == "O":
            stack.append(e["frame"])
            opened += 1
        elif not stack or stack.pop() != e["frame"]:
            errors.append(f"speedscope: {p['name']}: close of frame {e['frame']} does not match")
            break
    if stack:
        errors.append(f"speedscope: {p['name']}: frames left open: {stack}")
if opened == 0:
    errors.append("speedscope: no stacks at all")

for e in errors:
    print("FAIL: " + e)
print(f"exports: {len(evs)} trace events on {len(names)} tracks, {len(marks)} checkpoints; "
      f"{len(profiles)} speedscope profiles, {len(frames)} frames, {opened} stacks")
sys.exit(1 if errors else 0)

#!/usr/bin/env bash
# Part of make bench (bench/run.sh and bench/durable_scale.sh source it): each measure with a
# goal is noted as it is taken, and the run ends with every goal, its figure and whether it
# was met (the runs, pass by pass: docs/PERFORMANCE.md).

# goal WORK LABEL VALUE OP TARGET UNIT: notes one measure, unrounded (OP is >= or <=), in the
# run's work directory.
goal() {
  printf '%s\t%s\t%s\t%s\t%s\n' "$2" "$3" "$4" "$5" "$6" >>"$1/goals"
}

# goals_report WORK: the table of every goal noted in the run's work directory. Each figure is
# compared unrounded and shown rounded away from its goal (down for ≥, up for ≤), so a figure
# shown met is met.
goals_report() {
  python3 - "$1/goals" <<'PY'
import math, sys
places = {"": 3, "s": 2}
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
met = 0
print("Goals:")
for label, value, op, target, unit in rows:
    v, t = float(value), float(target)
    ok = v >= t if op == ">=" else v <= t
    met += ok
    p = places.get(unit, 0)
    shown = (math.floor if op == ">=" else math.ceil)(v * 10**p) / 10**p
    sign = "≥" if op == ">=" else "≤"
    figure = f"{shown:.{p}f} {unit}".strip()
    print(f"  {label:<44} {figure:>10}   goal {sign} {(target + ' ' + unit).strip():<8} {'met' if ok else 'NOT MET'}")
print(f"{met} of {len(rows)} goals met")
PY
}

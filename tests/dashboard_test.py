#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dashboard_test.py: contrib/grafana/nfsscope-dashboard.json is laid out
as Grafana draws it.

Panel ids are unique; every panel and every query uses the ${datasource}
variable; every panel lies within the 24 columns of Grafana's grid and no
two panels share a cell (Grafana would push one down, off the layout the
file describes); a row spans the width and is followed by its panels; each
panel has a title and its queries distinct refIds.

   dashboard_test.py DASHBOARD
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
GRID_COLUMNS = 24


def cells(p):
    g = p["gridPos"]
    return {(x, y) for x in range(g["x"], g["x"] + g["w"]) for y in range(g["y"], g["y"] + g["h"])}


def main():
    if len(sys.argv) != 2:
        print("usage: dashboard_test.py DASHBOARD", file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        d = json.load(f)
    panels = d["panels"]
    ids = [p["id"] for p in panels]
    check(len(ids) == len(set(ids)), "panel ids are unique (%s)" % ids)
    check(any(v.get("name") == "datasource" and v.get("type") == "datasource"
              for v in d["templating"]["list"]), "the dashboard has the datasource variable")
    taken = {}
    row_y = None
    for p in sorted(panels, key=lambda p: (p["gridPos"]["y"], p["gridPos"]["x"])):
        g, name = p["gridPos"], "panel %d (%s)" % (p["id"], p.get("title"))
        check(g["x"] >= 0 and g["w"] > 0 and g["x"] + g["w"] <= GRID_COLUMNS and g["h"] > 0,
              "%s lies within the grid: %r" % (name, g))
        mine = cells(p)
        under = sorted({taken[c] for c in mine if c in taken})
        check(not under, "%s overlaps %s" % (name, under))
        taken.update((c, name) for c in mine if c not in taken)
        if p["type"] == "row":
            check(g["x"] == 0 and g["w"] == GRID_COLUMNS and g["h"] == 1,
                  "%s spans the width" % name)
            row_y = g["y"]
            continue
        check(row_y is not None and g["y"] > row_y, "%s comes under a row" % name)
        check(bool(p.get("title")), "%s has a title" % name)
        check(p.get("datasource") == DATASOURCE, "%s uses ${datasource}" % name)
        refs = [t.get("refId") for t in p.get("targets", [])]
        check(refs and len(refs) == len(set(refs)), "%s: queries with distinct refIds %s"
              % (name, refs))
        for t in p.get("targets", []):
            check(t.get("datasource") == DATASOURCE and t.get("expr"),
                  "%s query %s: ${datasource} and an expression" % (name, t.get("refId")))
    print("%d panels" % len(panels))
    return finish()


if __name__ == "__main__":
    sys.exit(main())

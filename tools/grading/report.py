"""The grading report: one row per submission and stage, written as CSV, Markdown and JUnit XML,
with the totals counted from the rows, and in each whether the submissions' code ran in the
sandbox (the CSV's sandbox column, the Markdown's first line, a JUnit property)."""
import collections
import csv
import xml.etree.ElementTree as ET

FIELDS = ["submission", "chapter", "stage", "side", "status", "message", "tests", "fraction", "ceiling",
          "target", "credit", "seconds", "sandbox"]
FAILING = ("fail", "does-not-compile", "timeout", "crash", "gaming", "missing")
STATUSES = ("pass",) + FAILING + ("skip",)


def totals(rows) -> collections.Counter:
    return collections.Counter(r["status"] for r in rows)


def totals_line(rows) -> str:
    count = totals(rows)
    return ", ".join(f"{count[s]} {s}" for s in STATUSES if count[s] or s in ("pass", "fail", "skip"))


def write(rows, out, ignored: dict, seconds: dict, sandbox: str) -> None:
    """SANDBOX: the grader's one line on whether the submissions' code was confined."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "report.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        writer.writeheader()
        writer.writerows({**{k: r.get(k, "") for k in FIELDS}, "sandbox": sandbox} for r in rows)
    (out / "report.md").write_text(markdown(rows, ignored, seconds, sandbox))
    junit(rows, sandbox).write(out / "report.junit.xml", encoding="unicode", xml_declaration=True)


def cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(rows, ignored: dict, seconds: dict, sandbox: str) -> str:
    lines = ["# Grading report", "", f"**{cell(sandbox)}**", "", f"Totals: {totals_line(rows)}.", "",
             "| submission | passed | failing | skipped | performance credit | ignored files | seconds |",
             "|---|---|---|---|---|---|---|"]
    for name in dict.fromkeys(r["submission"] for r in rows):
        mine = [r for r in rows if r["submission"] == name]
        count = totals(mine)
        credits = [float(r["credit"]) for r in mine if r["credit"] != ""]
        credit = f"{sum(credits):.2f} of {len(credits)}" if credits else ""
        lines.append(f"| {cell(name)} | {count['pass']} | {sum(count[s] for s in FAILING)} | {count['skip']} | "
                     f"{credit} | {len(ignored.get(name, []))} | {seconds.get(name, 0):.0f} |")
    lines += ["", "| submission | chapter | stage | status | message | fraction of ceiling | credit |",
              "|---|---|---|---|---|---|---|"]
    for r in rows:
        fraction = f"{float(r['fraction']):.2f} of {r['ceiling']}" if r.get("fraction") != "" else ""
        lines.append(f"| {cell(r['submission'])} | {r['chapter']} | {r['stage']} | {r['status']} | "
                     f"{cell(r['message'])} | {fraction} | {r.get('credit', '')} |")
    for name, files in ignored.items():
        if files:
            shown = ", ".join(files[:8]) + (f" and {len(files) - 8} more" if len(files) > 8 else "")
            lines += ["", f"Ignored in {name} (not stage files; the instructor's are used): {cell(shown)}"]
    return "\n".join(lines) + "\n"


def junit(rows, sandbox: str) -> ET.ElementTree:
    count = totals(rows)
    suites = ET.Element("testsuites", tests=str(len(rows)), failures=str(sum(count[s] for s in FAILING)),
                        errors="0", skipped=str(count["skip"]))
    ET.SubElement(ET.SubElement(suites, "properties"), "property", name="sandbox", value=sandbox)
    for name in dict.fromkeys(r["submission"] for r in rows):
        mine = [r for r in rows if r["submission"] == name]
        mine_count = totals(mine)
        suite = ET.SubElement(suites, "testsuite", name=name, tests=str(len(mine)),
                              failures=str(sum(mine_count[s] for s in FAILING)), errors="0",
                              skipped=str(mine_count["skip"]),
                              time=f"{sum(float(r['seconds'] or 0) for r in mine):.1f}")
        for r in mine:
            case = ET.SubElement(suite, "testcase", classname=f"{name}.{r['chapter']}", name=r["stage"],
                                 time=str(r["seconds"] or 0))
            if r["status"] in FAILING:
                ET.SubElement(case, "failure", type=r["status"], message=r["message"]).text = r["message"]
            elif r["status"] == "skip":
                ET.SubElement(case, "skipped", message=r["message"])
    return ET.ElementTree(suites)

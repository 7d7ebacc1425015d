"""The grading report: one row per submission and stage, written as CSV, Markdown and JUnit XML,
with the totals counted from the rows, and in each whether the submissions' code ran in the
sandbox (the CSV's sandbox column, the Markdown's first line, a JUnit property) and the files
of each submission that differ from the instructor's checkout (the CSV's edited_files column,
a paragraph, a property of its testsuite), those that change how stages are tested or built
flagged. Every text is cut to its printable characters first (a student's name or message can
hold terminal escapes or characters XML cannot carry), then escaped for each format: Markdown's
special characters, a spreadsheet's formulas in the CSV, XML's own in the JUnit file."""
import collections
import csv
import re
import xml.etree.ElementTree as ET

from .submission import flagged, printable

FIELDS = ["submission", "chapter", "stage", "side", "status", "message", "tests", "fraction", "ceiling",
          "target", "credit", "seconds", "sandbox", "edited_files"]
FAILING = ("fail", "does-not-compile", "timeout", "crash", "gaming", "missing", "error")
WRONG = ("fail", "gaming")  # JUnit failures: the stage's code is wrong or cheats; the rest of FAILING are errors
STATUSES = ("pass",) + FAILING + ("skip",)


def totals(rows) -> collections.Counter:
    return collections.Counter(r["status"] for r in rows)


def totals_line(rows) -> str:
    count = totals(rows)
    return ", ".join(f"{count[s]} {s}" for s in STATUSES if count[s] or s in ("pass", "fail", "skip"))


def safe(text, most: int = 2000) -> str:
    """TEXT on one line, its unprintable characters as '?', at most MOST characters."""
    return printable(" ".join(str(text).splitlines()), most)


def spreadsheet(text: str) -> str:
    """TEXT as a CSV cell no spreadsheet takes for a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def write(rows, out, ignored: dict, edited: dict, seconds: dict, sandbox: str) -> None:
    """IGNORED, EDITED: submission -> its files that are no stage file, and those of them that
    differ from the checkout's; SANDBOX: the grader's one line on whether the submissions' code
    was confined."""
    rows = [{k: safe(v) if isinstance(v, str) else v for k, v in r.items()} for r in rows]
    ignored = {safe(k): [safe(f, 300) for f in v] for k, v in ignored.items()}
    edited = {safe(k): [safe(f, 300) for f in v] for k, v in edited.items()}
    seconds = {safe(k): v for k, v in seconds.items()}
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "report.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        writer.writeheader()
        writer.writerows({**{k: spreadsheet(str(r.get(k, ""))) for k in FIELDS}, "sandbox": sandbox,
                          "edited_files": spreadsheet(" ".join(edited.get(r["submission"], [])))} for r in rows)
    (out / "report.md").write_text(markdown(rows, ignored, edited, seconds, sandbox))
    junit(rows, edited, sandbox).write(out / "report.junit.xml", encoding="unicode", xml_declaration=True)


def listed(files) -> str:
    """Files as the report names them: the flagged ones first, marked."""
    return ", ".join(f"**{cell(f)}** (flagged: tests or build)" if flagged(f) else cell(f) for f in files)


def cell(text) -> str:
    """TEXT in a Markdown table, taken literally: what could end the cell, open code, emphasis or
    a link escaped, < and > as entities (no HTML)."""
    text = re.sub(r"([\\`*\[\]|])", r"\\\1", safe(text))
    return text.replace("<", "&lt;").replace(">", "&gt;")


def markdown(rows, ignored: dict, edited: dict, seconds: dict, sandbox: str) -> str:
    lines = ["# Grading report", "", f"**{cell(sandbox)}**", "", f"Totals: {totals_line(rows)}.", "",
             "| submission | passed | failing | skipped | performance credit | ignored files | seconds (build and tests) |",
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
                     f"{cell(r['message'])} | {cell(fraction)} | {r.get('credit', '')} |")
    for name, files in ignored.items():
        if files:
            changed = edited.get(name, [])
            lines += ["", f"Ignored in {cell(name)}: {len(files)} files that are no stage file (the instructor's are used); "
                          + (f"these differ from the instructor's checkout: {listed(changed)}" if changed
                             else "none differs from the instructor's checkout")]
    return "\n".join(lines) + "\n"


def junit_counts(count) -> dict:
    """JUnit's failures (wrong or cheating code), errors (the other failing statuses) and skipped."""
    wrong = sum(count[s] for s in WRONG)
    return {"failures": str(wrong), "errors": str(sum(count[s] for s in FAILING) - wrong), "skipped": str(count["skip"])}


def junit(rows, edited: dict, sandbox: str) -> ET.ElementTree:
    """One testsuite per submission, one testcase per stage (its time: its tests', without the
    build), the status first in each message."""
    suites = ET.Element("testsuites", tests=str(len(rows)), **junit_counts(totals(rows)))
    ET.SubElement(ET.SubElement(suites, "properties"), "property", name="sandbox", value=sandbox)
    for name in dict.fromkeys(r["submission"] for r in rows):
        mine = [r for r in rows if r["submission"] == name]
        suite = ET.SubElement(suites, "testsuite", name=name, tests=str(len(mine)), **junit_counts(totals(mine)),
                              time=f"{sum(float(r['seconds'] or 0) for r in mine):.1f}")
        changed = edited.get(name, [])
        properties = ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", name="edited_files", value=" ".join(changed))
        ET.SubElement(properties, "property", name="flagged_files", value=" ".join(f for f in changed if flagged(f)))
        for r in mine:
            case = ET.SubElement(suite, "testcase", classname=f"{name}.{r['chapter']}", name=r["stage"],
                                 time=str(r["seconds"] or 0))
            if r["status"] in FAILING:
                said = f"{r['status']}: {r['message']}"
                ET.SubElement(case, "failure" if r["status"] in WRONG else "error", type=r["status"], message=said).text = said
            elif r["status"] == "skip":
                ET.SubElement(case, "skipped", message=r["message"])
    return ET.ElementTree(suites)

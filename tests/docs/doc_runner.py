"""Runs the examples of a Markdown page the way a reader would type them.

Each ``## `` section is a fresh project folder with an empty ledger.  In it, in page order:

- a ```` ```trig ```` / ```` ```turtle ```` block is written to ``data<N>.trig`` and loaded with
  ``holokb load … --at 2026-01-01`` (or the time given after the fence: ```` ```trig at=2026-02-01 ````);
- a ```` ```hkr ```` block becomes ``rules/doc.hkr`` (replacing the section's previous rules);
- a ```` ```python ```` block runs in the project folder (its ``assert`` lines are the check);
- a ```` ```console ```` block holds ``$ holokb …`` lines, each followed by the output it must print:
  stdout when the command succeeds, stdout then stderr (the diagnostics) when it fails.  ``# exit N``
  after the command (``$ holokb check rules/  # exit 1``) says which exit code it must end with
  (default 0); ``# stderr`` compares stderr only (warnings of a command that succeeds).

``python3 tests/docs/doc_runner.py docs/rules.md`` prints every command's actual output (to write a page).
"""
from __future__ import annotations

import os
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

_FENCE = re.compile(r"^```(\w+)?(.*)$")


@dataclass
class Step:
    kind: str            # "data", "rules", "console"
    text: str
    line: int
    at: str = "2026-01-01"


@dataclass
class Section:
    title: str
    steps: list[Step] = field(default_factory=list)


def sections(page: str) -> list[Section]:
    out: list[Section] = []
    lines = page.splitlines()
    i = 0
    current: Section | None = None
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            current = Section(line[3:].strip())
            out.append(current)
        m = _FENCE.match(line)
        if m and current is not None and m.group(1) in ("trig", "turtle", "hkr", "console", "python"):
            lang, info = m.group(1), m.group(2)
            start = i + 1
            j = start
            while not lines[j].startswith("```"):
                j += 1
            body = "\n".join(lines[start:j]) + "\n"
            kind = {"trig": "data", "turtle": "data", "hkr": "rules", "console": "console", "python": "python"}[lang]
            at = re.search(r"at=(\S+)", info)
            current.steps.append(Step(kind, body, start, at.group(1) if at else "2026-01-01"))
            i = j
        i += 1
    return out


@dataclass(frozen=True)
class Command:
    argv: tuple[str, ...]
    exit_code: int
    expected: str
    line: int
    stderr: bool = False

    def shown(self, r) -> str:
        """What the page shows for result ``r`` of this command."""
        if self.stderr:
            return r.err
        return r.out if r.code == 0 else r.out + r.err


def commands(step: Step) -> list[Command]:
    out: list[Command] = []
    cur: list | None = None
    for k, line in enumerate(step.text.splitlines()):
        if line.startswith("$ holokb"):
            if cur:
                out.append(Command(*cur))
            code, stderr = 0, False
            cmd = line[2:]
            m = re.search(r"\s+#\s*(exit\s+(\d+)|stderr)\s*$", cmd)
            if m:
                if m.group(2):
                    code = int(m.group(2))
                else:
                    stderr = True
                cmd = cmd[:m.start()]
            cur = [tuple(shlex.split(cmd)[1:]), code, "", step.line + k, stderr]
        elif cur is not None:
            cur[2] += line + "\n"
    if cur:
        out.append(Command(*cur))
    return out


def normal(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def run_section(section: Section, folder: Path, run) -> list[tuple[Command, object]]:
    """Run every step of ``section`` in ``folder``; returns (command, result) pairs."""
    folder.mkdir(parents=True)
    (folder / "rules").mkdir()
    (folder / "empty.ttl").write_text("")
    r = run(["load", "empty.ttl", "--at", "2026-01-01"], folder)
    assert r.code == 0, r
    results = []
    n = 0
    for step in section.steps:
        if step.kind == "data":
            n += 1
            (folder / f"data{n}.trig").write_text(step.text)
            r = run(["load", f"data{n}.trig", "--at", step.at], folder)
            assert r.code == 0, (section.title, step.line, r)
        elif step.kind == "rules":
            (folder / "rules" / "doc.hkr").write_text(step.text)
        elif step.kind == "python":  # runs in the project folder; its asserts are the check
            old = Path.cwd()
            os.chdir(folder)
            try:
                exec(compile(step.text, f"<{section.title}: python at line {step.line}>", "exec"), {})
            finally:
                os.chdir(old)
        else:
            for cmd in commands(step):
                results.append((cmd, run(list(cmd.argv), folder)))
    return results


def main() -> None:
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
    from surface_support import run

    page = Path(sys.argv[1]).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        for k, sec in enumerate(sections(page)):
            for cmd, r in run_section(sec, Path(tmp) / f"s{k}", run):
                print(f"--- {sec.title} :{cmd.line} $ holokb {' '.join(shlex.quote(a) for a in cmd.argv)}  (exit {r.code})")
                print(cmd.shown(r))


def fill(path: Path) -> None:
    """Rewrite the page's console blocks with what the commands print now (review the diff!)."""
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
    from surface_support import run

    lines = path.read_text(encoding="utf-8").splitlines()
    outputs: dict[int, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for k, sec in enumerate(sections("\n".join(lines))):
            for cmd, r in run_section(sec, Path(tmp) / f"s{k}", run):
                outputs[cmd.line] = normal(cmd.shown(r))
    text, result, i = lines, [], 0
    while i < len(text):
        line = text[i]
        result.append(line)
        if line.startswith("```console"):
            j = i + 1
            while not text[j].startswith("```"):
                if text[j].startswith("$ holokb"):
                    result.append(text[j])
                    if outputs.get(j):
                        result.append(outputs[j])
                j += 1
            result.append(text[j])
            i = j
        i += 1
    path.write_text("\n".join(result) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--fill"]:
        fill(Path(sys.argv[2]))
    else:
        main()

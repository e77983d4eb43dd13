"""The documents in docs/ and the citations that point into them stay true.

- every ``docs/<name>.md`` cited in the project's files exists;
- every section citation ("docs/rules.md 2.6", "docs/cube.md section 2") names a
  numbered section that the document has, and every quoted heading citation
  (``docs/formats.md, "XGID"``) a heading it has;
- every repository path written in backticks in README.md and docs/*.md
  (``engine/rules/board.py``, ``models/tdgammon-tesauro80.pt``) exists.

Numbered sections: ``## 2. Moving checkers`` is section 2; a numbered list item
``6. ...`` (or a ``### 2.6`` heading) inside it is section 2.6.
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Where citations are looked for: the project's own text, not .venv or build output.
SCANNED_FOLDERS = ("engine", "models", "train", "tests", "notebooks", "docs", "scripts", "configs")
SCANNED_ROOT_FILES = ("README.md", "pyproject.toml")
TEXT_SUFFIXES = {".py", ".md", ".ipynb", ".toml", ".txt", ".cfg", ".json"}

# A backticked path is checked when it ends in one of these and starts with a
# top-level folder of the repository.
PATH_SUFFIXES = (".py", ".md", ".pt", ".toml", ".json", ".jsonl", ".mat", ".ipynb", ".png")

URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
# A path ending in docs/<name>.md, with whatever folders precede it (so that
# "../shared/docs/rules.md" or an absolute path is seen whole, not as docs/rules.md).
DOC_PATH = re.compile(r"(?<![\w.-])(/?(?:[\w.-]+/)*docs/[\w.-]+\.md)")
NUMBER = r"\d+(?:\.\d+)?"
SECTION_CITATION = re.compile(
    r"docs/(?P<doc>[\w.-]+)\.md`{0,2},?[ \t]+(?:sections?[ \t]+)?"
    rf"(?P<numbers>{NUMBER}(?:[ \t]*(?:,|and|with|-|–)[ \t]*{NUMBER})*)(?![\d])"
)
HEADING_CITATION = re.compile(
    r"docs/(?P<doc>[\w.-]+)\.md`{0,2}(?:,\s*|\s*\()\"(?P<title>[^\"\n]+)\""
)
BACKTICKED = re.compile(r"(?<!`)`([A-Za-z0-9_][A-Za-z0-9_./-]*)`(?!`)")


@cache
def project_files() -> tuple[str, ...]:
    """Paths (relative, posix) of the project's files: tracked or new, not ignored."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        out = [
            p.relative_to(ROOT).as_posix()
            for folder in SCANNED_FOLDERS
            for p in (ROOT / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        ] + [name for name in SCANNED_ROOT_FILES if (ROOT / name).is_file()]
    return tuple(sorted(path for path in out if (ROOT / path).is_file()))


@cache
def top_level_folders() -> frozenset[str]:
    return frozenset(path.split("/")[0] for path in project_files() if "/" in path)


def scanned_files() -> list[str]:
    return [
        path
        for path in project_files()
        if (path.split("/")[0] in SCANNED_FOLDERS or path in SCANNED_ROOT_FILES)
        and Path(path).suffix in TEXT_SUFFIXES
        and path != "tests/test_docs.py"
    ]


@cache
def text_of(path: str) -> str:
    return URL.sub("", (ROOT / path).read_text(encoding="utf-8", errors="replace"))


EXTERNAL_SOURCES = {"docs/strength_notes.md"}
"""Documents about other projects: their backticked paths name those projects' files."""


def doc_files() -> list[str]:
    docs = [p for p in project_files() if re.fullmatch(r"docs/[^/]+\.md", p)]
    return ["README.md"] + [p for p in docs if p not in EXTERNAL_SOURCES]


@cache
def sections(doc: str) -> frozenset[str]:
    """Numbered sections of docs/<doc>.md: "2" for ``## 2. ...``, "2.6" for item 6 in it."""
    found: set[str] = set()
    current = None
    in_code = False
    for line in (ROOT / "docs" / f"{doc}.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        heading = re.match(r"(#+)\s+(\d+(?:\.\d+)*)\.?\s", line)
        if heading:
            found.add(heading.group(2))
            if len(heading.group(1)) <= 2:
                current = heading.group(2).split(".")[0]
            continue
        if line.startswith("#"):
            current = None
            continue
        item = re.match(r"(\d+)\.\s", line)  # a top-level numbered list item
        if item and current is not None:
            found.add(f"{current}.{item.group(1)}")
    return frozenset(found)


@cache
def headings(doc: str) -> tuple[str, ...]:
    text = (ROOT / "docs" / f"{doc}.md").read_text(encoding="utf-8")
    return tuple(
        line.lstrip("#").strip().lower() for line in text.splitlines() if line.startswith("#")
    )


def cited_numbers(numbers: str) -> list[str]:
    """'2.2, 2.5 and 3.1-3.3' -> ['2.2', '2.5', '3.1', '3.2', '3.3']; '2-4' -> ['2', '3', '4']."""
    out: list[str] = []
    for part in re.split(r"\s*(?:,|and|with)\s*", numbers):
        ends = re.split(r"\s*[-–]\s*", part)
        if len(ends) == 2 and "." not in ends[0] + ends[1]:
            out += [str(k) for k in range(int(ends[0]), int(ends[1]) + 1)]
        elif len(ends) == 2 and ends[0].split(".")[0] == ends[1].split(".")[0] and "." in ends[0]:
            major, low = ends[0].split(".")
            out += [f"{major}.{k}" for k in range(int(low), int(ends[1].split(".")[1]) + 1)]
        else:
            out += ends
    return [n for n in out if n]


def test_there_are_files_to_check():
    files = scanned_files()
    assert "README.md" in files
    assert "docs/rules.md" in files
    assert any(path.startswith("engine/") for path in files)


def test_cited_docs_exist():
    """(a) Every docs/<name>.md cited anywhere in the project is in the repository."""
    existing = set(project_files())
    missing = []
    for path in scanned_files():
        for match in DOC_PATH.finditer(text_of(path)):
            cited = match.group(1)
            if cited.startswith("/"):
                missing.append(f"{path}: {cited} (an absolute path outside the project)")
                continue
            base = Path(path).parent if cited.startswith(("./", "../")) else Path()
            target = Path((ROOT / base / cited).resolve())
            try:
                relative = target.relative_to(ROOT).as_posix()
            except ValueError:
                missing.append(f"{path}: {cited} (outside the project)")
                continue
            if relative not in existing:
                missing.append(f"{path}: {cited}")
    assert not missing, "cited documents that do not exist:\n" + "\n".join(sorted(set(missing)))


def test_section_citations_name_existing_sections():
    """(b) "docs/rules.md 2.6" (and "docs/cube.md section 2") name real sections."""
    bad = []
    checked = 0
    for path in scanned_files():
        for match in SECTION_CITATION.finditer(text_of(path)):
            doc = match.group("doc")
            if not (ROOT / "docs" / f"{doc}.md").is_file():
                continue  # a missing document is test_cited_docs_exist's to report
            for number in cited_numbers(match.group("numbers")):
                checked += 1
                if number not in sections(doc):
                    bad.append(f"{path}: docs/{doc}.md {number}")
    assert checked > 50, f"only {checked} section citations found: is the pattern still right?"
    assert not bad, "citations of sections that do not exist:\n" + "\n".join(sorted(set(bad)))


def test_heading_citations_name_existing_headings():
    """``docs/formats.md, "XGID"`` and the like name a heading of that document."""
    bad = []
    for path in scanned_files():
        for match in HEADING_CITATION.finditer(text_of(path)):
            doc, title = match.group("doc"), match.group("title").strip().lower()
            if not (ROOT / "docs" / f"{doc}.md").is_file():
                continue
            if not any(title in heading for heading in headings(doc)):
                bad.append(f'{path}: docs/{doc}.md, "{match.group("title")}"')
    assert not bad, "citations of headings that do not exist:\n" + "\n".join(sorted(set(bad)))


def test_rules_sections_are_numbered_as_the_code_cites_them():
    expected = {str(n) for n in range(1, 9)}
    expected |= {f"2.{k}" for k in range(1, 7)} | {f"3.{k}" for k in range(1, 5)}
    assert expected <= sections("rules")


@pytest.mark.parametrize("doc", doc_files())
def test_backticked_paths_exist(doc):
    """(c) Repository paths written in backticks in README.md and docs/*.md exist."""
    existing = set(project_files())
    folders = top_level_folders()
    missing = []
    for match in BACKTICKED.finditer(text_of(doc)):
        path = match.group(1).rstrip("/")
        if "/" not in path or not path.endswith(PATH_SUFFIXES):
            continue
        if path.split("/")[0] not in folders:
            continue  # e.g. runs/x/best.pt: a user's file, not the repository's
        if path not in existing:
            missing.append(path)
    assert not missing, f"{doc} names paths that do not exist: {sorted(set(missing))}"


def test_markdown_links_resolve():
    """Relative links in README.md and docs/*.md point at files that exist."""
    missing = []
    for doc in doc_files():
        for target in re.findall(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", text_of(doc)):
            if ":" in target:
                continue
            if not (ROOT / Path(doc).parent / target).exists():
                missing.append(f"{doc}: {target}")
    assert not missing, "broken links:\n" + "\n".join(missing)
